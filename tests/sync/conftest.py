"""Fixtures of the sync tests: a seeded in-process sandbox, and a draft pulled from it (with its base)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.sync.helpers_push import make_sandbox, run_pull


@pytest.fixture
def sandbox(tmp_path: Path) -> Any:
    return make_sandbox(tmp_path / "db.sqlite3")


@pytest.fixture
def draft(sandbox: Any, tmp_path: Path) -> Path:
    path = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, path)
    return path
