"""Pictures of the fleet policies in the editor at 80x24: the Apps list with its Policy badges, the Policies screen
(rules, the rules file's located problems) and the drill-down to the apps breaking one rule, from the fixture that
``scripts/screenshots.py`` uses too (isolated config, no clocks, no sleeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import make_app
from tests.tui.safety_fixtures import env, prepare, scenes


@pytest.mark.parametrize("scene", ["apps-policies", "policies", "policy-apps"])
def test_screen(scene: str, snap_compare, tmp_path: Path,  # type: ignore[no-untyped-def]
                monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NO_COLOR", raising=False)
    draft_name, _recovery, run_before = scenes()[scene]
    assert snap_compare(make_app(prepare(tmp_path, draft_name)), terminal_size=(80, 24), run_before=run_before)
