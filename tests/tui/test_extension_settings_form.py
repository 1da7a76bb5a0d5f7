"""Pilot flows of the extension settings form, opened from the Extensions tab with the keyboard only: a toggle, a
choice, a number, a list item, a secret reference, an object of a table; Escape takes back typing; every edit is one
undo step; a secret's value is never on the screen."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from tenantdeck.models.catalog import EXTENSION_IDS
from tenantdeck.models.extension_catalog import BY_ID
from tenantdeck.tui.tabs.extension_settings_form import ExtensionSettingsForm
from tenantdeck.tui.tabs.extensions_tab import ExtensionsTab
from tests.tui.ext_settings_fixtures import DRAFT, SECRET_VALUE, SET_VAR, UNSET_VAR, ext_draft, open_form
from tests.tui.hooks_fixtures import open_tab, type_text
from tests.tui.pilot import make_app, settle

__all__ = ["ext_draft"]

ES = ("apps", 0, "extension_settings")
#: an extension the catalog gives no settings, taken from the catalog: a new entry (say polls) changes no test here
WITHOUT_SETTINGS = next(ext for ext in EXTENSION_IDS if ext not in BY_ID)


def form_screen(pilot: Pilot[Any]) -> ExtensionSettingsForm:
    screen = pilot.app.screen
    assert isinstance(screen, ExtensionSettingsForm), type(screen).__name__
    return screen


async def to_row(pilot: Pilot[Any], *path: str | int) -> None:
    """Move the cursor with the arrow keys to the row of ``path``."""
    screen = form_screen(pilot)
    assert screen.form is not None
    target = next(i for i, r in enumerate(screen.form.rows) if r.path == path)
    table = screen.query_one(DataTable)
    for _ in range(len(screen.form.rows)):
        if table.cursor_row == target:
            break
        await pilot.press("down" if table.cursor_row < target else "up")
    assert screen.current() is not None and screen.current().path == path  # type: ignore[union-attr]


def screen_text(pilot: Pilot[Any]) -> str:
    """What the screen shows, as text (the SVG's entities and non-breaking spaces undone)."""
    return html.unescape(pilot.app.export_screenshot()).replace("\xa0", " ")


@pytest.mark.slow
def test_edit_each_kind_of_field_and_undo(ext_draft: Path) -> None:
    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.editor.session
            before = session.text
            # a toggle and a list: profanity-filter
            await open_form(pilot, "profanity-filter")
            assert form_screen(pilot).form.ext_id == "profanity-filter"  # type: ignore[union-attr]
            await to_row(pilot, "dropMessage")
            await pilot.press("space")
            await settle(pilot)
            assert session.get((*ES, "profanity-filter", "dropMessage")) is True
            await to_row(pilot, "badwords", 1)
            await pilot.press("a")
            await type_text(pilot, "gosh")
            await pilot.press("enter")
            await settle(pilot)
            assert session.get((*ES, "profanity-filter", "badwords")) == ["darn", "heck", "gosh"]
            assert form_screen(pilot).current().path == ("badwords", 2)  # type: ignore[union-attr]
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen.focused, DataTable)
            assert app.screen.query_one(ExtensionsTab).query_one(DataTable).get_row("profanity-filter")
            # a choice: push-notification's provider, with the arrows and Enter
            await open_form(pilot, "push-notification")
            await to_row(pilot, "pushProvider")
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("down", "enter")
            await settle(pilot)
            assert session.get((*ES, "push-notification", "pushProvider")) == 2
            status = str(form_screen(pilot).query_one("#xs-status", Static).render())
            assert "keyId and teamId and bundleId are required" in status
            # a secret: the set variable's value is never shown; a literal is refused; a reference is written
            assert "variable set · ${" + SET_VAR[:10] in screen_text(pilot)
            await pilot.press("escape")
            await open_form(pilot, "gifs-giphy")
            assert "variable unset" in screen_text(pilot)
            await to_row(pilot, "giphyApiKey")
            await pilot.press("enter")
            await pilot.pause()
            field = form_screen(pilot).query_one("#xs-secret", Input)
            assert field.has_focus and field.password and field.value == "${" + UNSET_VAR + "}"
            field.value = ""
            await type_text(pilot, "hunter2")
            await pilot.press("enter")
            await pilot.pause()
            assert session.get((*ES, "gifs-giphy", "giphyApiKey")) == "${" + UNSET_VAR + "}"
            assert "hunter2" not in screen_text(pilot)
            assert field.has_focus  # still editing: nothing written
            field.value = ""
            await type_text(pilot, "${GIPHY_PROD_KEY}")
            await pilot.press("enter")
            await settle(pilot)
            assert session.get((*ES, "gifs-giphy", "giphyApiKey")) == "${GIPHY_PROD_KEY}"
            await pilot.press("escape")
            # a number: report-user has no settings yet; editing its field starts them (one step)
            await open_form(pilot, "report-user")
            await to_row(pilot, "maxReports")
            await pilot.press("enter")
            await pilot.pause()
            form_screen(pilot).query_one("#xs-input", Input).value = ""
            await type_text(pilot, "many")
            await pilot.press("enter")
            await pilot.pause()
            assert session.get((*ES, "report-user"), None) is None
            assert "must be a number of reports" in str(form_screen(pilot).query_one("#xs-edit-msg",
                                                                                        Static).render())
            form_screen(pilot).query_one("#xs-input", Input).value = ""
            await type_text(pilot, "5")
            await pilot.press("enter")
            await settle(pilot)
            assert session.get((*ES, "report-user")) == {"maxReports": 5, "useWebhook": True, "webhookURL": ""}
            # every edit is one undo step: six edits, six undos, the text as it was
            for _ in range(6):
                await pilot.press("ctrl+z")
                await settle(pilot)
            assert session.text == before
            assert SECRET_VALUE not in screen_text(pilot)

    asyncio.run(flow())


