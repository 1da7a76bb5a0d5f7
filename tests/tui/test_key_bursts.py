"""No key lost: a burst of keys (posted the way the terminal driver posts a chunk it read: all at once, no pause
between them) lands in a text field in the order typed, in every kind of text field and prompt, also while a
worker (validation, the filter, the palette's search) is running. Issue 36; the cause was Textual running a bound
key (Backspace, ctrl+u, arrows) only after it bubbled to the app, so letters typed after it overtook it
(tui/key_order.py)."""

from __future__ import annotations

import asyncio
import random
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from tenantdeck.tui import key_order
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.event_lab import EventLab
from tenantdeck.tui.screens.app_screen import AppScreen
from tests.fuzzing import examples
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.widget_fixtures import ACME, GLOBEX, draft_text

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft

#: keys a sequence is made of: letters Input takes as text, and the bound keys that used to be overtaken
TEXT_KEYS = ("a", "b", "c", "0", "9", "#", "full_stop")
BOUND_KEYS = ("backspace", "backspace", "ctrl+u", "left", "right", "home", "end", "delete")


def typed(value: str, cursor: int, keys: list[str]) -> str:
    """What an Input holds after ``keys``, typed one at a time from ``value`` with the cursor at ``cursor``."""
    for key in keys:
        char = {"full_stop": "."}.get(key, key)
        if len(char) == 1:
            value, cursor = value[:cursor] + char + value[cursor:], cursor + 1
        elif key == "backspace" and cursor:
            value, cursor = value[:cursor - 1] + value[cursor:], cursor - 1
        elif key == "delete":
            value = value[:cursor] + value[cursor + 1:]
        elif key == "ctrl+u":
            value, cursor = value[cursor:], 0
        elif key == "left":
            cursor = max(0, cursor - 1)
        elif key == "right":
            cursor = min(len(value), cursor + 1)
        elif key == "home":
            cursor = 0
        elif key == "end":
            cursor = len(value)
    return value


def sequences(count: int, seed: int) -> list[list[str]]:
    """Generated bursts: 2-12 keys, at least one bound key followed by a letter (the case that lost keys)."""
    rng = random.Random(seed)
    out = [["backspace", "a", "b"], ["ctrl+u", "ctrl+u", "a", "b", "c"], ["left", "left", "a", "backspace", "b"]]
    while len(out) < count:
        keys = [rng.choice(TEXT_KEYS + BOUND_KEYS) for _ in range(rng.randint(1, 10))]
        keys[rng.randrange(len(keys)):] += [rng.choice(BOUND_KEYS), rng.choice(TEXT_KEYS[:3])]
        out.append(keys)
    return out


def burst(app: TenantdeckApp, keys: list[str]) -> None:
    """Post every key at once, as the driver does with what it read from the terminal in one chunk."""
    for key in keys:
        char = {"full_stop": "."}.get(key, key)
        app.post_message(events.Key(key, char if len(char) == 1 else None))


async def check_field(pilot: Pilot[None], field: Input, count: int, seed: int,
                      during: Callable[[], Any] | None = None) -> None:
    """Each generated burst leaves the field holding what the keys typed one at a time would."""
    app: Any = pilot.app
    for keys in sequences(count, seed):
        assert app.focused is field, f"{field!r} lost the focus before {keys}"
        before, cursor = field.value, field.cursor_position
        if during is not None:
            during()  # a worker starts right before the burst and runs through it
        burst(app, keys)
        await settle(pilot)
        assert field.value == typed(before, cursor, keys), f"{keys} on {before!r} at {cursor}"


async def _open(pilot: Pilot[None], index: int, tab: str) -> None:
    app: Any = pilot.app
    await settle(pilot)
    app.open_app(index, tab)
    await settle(pilot)


async def colour_field(pilot: Pilot[None]) -> Input:
    await _open(pilot, ACME, "style")
    return pilot.app.screen.query_one("#input-primary_color", Input)


async def sms_field(pilot: Pilot[None]) -> Input:
    await _open(pilot, GLOBEX, "sms")
    return pilot.app.screen.query_one("#sms-fromMobileNo", Input)


async def team_field(pilot: Pilot[None]) -> Input:
    await _open(pilot, ACME, "team")
    await pilot.press("a")
    await settle(pilot)
    return pilot.app.screen.query_one("#team-email", Input)


