"""An App screen composes the tabs not shown yet, hidden, while nobody types (``AppScreen.PRECOMPOSE_AFTER``, issue
36): a digit then shows a tab already built. The rest of the editor's tests compose each tab when first shown
(tests/tui/conftest.py); here the composing ahead is on, and a tab shown after it must be what the same tab shown
when composed then is: the same pane, focus, footer and underline, and no key typed meanwhile is lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TabbedContent, TabPane

from tenantdeck.tui.screens.app_screen import TABS, AppScreen
from tenantdeck.tui.widgets.footer import KeyFooter
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.test_navigation_frames import underlined

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft


def composed(screen: AppScreen) -> set[str]:
    return {str(pane.id) for pane in screen.query(TabPane) if pane.children}


async def all_composed(pilot: Pilot[Any]) -> None:
    """Wait (as a user who does not type) until the App screen in front has composed every tab."""
    screen = pilot.app.screen
    assert isinstance(screen, AppScreen)
    for _ in range(1000):
        if composed(screen) == {tab for tab, *_ in TABS}:
            return
        await pilot.pause(0.02)
    raise AssertionError(f"composed after 20 s: {sorted(composed(screen))}")


async def shown_by_digits(draft: Path, ahead: bool) -> list[tuple[str, ...]]:
    """What each digit shows on the first app: the tab, the underline, what has the focus, the footer."""
    seen = []
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        if ahead:
            where = (app.focused, app.screen.query_one(TabbedContent).active)
            await all_composed(pilot)
            await settle(pilot)
            assert (app.focused, app.screen.query_one(TabbedContent).active) == where, "composing moved nothing"
        for digit in [str(n) for n in range(2, len(TABS) + 1)] + ["1"]:
            await pilot.press(digit)
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, AppScreen)
            focused = app.focused
            seen.append((digit, screen.query_one(TabbedContent).active, underlined(screen),
                         f"{type(focused).__name__}#{focused.id}" if focused else "-",
                         screen.query_one(KeyFooter).text))
    return seen


@pytest.mark.slow
async def test_a_tab_composed_ahead_shows_as_one_composed_when_shown(draft: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    when_shown = await shown_by_digits(draft, ahead=False)
    monkeypatch.setattr(AppScreen, "PRECOMPOSE_AFTER", 0.05)
    assert await shown_by_digits(draft, ahead=True) == when_shown


async def test_keys_typed_while_tabs_are_composed_ahead_all_land(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter then at once the Main tab and Space, then more digits while the other tabs are being composed: each
    key lands where it would have (the toggle flips once; the last digit's tab is shown), and every tab ends up
    composed once (no pane with two contents)."""
    monkeypatch.setattr(AppScreen, "PRECOMPOSE_AFTER", 0.05)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = app.editor.get("apps[0].widgets[0].main")
        await pilot.press("enter", "3", "space")
        await settle(pilot)
        after = app.editor.get("apps[0].widgets[0].main")
        assert [k for k in after if after[k] != before.get(k)], "Space on the Main tab flipped its first toggle"
        for digit in "5", "7", "2":
            await pilot.pause(0.06)  # quiet long enough for one tab to be composed ahead
            await pilot.press(digit)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AppScreen)
        assert screen.query_one(TabbedContent).active == TABS[1][0]
        await all_composed(pilot)
        assert all(len(pane.children) == 1 for pane in screen.query(TabPane))
