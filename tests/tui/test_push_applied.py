"""Issue 20 items 6 and 7, through the real editor against the in-process sandbox: a push that needs an unset
``${VAR}`` is greyed out in the review with the variable and its FILE:LINE named (and nothing is sent); after a
push, the review lists each operation it sent with its outcome, and the history (screen and CLI) lists them too,
recorded without a value. Pictures at 80x24 of the review after a push, of the history's operations and of the
review with push greyed out."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot

from tenantdeck.cli import cli
from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.sync.workspace.history import operation_rows, read_history, render_history_text
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.history_screen import HistoryScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tenantdeck.tui.widgets.footer import KeyFooter
from tests.tui.pilot import make_app, settle

VAR = "TD_TICKETS_HOOK_PW"
PASSWORD = "Qx7ticketsHookZp4"  # what the environment holds: never shown, never recorded
NEW_HOOK = f"""    webhooks:
      - id: tickets
        name: Ticket events
        webhookURL: https://initech.example/hooks/tickets
        enabled: true
        triggers: [message_sent]
        useBasicAuth: true
        username: initech
        password: ${{{VAR}}}
"""
#: the three steps the draft below plans, as the review and the history label them
STEPS = [("Acme Support", 'update webhook "Order events" (orders)'),
         ("Initech Field Chat", 'create webhook "Ticket events" (tickets)'),
         ("Initech Field Chat", "add triggers of webhook tickets")]


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sandbox account pulled, then (on disk, saved) Acme's "orders" webhook disabled and a webhook with a
    password from ``${VAR}`` added to Initech, which had none."""
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("USER", "admin")
    for var in ("TENANTDECK_BASE_URL", "NO_COLOR", "TENANTDECK_SANDBOX_FAIL_RATE", "TENANTDECK_SANDBOX_RNG_SEED",
                "TENANTDECK_SANDBOX_LATENCY_MS", "TENANTDECK_SANDBOX_RETRY_AFTER", VAR):
        monkeypatch.delenv(var, raising=False)
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)
    text = path.read_text(encoding="utf-8")
    orders = "name: Order events\n        webhookURL: https://hooks.acme.example/chat/orders\n        enabled: true\n"
    assert text.count(orders) == 1 and text.count("    webhooks: []\n") == 1
    text = text.replace(orders, orders.replace("enabled: true", "enabled: false"))
    path.write_text(text.replace("    webhooks: []\n", NEW_HOOK), encoding="utf-8")
    return path


def sandbox_hooks(app_name: str) -> list[str]:
    async def hooks() -> list[str]:
        async with local_target().client() as c:
            app = next(a for a in await c.list_apps() if a.name == app_name)
            return [str(h.get("id")) for h in await c.list_webhooks(app.id)]

    return asyncio.run(hooks())


def rows(table: Any) -> list[tuple[str, ...]]:
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def open_review(pilot: Pilot[None]) -> ReviewScreen:
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.plan is not None
    screen.request_options = {"concurrency": 1}  # one operation at a time: the result lists them in plan order
    screen.clock = lambda: 0.0  # type: ignore[method-assign]
    return screen


