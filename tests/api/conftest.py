"""Fixtures for the management API client tests (anyio's pytest plugin runs the async tests on asyncio)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """An environment with empty config/data dirs and no TENANTDECK_* credentials or base URL."""
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    env = {
        "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
        "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
