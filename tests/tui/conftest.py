"""Every TUI test runs in its own temporary directory, as a user runs the editor beside the draft: the title shows
the draft's path relative to the current directory, so the pictures name ``tenantdeck.yaml``, not a temp path."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
