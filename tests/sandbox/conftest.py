"""Shared fixtures: a sandbox on a temporary SQLite file and an httpx client talking to it in process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sandbox_helpers import MakeApp, client_for

from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, create_app


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sandbox.sqlite3"


@pytest.fixture
def make_app(db_path: Path) -> MakeApp:
    """``make_app(**kw)``: a sandbox on the test's DB file (unseeded unless ``seed=True`` is passed)."""

    def make(**kw: Any) -> FastAPI:
        kw.setdefault("key", DEFAULT_KEY)
        kw.setdefault("secret", DEFAULT_SECRET)
        kw.setdefault("seed", False)
        return create_app(kw.pop("db_path", db_path), **kw)

    return make


@pytest.fixture
async def client(make_app: MakeApp) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(make_app()) as c:
        yield c


@pytest.fixture
async def app_id(client: httpx.AsyncClient) -> str:
    r = await client.post("/apps", json={"name": "Test app", "region": "us", "version": "3"})
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["id"])
