"""Pilot flows of the SMS tab: inline checks, the token refused as a literal, settings added and removed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Input, Static

from tenantdeck.tui.tabs.sms_tab import SmsTab
from tests.tui.hooks_fixtures import draft_path, open_tab, type_text
from tests.tui.pilot import make_app

__all__ = ["draft_path"]


def shown(tab: SmsTab, key: str) -> str:
    box = tab.query_one(f"#sms-error-{key}", Static)
    return str(box.render()) if box.display else ""


def test_sms_token_literal_is_refused(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "sms")
            tab = app.screen.query_one(SmsTab)
            token = tab.query_one("#sms-twilioAuthToken", Input)
            assert token.value == "${TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN}"
            token.focus()
            token.value = ""
            await type_text(pilot, "abc123secret")
            await pilot.press("enter")
            await pilot.pause()
            assert "refusing to write a literal secret" in shown(tab, "twilioAuthToken")
            assert token.value == "${TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN}"  # back to the reference
            assert "abc123secret" not in app.editor.session.text
            assert not app.editor.session.dirty
            token.value = ""
            await type_text(pilot, "${ACME_TWILIO}")
            await pilot.press("enter")
            await pilot.pause()
            assert shown(tab, "twilioAuthToken") == ""
            await pilot.press("f2")
            await pilot.pause()
        text = draft_path.read_text(encoding="utf-8")
        assert "      twilioAuthToken: ${ACME_TWILIO}\n" in text
        assert "abc123secret" not in text

    asyncio.run(flow())


def test_sms_inline_check_then_commit_on_leaving_the_field(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "sms")
            tab = app.screen.query_one(SmsTab)
            delay = tab.query_one("#sms-messageDelay", Input)
            delay.focus()
            delay.value = ""
            await type_text(pilot, "soon")
            assert "must be a number of seconds" in shown(tab, "messageDelay")
            delay.value = ""
            await type_text(pilot, "90")
            assert shown(tab, "messageDelay") == ""
            await pilot.press("tab")  # leaving the field writes it
            await pilot.pause()
            assert app.editor.session.get("apps[0].sms.messageDelay") == 90
            await pilot.press("f2")
            await pilot.pause()
        assert "      messageDelay: 90   # seconds\n" in draft_path.read_text(encoding="utf-8")

    asyncio.run(flow())


def test_sms_add_to_an_app_without_then_remove_with_confirm(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "sms", app_index=1)
            await pilot.press("ctrl+n")
            await pilot.pause()
            sms = app.editor.session.get("apps[1].sms")
            assert sms["twilioAuthToken"] == "${TENANTDECK_GLOBEX_TWILIO_AUTH_TOKEN}"
            assert sms["messageDelay"] == 60 and sms["twilioAccountSid"] == ""
            tab = app.screen.query_one(SmsTab)
            assert "must not be empty" in shown(tab, "twilioAccountSid")
            assert tab.query_one("#sms-twilioAccountSid", Input).has_focus
            await type_text(pilot, "AC123")
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.session.get("apps[1].sms.twilioAccountSid") == "AC123"
            await pilot.press("ctrl+r", "n")
            assert app.editor.session.get("apps[1].sms", None) is not None
            await pilot.press("ctrl+r", "y")
            await pilot.pause()
            assert app.editor.session.get("apps[1].sms", None) is None
            assert tab.query_one("#sms-empty").display

    asyncio.run(flow())


def test_the_footer_offers_add_only_without_sms_and_remove_only_with_it(draft_path: Path) -> None:
    """A docs-only trial (F19): an app with SMS settings was offered "^n Add SMS" (and the footer ran past 80
    columns in the token field, cutting "f6 Review"). ctrl+n is listed only without settings, ctrl+r only with."""
    from tenantdeck.tui.widgets.footer import KeyFooter
    from tests.tui.pilot import settle

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:

            async def footer() -> str:
                await settle(pilot)
                return app.screen.query_one(KeyFooter).text

            await open_tab(pilot, "sms", app_index=1)
            assert "Add SMS" in await footer() and "Remove SMS" not in await footer()
            await pilot.press("ctrl+n")
            text = await footer()
            assert "Add SMS" not in text and "Remove SMS" in text
            app.screen.query_one("#sms-twilioAuthToken", Input).focus()
            text = await footer()
            assert "Add SMS" not in text and "f6 Review" in text and len(text) <= 80, text
            await pilot.press("ctrl+z")
            await settle(pilot)
            app.screen.query_one("#sms-add").focus()  # the field that had the focus went with the settings
            text = await footer()
            assert "Add SMS" in text and "Remove SMS" not in text, text

    asyncio.run(flow())
