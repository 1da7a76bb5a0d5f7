"""Fixtures of the fleet-edit tests (Bulk edit and Presets screens), shared with ``scripts/screenshots.py`` through
``safety_fixtures.scenes``: the fleet draft, a bigger fleet built from it, a base snapshot equal to a draft (so
change states read "in sync" and then follow the edits), and the scenes that reach each screen.

Deterministic: no clocks, no sleeps; the inputs' cursors do not blink in pictures.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import yaml
from textual.pilot import Pilot
from textual.widgets import Input

from tests.tui.pilot import no_blink, settle

FLEET = "fleet-demo"  # 6 apps; 4 extend the preset `support` (two override send_gifs, one primary_color)
DRAFTS = Path(__file__).parent / "drafts"


def big_fleet(path: Path, apps: int) -> Path:
    """``apps`` apps extending the fleet draft's preset, each overriding ``send_gifs: false``, in three regions,
    each with a webhook ``events``."""
    data = yaml.safe_load((DRAFTS / f"{FLEET}.yaml").read_text())
    data["apps"] = [
        {"id": f"big{i:04d}", "name": f"Tenant {i:04d}", "region": ("us", "eu", "in")[i % 3], "version": "3",
         "widgets": [{"extends": "support", "name": f"Support {i}", "main": {"send_gifs": False}}],
         "webhooks": [{"id": "events", "name": "Events", "webhookURL": f"https://hooks.example.com/{i}",
                       "enabled": True, "triggers": ["message_sent"]}]}
        for i in range(apps)
    ]
    path.write_text(yaml.safe_dump(copy.deepcopy(data), sort_keys=False, default_flow_style=False), encoding="utf-8")
    return path


def write_base(draft: Path) -> None:
    """A base snapshot equal to the draft on disk, as a pull would leave it: every app "in sync"."""
    from tenantdeck.draft.load import load_text
    from tenantdeck.sync.kinds import canonical_app_from_draft
    from tenantdeck.sync.workspace.state import Workspace

    loaded = load_text(draft.read_text(encoding="utf-8")).draft
    assert loaded is not None
    workspace = Workspace(draft)
    key = workspace.secret_key()
    workspace.write_base_apps({app.id: canonical_app_from_draft(loaded, i, secret_key=key, env=os.environ)
                               for i, app in enumerate(loaded.apps) if app.id})


async def bulk_scene(pilot: Pilot[Any]) -> None:
    """Two apps marked, the bulk edit screen with "Allow GIFs = off" typed: the summary says what changes."""
    await settle(pilot)
    await pilot.press("space", "space", "b")
    await settle(pilot)
    screen = pilot.app.screen
    screen.query_one("#target", Input).value = "Allow GIFs"
    screen.query_one("#value", Input).value = "off"
    screen.recompute()  # type: ignore[attr-defined]
    no_blink(pilot)
    await settle(pilot)


async def presets_scene(pilot: Pilot[Any]) -> None:
    """The Presets screen on `support`, the fields table focused."""
    await settle(pilot)
    await pilot.press("p")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


def scenes() -> dict[str, tuple[str, bool, Callable[[Pilot[Any]], Awaitable[None]]]]:
    return {"bulk-edit": (FLEET, False, bulk_scene), "presets": (FLEET, False, presets_scene)}
