"""Keys typed into a text field take effect in the order they were typed, however fast they come.

Textual inserts a printable key in the text widget's own message queue (``Input._on_key``), but runs a bound key
(Backspace, ctrl+u, arrows, Enter, Tab) only once the key event has bubbled up through every ancestor's queue to
the app (``App._on_key`` -> ``_check_bindings``). In a burst (a paste, a fast typist over SSH, ``tmux send-keys
BSpace a b``) the letters after a bound key overtake it: ``#000000`` + Backspace, ``a``, ``b`` became ``#000000a``
(the Backspace deleted the ``b``). Textual's issue #6605; its proposed fix (pull request #6631, not released) runs
the widget's own bindings inline.

Here the whole binding chain (the field's bindings, then its ancestors', the screen's and the app's: exactly what
the app would run) is run inside the text widget's own key handler, right after Textual's, for a key the widget
did not take as text. The key is then done; one the chain does not handle bubbles on as before, marked so that the
app does not run the same chain a second time (:func:`checked`). Priority bindings are unchanged: the app runs
them before the key reaches the widget, which is in order already. A key that reaches a field after an earlier key
of its burst moved the focus away (Enter leaves a field) goes on to what has the focus now, as it would have gone
typed a moment later.

Installed by :class:`tenantdeck.tui.app.TenantdeckApp` (``install()`` is idempotent); it wraps a method of two
Textual classes, so tests/tui/test_key_bursts.py fails if a Textual upgrade changes the route.

The same overtaking happens between screens (:class:`KeyGate`). Textual hands each key, as it reads it, to what has
the focus *now*; a key's consequences come later, through the message queues (Enter on the apps list: the list's
binding posts ``RowSelected``, the screen's handler pushes the App screen, the new screen composes, mounts and
takes the focus). So in ``Enter 3 Space`` the ``3`` and the Space were handed to the apps list before the App
screen existed, and Space marked an app. The gate hands a key to Textual only when the screen on top is quiet:
every one of its widgets and the app have handled every message they were sent, every widget is mounted, and no
callback waits for the screen's next frame (a jump focuses its field from there). A key
that arrives earlier is held, with every key after it, and handed on in order once that is so; whatever pushes,
switches or pops a screen (Enter on an app, F1, F3, F5-F8, P, p, b, ctrl+p, Escape), the keys after it reach the
screen that is then on top, and its focused widget.

A screen that is quiet may still be preparing what its keys act on, in a worker (the Pull screen reading the
service: its ``y`` writes what was read). A key that screen binds to an action it does not take yet (``y`` before
the read is shown) would be dropped without a word (``tmux send-keys F5 y``); so it is held, with every key after it,
until the worker is done, as long as it waits for a busy screen (:data:`PATIENCE`): a screen names those workers'
groups and what they do in ``KEYS_WAIT_FOR`` (:func:`_preparing`). Its other keys (Escape, ``r``) are not held.
A key that waited that long and is still not taken is dropped with a notice saying so.

Escape and the key after it in one terminal read are one Alt key before they get here (:mod:`tenantdeck.tui.alt_keys`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import TYPE_CHECKING, Any

from textual import events
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea
from textual.worker import Worker

if TYPE_CHECKING:
    from textual.app import App

_MARK = "_tenantdeck_bindings_checked"
_originals: dict[type[Widget], Callable[[Any, events.Key], Awaitable[None]]] = {}


def checked(event: events.Key) -> bool:
    """True when the binding chain already ran for ``event`` inside a text field and handled nothing."""
    return bool(getattr(event, _MARK, False))


async def _run_bindings_in_order(widget: Widget, event: events.Key) -> None:
    """After the widget's own handling: a key it did not take runs the bindings now, in its place in the queue."""
    if event._stop_propagation or event.is_printable:
        return
    app = widget.app
    if widget.screen is not app.screen or app.focused is not widget:
        return  # the screen changed under the burst: the key goes the usual way
    if await app._check_bindings(event.key):
        event.stop()
        event.prevent_default()
    else:
        setattr(event, _MARK, True)


