"""A draft knows the account it was pulled from (issue 20, item 3).

Two sandboxes are both the ``local`` profile at ``http://sandbox.local`` with the same key; only their databases
differ. Pulled from A, the draft must not be diffed, pushed or pulled against B (exit 8, draft untouched, byte for
byte) unless the user re-binds it on purpose; with no target named, commands reach A, the draft's own sandbox.
Through the CLI, as a user types it, each sandbox selected by its data directory.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.draft import load_draft
from tenantdeck.sync.remote.engine import PushRefused, PushRequest, plan_draft, prepare_push
from tenantdeck.sync.remote.pull import preview_pull_target
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import local_target


def env_of(tmp_path: Path, sandbox: str) -> dict[str, str]:
    """The environment of a user whose `local` sandbox lives in ``tmp_path/sandbox`` (no profiles file)."""
    return {"TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / sandbox),
            "NO_COLOR": "1"}


def run(tmp_path: Path, sandbox: str, *args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=env_of(tmp_path, sandbox), catch_exceptions=False)


@pytest.fixture
def pulled_from_a(tmp_path: Path) -> Path:
    draft = tmp_path / "work" / "tenantdeck.yaml"
    draft.parent.mkdir()
    result = run(tmp_path, "a", "pull", "--draft", str(draft))
    assert result.exit_code == 0, result.output
    assert load_draft(draft).draft.apps  # type: ignore[union-attr]
    return draft


def snapshot(draft: Path) -> tuple[bytes, dict[str, bytes]]:
    """The draft's bytes and every file of its base, to prove a refused command touched nothing."""
    base = Workspace(draft).base_dir
    return draft.read_bytes(), {p.name: p.read_bytes() for p in sorted(base.iterdir())}


@pytest.mark.parametrize("command", [
    ["pull"], ["diff"], ["plan"], ["push", "--yes"],
])
def test_commands_pointed_at_another_sandbox_stop_and_touch_nothing(
        pulled_from_a: Path, tmp_path: Path, command: list[str]) -> None:
    before = snapshot(pulled_from_a)
    result = run(tmp_path, "b", *command, "--draft", str(pulled_from_a), "--profile", "local")
    assert result.exit_code == exitcodes.WRONG_TARGET, result.output
    assert "was pulled from the sandbox database" in result.output
    assert str(tmp_path / "a") in result.output and "you are pointing at" in result.output
    assert snapshot(pulled_from_a) == before


def test_a_base_url_from_the_environment_is_another_account_too(pulled_from_a: Path, tmp_path: Path) -> None:
    before = snapshot(pulled_from_a)
    env = {**env_of(tmp_path, "a"), "TENANTDECK_BASE_URL": "http://127.0.0.1:9", "TENANTDECK_KEY": "k",
           "TENANTDECK_SECRET": "s"}
    result = CliRunner().invoke(cli, ["pull", "--draft", str(pulled_from_a)], env=env)
    assert result.exit_code == exitcodes.WRONG_TARGET, result.output
    assert "http://127.0.0.1:9" in result.output
    assert snapshot(pulled_from_a) == before


def test_with_no_target_named_the_draft_reaches_its_own_sandbox(pulled_from_a: Path, tmp_path: Path) -> None:
    # the default `local` sandbox of this environment is B; the draft records A, and A is what diff reads
    result = run(tmp_path, "b", "diff", "--draft", str(pulled_from_a))
    assert result.exit_code == exitcodes.OK, result.output
    assert str(tmp_path / "a") in result.output
    assert not (tmp_path / "b" / "sandbox.sqlite3").exists()


def test_rebind_on_purpose_proceeds(pulled_from_a: Path, tmp_path: Path) -> None:
    b = run(tmp_path, "b", "diff", "--draft", str(pulled_from_a), "--profile", "local", "--rebind")
    # compared without the other account's base: draft and B differ (their apps' ids), so B's apps are not deleted
    assert b.exit_code in (exitcodes.OK, exitcodes.CHANGES, exitcodes.CONFLICT), b.output
    result = run(tmp_path, "b", "pull", "--draft", str(pulled_from_a), "--profile", "local", "--rebind")
    assert result.exit_code == 0, result.output
    after = run(tmp_path, "b", "diff", "--draft", str(pulled_from_a), "--profile", "local")
    assert after.exit_code == exitcodes.OK, after.output  # the draft is now B's
    back = run(tmp_path, "a", "diff", "--draft", str(pulled_from_a), "--profile", "local")
    assert back.exit_code == exitcodes.WRONG_TARGET, back.output


def test_the_editor_engine_refuses_another_account(pulled_from_a: Path, tmp_path: Path) -> None:
    """What the review (F6) and pull (F5) screens call: a refusal to show, never a plan that deletes every app."""
    other = local_target(env_of(tmp_path, "b"))
    plan = asyncio.run(plan_draft(pulled_from_a, {}, target=other))
    assert isinstance(plan, PushRefused) and plan.kind == "wrong_target"
    refused = asyncio.run(prepare_push(other, PushRequest(draft_path=pulled_from_a), {}))
    assert isinstance(refused, PushRefused) and refused.kind == "wrong_target"
    assert "you are pointing at" in refused.lines[0]
    with pytest.raises(Exception, match="was pulled from"):
        asyncio.run(preview_pull_target(other, pulled_from_a, {}, {}))
