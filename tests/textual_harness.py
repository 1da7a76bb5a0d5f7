"""What the suite changes in Textual's test harness, and why: work every editor a test starts would redo, or wait for
in vain, while what a test sees stays what a user's editor shows (tests/tui/test_textual_harness.py holds both to
that). Installed once per process by tests/conftest.py; where Textual's internals are not what this expects, nothing
is changed and the suite is only slower."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from textual.css.stylesheet import Stylesheet
from textual.message_pump import MessagePump
from textual.pilot import Pilot, WaitForScreenTimeout


def install() -> None:
    parse_each_stylesheet_once()
    wait_only_for_busy_widgets()


def parse_each_stylesheet_once() -> None:
    """Every editor a test starts parses the same Textual CSS again (its own and every widget class's
    ``DEFAULT_CSS``): Textual caches parsed rules per stylesheet (``Stylesheet._parse_rules``), and each app has a new
    one. Kept here for the worker's life, keyed as Textual keys its own cache plus the CSS variables the rules were
    parsed with (a theme's colours are substituted while parsing), each source is parsed once per worker and theme.

    Rules are read, never changed, once parsed: Textual itself hands one stylesheet's cached list to every later parse
    of it. CSS that fails to parse raises as before and is not kept. Where Textual's method is not what this expects,
    nothing is changed (only slower).

    An editor's start and first app parsed ~17 ms of CSS of its ~250 ms of CPU. Six TUI files in one process, three
    alternated runs: 44.4/47.6/44.7 s of user CPU against 47.0/51.5/49.3 s (7% less), the same peak memory (174 MB).
    tests/tui/test_textual_harness.py holds it to what a new stylesheet parses."""
    parse_rules = Stylesheet._parse_rules
    expected = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    if getattr(parse_rules, "_tenantdeck", False) or list(inspect.signature(parse_rules).parameters) != expected:
        return
    parsed: dict[tuple[object, ...], list[object]] = {}

    def _parse_rules(self: Stylesheet, css: str, read_from: object, is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list[object]:
        variables = self._variables
        noted = self.__dict__.get("_tenantdeck_variables")
        if noted is None or noted[0] is not variables:
            noted = (variables, frozenset(variables.items()))
            self.__dict__["_tenantdeck_variables"] = noted
        key = (css, read_from, is_default_rules, tie_breaker, scope, noted[1])
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    _parse_rules._tenantdeck = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = _parse_rules  # type: ignore[assignment, method-assign]


def wait_only_for_busy_widgets() -> None:
    """``Pilot._wait_for_screen`` (every ``pause()`` and ``press()``) waits until each widget of the screen has
    processed what was queued for it, by posting a callback to every one of them (~90 on an App screen) and waiting
    for the last. A widget whose message loop is waiting on an empty queue has processed everything already: the
    callback only made it wake, run the callback, send itself an idle event and sleep again. Here the callback goes
    only to the widgets that are not waiting that way (something queued, a message being handled, callbacks due),
    so a pause still waits for all the work there is, and each quiet widget had its idle event when its queue
    emptied, as it does in a user's editor.

    A quiet App screen's ``settle()``: 15.2 ms of CPU against 3.2 ms; six TUI files in one process, two alternated
    runs: 46.1 / 40.9 s of user CPU against 53.2 / 48.1 s."""
    wait = Pilot.__dict__.get("_wait_for_screen")
    probe = MessagePump()
    queue = probe._message_queue
    if (wait is None or getattr(wait, "_tenantdeck", False)
            or list(inspect.signature(wait).parameters) != ["self", "timeout"]
            or not all(hasattr(probe, name) for name in ("_pending_message", "_next_callbacks"))
            or not hasattr(queue, "values") or not hasattr(getattr(queue, "ready_event", None), "_waiters")):
        return

    async def _wait_for_screen(self: Pilot[Any], timeout: float = 30.0) -> bool:
        try:
            screen = self.app.screen
        except Exception:
            return False
        busy = [node for node in (self.app, *screen.walk_children(with_self=True)) if not waiting_idle(node)]
        count = 0
        all_done = asyncio.Event()

        def done() -> None:
            nonlocal count
            count -= 1
            if count == 0:
                all_done.set()

        for node in busy:
            if node.call_later(done):
                count += 1
        if not count:
            await asyncio.sleep(0)  # as before, the test gives the loop a turn
            return True
        waits = [asyncio.create_task(all_done.wait()), asyncio.create_task(self.app._exception_event.wait())]
        _, pending = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if len(pending) == len(waits):
            raise WaitForScreenTimeout("Timed out while waiting for widgets to process pending messages.")
        return count <= 0

    _wait_for_screen._tenantdeck = True  # type: ignore[attr-defined]
    Pilot._wait_for_screen = _wait_for_screen  # type: ignore[method-assign]


def waiting_idle(node: MessagePump) -> bool:
    """The node's message loop is parked on its empty queue: nothing queued, none peeked, no callback due, and a
    waiter on the queue's event that nothing has woken (a woken one is still in the list until its loop runs)."""
    queue = node._message_queue
    ready = queue.ready_event
    return (not queue.values and node._pending_message is None and not node._next_callbacks
            and not ready.is_set() and any(not waiter.done() for waiter in ready._waiters))
