"""What every TUI test does with its pilot: make the app (timers off), wait for it to settle, stop the cursor's
blink for a picture. One home, so a fix to "settled" reaches every test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.style import Style
from textual.pilot import Pilot
from textual.widgets import DataTable, Input
from textual.worker import WorkerCancelled

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.safety import SafetyNet


def make_app(draft: Path, **kwargs: Any) -> TenantdeckApp:
    """The editor on ``draft``, its safety timers off (tests call ``checkpoint``/``check_disk`` themselves)."""
    SafetyNet.TIMERS = False
    return TenantdeckApp(draft, **kwargs)


async def settle(pilot: Pilot[Any], rounds: int = 3) -> None:
    """Every worker done (validation, change states, a plan) and painted, ``rounds`` times: a worker's result may
    start another. A plan replaced by a newer one (an exclusive worker cancelled) is fine. Keys of a burst the app
    holds until the screen before them is quiet (tui/key_order.py) are handed on first. The start-up validation
    is waited for by its own flag: under load its worker may not even be registered when the first round looks."""
    for _ in range(3000):
        if getattr(pilot.app, "started_up", True):
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the editor's start-up validation did not finish within 30 s")
    for _ in range(rounds):
        while getattr(pilot.app, "key_gate", None) is not None and pilot.app.key_gate.held:
            await pilot.pause()
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()
    await tables_measured(pilot)


async def tables_measured(pilot: Pilot[Any], most: int = 300) -> None:
    """Each table of the screen on top has measured what it was last given: a DataTable widens a column for a
    cell updated with ``update_width`` only when its message queue is next idle (``_on_idle``), so a picture taken
    before that showed ``no bas`` for ``no base`` on a loaded machine. Reads two private attributes of Textual's
    DataTable, the only place that says it."""
    for _ in range(most):
        pending = [t for t in pilot.app.screen.query(DataTable)
                   if getattr(t, "_updated_cells", None) or getattr(t, "_require_update_dimensions", False)]
        if not pending:
            return
        await pilot.pause(0.01)


def no_blink(pilot: Pilot[Any]) -> None:
    """No cursor blink in the inputs of the screen on top (a picture must not depend on when it was taken)."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


def painted(pilot: Pilot[Any]) -> str:
    """Every cell of the screen as the terminal would get it (notifications included), one line per row."""
    update = pilot.app.screen._compositor.render_update(full=True)
    return "\n".join("".join(segment.text for segment in strip) for strip in update.strips)


def _drawn(ch: str, style: Style | None) -> tuple[str, Style | None]:
    """A cell as the terminal shows it: no meta (mouse offsets), and a blank's foreground colour is not seen."""
    if style is None:
        return ch, None
    style = style.clear_meta_and_links()
    if ch == " " and not (style.underline or style.strike or style.reverse):
        style = Style(bgcolor=style.bgcolor)
    return ch, style


def painted_cells(pilot: Pilot[Any]) -> list[list[tuple[str, Style | None]]]:
    """Every cell of the screen as it is drawn, with its colours, one list per row (how a row is cut into runs of
    text is not seen, so it is not compared)."""
    update = pilot.app.screen._compositor.render_update(full=True)
    return [[_drawn(ch, seg.style) for strip in line for seg in strip for ch in seg.text] for line in update.strips]