async def filter_field(pilot: Pilot[None]) -> Input:
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    return pilot.app.screen.query_one("#filter", Input)


async def new_app_prompt(pilot: Pilot[None]) -> Input:
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)
    return pilot.app.screen.query_one("#name", Input)


async def bulk_value(pilot: Pilot[None]) -> Input:
    await settle(pilot)
    await pilot.press("b")
    await settle(pilot)
    return pilot.app.screen.query_one("#filter", Input)


async def palette(pilot: Pilot[None]) -> Input:
    await settle(pilot)
    await pilot.press("ctrl+p")
    await settle(pilot)
    return pilot.app.screen.query_one(Input)


FIELDS: dict[str, Callable[[Pilot[None]], Awaitable[Input]]] = {
    "colour on Style": colour_field, "SMS from number": sms_field, "team email": team_field,
    "Apps filter (a filter worker per key)": filter_field, "new app name prompt": new_app_prompt,
    "bulk edit filter": bulk_value, "command palette (its search per key)": palette,
}


@pytest.mark.parametrize("name", list(FIELDS))
async def test_a_burst_lands_every_key_in_order(draft: Path, name: str) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await FIELDS[name](pilot)
        field.focus()
        await settle(pilot)
        await check_field(pilot, field, count=12, seed=zlib.crc32(name.encode()))


async def test_a_burst_while_the_draft_is_validated_in_a_worker(draft: Path) -> None:
    """The whole draft re-validated in its worker thread (what follows a reload), started right before each burst:
    its broadcast repaints the rows while the keys arrive, and no key is lost or undone."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await colour_field(pilot)
        field.focus()
        await settle(pilot)
        await check_field(pilot, field, count=8, seed=7, during=app.validate_in_background)


async def test_backspace_then_letters_in_one_burst_is_the_issue_s_case(draft: Path) -> None:
    """``tmux send-keys BSpace a b`` on ``#03A9F4``: ``#03A9Fab``, not ``#03A9F4a`` (a key dropped)."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await colour_field(pilot)
        field.focus()
        field.value = "#000000"
        field.cursor_position = 7
        await settle(pilot)
        burst(app, ["backspace", "a", "b"])
        await settle(pilot)
        assert field.value == "#00000ab"
        assert key_order.installed()


async def sms_field_holding(pilot: Pilot[None], value: str) -> Input:
    """The SMS number field, focused, holding ``value`` with the cursor at its end, the screen quiet."""
    field = await sms_field(pilot)
    field.focus()
    field.value = value
    field.cursor_position = len(value)
    await settle(pilot)
    return field


