"""Snapshots of the Extensions, SMS, Webhooks and Team tabs and the webhook form at 80x24 and 120x40.

Deterministic: the draft is copied into ``tmp_path``, config and data directories are isolated, validation is
awaited (no sleeps) and input cursors do not blink.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.tui.hooks_fixtures import draft_path, open_tab
from tests.tui.pilot import make_app, no_blink

__all__ = ["draft_path"]

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def _before(tab: str, app_index: int = 0, keys: tuple[str, ...] = (), row: int | None = None) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        await open_tab(pilot, tab, app_index)
        if row is not None:
            pilot.app.screen.query_one(f"#{tab}").query_one(DataTable).move_cursor(row=row)
        await pilot.press(*keys)
        await pilot.pause()
        no_blink(pilot)
        await pilot.pause()

    return run_before


CASES = {
    "extensions": _before("extensions", row=19),  # polls: enabled, needed by a toggle that is on
    "sms": _before("sms"),
    "sms_none": _before("sms", app_index=1),
    "webhooks": _before("webhooks", row=1),
    "form_new": _before("webhooks", keys=("a",)),
    "form_edit": _before("webhooks", keys=("down", "e")),
    "team": _before("team", row=1),
    "team_add": _before("team", keys=("m",)),
    "team_none": _before("team", app_index=1),
    "settings": _before("settings"),
    "settings_none": _before("settings", app_index=1),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("case", list(CASES))
def test_hooks_snapshot(case: str, size: tuple[int, int], draft_path: Path, snap_compare: Any) -> None:
    assert snap_compare(make_app(draft_path), terminal_size=size, run_before=CASES[case])
