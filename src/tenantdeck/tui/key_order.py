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
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea

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


__all__ = ["checked", "install", "installed"]