async def test_a_bracketed_paste_between_keys_keeps_its_place(draft: Path) -> None:
    """A paste (one event with the text) between bound keys and letters, all in one burst."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await sms_field_holding(pilot, "+1234")
        burst(app, ["backspace"])
        app.post_message(events.Paste("99"))
        burst(app, ["left", "left", "backspace", "x"])
        await settle(pilot)
        assert field.value == "+12x99"


async def test_a_paste_holding_escape_sequences_lands_whole_in_its_place(draft: Path) -> None:
    """The bytes a terminal sends for Backspace, a bracketed paste of ``P ESC [31mQ BEL R`` and a letter, through
    the editor's terminal parser (tui/alt_keys.py) into a field: the paste lands whole, between the keys. With
    Textual's parser the paste's characters after the Escape were typed first as keys and the paste came last,
    without them (a docs-only trial saw ``Alerts31mQP``)."""
    from tenantdeck.tui.alt_keys import AltKeyParser

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        field = await sms_field_holding(pilot, "+1234")
        parser = AltKeyParser()
        for message in parser.feed("\x7f\x1b[200~P\x1b[31mQ\x07R\x1b[201~z"):
            app.post_message(message)
        await settle(pilot)
        assert field.value == "+123P\x1b[31mQ\x07Rz"


#: every key that pushes, switches or pops a screen (issue 36's list), and the keys that may follow it in a burst:
#: a tab, a toggle or a mark, a move, another screen, back
OPENERS = ("enter", "f1", "f3", "f5", "f6", "f7", "f8", "P", "p", "b", "ctrl+p", "escape")
FOLLOWERS = ("3", "8", "space", "down", "tab", "enter", "escape", "f1", "f8")
CHARACTERS = {"space": " ", "P": "P", "p": "p", "b": "b", "3": "3", "8": "8"}


def _where(app: TenantdeckApp) -> tuple[object, ...]:
    """What a user sees and what the keys changed: the screens, the tab and the focus on top, the marks, the draft."""
    top = app.screen
    tab = top.query_one(TabbedContent).active if isinstance(top, AppScreen) else None
    focused = app.focused
    marks = sorted(getattr(app.screen_stack[0], "marked", ()))
    return ([type(screen).__name__ for screen in app.screen_stack], tab,
            focused and (type(focused).__name__, focused.id), marks, app.editor.session.text)


async def _typed_as(path: Path, start: list[str], keys: list[str], *, at_once: bool) -> tuple[object, ...]:
    app = make_app(path)
    app.event_lab = EventLab(0, autostart=False)  # F3's receiver never listens in a test
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in start:
            await pilot.press(key)
            await settle(pilot)
        for key in keys:
            app.post_message(events.Key(key, CHARACTERS.get(key)))
            if not at_once:
                await settle(pilot)
        await settle(pilot)
        return _where(app)


@pytest.mark.slow
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.sampled_from([[], ["enter"]]), opener=st.sampled_from(OPENERS),
       after=st.lists(st.sampled_from(FOLLOWERS), min_size=1, max_size=3))
def test_keys_after_a_screen_opening_key_reach_the_screen_it_opens(tmp_path_factory: pytest.TempPathFactory,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   start: list[str], opener: str,
                                                                   after: list[str]) -> None:
    """A screen-opening key and a few more in one burst (``tmux send-keys Enter 3 Space``) end where the same keys
    typed one at a time, each once the screen settled, end: the keys after the opener reach the screen it opened, in
    order (before the fix, ``3`` was lost and Space marked an app on the Apps list under the new App screen)."""
    assume(not (opener == "ctrl+p" and "enter" in after))  # Enter in the palette runs whatever command "3" finds
    keys = [opener, *after]
    ends = _burst_and_typed(tmp_path_factory, monkeypatch, start, keys)
    assert ends[0] == ends[1], f"{start} then {keys} in one burst"


def _burst_and_typed(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, start: list[str],
                     keys: list[str]) -> list[tuple[object, ...]]:
    """Where ``keys`` end after ``start``, sent in one burst and then typed one at a time, each on a fresh editor
    over the same draft (in a folder of its own)."""
    ends = []
    for at_once in (True, False):
        base = tmp_path_factory.mktemp("burst")
        monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(base / "config"))
        monkeypatch.setenv("TENANTDECK_DATA_DIR", str(base / "data"))
        path = base / "tenantdeck.yaml"
        path.write_text(draft_text(), encoding="utf-8")
        ends.append(asyncio.run(_typed_as(path, start, keys, at_once=at_once)))
    return ends


async def test_enter_3_space_on_the_apps_list_is_the_tmux_case(draft: Path) -> None:
    """The trial in tmux: Enter opens the app, 3 shows its Main tab, Space toggles the focused setting there; no app
    is marked on the Apps list."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["enter", "3"])
        app.post_message(events.Key("space", " "))
        await settle(pilot)
        assert isinstance(app.screen, AppScreen)
        assert app.screen.query_one(TabbedContent).active == "main"
        assert not app.screen_stack[0].marked  # type: ignore[attr-defined]
        assert app.editor.session.dirty, "Space reached the focused setting on the Main tab"


def test_f5_y_in_one_burst_writes_the_pull_once_the_service_is_read(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``tmux send-keys F5 y`` (a docs-only trial, F30): the Pull screen was still reading the service when ``y``
    reached it, its key not enabled yet, and the ``y`` was dropped without a word. It waits for the read now (a key
    the screen on top binds and will take once its preparing worker is done: tui/key_order.py) and writes the pull,
    as ``F6 p`` waits for the plan."""
    from tests.tui.review_fixtures import pulled_draft

    asyncio.run(_f5_y(pulled_draft(tmp_path, monkeypatch)))


async def _f5_y(path: Path) -> None:
    from tenantdeck.tui.screens.pull_screen import PullScreen
    from tests.tui.review_fixtures import acme_toggle, set_gifs_on_the_service

    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        gifs = acme_toggle(app)
        before = app.editor.get(gifs)
        app_id = app.editor.get(gifs.split(".")[0])["id"]

        await set_gifs_on_the_service(app_id, not before)
        burst(app, ["f5", "y"])
        await settle(pilot, 5)
        assert not isinstance(app.screen, PullScreen), "y was dropped: the Pull screen is still open"
        assert app.editor.get(gifs) is (not before)
        assert app.editor.session.dirty


def test_a_key_waiting_for_a_read_that_does_not_end_is_dropped_with_a_notice_and_escape_is_not_held(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The service does not answer (a loopback endpoint that holds every request until the test lets it go): ``F5
    Escape`` leaves at once (Escape is not held for the read), and ``F5 y`` drops the ``y`` after :data:`PATIENCE`
    with a notice naming it, rather than without a word or for ever."""
    import threading

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from tenantdeck.sync.remote.pull import pull_target
    from tenantdeck.targets import local_target
    from tests.loopback import serve_on_loopback

    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    monkeypatch.setenv("TENANTDECK_KEY", "a-key")
    monkeypatch.setenv("TENANTDECK_SECRET", "a-secret")
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)
    # a draft of the silent account's, not of the local sandbox's (as in test_network_failures.py)
    for kept in (tmp_path / ".tenantdeck", tmp_path / "tenantdeck.lock.json"):
        if kept.is_dir():
            import shutil

            shutil.rmtree(kept)
        else:
            kept.unlink()
    released = threading.Event()

    async def held(request: Any) -> JSONResponse:
        await asyncio.to_thread(released.wait, 60)
        return JSONResponse({"data": []})

    silent = Starlette(routes=[Route("/{path:path}", held, methods=["GET", "POST", "PUT", "DELETE"])])
    monkeypatch.setattr(key_order, "PATIENCE", 0.3)
    with serve_on_loopback(silent) as url:
        (tmp_path / "config").mkdir(exist_ok=True)
        (tmp_path / "config" / "profiles.yaml").write_text(
            f"profiles:\n  silent:\n    base_url: {url}\n    timeout: 60\n", encoding="utf-8")
        try:
            asyncio.run(_held_read(path, released))
        finally:
            released.set()


async def _until(pilot: Pilot[None], done: Callable[[], bool], what: str) -> None:
    """Pause until ``done()``; a generous bound only turns a hang into a failure that says what did not happen."""
    for _ in range(2000):
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"not so: {what}")


