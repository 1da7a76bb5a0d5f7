"""Pictures of the Apps, Problems and Help screens and the restore modal at 80x24 and 120x40, from the fixture
drafts ``scripts/screenshots.py`` uses too (isolated config, no clocks, no sleeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import make_app
from tests.tui.safety_fixtures import env, leave_recovery, prepare, scenes

SIZES = [(80, 24), (120, 40)]
SHOWN = ["apps", "problems", "help", "restore", "review", "history"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", SHOWN)
def test_screen(scene: str, size: tuple[int, int], snap_compare, tmp_path: Path,  # type: ignore[no-untyped-def]
                monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NO_COLOR", raising=False)
    draft_name, with_recovery, run_before = scenes()[scene]
    draft = prepare(tmp_path, draft_name)
    if with_recovery:
        leave_recovery(draft)
    assert snap_compare(make_app(draft), terminal_size=size, run_before=run_before)
