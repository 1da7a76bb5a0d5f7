"""Keys change only what visibly has the focus (issue 20, items 1 and 2), driven through the real app as a user
would: the palette's jumps land in the field they name; typing in a field and leaving it never writes what the user
did not confirm; F8's Enter puts the cursor in the field of the problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Input

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tenantdeck.tui.tabs.sms_tab import SmsTab
from tenantdeck.tui.tabs.widget_fields import BoolRow, FieldRow, TextRow
from tenantdeck.tui.tabs.widget_style import StyleTab
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.widget_fixtures import ACME

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft

MAIN = f"apps[{ACME}].widgets[0].main"
STYLE = f"apps[{ACME}].widgets[0].style"


async def open_app(app: TenantdeckApp, pilot: Pilot[None], *keys: str) -> None:
    """Validation done, Enter on the first app (Acme), then ``keys``."""
    await settle(pilot)
    assert isinstance(app.screen, AppsScreen)
    await pilot.press("enter", *keys)
    await settle(pilot)
    assert isinstance(app.screen, AppScreen)


def on_screen(widget: Widget) -> bool:
    region = widget.region
    tab = next((a for a in widget.ancestors if isinstance(a, ScrollableContainer)), widget.screen)
    return region.height > 0 and tab.content_region.contains_region(region)


async def in_view(pilot: Pilot[None], widget: Widget) -> bool:
    """Every line of ``widget`` is inside the part of its scrolling tab that is on the screen, once the tab just
    shown is laid out (waited for as a condition, never a fixed sleep)."""
    for _ in range(100):
        if on_screen(widget):
            return True
        await pilot.pause(0.02)
    return False


async def palette(app: TenantdeckApp, pilot: Pilot[None], query: str, entry: str) -> None:
    """ctrl+p, type ``query``, wait for ``entry`` to be the highlighted hit, Enter."""
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*query)
    screen = app.screen
    assert isinstance(screen, CommandPalette)
    for _ in range(100):
        await pilot.pause(0.02)
        hits = screen.query_one("CommandList")
        first = hits.get_option_at_index(0) if hits.option_count else None  # type: ignore[attr-defined]
        if first is not None and entry in str(first.prompt):
            break
    else:
        raise AssertionError(f"{entry!r} not offered for {query!r}")
    await pilot.press("enter")
    await settle(pilot)


# -- item 1: the palette focuses the field it names -----------------------------------------------------------------


async def test_palette_gif_focuses_the_send_gifs_toggle_in_view_and_space_flips_only_it(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot)
        before = dict(app.editor.get(MAIN, None) or {})
        polls = app.editor.get(f"{MAIN}.allow_creating_polls", None)
        gifs = app.editor.get(f"{MAIN}.send_gifs", None)
        await palette(app, pilot, "gif", "Allow GIFs (send_gifs)")
        focused = app.focused
        assert isinstance(focused, BoolRow) and focused.key == "send_gifs", focused
        assert app.screen.query_one("TabbedContent").active == "main"  # type: ignore[attr-defined]
        assert await in_view(pilot, focused)
        await pilot.press("space")
        await settle(pilot, 1)
        after = dict(app.editor.get(MAIN, None) or {})
        assert after.get("send_gifs") is (gifs is not True)
        assert app.editor.get(f"{MAIN}.allow_creating_polls", None) == polls
        assert {k: v for k, v in after.items() if k != "send_gifs"} == {
            k: v for k, v in before.items() if k != "send_gifs"}


async def test_palette_toggle_from_another_tab_and_from_the_apps_screen(draft: Path) -> None:
    """From the Style tab (a text field first) and from the Apps screen: the toggle has the focus, in view."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot)  # on Style, the tab bar focused
        await palette(app, pilot, "send_voice_notes", "(send_voice_notes)")
        focused = app.focused
        assert isinstance(focused, BoolRow) and focused.key == "send_voice_notes"
        assert await in_view(pilot, focused)
        await pilot.press("escape")  # nothing typed: back to the apps
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)
        await palette(app, pilot, "share_location", "(share_location)")
        focused = app.focused
        assert isinstance(app.screen, AppScreen)
        assert isinstance(focused, BoolRow) and focused.key == "share_location"
        assert await in_view(pilot, focused)


