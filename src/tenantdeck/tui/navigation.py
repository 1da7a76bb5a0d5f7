"""Which screen opens which: the one module that knows every screen class.

The app's keys (``tui/app.py``), the palette (``tui/commands.py``) and the screens' own acts (through
:class:`~tenantdeck.tui.host.EditorHost`) all open screens through here, so no screen imports another screen's
opener or the app, and ``tests/test_layers.py`` can prove the TUI has no import circle. Screens are imported
inside the functions: opening the editor pays only for the Apps screen.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tenantdeck.tui.host import host_of
from tenantdeck.tui.profile import switch_to

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


def open_app(app: App[Any], index: int, tab: str | None = None, path: str | None = None) -> None:
    """Open app ``index`` on ``tab``, with the focus in the field of key path ``path`` when the tab has it.

    The tab is shown by the screen itself (``screen.call_later``), not as a callback of whoever asked: Textual
    runs an ``app.call_after_refresh`` callback as the message pump that scheduled it, and a form the tab opens on
    the field (a webhook's, for a problem about its name) sends its result to that pump. The Problems screen that
    asked had closed by then, so the form's F2 was dropped without a word (trial F, F6)."""
    from tenantdeck.tui.screens.app_screen import AppScreen

    screen = AppScreen.for_app(app, index, tab)  # the session's App screen re-bound, when it can be
    app.push_screen(screen)
    if tab:
        screen.call_later(screen.action_show_tab, tab, path)


def show(app: App[Any], name: str) -> None:
    """Push the screen called ``name`` (``help``, ``problems``, ``review``, ``pull``, ``history``, ``events``,
    ``bulk_edit``, ``presets``, ``policies``) unless it is already on top."""
    screen = _screen_for(app, name)
    if screen is not None:
        app.push_screen(screen)


def _screen_for(app: App[Any], name: str) -> Screen[Any] | None:
    top = app.screen
    if name == "help":
        from tenantdeck.tui.screens.help_screen import HelpScreen

        return HelpScreen.for_place(app, app.focused, top)
    if name == "problems":
        from tenantdeck.tui.screens.problems_screen import ProblemsScreen

        return None if isinstance(top, ProblemsScreen) else ProblemsScreen()
    if name == "review":
        from tenantdeck.tui.screens.review_screen import ReviewScreen

        return None if isinstance(top, ReviewScreen) else ReviewScreen()
    if name == "pull":
        from tenantdeck.tui.screens.pull_screen import PullScreen

        return None if isinstance(top, PullScreen) else PullScreen()
    if name == "history":
        from tenantdeck.tui.screens.history_screen import HistoryScreen

        return None if isinstance(top, HistoryScreen) else HistoryScreen()
    if name == "events":
        from tenantdeck.tui.screens.events_screen import EventsScreen

        return None if isinstance(top, EventsScreen) else EventsScreen()
    if name == "bulk_edit":
        from tenantdeck.tui.screens.apps_screen import AppsScreen
        from tenantdeck.tui.screens.bulk_edit import BulkEditScreen

        apps = next((s for s in app.screen_stack if isinstance(s, AppsScreen)), None)
        if isinstance(top, BulkEditScreen):
            return None
        return BulkEditScreen(apps.marked if apps else set(), text=apps.filter_text if apps else "")
    if name == "policies":
        from tenantdeck.tui.screens.policies_screen import PoliciesScreen

        return None if isinstance(top, PoliciesScreen) else PoliciesScreen()
    if name == "presets":
        from tenantdeck.tui.screens.presets_screen import PresetsScreen

        return None if isinstance(top, PresetsScreen) else PresetsScreen.for_app(app)
    raise ValueError(f"no screen called {name!r}")


def review_then(app: App[Any], action: str) -> None:
    """Run a review action, opening the review screen first when it is not on top."""
    if open_review(app) is None:
        show(app, "review")
    app.call_after_refresh(lambda: getattr(app.screen, f"action_{action}")())


def open_review(app: App[Any]) -> Any:
    """The review screen if it is the top screen, else None (the palette offers its conflict commands then).

    Asked by the app's ``check_action`` for every F6 the footer lists, the first frame included: importing the
    review screen's module to ask (the sync engine's plan rendering and the pydantic models behind it) was 0.12 s
    of the 0.21 s from the app's start to its first frame. A module never imported has no screen open."""
    module = sys.modules.get("tenantdeck.tui.screens.review_screen")
    if module is None:
        return None
    return app.screen if isinstance(app.screen, module.ReviewScreen) else None


def switch_profile(app: App[Any], name: str) -> None:
    """Plan, push and pull against ``name`` from now on; an open review plans again against it."""
    switch_to(app, host_of(app).editor, name)


def current_app_index(app: App[Any]) -> int | None:
    """The app the user is on: the App screen's, else the row highlighted on the Apps screen."""
    from tenantdeck.tui.screens.app_screen import AppScreen
    from tenantdeck.tui.screens.apps_screen import AppsScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, AppScreen):
            return screen.app_index
        if isinstance(screen, AppsScreen):
            return screen.selected_index()
    return None


