"""Moving around the editor (issue 36): a tab is composed when it is first shown, and the frame that shows its name
underlined in the tab bar already shows its content and its footer; F1's help is built once per place."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import TabbedContent, TabPane, Tabs
from textual.worker import Worker

from tenantdeck.tui.screens.app_screen import TABS, AppScreen
from tenantdeck.tui.screens.help_screen import HelpScreen
from tenantdeck.tui.widgets.footer import KeyFooter
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.widget_fixtures import ACME

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft


async def test_opening_an_app_composes_only_the_tab_shown(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        panes = {pane.id: bool(pane.children) for pane in app.screen.query(TabPane)}
        assert panes == {tab[0]: tab[0] == "style" for tab in TABS}


def underlined(screen: AppScreen) -> str:
    """The tab whose label the tab bar's underline is drawn under (what the user sees, not the bar's state)."""
    from textual.widgets._tabs import Underline

    bar = screen.query_one(Tabs)
    line = bar.query_one(Underline)
    for tab in bar.query("Tab"):
        start, end = tab.virtual_region.shrink(tab.styles.gutter).column_span
        if (start, end) == (line.highlight_start, line.highlight_end):
            return str(tab.id).removeprefix("--content-tab-")
    return "?"


@pytest.mark.parametrize("digit", [str(n) for n in range(2, 10)])
async def test_every_frame_shows_the_tab_bar_and_the_content_of_the_same_tab(draft: Path, digit: str) -> None:
    """Each frame written after a digit: the tab underlined is the pane shown, that pane has its content, and the
    footer already lists the keys of what has the focus there."""
    app = make_app(draft)
    frames: list[tuple[str, str, bool, str]] = []

    def display(screen: Any, renderable: Any) -> None:
        App._display(app, screen, renderable)
        top = app.screen
        if renderable is not None and isinstance(top, AppScreen):
            tabs = top.query_one(TabbedContent)
            pane = tabs.active_pane
            footer = top.query_one(KeyFooter).text
            frames.append((underlined(top), tabs.active, pane is not None and bool(pane.children) and pane.display,
                           footer))

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_app(ACME)
        await settle(pilot)
        app._display = display  # type: ignore[method-assign]
        await pilot.press(digit)
        await settle(pilot)
        want = TABS[int(digit) - 1][0]
        assert frames, "no frame after the key"
        assert all(bar == shown and has_content for bar, shown, has_content, _ in frames), frames
        assert frames[-1][0] == want
        assert all(footer == frames[-1][3] for *_, footer in frames), "the footer lagged the content"


async def test_help_is_built_once_per_place(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        first = app.screen
        assert isinstance(first, HelpScreen) and "## Apps" in first.text
        await pilot.press("escape", "f1")
        await settle(pilot)
        assert app.screen is first, "the same help, shown again rather than built anew"
        await pilot.press("escape", "enter", "f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and app.screen is not first and "## App\n" in app.screen.text


@pytest.fixture
def nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A process that has frozen nothing itself (as ``tenantdeck edit``): the suite's own freeze after collection
    (tests/conftest.py) is undone for the test and made again after it, and the editor asks again whether its host
    froze anything (``gcpause`` asks once per process)."""
    from tenantdeck import gcpause

    monkeypatch.setattr(gcpause, "_host_froze", None)
    gc.unfreeze()
    yield
    gc.collect()
    gc.freeze()


async def test_a_full_collection_does_not_walk_the_validated_draft_again(draft: Path, nothing_frozen: None) -> None:
    """Once the draft is read and validated it is left out of the cyclic collector's full collections (a tab's first
    showing set one off, and it walked every app: a tab took longer with more apps); the editor gives it back when
    it closes, so a process that goes on collects the editor's garbage."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        kept = gc.get_freeze_count()
        assert kept > 0
        tracked = {id(obj) for obj in gc.get_objects()}
        assert id(app.editor.session) not in tracked
    assert gc.get_freeze_count() == 0


async def test_the_editor_leaves_a_hosts_own_freeze_alone(draft: Path, nothing_frozen: None) -> None:
    """A process that froze objects itself keeps them frozen, during the editor and after it: ``gc.unfreeze`` undoes
    every freeze, so an editor that froze and unfroze would undo the host's too."""
    gc.collect()
    gc.freeze()
    hosts = gc.get_freeze_count()
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert 0 < gc.get_freeze_count() <= hosts, "the editor froze more (its draft), or unfroze the host's"
    assert 0 < gc.get_freeze_count() <= hosts, "the editor unfroze the host's objects as it closed"


