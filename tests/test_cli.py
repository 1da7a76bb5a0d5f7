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
