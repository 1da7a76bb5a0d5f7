"""The demo's folder that cannot be created (a read-only HOME, a file in the way) stops ``make run``'s command and
``run-demo`` with one located line and exit 6, never a traceback (without a terminal, ``edit --demo`` points at
``run-demo``: tests/test_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import cli


@pytest.fixture
def blocked(tmp_path: Path) -> dict[str, str]:
    """A data directory under a regular file: no folder can be made there (as on a read-only HOME)."""
    (tmp_path / "file").write_text("not a folder\n")
    return {"TENANTDECK_DATA_DIR": str(tmp_path / "file" / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "cfg")}


@pytest.mark.parametrize("args", [["edit", "--demo"], ["run-demo"]])
def test_a_demo_folder_that_cannot_be_made_is_one_line_and_exit_6(args: list[str], blocked: dict[str, str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tenantdeck.console.on_terminal", lambda: True)  # past the editor's terminal check
    result = CliRunner().invoke(cli, args, env=blocked)
    assert result.exit_code == exitcodes.WRITE_FAILED, result.output
    assert result.exc_info is None or result.exc_info[0] is SystemExit, result.exc_info
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "cannot create the demo folder" in line and "TENANTDECK_DATA_DIR" in line
    assert ("--dir" in line) == (args == ["run-demo"])
    assert "Traceback" not in result.output