async def test_palette_webhook_entry_puts_the_cursor_on_that_webhook(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        hooks = app.editor.get("apps[1].webhooks", None)
        assert isinstance(hooks, list) and hooks
        hook = hooks[-1]
        await palette(app, pilot, f"Webhook: {hook['id']}", f"Webhook: {hook['id']}")
        table = app.focused
        assert isinstance(table, DataTable) and table.id == "webhooks"
        assert table.cursor_row == len(hooks) - 1


async def test_no_toggle_is_offered_for_an_app_without_a_widget(draft: Path) -> None:
    from tenantdeck.tui.commands import TenantdeckCommands

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_app(1)  # Globex: no widget
        await settle(pilot)
        provider = TenantdeckCommands(app.screen)
        assert not [text for text, _, _ in provider.targets() if text.startswith("Toggle:")]


# -- item 2: leaving a field never writes what was not confirmed ----------------------------------------------------


async def test_escape_in_a_field_restores_its_value_and_a_second_escape_leaves(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot, "tab")  # Tab from the tab bar: the first colour field
        text = app.editor.session.text
        field = app.focused
        assert isinstance(field, Input)
        shown = field.value
        await pilot.press("3")
        await pilot.pause()
        assert field.value != shown
        await pilot.press("escape")
        await settle(pilot, 1)
        assert isinstance(app.screen, AppScreen)  # still on the app
        assert field.value == shown and app.focused is field
        assert app.editor.session.text == text and not app.editor.session.dirty
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)
        assert app.editor.session.text == text


async def test_enter_leaves_for_the_row_and_a_digit_after_tab_does_not_change_the_next_field(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot, "tab")
        field = app.focused
        assert isinstance(field, Input)
        row = next(a for a in field.ancestors if isinstance(a, TextRow))
        nxt = next(r for r in app.screen.query_one(StyleTab).query(TextRow) if r is not row)
        following = nxt.input.value
        await pilot.press("ctrl+u", *"#123456", "enter")
        await settle(pilot, 1)
        assert app.editor.get(f"{STYLE}.{row.key}") == "#123456"
        assert app.focused is row and field.selected_text == ""  # Enter leaves the field for its row (issue 37)
        await pilot.press("tab")  # on to the next field: nothing is selected there
        await pilot.pause()
        assert app.focused is nxt.input and nxt.input.selected_text == ""
        await pilot.press("3")
        await pilot.pause()
        assert nxt.input.value.startswith(following)  # typed after the value, never over it
        await pilot.press("escape")
        await settle(pilot, 1)
        assert nxt.input.value == following
        assert app.editor.get(f"{STYLE}.{nxt.key}", None) in (None, following)


async def test_leaving_a_field_with_an_invalid_colour_writes_nothing(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot, "tab")
        text = app.editor.session.text
        field = app.focused
        assert isinstance(field, Input)
        shown = field.value
        await pilot.press("ctrl+u", "3", "tab")  # leave with "3": not a colour
        await settle(pilot, 1)
        assert app.editor.session.text == text
        assert field.value == shown
        assert not app.editor.problems_at(STYLE)


async def test_f8_enter_on_a_problem_puts_the_cursor_in_its_field(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        path = f"{STYLE}.primary_color"
        app.editor.set(path, "#12")  # a colour the models refuse
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot, 1)
        assert isinstance(app.screen, ProblemsScreen)
        table = app.screen.query_one(DataTable)
        row = next(n for n, p in enumerate(app.screen._problems) if p.key_path == path)
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen)
        field = app.focused
        assert isinstance(field, Input) and field.id == "input-primary_color"
        assert await in_view(pilot, field)
        await pilot.press("ctrl+u", *"#FF5500", "enter")
        await settle(pilot, 1)
        assert app.screen.query_one("TabbedContent").active == "style"  # type: ignore[attr-defined]
        assert app.editor.get(path) == "#FF5500"


async def test_f8_enter_on_a_main_toggle_problem_focuses_that_toggle(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        path = f"{MAIN}.show_delivery_read_indicators"
        app.editor.set(path, "yes")  # not a boolean
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot, 1)
        assert isinstance(app.screen, ProblemsScreen)
        row = next(n for n, p in enumerate(app.screen._problems) if p.key_path == path)
        app.screen.query_one(DataTable).move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        focused = app.focused
        assert isinstance(focused, FieldRow) and focused.key == "show_delivery_read_indicators"
        assert await in_view(pilot, focused)


async def test_sms_field_escape_restores_and_the_token_is_masked(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(app, pilot, "6")
        tab = app.screen.query_one(SmsTab)
        if tab._settings() is None:
            await pilot.press("ctrl+n")
            await settle(pilot)
        text = app.editor.session.text
        token = tab.query_one("#sms-twilioAuthToken", Input)
        assert token.password
        token.focus()
        await pilot.pause()
        shown = token.value
        await pilot.press(*"sk_live_1")
        await pilot.pause()
        assert "sk_live_1" not in "".join(segment.text for segment in token.render_line(0))
        await pilot.press("escape")
        await settle(pilot, 1)
        assert token.value == shown and isinstance(app.screen, AppScreen)
        assert app.editor.session.text == text
