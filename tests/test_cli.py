"""The command line's contract: usage errors exit 64, other failures print one `error:` line and exit 1."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import COMMANDS, cli


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["bogus"])
    assert result.exit_code == exitcodes.USAGE and "No such command 'bogus'" in result.output


def test_bad_option_value_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["validate", "--format", "xml"])
    assert result.exit_code == exitcodes.USAGE


def test_a_failure_is_one_error_line(tmp_path: Path) -> None:
    env = {"TENANTDECK_CONFIG_DIR": str(tmp_path), "TENANTDECK_DATA_DIR": str(tmp_path)}
    result = CliRunner().invoke(cli, ["pull", "--profile", "nope", "--draft", str(tmp_path / "d.yaml")], env=env)
    assert result.exit_code == exitcodes.ERROR
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert "Traceback" not in result.output


def test_every_registered_command_exists_and_has_help() -> None:
    runner = CliRunner()
    for name in COMMANDS:
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Usage: " in result.output


def test_the_console_script_opens_an_existing_draft_without_click(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``tenantdeck`` and ``tenantdeck edit DRAFT`` skip click (tenantdeck.launch); every other form is click's."""
    import subprocess
    import sys
    import tomllib

    from tenantdeck import launch
    from tenantdeck.cli.options import DEFAULT_DRAFT

    assert launch.DEFAULT_DRAFT == DEFAULT_DRAFT
    root = Path(__file__).resolve().parent.parent
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tenantdeck"] == "tenantdeck.launch:main"
    monkeypatch.chdir(tmp_path)
    draft = tmp_path / "team.yaml"
    draft.write_text("format: 1\napps: []\n")
    assert launch.direct_edit(["edit", "team.yaml"]) == Path("team.yaml")
    assert launch.direct_edit([]) is None and launch.direct_edit(["edit"]) is None  # no ./tenantdeck.yaml: the prompt
    (tmp_path / DEFAULT_DRAFT).write_text("format: 1\napps: []\n")
    assert launch.direct_edit([]) == Path(DEFAULT_DRAFT) == launch.direct_edit(["edit"])
    for other in (["edit", "--demo"], ["edit", "missing.yaml"], ["edit", "team.yaml", "--events-port", "0"],
                  ["edit", "--help"], ["validate", "team.yaml"], ["--version"], ["edit", "--draft", "team.yaml"]):
        assert launch.direct_edit(other) is None, other
    # what is not taken goes to the command line as before, with its exit codes
    out = subprocess.run([sys.executable, "-m", "tenantdeck", "validate", "team.yaml"], capture_output=True,
                         text=True, check=False)
    assert out.returncode == exitcodes.OK and "team.yaml: valid" in out.stderr
    out = subprocess.run([sys.executable, "-m", "tenantdeck", "frobnicate"], capture_output=True, text=True,
                         check=False)
    assert out.returncode == exitcodes.USAGE
