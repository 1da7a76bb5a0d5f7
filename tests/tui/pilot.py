"""What every TUI test does with its pilot: make the app (timers off), wait for it to settle, stop the cursor's
blink for a picture. One home, so a fix to "settled" reaches every test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input
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
    holds until the screen before them is quiet (tui/key_order.py) are handed on first."""
    for _ in range(rounds):
        while getattr(pilot.app, "key_gate", None) is not None and pilot.app.key_gate.held:
            await pilot.pause()
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()


def no_blink(pilot: Pilot[Any]) -> None:
    """No cursor blink in the inputs of the screen on top (a picture must not depend on when it was taken)."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
