"""Pilot flows of the Webhooks tab and its form: every edit checked on the session and in the saved file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from tenantdeck.tui.tabs.webhook_form import TriggerList, WebhookForm
from tenantdeck.tui.tabs.webhooks_tab import WebhooksTab
from tests.tui.hooks_fixtures import DRAFT, draft_path, open_tab, type_text
from tests.tui.pilot import make_app

__all__ = ["draft_path"]


def run(coro) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(coro)


def message(form: WebhookForm, key: str) -> str:
    box = form.query_one(f"#wf-msg-{key}", Static)
    return str(box.render()) if box.display else ""


@pytest.mark.slow
def test_add_a_webhook_with_a_bad_url_fix_it_and_save(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("a")
            form = app.screen
            assert isinstance(form, WebhookForm)
            assert message(form, "id") == ""  # a new, empty form does not open in red
            await type_text(pilot, "crm1")
            await pilot.press("tab")
            await type_text(pilot, "CRM sync")
            await pilot.press("tab")
            await type_text(pilot, "http://crm.example/hook")
            assert "must use https://" in message(form, "webhookURL")
            await pilot.press("f2")  # refused while a field has an error
            assert app.screen is form
            assert form.query_one("#wf-webhookURL", Input).has_focus
            form.query_one("#wf-webhookURL", Input).value = ""
            await type_text(pilot, "https://crm.example/hook")
            assert message(form, "webhookURL") == ""
            form.query_one("#wf-filter", Input).focus()
            await type_text(pilot, "group_created")
            await pilot.press("enter")  # to the list
            assert form.query_one(TriggerList).has_focus
            await pilot.press("space")
            assert form.chosen == ["group_created"]
            await pilot.press("f2")
            await pilot.pause()
            assert not isinstance(app.screen, WebhookForm)
            hooks = app.editor.session.get("apps[0].webhooks")
            assert hooks[-1] == {"id": "crm1", "name": "CRM sync", "webhookURL": "https://crm.example/hook",
                                 "triggers": ["group_created"]}
            await pilot.press("f2")
            await pilot.pause()
        text = draft_path.read_text(encoding="utf-8")
        assert text.startswith(DRAFT.split("  - name: Globex")[0])  # what was there is kept byte for byte
        assert ("      - id: crm1\n        name: CRM sync\n        webhookURL: https://crm.example/hook\n"
                "        triggers: [group_created]\n") in text
        assert "useBasicAuth" not in text.split("id: crm1")[1]  # write-only fields not set are not written

    run(flow())


def test_edit_triggers_keeps_the_unknown_one_and_the_comment(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("down", "e")
            form = app.screen
            assert isinstance(form, WebhookForm)
            assert "legacy_trigger" in form.chosen  # not in the catalog: shown and kept
            assert "kept as the service holds it" in message(form, "id")  # held id: a warning, not an error
            form.query_one("#wf-filter", Input).focus()
            await type_text(pilot, "call_ended")
            await pilot.press("enter", "space")
            form.query_one("#wf-filter", Input).value = ""
            await pilot.pause()
            await pilot.press("f2")
            await pilot.pause()
            assert app.editor.session.get("apps[0].webhooks[1].triggers") == [
                "call_initiated", "legacy_trigger", "call_ended"]
            assert app.editor.session.get("apps[0].webhooks[1].id") == "test_webhook201"
            # one undo step takes the whole form back
            await pilot.press("ctrl+z")
            assert app.editor.session.get("apps[0].webhooks[1].triggers") == ["call_initiated", "legacy_trigger"]
            await pilot.press("ctrl+y", "f2")
            await pilot.pause()
        text = draft_path.read_text(encoding="utf-8")
        assert "triggers: [call_initiated, legacy_trigger, call_ended]" in text
        assert "- id: orders  # tenantdeck: not reported by the service" in text

    run(flow())


def test_edit_writes_a_write_only_field_only_when_set(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("e")
            form = app.screen
            assert isinstance(form, WebhookForm)
            assert "not set in the draft (left as it is on the service)" in form.query_one(
                "#wf-username", Input).placeholder
            form.query_one("#wf-name", Input).value = "Orders"
            await pilot.pause()
            await pilot.press("f2")
            await pilot.pause()
            hook = app.editor.session.get("apps[0].webhooks[0]")
            assert hook["name"] == "Orders"
            assert not {"useBasicAuth", "username", "password", "retryOnFailure"} & set(hook)

    run(flow())


def test_basic_auth_needs_both_and_the_password_is_a_reference(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("e")
            form = app.screen
            assert isinstance(form, WebhookForm)
            from textual.widgets import Select

            form.query_one("#wf-useBasicAuth", Select).value = "yes"
            await pilot.pause()
            assert "required when Basic Auth is on" in message(form, "username")
            assert "required when Basic Auth is on" in message(form, "password")
            form.query_one("#wf-username", Input).value = "ops"
            form.query_one("#wf-password", Input).value = "hunter2"
            await pilot.pause()
            assert "${ENV_VAR} reference" in message(form, "password")
            await pilot.press("f2")
            assert app.screen is form
            form.query_one("#wf-password", Input).value = "${ORDERS_PASSWORD}"
            await pilot.pause()
            assert "ORDERS_PASSWORD is not set here" in message(form, "password")  # a warning only
            await pilot.press("f2")
            await pilot.pause()
            hook = app.editor.session.get("apps[0].webhooks[0]")
            assert (hook["useBasicAuth"], hook["username"], hook["password"]) == (True, "ops", "${ORDERS_PASSWORD}")
            assert "hunter2" not in app.editor.session.text

    run(flow())


def test_delete_with_confirm_then_undo(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("d")
            await pilot.press("n")  # no: nothing changes
            assert len(app.editor.session.get("apps[0].webhooks")) == 2
            await pilot.press("d", "y")
            await pilot.pause()
            assert [h["id"] for h in app.editor.session.get("apps[0].webhooks")] == ["test_webhook201"]
            table = app.screen.query_one(WebhooksTab).query_one(DataTable)
            assert table.row_count == 1
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert [h["id"] for h in app.editor.session.get("apps[0].webhooks")] == ["orders", "test_webhook201"]
            assert table.row_count == 2
            await pilot.press("f2")
            await pilot.pause()
        assert draft_path.read_text(encoding="utf-8") == DRAFT  # deleted and undone: the file is as it was

    run(flow())


def test_a_flag_written_as_neither_yes_nor_no_is_shown_as_written_and_kept(draft_path: Path) -> None:
    """A trial's `enabled: "maybe"` showed as "no" in the form and a save of another field wrote `enabled: false`.
    Now it shows as written, the save is refused until a choice is made, and the choice is what is written."""
    from textual.widgets import Select

    text = draft_path.read_text()
    draft_path.write_text(text.replace("        enabled: true\n", '        enabled: "maybe"\n', 1))

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("e")
            form = app.screen
            assert isinstance(form, WebhookForm)
            select = form.query_one("#wf-enabled", Select)
            assert select.value == "held" and "maybe" in str(select._options[-1][0])
            form.query_one("#wf-name", Input).value = "Orders"
            await pilot.pause()
            await pilot.press("f2")
            await pilot.pause()
            hook = app.editor.session.get("apps[0].webhooks[0]")
            assert isinstance(app.screen, WebhookForm) and message(form, "enabled")  # refused, and says where
            assert hook["enabled"] == "maybe"  # never turned into false behind the user's back
            select.value = "yes"
            await pilot.pause()
            await pilot.press("f2")
            await pilot.pause()
            hook = app.editor.session.get("apps[0].webhooks[0]")
            assert hook["name"] == "Orders" and hook["enabled"] is True

    run(flow())


def test_quit_asks_before_it_drops_what_the_webhook_form_holds(draft_path: Path) -> None:
    """ctrl+q in the webhook form quit at once and lost what was typed there (trial G): with typed fields it asks;
    No goes back to the form as it was. An untouched form quits at once, as the editor with nothing unsaved does."""
    from tenantdeck.tui.widgets.confirm import ConfirmScreen

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("a")
            form = app.screen
            assert isinstance(form, WebhookForm)
            await type_text(pilot, "crm1")
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) and app.is_running
            assert "webhook form" in app.screen.question
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is form and form.query_one("#wf-id", Input).value == "crm1"
            form.query_one("#wf-id", Input).value = ""
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert not app.is_running

    run(flow())


def test_a_key_typed_as_the_form_opens_adds_to_the_focused_field_never_replaces_it(draft_path: Path) -> None:
    """Trial J, J8: Enter on a problem opened the form with the Name selected (Textual's Input selects its text on
    focus), and a Space typed next wiped the name. The form's fields keep their text, as every other field of the
    editor does; the key goes where the cursor is, at the end."""
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            await pilot.press("e")
            form = app.screen
            assert isinstance(form, WebhookForm)
            name = form.query_one("#wf-name", Input)
            assert app.focused is name and name.value
            before = name.value
            await pilot.press("space", "x")
            await pilot.pause()
            assert name.value == before + " x"
            await pilot.press("tab", "y")
            await pilot.pause()
            url = form.query_one("#wf-webhookURL", Input)
            assert app.focused is url and url.value.endswith("y") and len(url.value) > 1

    run(flow())


def test_a_huge_name_is_shortened_where_it_is_shown_and_kept_whole_in_the_draft(draft_path: Path) -> None:
    """Trial J, J14: a 100,000-character webhook name filled the detail pane under the list, and a widget name as
    long filled the widget tabs' header, ~1,300 lines above the fields. Both are shortened as every other place a
    person reads a value (start, "…", end, length); the draft keeps the whole name."""
    text = draft_path.read_text(encoding="utf-8")
    hook_name = "A" * 100_000
    assert text.count("name: Order events") == 1
    draft_path.write_text(text.replace("name: Order events", f"name: {hook_name}"), encoding="utf-8")

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "webhooks")
            detail = str(app.screen.query_one("#wh-detail", Static).render())
            assert "(100,000 chars)" in detail and len(detail) < 1_000, len(detail)
            assert app.editor.session.get("apps[0].webhooks[0].name") == hook_name
            from tenantdeck.tui.commands import TenantdeckCommands

            provider = TenantdeckCommands(app.screen)  # the palette's own list (trial K, K6)
            hits = [text for text, _, _ in provider.targets() if text.startswith("Webhook:")]
            assert hits and all(len(text) < 1_000 for text in hits), [len(t) for t in hits]
            assert any("(100,000 chars)" in text for text in hits)

    run(flow())