async def test_textuals_line_style_cache_keeps_no_widget_alive(draft: Path) -> None:
    """Textual's cache of line styles held the last 1,024 widgets' style caches and every strip they drew
    (Textualize/textual#6665): a closed screen's widgets stayed alive, and every full collection walked them. The
    editor installs the cache keyed on the colours alone."""
    from textual._styles_cache import StylesCache
    from textual.color import Color

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    cache = StylesCache()
    alive = weakref.ref(cache)
    inner, outer = cache.get_inner_outer(Color(10, 20, 30), Color(200, 100, 0, 0.5))
    assert (inner, outer) == StylesCache().get_inner_outer(Color(10, 20, 30), Color(200, 100, 0, 0.5))
    del cache
    gc.collect()
    assert alive() is None


async def test_an_opened_screen_is_laid_out_once_at_its_size_and_again_after_a_resize(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pushed screen's first layout posts the screen a Resize of the size it was just laid out at, and Textual
    laid the whole screen out again for it (a third of opening an app's layout). Once per size now; a real resize
    is laid out, and the screen then fills the new size."""
    from textual.screen import Screen

    sized: list[tuple[str, object]] = []
    real = Screen._refresh_layout

    def counted(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
        if size is not None:
            sized.append((type(self).__name__, size))
        real(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        sized.clear()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen)
        assert [name for name, _ in sized] == ["AppScreen"], sized
        sized.clear()
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert ("AppScreen", (100, 30)) in sized
        assert app.screen.query_one(TabbedContent).size.width == 100


async def test_a_palette_jump_then_escape_leaves_no_footer_behind(draft: Path) -> None:
    """The footer of a screen a palette jump closed gets its recompose after it left the screen: it does nothing
    then (it raised NoScreen, the app stopped and Escape never came back to the apps)."""
    from tenantdeck.tui.screens.apps_screen import AppsScreen

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Globex")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index != ACME
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)


def alive(closed: list[weakref.ref[Any]]) -> list[str]:
    """The kinds of the screens in ``closed`` still alive. A function of its own, so that no name of the test's
    frame is left holding one: ``{type(s) for ref in closed if (s := ref()) ...}`` bound ``s`` in the test, to the
    last screen it looked at, and every retry that followed found that screen alive because ``s`` held it."""
    return sorted({type(screen).__name__ for screen in (ref() for ref in closed) if screen is not None})


def cancelled_timers_due(closed: list[weakref.ref[Any]]) -> float | None:
    """Seconds until the event loop lets go of the last cancelled timer that still carries a closed screen, or None
    when no cancelled timer does.

    asyncio's ``Handle.cancel`` drops a timer's callback and arguments but not the ``contextvars`` context it was
    scheduled in, and the loop keeps a cancelled timer in its heap until the timer's time comes. Textual runs a
    worker with ``active_worker`` set to it, so every timer scheduled inside a screen's worker carries that worker,
    and the worker its screen (``Worker.node``): the palette's search (``CommandPalette._gather_commands``) schedules
    its busy countdown (0.5 s) and a 0.1 s wait for each hit, and cancels them when it is done. A palette closed less
    than 0.5 s after its search began stays alive until then, whatever it holds itself (seen once in 40 runs: loop
    ``_scheduled`` -> cancelled ``TimerHandle`` -> its ``Context`` -> the ``_gather_commands`` worker -> the palette).
    Reads two private names of asyncio (``_scheduled``, ``_context``: ``Handle.get_context`` is Python 3.12's)."""
    screens = {id(screen) for screen in (ref() for ref in closed) if screen is not None}
    loop = asyncio.get_running_loop()
    due: float | None = None
    for handle in getattr(loop, "_scheduled", []):
        context = getattr(handle, "_context", None)
        if not handle.cancelled() or context is None:
            continue
        for value in context.values():
            node = value.node if isinstance(value, Worker) else value
            while node is not None and id(node) not in screens:
                node = getattr(node, "_parent", None)
            if node is not None:
                due = max(due or 0.0, handle.when() - loop.time())
    return due


async def test_a_closed_screen_is_let_go(draft: Path) -> None:
    """Every screen closed is freed: one kept alive keeps every widget and line cache it drew, and each full
    collection then walks them all (at 1,000 apps those collections grew to 300 ms, inside whatever key came next).
    Two keepers were found: a pool thread that ran a screen's worker (the review's plan) kept that worker in its
    context, and the installed help screen kept the screen it was last shown over. The App screen kept for the
    session on purpose (``AppScreen.for_app``) and the Presets screen kept the same way (``PresetsScreen.for_app``)
    are the screens left alive, each the only one of its kind.

    One keeper lets go by itself, and is waited for: a cancelled timer of one of the screen's workers, until its
    time comes (:func:`cancelled_timers_due`)."""
    import weakref

    from tenantdeck.tui.screens.app_screen import KEPT
    from tenantdeck.tui.screens.apps_screen import AppsScreen
    from tenantdeck.tui.screens.presets_screen import KEPT as PRESETS_KEPT

    app = make_app(draft)
    closed: list[weakref.ref[Any]] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for keys in (("enter", "2", "f1"), ("enter", "f6"), ("f6",), ("f8",), ("f5",), ("P",), ("p",), ("p",),
                     ("enter", "ctrl+p")):
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
                kept = [app.get_screen(name) for name in (KEPT, PRESETS_KEPT) if app.is_screen_installed(name)]
                closed.extend(weakref.ref(s) for s in app.screen_stack[1:]
                              if not isinstance(s, HelpScreen) and s not in kept)
            while not isinstance(app.screen, AppsScreen):
                await pilot.press("escape")
                await settle(pilot)
        due = cancelled_timers_due(closed)
        if due is not None:
            await pilot.pause(due)  # the loop drops a cancelled timer once its time has come
        gc.collect()
        assert not alive(closed), f"closed and still alive: {alive(closed)}"
        # a third keeper, until the title next changes: each closed screen's header in the app's title watchers
        watchers = getattr(app, "__watchers", {})
        stale = [type(node).__name__ for name in ("title", "sub_title") for node, _ in watchers.get(name, [])
                 if not node.is_attached]
        assert not stale, f"closed screens' headers still watch the title: {stale}"


async def test_full_collections_wait_for_the_user_to_be_idle(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor puts full collections off while keys come (tenantdeck.gcpause.collect_rarely) and asks for the
    one due only once nobody has typed for IDLE_AFTER; on leaving, the thresholds are as before."""
    import tenantdeck.tui.app as app_module

    before = gc.get_threshold()
    app = make_app(draft)
    since_input: list[float] = []
    monkeypatch.setattr(app_module, "IDLE_AFTER", 0.2)
    monkeypatch.setattr(app_module, "collect_if_due",
                        lambda: since_input.append(time.monotonic() - app._last_input) or False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] >= 100
        for _ in range(6):  # a key every 0.1 s
            await pilot.press("down")
            await pilot.pause(0.1)
        for _ in range(50):
            if since_input:
                break
            await pilot.pause(0.1)
    assert since_input and min(since_input) >= 0.2  # asked, and never sooner than IDLE_AFTER after a key
    assert gc.get_threshold() == before


async def test_help_shown_again_is_not_styled_again_unless_the_css_changed(draft: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual restyles every node of a resumed screen; the installed help's styles stand until the app's CSS
    changes (F1's first frame, issue 36). A theme chosen between two F1s still reaches the help."""
    from textual.containers import VerticalScroll

    styled: list[object] = []
    real = HelpScreen.update_node_styles

    def counted(self: HelpScreen, animate: bool = True) -> None:
        styled.append(self)
        real(self, animate)

    monkeypatch.setattr(HelpScreen, "update_node_styles", counted)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        box = help_screen.query_one(VerticalScroll)
        before = (box.styles.background, box.styles.border_top)
        await pilot.press("escape")
        await settle(pilot)
        styled.clear()
        await pilot.press("f1")
        await settle(pilot)
        assert app.screen is help_screen and styled == []
        assert (box.styles.background, box.styles.border_top) == before
        await pilot.press("escape")
        await settle(pilot)
        other = next(name for name in app.available_themes if name != app.theme and
                     app.available_themes[name].dark == app.current_theme.dark and
                     app.available_themes[name].primary != app.current_theme.primary)
        app.theme = other
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert box.styles.border_top != before[1], "the new theme's primary colour on the help's border"
        assert app.screen is help_screen and styled == [help_screen]


async def test_a_screen_just_pushed_is_not_styled_again_as_it_resumes(draft: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Its nodes were styled as they mounted: Textual's restyle of every node on the first ``ScreenResume`` was
    7-9 ms of bulk edit's first frame (tui/textual_fixes.py). Bulk edit's filter takes the focus first, not the
    form around it (whose focus restyled the whole form twice). Escape goes back to the Apps list, focused."""
    from textual.screen import Screen

    from tenantdeck.tui.screens.apps_screen import AppsScreen
    from tenantdeck.tui.screens.bulk_edit import BulkEditScreen

    styled: list[str] = []
    real = Screen.update_node_styles

    def counted(self: Screen[Any], animate: bool = True) -> None:
        styled.append(type(self).__name__)
        real(self, animate)

    monkeypatch.setattr(Screen, "update_node_styles", counted)
    focused: list[str] = []
    real_focus = Screen.set_focus

    def focus(self: Screen[Any], widget: Any, *args: Any, **kwargs: Any) -> Any:
        focused.append(str(getattr(widget, "id", None) or type(widget).__name__))
        return real_focus(self, widget, *args, **kwargs)

    monkeypatch.setattr(Screen, "set_focus", focus)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        styled.clear()
        focused.clear()
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BulkEditScreen)
        assert "BulkEditScreen" not in styled and set(focused) == {"filter"}
        assert app.focused is not None and app.focused.id == "filter"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen) and app.focused is not None
