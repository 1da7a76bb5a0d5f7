"""The palette reaches every field the editor shows (issue 37 item 5): a colour, an SMS setting, an app setting, an
extension's setting, the team; each entry opens the tab that holds it (composed then: tabs are composed when first
shown) with the focus in that field, through the real app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, TabbedContent

from tenantdeck.draft.app_tabs import tab_of_draft_path
from tenantdeck.draft.field_index import fields_of_app
from tenantdeck.problems import parse_path
from tenantdeck.tui import navigation
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.tabs.extension_settings_form import ExtensionSettingsForm
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.test_focus_lands import in_view, palette
from tests.tui.widget_fixtures import ACME, GLOBEX

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft


async def test_palette_jumps_to_a_colour_from_the_apps_screen(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await palette(app, pilot, "primary_color", "Primary colour")
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == ACME
        assert app.screen.query_one(TabbedContent).active == "style"
        assert app.focused is app.screen.query_one("#input-primary_color", Input)
        assert await in_view(pilot, app.focused)


async def test_palette_jumps_to_an_sms_field_of_the_highlighted_app(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down")  # Globex, the app with SMS settings
        await palette(app, pilot, "messageDelay", "SMS: messageDelay")
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == GLOBEX
        assert app.focused is app.screen.query_one("#sms-messageDelay", Input)


async def test_palette_jumps_to_an_app_setting_the_team_and_an_extension_setting(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter", "3")
        await settle(pilot)
        await palette(app, pilot, "updateOnReplies", "Conversations update on replies")
        assert app.screen.query_one(TabbedContent).active == "settings"
        assert isinstance(app.focused, DataTable)
        await palette(app, pilot, "Team: admins", "Team: admins")
        assert app.screen.query_one(TabbedContent).active == "team"
        assert isinstance(app.focused, DataTable)
        await palette(app, pilot, "badwords", "Extension setting: Profanity filter / Bad words (badwords)")
        assert isinstance(app.screen, ExtensionSettingsForm) and "Profanity filter" in app.screen.title


@pytest.mark.slow
async def test_every_field_entry_lands_in_its_tab(draft: Path) -> None:
    """Every entry the palette offers for an app (Main toggles aside: their own tests) opens the tab that holds it
    with the focus inside that tab, or the extension's settings form for an extension's setting.

    The first entry of each tab is jumped to from the Apps screen (the tab composed by the jump); the others from
    the App screen already open, or from the extension form the last jump opened over it (that App screen is
    reused, not rebuilt): the ways a palette jump starts. Opening a fresh App
    screen for each of the 50-odd entries cost 90 s of the suite and checked nothing more."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        data: Any = app.editor.get(f"apps[{ACME}]")
        entries = [e for e in fields_of_app(data, ACME, 0) if not e.text.startswith("Toggle")]
        assert len(entries) > 50
        reached: set[str] = set()
        for entry in entries:
            where = tab_of_draft_path(parse_path(entry.path))
            assert where is not None and where[1] is not None, entry
            tab = where[1]
            if tab not in reached:
                while len(app.screen_stack) > 1:
                    app.pop_screen()
                await settle(pilot)
            under = [s for s in app.screen_stack if isinstance(s, AppScreen)]
            reached.add(tab)
            navigation.jump(app, ACME, tab, entry.path)
            await settle(pilot)
            if ".extension_settings." in entry.path:
                assert isinstance(app.screen, ExtensionSettingsForm), entry
                continue
            assert isinstance(app.screen, AppScreen), entry
            assert not under or app.screen is under[0], entry  # the open App screen is reused, from a form too
            pane = app.screen.query_one(f"#{tab}")
            assert app.screen.query_one(TabbedContent).active == tab, entry
            assert app.focused is not None and pane in app.focused.ancestors, (entry, app.focused)
        assert len(reached) >= 5  # style, sidebar, sms, settings, team... each from the Apps screen once


@pytest.mark.parametrize("name", ["Shop [/] x", "Evil [b]x[/b] [@click=app.quit]q[/]", "back\\"])
async def test_a_name_that_looks_like_markup_is_shown_in_the_palette_not_read(draft: Path, name: str) -> None:
    """The palette reads a str prompt and help as Textual markup: an app named ``Shop [/] x`` closed the editor at
    the first letter typed (found by a newcomer's hostile trial). Its fields' entries carry the name in their help."""
    text = draft.read_text()
    assert "name: Acme Support\n" in text
    draft.write_text(text.replace("name: Acme Support\n", f"name: {json.dumps(name)}\n", 1))
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await palette(app, pilot, "primary_color", "Primary colour")  # the help line names the app
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == ACME
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"App: ")
        for _ in range(100):
            await pilot.pause(0.02)
            hits = app.screen.query_one("CommandList")
            prompts = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
            if any(name in p for p in prompts):
                break
        else:
            raise AssertionError(f"{name!r} not offered as written")


async def test_an_app_added_with_n_is_offered_by_the_palette(draft: Path) -> None:
    """A trial found the palette did not offer an app added with ``n`` in the same session."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press(*"Zebra desk", "enter")
        await settle(pilot)
        added = [i for i, a in enumerate(app.editor.get("apps")) if a.get("name") == "Zebra desk"]
        assert added, "the app was not added"
        await palette(app, pilot, "Zebra", "App: Zebra desk")
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == added[0]