def current_widget_index(app: App[Any], index: int) -> int:
    """The widget the widget tabs of app ``index`` show (its App screen's), else the first."""
    from tenantdeck.tui.screens.app_screen import AppScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, AppScreen) and screen.app_index == index:
            return screen.widget_index
    return 0


def jump(app: App[Any], index: int, tab: str | None, path: str | None = None) -> None:
    """Show app ``index`` on ``tab`` (reusing its App screen when it is on top, or under a form or dialog opened from
    it: rebuilding it cost a palette jump ~300 ms; re-binding another app's App screen right over the apps list to
    it) with the focus in the field of
    ``path``: the tab focuses it once it is laid out (``AppScreen._focus_into``), so nothing focuses the tab's first
    field after it."""
    from tenantdeck.tui.screens.app_screen import TAB_IDS, AppScreen

    below = [screen for screen in app.screen_stack if isinstance(screen, AppScreen) and screen.app_index == index]
    if below and app.screen is not below[-1]:  # a form or dialog over this app's screen: back to it, not a new one
        while app.screen is not below[-1]:
            app.pop_screen()
    top = app.screen
    if isinstance(top, AppScreen) and top.app_index == index:
        if tab:
            top.call_later(top.action_show_tab, tab, path)
    elif isinstance(top, AppScreen) and len(app.screen_stack) == 2 and top.can_rebind(tab or TAB_IDS[0]):
        # another app's screen right over the apps list: re-bound in place, as popping it and opening the app
        # would re-bind it (AppScreen.for_app), without the two screen changes
        with app.batch_update():
            top.rebind(index, tab or TAB_IDS[0])
        if tab:
            top.call_later(top.action_show_tab, tab, path)
    else:
        while len(app.screen_stack) > 1:
            app.pop_screen()
        open_app(app, index, tab, path)


def focused_key_path(app: App[Any]) -> str | None:
    """The key path of what has focus: the nearest ``key_path`` up from the focused widget, else the screen's
    (the highlighted app or problem, the open app)."""
    node: Any = app.focused
    while node is not None:
        path = getattr(node, "key_path", None)
        if isinstance(path, str) and path:
            return path
        node = node.parent
    screen = app.screen
    from tenantdeck.tui.screens.app_screen import AppScreen
    from tenantdeck.tui.screens.apps_screen import AppsScreen
    from tenantdeck.tui.screens.problems_screen import ProblemsScreen

    if isinstance(screen, ProblemsScreen):
        problems = getattr(screen, "_problems", [])
        table = screen.query_one("DataTable")
        row = getattr(table, "cursor_row", 0)
        if problems and 0 <= row < len(problems):
            return str(problems[row].key_path) or None
    if isinstance(screen, AppsScreen):
        index = screen.selected_index()
        return f"apps[{index}]" if index is not None else None
    if isinstance(screen, AppScreen):
        return screen.prefix
    return None
