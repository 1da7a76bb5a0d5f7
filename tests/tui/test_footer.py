"""The footer at 80x24: it shows every key it lists, on every screen and tab (nothing cut off at the right edge),
and the keys it lists are those of the screen or modal in front, with Escape and any key its text names."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Button, Markdown, Static

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import TABS
from tenantdeck.tui.widgets.footer import KeyFooter
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import prepare


def overflow(app: TenantdeckApp) -> tuple[str, int, int]:
    """The footer's keys as text, the width they need and the width the footer has."""
    footer = app.screen.query_one(KeyFooter)
    return footer.text, len(footer.text), footer.size.width


def test_the_footer_fits_80_columns_on_every_screen_and_tab(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))
    seen: dict[str, tuple[str, int, int]] = {}

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            seen["apps"] = overflow(app)
            await pilot.press("enter")
            await settle(pilot)
            for i, tab in enumerate(TABS, 1):
                await pilot.press(str(i))
                await settle(pilot)
                seen[tab[0]] = overflow(app)
            for key, name in (("f8", "problems"), ("f6", "review"), ("f7", "history")):
                await pilot.press("escape")
                await settle(pilot)
                await pilot.press(key)
                await settle(pilot)
                seen[name] = overflow(app)

    asyncio.run(main())
    assert {"apps", "main", "webhooks", "problems", "review", "history"} <= set(seen)
    too_wide = {name: f"{text} ({needed} > {width})" for name, (text, needed, width) in seen.items()
                if needed > width}
    assert not too_wide


# -- what is in front lists its own keys ---------------------------------------------------------------------------
#
# Every screen and modal the editor can show, found by walking the ``tenantdeck.tui`` package (a screen added later
# is held too: it fails here until places() says how to reach it), is opened as a user reaches it, and F1 over it
# when it is not a modal. The footer on the bottom line must be the front screen's own (a modal without one showed
# the keys of the screen behind it, which do nothing while the modal is open), must list Escape where Escape leaves,
# must list every key the screen's text tells the user to press, and must fit.

Place = tuple[Callable[[Path], Path], dict[str, str], Callable[[Pilot[None]], Awaitable[None]]]


def screen_classes() -> dict[str, type[Screen[Any]]]:
    """Every public Screen class defined in ``tenantdeck.tui``, by name (its modules imported to find them)."""
    import tenantdeck.tui

    for module in pkgutil.walk_packages(tenantdeck.tui.__path__, "tenantdeck.tui."):
        importlib.import_module(module.name)
    found: dict[str, type[Screen[Any]]] = {}
    todo: list[type[Screen[Any]]] = [Screen]
    while todo:
        for cls in todo.pop().__subclasses__():
            todo.append(cls)
            if cls.__module__.startswith("tenantdeck.tui.") and not cls.__name__.startswith("_"):
                found[cls.__name__] = cls
    return found