async def push(pilot: Pilot[None], screen: ReviewScreen) -> None:
    await pilot.press("p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)
    assert screen.last_result is not None and screen.last_result.complete, screen.query_one("#status").render()


# -- item 6: a push that needs an unset variable is off, with the reason -----------------------------------------


def test_push_is_greyed_out_before_p_while_a_variable_it_needs_is_unset(draft: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    line = next(n for n, text in enumerate(draft.read_text().splitlines(), 1) if f"${{{VAR}}}" in text)
    asyncio.run(_greyed_out(draft, line, monkeypatch))
    assert sandbox_hooks("Initech Field Chat") == [], "nothing was sent"
    assert not Workspace(draft).history_path.exists(), "no push was recorded"


async def _greyed_out(draft: Path, line: int, monkeypatch: pytest.MonkeyPatch) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        needs = str(screen.query_one("#needs").render())
        assert f"${{{VAR}}}  {draft.name}:{line}  apps[2].webhooks[0].password" in needs, needs
        assert screen.query_one("#needs").display
        assert screen.check_action("push", ()) is None  # greyed, not hidden: the footer still shows "Push"
        footer = app.screen.query_one(KeyFooter)
        keys = {key.action: key for key in footer.entries}
        assert "push" in keys and not keys["push"].enabled
        rings: list[bool] = []
        monkeypatch.setattr(app, "bell", lambda: rings.append(True))
        await pilot.click(KeyFooter, offset=(next(s for s, _e, k in footer._spans if k.action == "push"), 0))
        await settle(pilot)
        assert rings and app.screen is screen, "a click on the greyed key rings and does nothing"

        await pilot.press("p")
        await settle(pilot)
        assert app.screen is screen, "no confirmation: the key does nothing while the push cannot run"
        assert screen._push_worker is None and screen.last_result is None

        screen.action_push()  # the palette's way in: refused with the same reason, nothing started
        await settle(pilot)
        assert app.screen is screen and screen._push_worker is None

        monkeypatch.setenv(VAR, PASSWORD)  # the variable set: the next plan turns push back on
        await pilot.press("r")
        await settle(pilot)
        assert not screen.missing and not screen.query_one("#needs").display
        assert screen.check_action("push", ()) is True
        assert PASSWORD not in needs


# -- item 7: what a push applied, in the review and in the history ------------------------------------------------


def test_after_a_push_the_review_and_the_history_list_each_operation_and_its_outcome(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VAR, PASSWORD)
    asyncio.run(_applied(draft))
    assert "tickets" in sandbox_hooks("Initech Field Chat")

    history = Workspace(draft).history_path
    assert PASSWORD not in history.read_text()
    (record,) = read_history(history)
    assert record["operations"] == [
        {"kind": "update_webhook", "app": "Acme Support", "resource": 'webhook "Order events" (orders)',
         "outcome": "applied"},
        {"kind": "create_webhook", "app": "Initech Field Chat", "resource": 'webhook "Ticket events" (tickets)',
         "outcome": "applied"},
        {"kind": "add_triggers", "app": "Initech Field Chat", "resource": "triggers of webhook tickets",
         "outcome": "applied"}]

    out = CliRunner().invoke(cli, ["history", str(draft)])
    assert out.exit_code == 0, out.output
    for app_name, label in STEPS:
        assert f"    applied       {app_name}: {label}" in out.output, out.output


async def _applied(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        assert not screen.missing and screen.check_action("push", ()) is True
        await push(pilot, screen)
        result = str(screen.query_one("#result").render())
        assert result.splitlines() == ["Push complete: 3 applied, 0 failed, 0 not attempted."] + [
            f"  applied       {app_name}: {label}" for app_name, label in STEPS], result

        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        ops = rows(app.screen.query_one("#operations"))
        assert [(o, a) for o, a, _ in ops] == [("applied", a) for a, _ in STEPS]
        assert all(label.startswith(cell.rstrip("…")) for (_, _, cell), (_, label) in zip(ops, STEPS, strict=True))
        for table in app.screen.query("DataTable"):  # 80 columns hold every column: nothing scrolls sideways
            assert table.virtual_size.width <= table.size.width, (table.id, table.virtual_size, table.size)


def test_a_history_record_from_before_operations_were_recorded_is_still_shown(tmp_path: Path) -> None:
    """An older tenantdeck's record has no ``operations``: the CLI prints it as before, and the screen falls back
    to the push's journal, naming each step by its resource (not the app id on every row)."""
    from tenantdeck.tui.screens.history_screen import operation_rows as screen_rows

    journal = tmp_path / "push.jsonl"
    journal.write_text("\n".join(json.dumps(r) for r in [
        {"event": "start", "plan_hash": "ab12"},
        {"event": "intent", "op": "k1", "kind": "update_webhook", "app_id": "770e", "app_name": "Acme",
         "rid": "orders"},
        {"event": "done", "op": "k1", "kind": "update_webhook", "app_id": "770e", "app_name": "Acme",
         "rid": "orders"},
        {"event": "failed", "op": "k2", "kind": "create_widget", "app_id": "770e", "app_name": "Acme",
         "rid": "new:Help", "error": "HTTP 500"}]) + "\n")
    old = {"who": "ops", "when": "2026-01-02T03:04:05+00:00", "profile": "local", "plan_hash": "ab12",
           "counts": {"applied": 1, "failed": 1, "not_attempted": 0}, "result": "partial", "journal": str(journal)}
    assert operation_rows(old) is None
    assert "applied=1 failed=1" in render_history_text([old])
    assert screen_rows(old, tmp_path) == [("intent", "Acme", "update webhook orders"),
                                          ("done", "Acme", "update webhook orders"),
                                          ("failed", "Acme", "create widget new:Help: HTTP 500")]
    assert screen_rows({**old, "journal": str(tmp_path / "gone.jsonl")}, tmp_path) == []
    # a history arrives with a pull request too: the journal it names is read only in the draft's folder (L3)
    assert screen_rows(old, tmp_path / "repo") == []


# -- pictures -------------------------------------------------------------------------------------------------------


async def pushed_scene(pilot: Pilot[None]) -> None:
    screen = await open_review(pilot)
    await push(pilot, screen)
    for _ in range(20):  # the push's validation broadcasts a change, which plans once more: wait for it
        await settle(pilot)
        if not any(not w.is_finished for w in pilot.app.workers):
            break
    pilot.app.clear_notifications()
    await settle(pilot)


async def history_scene(pilot: Pilot[None]) -> None:
    await pushed_scene(pilot)
    # the plan's hash covers the app ids the sandbox made up at random: the one recorded is swapped for a fixed one
    path = Workspace(pilot.app.editor.path).history_path  # type: ignore[attr-defined]
    path.write_text("".join(json.dumps({**r, "plan_hash": "0123456789abcdef"}) + "\n" for r in read_history(path)))
    await pilot.press("f7")
    await settle(pilot)


async def needs_scene(pilot: Pilot[None]) -> None:
    await open_review(pilot)
    pilot.app.clear_notifications()
    await settle(pilot)


SCENES = {"review-pushed": pushed_scene, "history-operations": history_scene, "review-needs-variable": needs_scene}


@pytest.mark.parametrize("name", list(SCENES))
def test_push_applied_picture(name: str, draft: Path, snap_compare: Any,  # type: ignore[no-untyped-def]
                              monkeypatch: pytest.MonkeyPatch) -> None:
    import tenantdeck.sync.workspace.history as history

    if name != "review-needs-variable":
        monkeypatch.setenv(VAR, PASSWORD)
    monkeypatch.setattr(history, "now", lambda: datetime(2026, 11, 20, 17, 42, 9, tzinfo=UTC))
    assert snap_compare(make_app(draft), terminal_size=(80, 24), run_before=SCENES[name])
