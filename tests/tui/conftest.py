"""Every TUI test runs in its own temporary directory, as a user runs the editor beside the draft (the title shows
the draft's path relative to the current directory, so the pictures name ``tenantdeck.yaml``, not a temp path), with
its own config and data directories (profiles, themes, the local sandbox's database: never the user's).
Each App screen composes a tab when it is first shown (not ahead: see the fixture).

Shared helpers (make the app, settle, no blink) are in ``tests/tui/pilot.py``."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def _tabs_composed_when_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """An App screen composes its other tabs ahead while nobody types (``AppScreen.PRECOMPOSE_AFTER``): whether a
    tab was composed ahead would then depend on a test's pace, and composing tabs a test never shows would cost the
    suite. Each tab is composed when first shown here; tests/tui/test_compose_ahead.py holds the composing ahead."""
    from tenantdeck.tui.screens.app_screen import AppScreen

    monkeypatch.setattr(AppScreen, "PRECOMPOSE_AFTER", None)