def then(scene: Callable[[Pilot[None]], Awaitable[None]], *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """``scene``, then ``keys`` pressed one at a time, each settled."""
    async def run(pilot: Pilot[None]) -> None:
        await scene(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


async def allow_violation(pilot: Pilot[None]) -> None:
    """The dialog a push refused by a policy offers (``v``), over the review: its rules from the gate."""
    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.view import GateRule
    from tenantdeck.tui.screens.allow_violation import AllowViolationScreen

    await then(settle, "f6")(pilot)
    pilot.app.push_screen(AllowViolationScreen([GateRule("no-gifs", "error", 1)], None,
                                               lambda names, why: Allowance(tuple(names), why.strip())))
    await settle(pilot)


def places() -> dict[str, Place]:
    """Screen class name -> how a user reaches it: the pictures' scenes where one shows it, else a few keys more."""
    from tests.tui import events_fixtures, push_fixtures, safety_fixtures

    def drafted(draft: str, recovery: bool = False) -> Callable[[Path], Path]:
        def setup(tmp: Path) -> Path:
            path = prepare(tmp, draft)
            if recovery:
                safety_fixtures.leave_recovery(path)
            return path

        return setup

    shown = {**safety_fixtures.scenes(), **events_fixtures.scenes()}
    scene = {name: (drafted(draft, recovery), {}, run) for name, (draft, recovery, run) in shown.items()}
    demo = drafted(safety_fixtures.DEMO)
    push = push_fixtures.scenes()["push-summary"]
    return {
        "AppsScreen": scene["apps"],
        "AppScreen": (demo, {}, then(settle, "down", "enter")),  # Globex Community: no widget, on the Style tab
        "HelpScreen": scene["help"],
        "ProblemsScreen": scene["problems"],
        "ReviewScreen": scene["review"],
        "HistoryScreen": scene["history"],
        "RestoreScreen": scene["restore"],
        "ConfirmScreen": (demo, {}, then(scene["review"][2], "ctrl+q")),  # over the review, which lacks F6
        "PullScreen": (demo, {}, then(settle, "f5")),
        "NewAppScreen": (demo, {}, then(settle, "n")),
        "WebhookForm": (demo, {}, then(safety_fixtures.open_tab("webhooks"), "a")),
        "BulkEditScreen": scene["bulk-edit"],
        "PresetsScreen": scene["presets"],
        "PresetValueScreen": (scene["presets"][0], {}, then(scene["presets"][2], "down", "down", "enter")),
        "PoliciesScreen": scene["policies"],
        "PolicyAppsScreen": scene["policy-apps"],
        "FixConfirmScreen": (scene["policies"][0], {}, then(scene["policies"][2], "f")),
        "AllowViolationScreen": (demo, {}, allow_violation),
        "ExtensionSettingsForm": scene["extension-settings-profanity"],
        "EventsScreen": scene["events"],
        "SaveDeliveryScreen": (scene["events"][0], {}, then(scene["events"][2], "w")),
        "SendTestEvent": scene["send-test-event"],
        "PushSummaryScreen": (push.setup, dict(push.env), push.run_before),
        "Palette": (demo, {}, then(safety_fixtures.open_tab("webhooks"), "ctrl+p")),
    }


def footer_faults(app: TenantdeckApp) -> list[str]:
    """What is wrong with the footer on the bottom line for the screen in front (nothing: an empty list)."""
    screen = app.screen
    name = type(screen).__name__
    footers = list(screen.query(KeyFooter))
    try:
        bottom, _ = screen.get_widget_at(0, app.size.height - 1)
    except NoWidget:
        bottom = None
    if bottom is None or not any(f in bottom.ancestors_with_self for f in footers):
        return [f"{name}: the bottom line is not its own footer (the keys shown are the screen's behind it)"]
    listed = {key.action: key.description for key in footers[0].entries}
    active = screen.active_bindings
    faults = []
    shown, needed, width = overflow(app)
    if needed > width:
        faults.append(f"{name}: {shown} needs {needed} columns of {width}")
    escape = active.get("escape")
    if escape is not None and screen is not app.screen_stack[0] and escape.binding.action not in listed:
        faults.append(f"{name}: Escape ({escape.binding.description}) works but is not listed")
    for said, key in keys_named(screen):
        if key not in active or active[key].binding.action not in listed:
            faults.append(f"{name}: its text says {said!r} but the footer does not list {key}")
        elif (button := ON_BUTTON.search(said)) and not listed[active[key].binding.action].lower().startswith(
                words := said[:button.start()].strip().lower()):
            faults.append(f"{name}: the button says {words!r}, the footer {listed[active[key].binding.action]!r}")
    return faults


#: how a screen's text names a key: "Press a to ...", "(F2 saves)"; and a button, "Restore (r)", "Cancel (Esc)"
NAMED = re.compile(r"\bPress (\S+?)\b|\b(F\d{1,2})\b")
ON_BUTTON = re.compile(r"\((\w+)\)$")


def keys_named(screen: Screen[Any]) -> list[tuple[str, str]]:
    """(the words, the key) for each key the visible text of ``screen`` names: its labels and buttons (not the
    Markdown of a help text, which lists every key of the place it explains)."""
    shown = [w for w in screen.query(Static) if w.region.area and not any(isinstance(a, Markdown)
                                                                         for a in w.ancestors)]
    found = [(m[0], next(g for g in m.groups() if g)) for w in shown for m in NAMED.finditer(str(w.render()))]
    found += [(str(b.label), m[1]) for b in screen.query(Button) if b.region.area
              and (m := ON_BUTTON.search(str(b.label).strip()))]
    named = [(said, {"esc": "escape"}.get(key.lower(), key.lower())) for said, key in found]
    return [(said, key) for said, key in named if key not in FIELD_KEYS]


#: keys whose meaning is the focused field's or button's own (Enter submits what has the focus, Tab moves it): the
#: footer lists a screen's keys, not every widget's
FIELD_KEYS = frozenset({"enter", "tab"})


@pytest.mark.parametrize("name", sorted(screen_classes()))
def test_the_footer_lists_the_keys_of_what_is_in_front(name: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    place = places().get(name)
    assert place is not None, f"{name} is not in places(): say how a user reaches it, so its footer is checked"
    setup, env, run = place
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    app = make_app(setup(tmp_path))
    faults: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await run(pilot)
            assert type(app.screen).__name__ == name
            faults.extend(footer_faults(app))
            if not app.screen.is_modal:  # F1 is the app's key: a modal's keys are its own
                await pilot.press("f1")
                await settle(pilot)
                assert type(app.screen).__name__ == "HelpScreen", f"F1 over {name} opened no help"
                faults.extend(f"F1 over {name}: {fault}" for fault in footer_faults(app))

    asyncio.run(main())
    assert not faults


def test_a_click_on_a_key_presses_it(tmp_path: Path) -> None:
    """The footer draws its keys as one line (tui/widgets/footer.py); a click still presses the key under the
    pointer, as a click on Textual's footer did, and the pointer over a key shows its hover style (a greyed key
    only rings: tests/tui/test_push_applied.py)."""
    from tenantdeck.tui.screens.help_screen import HelpScreen

    app = make_app(prepare(tmp_path))

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            footer = app.screen.query_one(KeyFooter)
            spans = {entry.action: (start, end) for start, end, entry in footer._spans}
            help_at = spans["app.help"][0] if "app.help" in spans else spans["help"][0]
            plain = footer.render()
            await pilot.hover(KeyFooter, offset=(help_at, 0))
            await settle(pilot)
            assert footer.render().spans != plain.spans, "the key under the pointer looks hovered"
            gap = spans[min(spans, key=lambda a: spans[a][0])][1]  # the column after the first key: a gap
            assert footer.entry_at(gap) is None
            await pilot.click(KeyFooter, offset=(gap, 0))
            await settle(pilot)
            assert not isinstance(app.screen, HelpScreen), "a click between keys presses nothing"
            await pilot.click(KeyFooter, offset=(help_at, 0))
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen), app.screen
    asyncio.run(main())


def test_the_palette_lists_its_own_keys_not_the_tab_s_behind_it(tmp_path: Path) -> None:
    """ctrl+p on the Webhooks tab (a docs-only trial, F9): the bottom line kept "a Add e Edit d Delete ...", keys that
    type into the palette's search while it is open. It lists the palette's keys now, and Enter, listed as Run, still
    runs the command found (here: Help)."""
    from tests.tui import safety_fixtures

    app = make_app(prepare(tmp_path, safety_fixtures.DEMO))

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await safety_fixtures.open_tab("webhooks")(pilot)
            assert "a Add" in overflow(app)[0]
            await pilot.press("ctrl+p")
            await settle(pilot)
            assert not footer_faults(app)
            assert overflow(app)[0] == "↑↓ Move ⏎ Run esc Close"
            await pilot.press(*"help", "down", "up", "enter")
            await settle(pilot)
            assert type(app.screen).__name__ == "HelpScreen"

    asyncio.run(main())
