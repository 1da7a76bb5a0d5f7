"""The App screen kept for the session (``AppScreen.for_app``, issue 36): opened for another app, it shows that app
exactly as a screen composed for it does, on every tab, and nothing of the app shown before stays in it; what was
edited there stays in the draft.

Each test runs the same keys twice: once with the kept screen re-bound, once with every App screen composed anew
(``AppScreen.can_rebind`` answering no, the way the editor opened every app before), and compares every tab of the
app opened second: every cell of the screen with its style, what has the focus, and the draft.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent, Tabs, TextArea

from tenantdeck.tui.screens.app_screen import KEPT, TAB_IDS, TABS, AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.tabs.widget_fields import BoolRow, CodeRow, SequenceList, TextRow
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, no_blink, settle
from tests.tui.test_focus_lands import palette
from tests.tui.widget_fixtures import ACME, GLOBEX, INITECH

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft

#: what the keys below write to Acme Support's widget (which extends the preset: overrides of the widget)
ACME_WIDGET = f"apps[{ACME}].widgets[0]"


def picture(pilot: Pilot[Any]) -> list[list[tuple[str, str]]]:
    """Every cell of the screen with its style, one list per row."""
    pilot.app.clear_notifications()
    update = pilot.app.screen._compositor.render_update(full=True)
    return [[(segment.text, str(segment.style)) for strip in line for segment in strip] for line in update.strips]


async def every_tab(pilot: Pilot[Any]) -> list[tuple[Any, ...]]:
    """The app in front as each digit shows it (the tab it opened on first, then 2-9 and 1): the tab, what has the
    focus, the title and every cell."""
    seen = []
    for digit in ["", *[str(n) for n in range(2, len(TABS) + 1)], "1"]:
        if digit:
            await pilot.press(digit)
        await settle(pilot)
        no_blink(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, AppScreen)
        focused = pilot.app.focused
        seen.append((digit, screen.query_one(TabbedContent).active, type(focused).__name__,
                     getattr(focused, "id", None), screen.sub_title, picture(pilot)))
    return seen


async def edit_acme(pilot: Pilot[Any]) -> None:
    """On Acme Support's App screen: a colour typed and written, a switch flipped, the sidebar's order list moved
    down (its highlight), a Main toggle flipped, and the focus left in a code area with text typed in it."""
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, AppScreen) and screen.app_index == ACME
    colour = screen.query(TextRow).first()
    colour.input.focus()
    await settle(pilot)
    await pilot.press("ctrl+u", *"#123456", "enter")
    await settle(pilot)
    switch = screen.query_one("#style-override_system_background_colors", BoolRow)
    switch.focus()
    await pilot.press("space")
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    listing = screen.query_one(SequenceList)
    listing.focus()
    await pilot.press("down", "down")
    await settle(pilot)
    await pilot.press("3")
    await settle(pilot)
    toggle = next(row for row in screen.query(BoolRow) if row.section == "main")
    toggle.focus()
    await pilot.press("space")
    await settle(pilot)
    await pilot.press("1")
    await settle(pilot)
    code = screen.query(CodeRow).first()
    code.area.focus()
    await settle(pilot)
    await pilot.press(*"b{}")  # typed, not written yet: written when the field is left
    await settle(pilot)


async def back_to_the_apps(pilot: Pilot[Any]) -> None:
    """Escape until the apps list is shown (out of the code area first: it is written to the draft then)."""
    for _ in range(4):
        await pilot.press("escape")
        await settle(pilot)
        if isinstance(pilot.app.screen, AppsScreen):
            return
    raise AssertionError(f"still on {pilot.app.screen}")


def same_tabs(rebound: list[tuple[Any, ...]], composed: list[tuple[Any, ...]]) -> None:
    """Assert every tab was shown alike; else say where, as text (each differing row of the first tab that differs,
    with its styles)."""
    for mine, theirs in zip(rebound, composed, strict=True):
        assert mine[:-1] == theirs[:-1], (mine[:-1], theirs[:-1])
        rows = [(y, a, b) for y, (a, b) in enumerate(zip(mine[-1], theirs[-1], strict=True)) if a != b]
        assert not rows, f"tab {mine[1]}: " + "\n".join(
            f"row {y}:\n  rebound  {''.join(t for t, _ in a)!r} {a}\n  composed {''.join(t for t, _ in b)!r} {b}"
            for y, a, b in rows[:3])


def acme_edits(app: Any) -> dict[str, Any]:
    editor = app.editor
    colour = editor.get(f"{ACME_WIDGET}.style", {}) or {}
    return {"style": dict(colour), "main": editor.get(f"{ACME_WIDGET}.main", None)}


async def opened_second_by_enter(draft: Path, monkeypatch: pytest.MonkeyPatch, rebind: bool) -> tuple[Any, ...]:
    """Acme Support opened and edited, Escape, then Globex (no widget) and Initech opened from the apps list."""
    if not rebind:
        monkeypatch.setattr(AppScreen, "can_rebind", lambda self, tab: False)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await edit_acme(pilot)
        first = app.screen
        await back_to_the_apps(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == GLOBEX
        assert (app.screen is first) == rebind
        globex = await every_tab(pilot)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == INITECH
        assert (app.screen is first) == rebind
        initech = await every_tab(pilot)
        return globex, initech, acme_edits(app)


@pytest.mark.slow
async def test_an_app_opened_from_the_list_shows_as_if_composed_for_it(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        composed = await opened_second_by_enter(draft, patched, rebind=False)
    draft.write_text(widget_fixtures.draft_text(), encoding="utf-8")
    rebound = await opened_second_by_enter(draft, monkeypatch, rebind=True)
    globex, initech, edits = rebound
    assert edits == composed[2]
    assert edits["style"].get("override_system_background_colors") is not None
    assert "#123456" in edits["style"].values() and "b{}" in "".join(map(str, edits["style"].values()))
    same_tabs(globex, composed[0])
    same_tabs(initech, composed[1])


async def opened_second_by_palette(draft: Path, monkeypatch: pytest.MonkeyPatch, rebind: bool) -> tuple[Any, ...]:
    """Acme Support opened and edited, text left typed in a code area, then a palette jump to Initech."""
    if not rebind:
        monkeypatch.setattr(AppScreen, "can_rebind", lambda self, tab: False)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await edit_acme(pilot)
        first = app.screen
        await palette(app, pilot, "Initech", "App: Initech")
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == INITECH
        assert (app.screen is first) == rebind
        assert len(app.screen_stack) == 2
        initech = await every_tab(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)
        return initech, acme_edits(app)


@pytest.mark.slow
async def test_a_palette_jump_to_another_app_shows_it_as_if_composed_for_it(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        composed = await opened_second_by_palette(draft, patched, rebind=False)
    draft.write_text(widget_fixtures.draft_text(), encoding="utf-8")
    initech, edits = await opened_second_by_palette(draft, monkeypatch, rebind=True)
    # the text typed in Acme's code area is written to Acme as the screen shows Initech (leaving a field writes it);
    # a screen composed anew for Initech dropped it with the old screen: the one difference
    assert edits["style"].pop("custom_css") == "b{}"
    assert "custom_css" not in composed[1]["style"]
    assert edits == composed[1]
    same_tabs(initech, composed[0])


@pytest.mark.slow
async def test_nothing_typed_in_one_app_reaches_the_next(draft: Path) -> None:
    """The fields of the kept screen hold the next app's values and nothing of the last one's: a field's undo history
    (a code area's ctrl+z), its cursor and the highlighted section of the order list start as in a field composed
    for the app, also where both apps show the same value."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await edit_acme(pilot)
        acme = app.screen
        assert isinstance(acme, AppScreen)
        for row in acme.query(TextRow):
            row.input.cursor_position = 0  # moved to the start in each field
        code = acme.query(CodeRow).last()  # custom JS: Acme and Initech both show the default, "v2"
        code.area.focus()
        await settle(pilot)
        await pilot.press("x", "backspace")  # the same text again, two steps in the area's own undo
        await settle(pilot)
        assert code.area.text == "v2"
        assert acme.query_one(SequenceList).highlighted == 2
        await back_to_the_apps(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AppScreen) and screen.app_index == INITECH
        assert app.get_screen(KEPT) is screen
        def shown(row: TextRow | CodeRow) -> str:
            """The value the row is painted with: Initech's (resolved: a default where it has none)."""
            assert row.state is not None and row.state.where[:2] == ("apps", INITECH), row.key
            value = row.state.resolved.value
            return "" if value is None else str(value)

        for row in screen.query(TextRow):
            assert row.input.value == shown(row), row.key
            assert row.input.cursor_position == len(row.input.value), row.key
        for row in screen.query(CodeRow):
            area = row.area
            assert area.text == shown(row), row.key
            area.focus()
            await settle(pilot)
            await pilot.press("ctrl+z")  # the area's own undo: nothing typed here yet (Acme's "b{}" was elsewhere)
            await settle(pilot)
            assert area.text == shown(row), row.key
        screen.query_one(Tabs).focus()
        await pilot.press("2")
        await settle(pilot)
        assert screen.query_one(SequenceList).highlighted == 0
        assert not any(isinstance(field, Input | TextArea) and field.has_focus
                       for field in screen.query("*") if field is not app.focused)


async def shown_again(draft: Path, monkeypatch: pytest.MonkeyPatch, rebind: bool) -> tuple[Any, ...]:
    """Acme Support opened, Escape, opened again; Escape, another theme chosen on the apps list, opened again: how
    many widgets of the App screen were styled as it was shown the second and the third time, and its picture then."""
    from textual.css.stylesheet import Stylesheet

    if not rebind:
        monkeypatch.setattr(AppScreen, "can_rebind", lambda self, tab: False)
    styled: list[Any] = []
    real = Stylesheet.update_nodes

    def update_nodes(self: Stylesheet, nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        styled.extend(node for node in nodes if any(isinstance(n, AppScreen) for n in node.ancestors_with_self))
        real(self, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", update_nodes)
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        first = app.screen
        counts = []
        assert app.theme != "textual-light"
        for theme in (None, "textual-light"):
            await pilot.press("escape")
            await settle(pilot)
            if theme is not None:
                app.theme = theme
                await settle(pilot)
            styled.clear()
            await pilot.press("enter")
            await settle(pilot)
            assert (app.screen is first) == rebind
            counts.append(len(styled))
        no_blink(pilot)
        return counts, picture(pilot)


async def test_a_kept_screen_is_styled_again_only_when_the_styles_changed(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shown again as it was put away, the kept screen is not styled anew (tui/textual_fixes.py: Textual restyled
    every widget of a screen it pushed); after a theme change it is, and shows the new theme as a new screen does."""
    with monkeypatch.context() as patched:
        (_, composed_again), composed = await shown_again(draft, patched, rebind=False)
    shutil.rmtree(draft.parent / "config")  # the theme chosen is remembered there
    (again, after_theme), rebound = await shown_again(draft, monkeypatch, rebind=True)
    assert composed_again > 0  # a new screen: its widgets styled as they mount (not again as it is first shown)
    assert again == 0
    assert after_theme > 50
    assert rebound == composed


async def test_a_palette_command_is_painted_once_it_has_run_not_after_a_fixed_wait(draft: Path) -> None:
    """Textual's palette holds the frames as it closes on an entry (``App.delay_update``) for a fixed 50 ms, the
    floor of every palette jump's first frame; the editor holds them until the entry's command has run: no timer,
    and the batch is over once the queue has turned."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        timers: list[Any] = []
        real = app.set_timer
        app.set_timer = lambda *args, **kwargs: timers.append((args, kwargs)) or real(*args, **kwargs)  # type: ignore[method-assign]
        ran: list[int] = []
        app.delay_update()
        app.call_later(lambda: ran.append(app._batch_count))  # queued as the palette queues the command
        assert app._batch_count == 1
        await pilot.pause()
        assert ran == [1]  # the command ran with the frames held
        assert app._batch_count == 0
        assert not timers
        await palette(app, pilot, "Initech", "App: Initech")
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == INITECH
        assert app._batch_count == 0


async def test_the_kept_screen_composes_ahead_for_the_app_it_shows_and_only_while_shown(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Composing ahead (``AppScreen.PRECOMPOSE_AFTER``) stops while the kept screen is put away, and once it is
    re-bound composes every tab again for the app it shows: no tab is left with the last app's content."""
    monkeypatch.setattr(AppScreen, "PRECOMPOSE_AFTER", 1.0)  # nothing composed ahead while these keys come
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AppScreen)
        await pilot.press("9")  # the settings tab composed for Acme; not every tab is yet
        await settle(pilot)
        assert getattr(screen._content("settings"), "app_index", None) == ACME
        assert any(screen._content(t) is None for t in TAB_IDS)
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        monkeypatch.setattr(AppScreen, "PRECOMPOSE_AFTER", 0.05)
        await pilot.pause(1.5)  # the step planned while shown has come, found the screen put away, and stopped
        assert not screen._ahead_planned  # nothing polls while the apps list is shown
        assert getattr(screen._content("settings"), "app_index", None) == ACME
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.screen is screen and screen.app_index == INITECH
        # every tab composed for Initech, then no step planned: the step that composes the last tab mounts it and
        # only then, as it resumes, plans nothing more (a look between the two saw a step still planned)
        for _ in range(500):
            if all(getattr(screen._content(t), "app_index", None) == INITECH for t in TAB_IDS) and not (
                    screen._ahead_planned):
                break
            await pilot.pause(0.02)
        else:
            raise AssertionError({t: getattr(screen._content(t), "app_index", None) for t in TAB_IDS},
                                 screen._ahead_planned)


async def test_a_problem_jump_to_another_app_shows_the_kept_screen_again(draft: Path) -> None:
    """From Initech's App screen, F8 and Enter on a problem of Acme's colour: the Problems screen and the kept screen
    are closed, and the kept screen, re-bound to Acme, is shown again on the field (closed and shown again in one
    go: Textual's "put away" reaches it after its "shown"); Escape then leads to the apps list, and Enter opens the
    next app on it as before."""
    from tenantdeck.tui.screens.problems_screen import ProblemsScreen

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AppScreen)
        colour = screen.query(TextRow).first()
        colour.input.focus()
        await settle(pilot)
        await pilot.press("ctrl+u", *"#12", "enter")  # written as typed: a problem of the draft
        await settle(pilot)
        path = f"{ACME_WIDGET}.style.{colour.key}"
        await back_to_the_apps(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.screen is screen and screen.app_index == INITECH
        await pilot.press("f8")
        await settle(pilot)
        problems = app.screen
        assert isinstance(problems, ProblemsScreen)
        from textual.widgets import DataTable

        problems.query_one(DataTable).move_cursor(row=[str(p.key_path) for p in problems._problems].index(path))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen_stack == [app.screen_stack[0], screen] and screen.app_index == ACME
        assert app.focused is colour.input or app.focused is colour
        assert colour.input.value == "#12"
        await back_to_the_apps(pilot)
        await pilot.press("up", "enter")  # the list's cursor is where Enter left it, on Initech
        await settle(pilot)
        assert app.screen is screen and screen.app_index == GLOBEX
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)
