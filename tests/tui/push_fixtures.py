"""Scenes of the push engineer's snapshot tests, shared with ``scripts/screenshots.py``: the review screen with a
conflict read from the sandbox, and the summary of a push that partly failed on a sandbox with seeded faults.

Deterministic: the sandbox's faults come from a fixed seed and the push runs one operation at a time; the
progress line's clock is frozen (no rate, no ETA); nothing shown carries an id the sandbox made up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from textual.pilot import Pilot

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.screens.push_summary import PushSummaryScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import settle

BATCH_NAMES = [f"Branch {n:02d}" for n in range(8)]


@dataclass
class Scene:
    setup: Callable[[Path], Path]  #: the temp dir -> the draft (env already applied)
    run_before: Callable[[Pilot[None]], Awaitable[None]]
    env: dict[str, str] = field(default_factory=dict)


def _acme_index(text: str) -> int:
    return 0 if text.index("name: Acme Support") < text.index("name: Globex") else 1


def conflict_setup(tmp: Path) -> Path:
    """The sandbox account pulled, then its Acme "orders" webhook re-pointed on the service."""
    draft = tmp / "tenantdeck.yaml"
    pull_target(local_target(), draft)

    async def remote() -> None:
        async with local_target().client() as c:
            acme = next(a for a in await c.list_apps() if a.name == "Acme Support")
            await c.update_webhook(acme.id, "orders", {"webhookURL": "https://live.example/orders"})

    asyncio.run(remote())
    return draft


async def conflict_scene(pilot: Pilot[None]) -> None:
    app = pilot.app
    await settle(pilot)
    apps = app.editor.get("apps")  # type: ignore[attr-defined]
    i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
    j = next(n for n, h in enumerate(apps[i]["webhooks"]) if h["id"] == "orders")
    app.editor.set(f"apps[{i}].webhooks[{j}].webhookURL", "https://draft.example/orders")  # type: ignore[attr-defined]
    await pilot.press("f2", "f6")
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen) and screen.plan is not None and screen.plan.conflicts
    table = screen.query_one("DataTable")
    row = next(k for k, ref in screen._rows.items() if ref.conflict is not None)
    table.move_cursor(row=table.get_row_index(row))
    app.clear_notifications()
    await settle(pilot)


def batch_setup(tmp: Path) -> Path:
    draft = tmp / "tenantdeck.yaml"
    apps = "".join(f"  - name: {name}\n    region: eu\n" for name in BATCH_NAMES)
    draft.write_text(f"format: 1\napps:\n{apps}", encoding="utf-8")
    return draft


async def partial_push_scene(pilot: Pilot[None]) -> None:
    app = pilot.app
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    screen.request_options = {"concurrency": 1, "max_retries": 0, "retry_base_delay": 0.0}
    screen.clock = lambda: 0.0  # type: ignore[method-assign]
    await pilot.press("p")
    await pilot.pause()
    await pilot.press("y")
    await settle(pilot)
    assert screen.last_result is not None and screen.last_result.counts()["failed"]
    app.clear_notifications()

    def planned() -> bool:
        """The plan made again after the push is on screen behind the summary, and nothing is left to run (the
        validation after the push broadcasts a change, which plans once more: wait for that one too)."""
        busy = any(not w.is_finished for w in app.workers)
        return not busy and str(screen.query_one("#status").render()).startswith("Plan:")

    for _ in range(50):
        await settle(pilot)
        if planned():
            await settle(pilot)
            if planned():
                break
    assert planned(), screen.query_one("#status").render()
    # The re-plan may finish before or after the summary opened; a screen behind a modal keeps the layout it had
    # when the modal came up (its status line one row or two). So close the summary once the plan is there, let
    # the review lay itself out, and open the summary again (`s`): the picture no longer depends on that race.
    await pilot.press("escape")
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(app.screen, PushSummaryScreen)
    for table in [*screen.query("DataTable"), *app.screen.query("DataTable")]:
        table.move_cursor(row=0, animate=False)
        table.scroll_home(animate=False, immediate=True)
    await settle(pilot)


#: a fail rate and seed under which the eight creates, sent one by one, partly fail
FAULTS = {"TENANTDECK_SANDBOX_FAIL_RATE": "0.35", "TENANTDECK_SANDBOX_RNG_SEED": "5",
          "TENANTDECK_SANDBOX_RETRY_AFTER": "0"}


def scenes() -> dict[str, Scene]:
    return {
        "review-conflict": Scene(conflict_setup, conflict_scene),
        "push-summary": Scene(batch_setup, partial_push_scene, dict(FAULTS)),
    }