def test_escape_takes_back_typing_then_goes_back(ext_draft: Path) -> None:
    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_form(pilot, "push-notification")
            await to_row(pilot, "fcmCredentials", "project_id")
            await pilot.press("enter")
            await type_text(pilot, "-typo")
            await pilot.press("escape")
            await pilot.pause()
            screen = form_screen(pilot)
            assert screen.editing is None and isinstance(app.focused, DataTable)
            assert app.editor.session.get((*ES, "push-notification", "fcmCredentials", "project_id")) == "acme-chat"
            assert not app.editor.session.dirty
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, ExtensionSettingsForm)

    asyncio.run(flow())


def test_a_mask_opens_as_its_own_form(ext_draft: Path) -> None:
    """Space flips a mask's On switch; Enter opens it; a bad pattern is marked on its row in both forms; ``a`` adds
    a custom mask and opens it."""
    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.editor.session
            await open_form(pilot, "data-masking")
            await to_row(pilot, "defaultRegexData", 2)
            await pilot.press("space")
            await settle(pilot)
            assert session.get((*ES, "data-masking", "defaultRegexData", 2, "enableFlag")) is True
            await pilot.press("enter")
            await settle(pilot)
            item = form_screen(pilot)
            # unsaved: the title says so
            assert item.under == ("defaultRegexData", 2) and item.title == "Data masking > Default masks > 3 *"
            await to_row(pilot, "defaultRegexData", 2, "regex")
            await pilot.press("enter")
            item.query_one("#xs-input", Input).value = ""
            await type_text(pilot, "[0-9")
            await pilot.pause()
            assert "not a valid regular expression" in str(item.query_one("#xs-edit-msg", Static).render())
            await pilot.press("enter")
            await settle(pilot)
            assert str(item.query_one(DataTable).get_row_at(2)[0]) == "!"
            await pilot.press("escape")
            await settle(pilot)
            parent = form_screen(pilot)
            assert parent.under == ()
            assert str(parent.query_one(DataTable).get_row_at(parent.query_one(DataTable).cursor_row)[0]) == "!"
            await to_row(pilot, "customregexData")
            assert len(session.get((*ES, "data-masking", "customregexData"))) == 1
            await pilot.press("a")
            await settle(pilot)
            added = form_screen(pilot)
            assert added.under == ("customregexData", 1)
            assert session.get((*ES, "data-masking", "customregexData", 1)) == {"id": "5", "name": "", "regex": ""}

    asyncio.run(flow())


def test_start_and_stop_managing(ext_draft: Path) -> None:
    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.editor.session
            await open_form(pilot, "e2ee", app_index=1)
            assert "no settings in the draft" in str(form_screen(pilot).query_one("#xs-status", Static).render())
            await pilot.press("ctrl+n")
            await settle(pilot)
            assert session.get(("apps", 1, "extension_settings", "e2ee")) == {
                "virgilAppID": "", "virgilAppKeyID": "", "virgilAppKey": "${TENANTDECK_GLOBEX_VIRGIL_APP_KEY}"}
            await pilot.press("ctrl+r")
            await pilot.pause()
            await pilot.press("y")
            await settle(pilot)
            assert session.get(("apps", 1, "extension_settings"), None) is None

    asyncio.run(flow())


def test_extensions_without_a_form_say_why(ext_draft: Path) -> None:
    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "extensions")
            tab = app.screen.query_one(ExtensionsTab)
            table = tab.query_one(DataTable)
            assert str(table.get_row("profanity-filter")[2]) == "draft"
            assert str(table.get_row(WITHOUT_SETTINGS)[2]) == "-"
            table.move_cursor(row=[r.id for r in tab._rows].index(WITHOUT_SETTINGS))
            await pilot.press("enter")
            await pilot.pause()
            assert not isinstance(app.screen, ExtensionSettingsForm)
            assert any("no settings to configure" in n.message for n in app._notifications)
            table.move_cursor(row=[r.id for r in tab._rows].index("sms-notification"))
            await pilot.press("s")
            await settle(pilot)
            assert app.screen.query_one("#tabs").active == "sms"  # type: ignore[attr-defined]

    asyncio.run(flow())


def test_a_problem_opens_the_form_on_its_field(ext_draft: Path) -> None:
    """F8, Enter on a problem inside extension_settings: the form, the cursor on the field."""
    text = DRAFT.replace("name: Order numbers, regex: 'ORD-\\d{6}'", "name: Order numbers, regex: '('")
    assert text != DRAFT
    ext_draft.write_text(text, encoding="utf-8")

    async def flow() -> None:
        app = make_app(ext_draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f8")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            screen = form_screen(pilot)
            assert screen.ext_id == "data-masking"
            assert screen.current().path == ("customregexData", 0)  # type: ignore[union-attr]

    asyncio.run(flow())
