"""Fixtures for the management API client tests (anyio's pytest plugin runs the async tests on asyncio)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tenantdeck.api.client import ManagementClient
from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, create_app


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """An environment with empty config/data dirs and no TENANTDECK_* credentials or base URL."""
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    env = {
        "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
        "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
async def sandbox_client(tmp_path: Path) -> AsyncIterator[ManagementClient]:
    """The client on an empty in-process sandbox (no seed), over HTTP through ASGI, with fast retries."""
    app = create_app(tmp_path / "sandbox.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=False)
    async with ManagementClient("http://sandbox.local", DEFAULT_KEY, DEFAULT_SECRET,
                                transport=httpx.ASGITransport(app=app), retry_base_delay=0.001) as c:  # fmt: skip
        yield c