def _moved_on(widget: Widget, event: events.Key) -> bool:
    """A key forwarded to this field while it had the focus, reaching it after an earlier key of the same burst
    moved the focus away (Enter leaves a field): handed on to what has the focus now, in order, as it would have
    gone typed a moment later."""
    app = widget.app
    target = app.focused or app.screen
    if target is widget or widget.screen is not app.screen:
        return False
    event.stop()
    event.prevent_default()
    target._forward_event(events.Key(event.key, event.character))
    return True


def _wrap(cls: type[Widget]) -> None:
    original = cls.__dict__["_on_key"]
    _originals[cls] = original

    async def _on_key(self: Widget, event: events.Key) -> None:
        if _moved_on(self, event):
            return
        await original(self, event)
        await _run_bindings_in_order(self, event)

    _on_key.__wrapped__ = original  # type: ignore[attr-defined]
    cls._on_key = _on_key  # type: ignore[method-assign]


def install() -> None:
    """Wrap ``Input._on_key`` and ``TextArea._on_key`` (once; calling again changes nothing)."""
    for cls in (Input, TextArea):
        if cls not in _originals:
            _wrap(cls)


def installed() -> bool:
    return all(cls in _originals for cls in (Input, TextArea))


#: the longest a held key waits for the screen on top to be quiet: a handler that never returns must not swallow
#: every key typed after it (then the key goes where the focus is, as Textual would have sent it at once)
PATIENCE = 5.0


class KeyGate:
    """Keys (and pastes) reach Textual one at a time, each once the screen on top has finished with the one
    before: see the module's docstring. ``dispatch`` is Textual's own handling of an event (``App.on_event``)."""

    def __init__(self, app: App[Any], dispatch: Callable[[events.Event], Awaitable[None]]) -> None:
        self._app = app
        self._dispatch = dispatch
        self._held: deque[events.Event] = deque()
        self._waiting: asyncio.Task[None] | None = None
        self._none_held = asyncio.Event()
        self._none_held.set()

    @property
    def held(self) -> int:
        """How many keys wait for the screen on top to be quiet."""
        return len(self._held)

    async def on_event(self, event: events.Event) -> None:
        """Called by the app for each event its queue gives it, in place of Textual's ``App.on_event``."""
        if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded:
            await self._dispatch(event)
        elif self._held or _busy(self._app, handling=True) or _preparing(self._app, event):
            self._held.append(event)
            self._none_held.clear()
            self._wait()
        else:
            await self._dispatch(event)

    def _wait(self) -> None:
        if self._waiting is None:
            self._waiting = asyncio.get_running_loop().create_task(self._until_quiet())

    async def _until_quiet(self) -> None:
        """Wait for every busy message pump to work through what it holds, and for the worker the screen on top
        prepares the first held key's action with, again until none is busy; then hand the first held key on from
        the app's own queue (behind anything the app was sent meanwhile)."""
        deadline = monotonic() + PATIENCE
        while monotonic() < deadline:
            if busy := _busy(self._app, handling=False):
                if not await _drained(busy, deadline - monotonic()):
                    break  # the app is closing
            elif self._held and (preparing := _preparing(self._app, self._held[0])) is not None:
                if not await _finished(preparing[0], deadline - monotonic()):
                    break
            else:
                break
        if monotonic() >= deadline and self._held and (preparing := _preparing(self._app, self._held[0])):
            self._give_up(self._held.popleft(), preparing[1])
        self._waiting = None
        if not self._app.call_later(self._release):  # the app is leaving: the keys typed after that go nowhere
            self._held.clear()
            self._none_held.set()

    async def _release(self) -> None:
        if self._held:
            await self._dispatch(self._held.popleft())
        if self._held:
            self._wait()
        else:
            self._none_held.set()

    def _give_up(self, event: events.Event, doing: str) -> None:
        """A key still waiting for a screen's preparation after :data:`PATIENCE`: dropped, and said so."""
        key = event.key if isinstance(event, events.Key) else "The key"
        self._app.notify(f"{key} not taken: still {doing} after {PATIENCE:g} s; press it again once that is done.",
                         severity="warning")

    async def handed_on(self) -> None:
        """Return once no key is held (at once when none is)."""
        await self._none_held.wait()


