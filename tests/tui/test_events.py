"""Pilot flows of the Events screen (F3) and Send test event (``t`` on the Webhooks tab), on real loopback sockets:
httpx posts to the screen's own receiver; the Webhooks tab sends to it with the draft's Basic Auth."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Static

from tenantdeck.models.event_samples import sample_payload
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.event_lab import EventLab
from tenantdeck.tui.screens.events_screen import EventsScreen
from tenantdeck.tui.screens.help_screen import help_text
from tenantdeck.tui.tabs.send_test_event import SendTestEvent
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tenantdeck.tui.widgets.payload_tree import PayloadTree, locate
from tests.tui.events_fixtures import DRAFT, LOCAL_HOOK, PASSWORD, USER, broken_message
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import env, prepare


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("EVENTS_DEMO_HOOK_PW", raising=False)
    return prepare(tmp_path, DRAFT)


def run(coro) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(coro)


def notices(app: TenantdeckApp) -> str:
    return "\n".join(n.message for n in app._notifications)


async def arrived(pilot: Pilot[None], lab: EventLab, count: int) -> None:
    """The receiver validates after answering: let the loop run until ``count`` requests are recorded."""
    for _ in range(400):
        if lab.receiver.count >= count:
            break
        await asyncio.sleep(0.005)
    assert lab.receiver.count >= count, f"only {lab.receiver.count} recorded"
    await pilot.pause()
    await pilot.pause()


def cells(table: DataTable[object], row: int) -> list[str]:
    return [str(c) for c in table.get_row_at(row)]


def tree_lines(tree: PayloadTree) -> list[Text]:
    out: list[Text] = []

    def walk(node) -> None:  # type: ignore[no-untyped-def]
        out.append(node.label)
        for child in node.children:
            walk(child)

    walk(tree.root)
    return out


def test_deliveries_posted_to_the_screens_receiver_show_newest_first_with_problems_on_their_nodes(
        draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        lab = EventLab(0)  # a free loopback port
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            app.event_lab = lab
            await settle(pilot)
            await pilot.press("f3")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, EventsScreen) and lab.running and lab.receiver.port != 0
            status = str(screen.query_one("#ev-status", Static).render())
            assert f"Receiving on {lab.receiver.url}" in status and f"{lab.receiver.url}/hooks" in status
            async with httpx.AsyncClient(base_url=lab.receiver.url) as client:
                assert (await client.post("/hooks", json=sample_payload("group_created"))).status_code == 200
                assert (await client.post("/hooks", json=broken_message())).status_code == 200
                assert (await client.post("/raw", content=b"{broken")).status_code == 200
                assert (await client.post("/hooks", json={"trigger": "made_up"})).status_code == 200
            await arrived(pilot, lab, 4)
            table = screen.query_one(DataTable)
            assert table.row_count == 4
            rows = [cells(table, r) for r in range(4)]
            assert [(r[1], r[2]) for r in rows] == [
                ("made_up", "unknown"), ("-", "not JSON"), ("message_sent", "invalid (2)"), ("group_created", "valid")]
            # the idempotency key, its end where the keys differ; none for what has no trigger or no key
            assert [r[3] for r in rows[:2]] == ["-", "-"] and rows[2][3].endswith("sent|101")
            tree = screen.query_one(PayloadTree)
            # the newest is shown; its problems (envelope fields missing) are listed, none dropped
            assert "made_up" in str(tree.root.label)
            table.move_cursor(row=2)
            await pilot.pause()
            labels = [str(t) for t in tree_lines(tree)]
            sent_at = next(t for t in tree_lines(tree) if str(t).startswith("sentAt"))
            assert "⚠ Input should be a valid integer" in str(sent_at)
            assert any("red" in str(span.style) for span in sent_at.spans)
            assert "sender: (missing) ⚠ is required" in labels
            assert not any("⚠" in line for line in labels if line.startswith(("id:", "receiver:")))
            problems = screen.query_one("#ev-problem-list", OptionList)
            listed = [str(problems.get_option_at_index(i).prompt) for i in range(problems.option_count)]
            assert "⚠ data.message.sender: is required" in listed
            assert any(p.startswith("⚠ data.message.sentAt:") for p in listed)
            # Enter on a problem moves the tree's cursor to its node
            problems.focus()
            problems.highlighted = next(i for i, p in enumerate(listed) if "sentAt" in p)
            await pilot.press("enter")
            await pilot.pause()
            await pilot.pause()
            assert tree.has_focus and tree.cursor_node is not None
            assert tree.cursor_node.data == ("data", "message", "sentAt")
            # the unparseable body is kept, as text
            table.focus()
            table.move_cursor(row=1)
            await pilot.pause()
            assert any("body (not JSON): {broken" in str(t) for t in tree_lines(tree))
            await pilot.press("escape")
            assert not isinstance(app.screen, EventsScreen)
        assert not lab.running  # stopped with the app

    run(flow())


def test_a_busy_port_is_said_and_a_free_one_is_used(draft: Path) -> None:
    async def flow() -> None:
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        app = make_app(draft)
        lab = EventLab(port)
        try:
            async with app.run_test(size=(80, 24), notifications=True) as pilot:
                app.event_lab = lab
                await settle(pilot)
                await pilot.press("f3")
                await pilot.pause()
                assert lab.running and lab.receiver.port not in (port, 0)
                said = notices(app)
                assert f"Port {port} is already in use" in said and lab.receiver.url in said
                async with httpx.AsyncClient() as client:
                    await client.post(f"{lab.receiver.url}/", json=sample_payload("message_sent"))
                await arrived(pilot, lab, 1)
                assert app.screen.query_one(DataTable).row_count == 1
                # stop and start again with s: the receiver is said to be stopped, then serves again
                await pilot.press("s")
                await pilot.pause()
                assert not lab.running
                assert "Not receiving" in str(app.screen.query_one("#ev-status", Static).render())
                await pilot.press("s")
                await pilot.pause()
                assert lab.running
        finally:
            busy.close()

    run(flow())


async def open_webhook(pilot: Pilot[None], row: int) -> None:
    app = pilot.app
    await settle(pilot)
    app.open_app(0, "webhooks")  # type: ignore[attr-defined]
    await settle(pilot)
    table = app.screen.query_one("#webhooks").query_one(DataTable)
    table.focus()
    table.move_cursor(row=row)
    await pilot.pause()


def test_send_test_event_to_the_events_screens_own_receiver_with_basic_auth(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVENTS_DEMO_HOOK_PW", PASSWORD)

    async def flow() -> None:
        app = make_app(draft)
        lab = EventLab(0, basic_auth=(USER, PASSWORD))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.event_lab = lab
            await settle(pilot)
            await pilot.press("f3")  # starts the receiver
            await pilot.pause()
            await pilot.press("escape")
            # the draft's webhook points at the receiver's real port
            outcome = app.editor.set(f"{LOCAL_HOOK}.webhookURL", f"{lab.receiver.url}/hooks")
            assert outcome.ok
            await open_webhook(pilot, 2)
            await pilot.press("t")
            await pilot.pause()
            modal = app.screen
            assert isinstance(modal, SendTestEvent)
            head = str(modal.query_one("#st-head", Static).render())
            assert "Basic Auth as hook (password from ${EVENTS_DEMO_HOOK_PW})" in head and PASSWORD not in head
            options = modal.query_one(OptionList)
            assert str(options.get_option_at_index(0).prompt) == "this webhook's triggers"
            assert str(options.get_option_at_index(options.highlighted or 0).prompt).strip() == "message_sent"
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert modal.result is not None and modal.error is None
            shown = str(modal.query_one("#st-result", Static).render())
            assert shown.startswith("200 OK in ") and "message_sent" in shown and '{"received": true}' in shown
            assert PASSWORD not in shown
            await arrived(pilot, lab, 1)
            await pilot.press("f3")  # from the modal: the Events screen
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, EventsScreen)
            row = cells(screen.query_one(DataTable), 0)
            assert (row[1], row[2], row[4]) == ("message_sent", "valid", "ok") and row[3].endswith("sent|101")
            delivered = lab.receiver.deliveries[-1]
            assert (delivered.auth, delivered.auth_user) == ("ok", USER)
            assert delivered.payload["webhook"] == "local" and delivered.payload["appId"] == "f14dfbf002c61e70"
            # a wrong password in the environment: the receiver answers 401, shown as such
            monkeypatch.setenv("EVENTS_DEMO_HOOK_PW", "not-the-password")
            await pilot.press("escape")
            await open_webhook(pilot, 2)
            await pilot.press("t", "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert str(app.screen.query_one("#st-result", Static).render()).startswith("401 Unauthorized")
            assert "answered 401" in notices(app)
            await arrived(pilot, lab, 2)
            assert lab.receiver.deliveries[-1].auth == "wrong"

    run(flow())


def test_an_unset_password_variable_is_said_plainly_and_nothing_is_sent(draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        lab = EventLab(0, basic_auth=(USER, PASSWORD))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.event_lab = lab
            await open_webhook(pilot, 2)
            await pilot.press("t")
            await pilot.pause()
            assert not isinstance(app.screen, SendTestEvent)
            said = notices(app)
            assert "Not sent: the Basic Auth password comes from ${EVENTS_DEMO_HOOK_PW}, which is not set" in said
            assert lab.receiver.count == 0

    run(flow())


def test_an_unreachable_url_gives_a_notification_not_a_crash(draft: Path) -> None:
    async def flow() -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()  # nobody listens there now
        app = make_app(draft)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot)
            assert app.editor.set("apps[0].webhooks[0].webhookURL", f"http://127.0.0.1:{port}/hooks").ok
            await open_webhook(pilot, 0)
            await pilot.press("t")
            await pilot.pause()
            modal = app.screen
            assert isinstance(modal, SendTestEvent)
            # the webhook's own triggers first: group_member_joined, message_sent
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert modal.result is None
            assert modal.error == f"Not delivered: cannot connect to 127.0.0.1:{port}: connection refused."
            assert modal.error in notices(app)
            assert str(modal.query_one("#st-result", Static).render()) == modal.error
            await pilot.press("escape")
            assert not isinstance(app.screen, SendTestEvent)

    run(flow())


def test_events_is_in_f1_help_the_palette_and_the_webhooks_tabs_help(draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        app.event_lab = EventLab(0, autostart=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert "| `f3` | Events |" in help_text(app.focused, app.screen)
            await pilot.press("f3")
            await pilot.pause()
            text = help_text(app.focused, app.screen)
            assert "## Events" in text and "| `s` | Receiver |" in text and "| `u` | Copy URL |" in text
            assert "Not receiving" in str(app.screen.query_one("#ev-status", Static).render())
            await pilot.press("escape")
            await open_webhook(pilot, 0)
            text = help_text(app.focused, app.screen)
            assert "send a test event" in text and "| `t` | Test event |" in text
            from tenantdeck.tui.commands import TenantdeckCommands

            provider = TenantdeckCommands(app.screen)
            assert any(name == "Events" for name, _, _ in provider.contextual())

    run(flow())


def test_locate_puts_every_problem_somewhere() -> None:
    payload = {"trigger": "x", "data": {"message": {"tags": ["a", "b"], "sentAt": "x"}}}
    found = locate(payload, ["data.message.sentAt: bad", "data.message.sender: is required",
                             "data.message.tags[5]: out", "the payload must be a JSON object, not null"])
    assert [(f.path, f.missing, f.message) for f in found] == [
        (("data", "message", "sentAt"), (), "bad"),
        (("data", "message"), ("sender",), "is required"),
        (("data", "message", "tags"), (5,), "out"),
        ((), (), "the payload must be a JSON object, not null"),
    ]
    # no payload kept (401, 413, not JSON): the problem is on the root, whole
    assert [(f.path, f.missing, f.message) for f in locate(None, ["rejected: wrong Basic Auth (answered 401)"])] == [
        ((), (), "rejected: wrong Basic Auth (answered 401)")]


def test_filters_by_trigger_and_validity_show_duplicates_and_save_a_delivery_as_json(draft: Path,
                                                                                     tmp_path: Path) -> None:
    """A retried delivery (same payload twice) is shown as a duplicate of the first with its key; f and v narrow
    the list; w saves the highlighted delivery as the JSON ``listen --json`` prints, where the prompt says."""
    import json

    fixtures = Path(__file__).parents[1] / "fixtures" / "events"
    ringing = json.loads((fixtures / "call_busy.json").read_text(encoding="utf-8"))
    legacy = json.loads((fixtures / "legacy.before_message.json").read_text(encoding="utf-8"))

    async def flow() -> None:
        app = make_app(draft)
        lab = EventLab(0)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.event_lab = lab
            await settle(pilot)
            await pilot.press("f3")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, EventsScreen)
            async with httpx.AsyncClient(base_url=lab.receiver.url) as client:
                for payload in (ringing, broken_message(), ringing, legacy):
                    assert (await client.post("/hooks", json=payload)).status_code == 200
            await arrived(pilot, lab, 4)
            table = screen.query_one(DataTable)
            rows = [cells(table, r) for r in range(table.row_count)]
            assert [(r[1], r[2]) for r in rows] == [("before_message", "legacy"), ("call_busy", "dup of #1"),
                                                    ("message_sent", "invalid (2)"), ("call_busy", "valid")]
            table.move_cursor(row=1)
            await pilot.pause()
            problems = screen.query_one("#ev-problem-list", OptionList)
            listed = [str(problems.get_option_at_index(i).prompt) for i in range(problems.option_count)]
            assert "key <webhookId>|call_busy|43414|1744960250 · duplicate of #1" in listed
            await pilot.press("v")  # valid only
            assert [cells(table, r)[1] for r in range(table.row_count)] == ["before_message", "call_busy",
                                                                            "call_busy"]
            await pilot.press("v")  # invalid only
            assert [cells(table, r)[2] for r in range(table.row_count)] == ["invalid (2)"]
            await pilot.press("v", "v")  # duplicates, then all again
            assert screen.validity_filter == "all" and table.row_count == 4
            await pilot.press("f")  # the first trigger received
            assert screen.trigger_filter == "call_busy"
            assert [cells(table, r)[2] for r in range(table.row_count)] == ["dup of #1", "valid"]
            assert "trigger: call_busy (f)" in str(screen.query_one("#ev-status", Static).render())
            target = tmp_path / "saved.json"
            await pilot.press("w")
            await pilot.pause()
            prompt = app.screen.query_one("#save-path")
            assert prompt.value == "delivery-3.json"  # type: ignore[attr-defined]
            prompt.value = str(target)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            saved = json.loads(target.read_text(encoding="utf-8"))
            assert saved["seq"] == 3 and saved["duplicate_of"] == 1 and saved["payload"] == ringing
            assert saved["idempotency_key"] == "<webhookId>|call_busy|43414|1744960250"
            assert f"Saved delivery #3 to {target}" in notices(app)
            for answer, kept in (("n", True), ("y", False)):  # the same path again: asked, not replaced unseen
                target.write_text("mine", encoding="utf-8")
                await pilot.press("w")
                await pilot.pause()
                app.screen.query_one("#save-path").value = str(target)  # type: ignore[attr-defined]
                await pilot.press("enter")
                await pilot.pause()
                assert isinstance(app.screen, ConfirmScreen), app.screen
                await pilot.press(answer)
                await pilot.pause()
                assert (target.read_text(encoding="utf-8") == "mine") is kept
                assert isinstance(app.screen, EventsScreen)
            assert f"Not saved: {target} kept as it was." in notices(app)
            await pilot.press("f", "f", "f")  # message_sent, before_message, then all again
            assert screen.trigger_filter is None and table.row_count == 4

    run(flow())
