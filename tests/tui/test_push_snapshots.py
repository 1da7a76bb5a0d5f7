"""Pictures of the review screen with a conflict and of a partial push's summary, at 80x24 and 120x40."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import make_app
from tests.tui.push_fixtures import scenes
from tests.tui.safety_fixtures import env

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", ["review-conflict", "push-summary"])
def test_push_screen(name: str, size: tuple[int, int], snap_compare, tmp_path: Path,  # type: ignore[no-untyped-def]
                     monkeypatch: pytest.MonkeyPatch) -> None:
    scene = scenes()[name]
    for key, value in {**env(tmp_path), **scene.env}.items():
        monkeypatch.setenv(key, value)
    for var in ("NO_COLOR", "TENANTDECK_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    draft = scene.setup(tmp_path)
    assert snap_compare(make_app(draft), terminal_size=size, run_before=scene.run_before)