def _busy(app: App[Any], handling: bool) -> list[MessagePump]:
    """Every widget of the screen on top that is not yet mounted or not idle, and then the app too; or the app
    alone when it was sent something it has not handled (``handling``: the app is handling a message now)."""
    try:
        nodes: list[MessagePump] = list(app.screen.walk_children(with_self=True))
    except Exception:  # no screen (the app is starting or leaving): nothing to wait for
        return []
    busy = [node for node in nodes if not _idle(node)]
    if _after_refresh(app.screen) and app.screen not in busy:
        busy.insert(0, app.screen)
    app_busy = _queued(app) if handling else not _idle(app)
    return [app, *busy] if busy or app_busy else []


def _preparing(app: App[Any], event: events.Event) -> tuple[Worker[Any], str] | None:
    """The worker the screen on top is preparing with (one of its ``KEYS_WAIT_FOR`` groups, still running) and what
    it does, when ``event`` is a key that screen binds to an action it does not take now; else None."""
    try:
        screen = app.screen
    except Exception:  # no screen (the app is starting or leaving): nothing prepares
        return None
    groups: dict[str, str] = getattr(screen, "KEYS_WAIT_FOR", {})
    if not groups or not isinstance(event, events.Key):
        return None
    running = [w for w in app.workers if w.node is screen and w.group in groups and w.is_running]
    if not running:
        return None
    for binding in screen._bindings.key_to_bindings.get(event.key, ()):
        with contextlib.suppress(Exception):  # an action the screen cannot parse: Textual says so when it runs
            if not app._check_action_state(binding.action, screen):
                return running[0], groups[running[0].group]
    return None


async def _finished(worker: Worker[Any], timeout: float) -> bool:
    """Wait until ``worker`` is done, or ``timeout`` (False: it has no task to wait on)."""
    task = getattr(worker, "_task", None)
    if task is None:
        return False
    await asyncio.wait({task}, timeout=max(timeout, 0.0))  # not wait_for: that would cancel the worker on time-out
    return True


def _queued(pump: MessagePump) -> bool:
    return not pump._message_queue.empty() or pump._pending_message is not None


def _after_refresh(screen: Screen[Any]) -> bool:
    """Callbacks waiting for the screen's next frame (``call_after_refresh``): a jump moves the focus into its
    field from there, after the tab it shows was drawn. Every queue is empty meanwhile, yet a key handed on now would
    act before that move (Tab moved the focus, and the jump then put it back, when frames came slowly)."""
    return bool(getattr(screen, "_callbacks", None))


def _idle(pump: MessagePump) -> bool:
    """Mounted, nothing queued, and parked waiting for its next message (not in the middle of handling one)."""
    if pump._closing or pump._closed:
        return True
    return pump._is_mounted and not _queued(pump) and bool(pump._message_queue.ready_event._waiters)  # type: ignore[attr-defined]


async def _drained(pumps: list[MessagePump], timeout: float) -> bool:
    """Wait until each of ``pumps`` has handled what it was sent before now (False: none takes a callback)."""
    left = 0
    done = asyncio.Event()

    def one_done() -> None:
        nonlocal left
        left -= 1
        if not left:
            done.set()

    for pump in pumps:
        wait = pump.call_after_refresh if isinstance(pump, Screen) and _after_refresh(pump) else pump.call_later
        left += bool(wait(one_done))
    if not left:
        return False
    with contextlib.suppress(TimeoutError):  # PATIENCE is over: the caller stops waiting
        await asyncio.wait_for(done.wait(), max(timeout, 0.0))
    return True


__all__ = ["PATIENCE", "KeyGate", "checked", "install", "installed"]
