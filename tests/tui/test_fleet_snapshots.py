"""Pictures of the Bulk edit and Presets screens at 80x24 and 120x40, from the fleet fixture draft that
``scripts/screenshots.py`` uses too (isolated config, no clocks, no sleeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import make_app
from tests.tui.safety_fixtures import env, prepare, scenes

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", ["bulk-edit", "presets"])
def test_screen(scene: str, size: tuple[int, int], snap_compare, tmp_path: Path,  # type: ignore[no-untyped-def]
                monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NO_COLOR", raising=False)
    draft_name, _recovery, run_before = scenes()[scene]
    assert snap_compare(make_app(prepare(tmp_path, draft_name)), terminal_size=size, run_before=run_before)
