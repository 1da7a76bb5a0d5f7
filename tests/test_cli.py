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
    monkeypatch.setattr(launch, "on_terminal", lambda: True)
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


def test_without_a_terminal_the_editor_says_what_to_run_instead(tmp_path: Path) -> None:
    """A CI job running `tenantdeck` (stdin and stdout not a terminal) must not wait forever for keys: exit 64
    with the commands that work without one, whichever way the editor is asked for."""
    import subprocess
    import sys

    (tmp_path / "tenantdeck.yaml").write_text("format: 1\napps: []\n")
    for args in ([], ["edit"], ["edit", "tenantdeck.yaml"], ["edit", "--demo"]):
        out = subprocess.run([sys.executable, "-m", "tenantdeck", *args], cwd=tmp_path, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
        assert out.returncode == exitcodes.USAGE, (args, out.stderr)
        instead = "tenantdeck run-demo" if "--demo" in args else "tenantdeck validate"  # the demo's draft is not here
        assert "needs a terminal" in out.stderr and instead in out.stderr, out.stderr
        assert "Traceback" not in out.stderr and out.stdout == ""


def test_shell_completion_prints_the_script_and_completes_commands(tmp_path: Path) -> None:
    """`_TENANTDECK_COMPLETE=bash_source tenantdeck` is click's completion protocol, even where ./tenantdeck.yaml
    exists (it used to open the editor); `tenantdeck completion SHELL` prints the same script."""
    import os
    import subprocess
    import sys

    (tmp_path / "tenantdeck.yaml").write_text("format: 1\napps: []\n")

    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tenantdeck", *args], cwd=tmp_path, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, env=os.environ | env, timeout=60, check=False)

    sourced = run(_TENANTDECK_COMPLETE="bash_source")
    assert sourced.returncode == 0 and "_tenantdeck_completion()" in sourced.stdout, sourced.stderr
    assert run("completion", "bash").stdout == sourced.stdout
    assert "#compdef tenantdeck" in run("completion", "zsh").stdout
    assert "complete --no-files --command tenantdeck" in run("completion", "fish").stdout
    assert run("completion", "tcsh").returncode == exitcodes.USAGE
    words = run(_TENANTDECK_COMPLETE="bash_complete", COMP_WORDS="tenantdeck va", COMP_CWORD="1")
    assert words.stdout.split() == ["plain,validate"]
