"""Enter in a text field writes it and leaves the field, with the focus on its row: the tab digits and Space that
follow are the screen's keys, not text (issue 37 item 4), in every form that kept the cursor in the field (the
widget tabs' text rows, the SMS tab), typed one by one or in one burst; the footer says how to get out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from tenantdeck.tui.tabs.widget_fields import TextRow
from tenantdeck.tui.widgets.input_row import InputRow
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.test_key_bursts import burst
from tests.tui.widget_fixtures import ACME, GLOBEX

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft


async def _field(pilot: Pilot[None], index: int, tab: str, selector: str) -> Input:
    app: Any = pilot.app
    await settle(pilot)
    app.open_app(index, tab)
    await settle(pilot)
    field = app.screen.query_one(selector, Input)
    field.focus()
    await settle(pilot)
    return field


def footer_keys(pilot: Pilot[None]) -> dict[str, str]:
    return {key: active.binding.description for key, active in pilot.app.screen.active_bindings.items()
            if active.binding.show and active.enabled}


@pytest.mark.parametrize("in_burst", [False, True], ids=["one by one", "one burst"])
async def test_enter_in_a_colour_leaves_it_so_a_digit_switches_tabs(draft: Path, in_burst: bool) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await _field(pilot, ACME, "style", "#input-primary_color")
        assert footer_keys(pilot).get("enter") == "Done", "the footer says how to get out of the field"
        field.value, field.cursor_position = "#123456", 7
        if in_burst:
            burst(app, ["enter", "3"])
        else:
            await pilot.press("enter", "3")
        await settle(pilot)
        assert field.value == "#123456", "the digit was typed into the field"
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.primary_color") == "#123456"
        assert app.screen.query_one(TabbedContent).active == "main"


async def test_after_enter_the_focus_is_on_the_row_and_enter_goes_back_in(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await _field(pilot, ACME, "style", "#input-primary_color")
        await pilot.press("ctrl+u", "#", "a", "b", "c", "enter")
        await settle(pilot)
        row = field.query_ancestor(TextRow)
        assert app.focused is row
        assert footer_keys(pilot).get("enter") == "Edit"
        await pilot.press("space")
        await settle(pilot)
        assert field.value == "#abc"
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is field and field.cursor_position == 4
        await pilot.press("tab")
        await settle(pilot)
        assert not row.can_focus, "Tab passes the row by once it has let go of the focus"
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.focused is field, "shift+Tab comes back to the field, not to its row"


async def test_enter_in_an_sms_field_leaves_it_for_its_row(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await _field(pilot, GLOBEX, "sms", "#sms-messageDelay")
        assert footer_keys(pilot).get("enter") == "Done"
        await pilot.press("ctrl+u", "9", "0", "enter")
        await settle(pilot)
        assert isinstance(app.focused, InputRow) and field in app.focused.children
        await pilot.press("space", "5")
        await settle(pilot)
        assert field.value == "90"
        assert app.editor.get(f"apps[{GLOBEX}].sms.messageDelay") == 90
        assert app.screen.query_one(TabbedContent).active == "extensions", "5 is the Extensions tab"


async def test_a_refused_sms_token_keeps_the_cursor_in_the_field(draft: Path) -> None:
    """A literal token is refused, never written: the cursor stays, under the reason, to fix it."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await _field(pilot, GLOBEX, "sms", "#sms-twilioAuthToken")
        await pilot.press("ctrl+u", *"literal", "enter")
        await settle(pilot)
        assert app.focused is field
