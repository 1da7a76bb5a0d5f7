"""Snapshots of the Events screen (an invalid delivery selected) and of Send test event's answer, 80x24 and 120x40.

Deterministic: the receiver is not started and gets its deliveries through its ASGI app with a fixed clock; the
test event goes through the same in-process transport with a ticking clock (see ``events_fixtures``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tui.events_fixtures import scenes
from tests.tui.pilot import make_app
from tests.tui.safety_fixtures import env, prepare

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(scenes()))
def test_events_snapshot(name: str, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         snap_compare: Any) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft_name, _recovery, run_before = scenes()[name]
    assert snap_compare(make_app(prepare(tmp_path, draft_name)), terminal_size=size, run_before=run_before)
