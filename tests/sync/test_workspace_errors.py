"""Issue 19 item 7: a ``.tenantdeck`` that is a plain file, a dangling link, unreadable, or from a newer format
version gives one clear error line and exit code 1 from diff, plan, push and history, never a traceback."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.sync.workspace.state import Workspace

DRAFT = 'format: 1\napps:\n  - name: Acme\n    id: app1\n    region: us\n    version: "3"\n'


def plain_file(draft: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (draft.parent / ".tenantdeck").write_text("not a directory\n")
    return "is a file, not a directory"


def dangling_link(draft: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (draft.parent / ".tenantdeck").symlink_to(draft.parent / "gone")
    return "which does not exist"


def unreadable(draft: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    root = Workspace(draft).root
    root.mkdir(parents=True)
    real = os.access

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        # root may read anything: the check asks the system, so the test asks it to answer as for a user
        if os.fspath(path) == str(root):  # type: ignore[arg-type]
            return False
        return real(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    return "permission denied"


def newer_format(draft: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    workspace = Workspace(draft)
    workspace.base_dir.mkdir(parents=True)
    workspace.secret_key()
    (workspace.base_dir / "app1.json").write_text(json.dumps({"format": 99, "app": {"id": "app1"}}))
    return "written by a newer tenantdeck (format 99"


COMMANDS = {
    "diff": ["diff", "--offline"],
    "plan": ["plan", "--base-url", "http://127.0.0.1:9"],
    "push": ["push", "--yes", "--base-url", "http://127.0.0.1:9", "--lock-timeout", "0"],
    "history": ["history"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("breakage", [plain_file, dangling_link, unreadable, newer_format],
                         ids=lambda f: f.__name__)
def test_a_broken_workspace_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str,
    breakage: Callable[[Path, pytest.MonkeyPatch], str],
) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(DRAFT)
    if breakage is newer_format and command == "history":
        pytest.skip("history reads no base snapshot")
    expected = breakage(draft, monkeypatch)
    monkeypatch.chdir(tmp_path)
    args = [*COMMANDS[command], "--draft", str(draft)]
    env = {"TENANTDECK_KEY": "k", "TENANTDECK_SECRET": "s"}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == exitcodes.ERROR, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expected in errors[0], result.output