async def _held_read(path: Path, released: Any) -> None:
    from tenantdeck.tui.screens.pull_screen import PullScreen

    app = make_app(path, profile="silent")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        text = app.editor.session.text
        app.post_message(events.Key("f5", None))
        app.post_message(events.Key("escape", None))
        # left while the service still holds the read: Escape was not held for it
        await _until(pilot, lambda: not app.key_gate.held and len(app.screen_stack) == 1, "Escape left the screen")
        assert not app._notifications
        burst(app, ["f5", "y"])
        await _until(pilot, lambda: bool(app._notifications), "a notice says the y was not taken")
        (notice,) = app._notifications
        assert notice.message.startswith("y not taken: still reading the service after 0.3 s"), notice.message
        assert isinstance(app.screen, PullScreen) and app.screen.result is None
        assert app.editor.session.text == text and not app.editor.session.dirty
        released.set()  # the reads end (their worker threads with them) before the app does
        await settle(pilot)


@pytest.mark.parametrize("after", [["space", "tab"], ["tab", "tab"]])
def test_keys_after_a_jump_wait_for_the_focus_it_moves_after_the_next_frame(tmp_path_factory: pytest.TempPathFactory,
                                                                             monkeypatch: pytest.MonkeyPatch,
                                                                             after: list[str]) -> None:
    """F8, Enter (a jump to the problem's field) and more keys in one burst, with frames as slow as a loaded machine
    draws them: the jump moves the focus into the field after the tab's next frame (``call_after_refresh``), and the
    keys after it wait for that, as typed one at a time. Before, the gate saw every queue empty while that move still
    waited for the frame, so Tab moved the focus first and the jump then put it back (a suite run under load)."""
    import textual.screen

    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 0.25)  # a frame every 250 ms
    keys = ["f8", "enter", *after]
    ends = _burst_and_typed(tmp_path_factory, monkeypatch, ["enter"], keys)
    assert ends[0][2] is not None and ends[0][1] == "sidebar", ends[0]
    assert ends[0] == ends[1], f"{keys} in one burst"
