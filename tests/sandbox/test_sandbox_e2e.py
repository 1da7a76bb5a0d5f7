"""The sandbox under a real uvicorn server on 127.0.0.1 (ephemeral port), driven over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sandbox_helpers import AUTH, webhook, widget_settings

from tenantdeck.sandbox import bulk, create_app
from tenantdeck.sandbox.app import create_app as create_app_direct
from tests.loopback import serve_on_loopback


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    db = tmp_path / "e2e.sqlite3"
    bulk.populate(db, 20)
    with serve_on_loopback(create_app(db, key=AUTH["key"], secret=AUTH["secret"], latency_ms=5)) as url:
        yield url


@pytest.mark.e2e
def test_real_http_round_trip(server_url: str) -> None:
    assert create_app is create_app_direct

    async def scenario() -> None:
        limits = httpx.Limits(max_connections=50)
        async with httpx.AsyncClient(base_url=server_url, headers=AUTH, limits=limits, timeout=30) as c:
            assert (await c.get("/apps", headers={"secret": "wrong"})).status_code == 401
            apps = (await c.get("/apps", params={"perPage": 1000})).json()["data"]
            assert len(apps) == 20
            # 50 concurrent requests: reads and writes across apps
            reads = [c.get(f"/apps/{a['id']}/webhooks") for a in apps]
            writes = [
                c.post(f"/apps/{a['id']}/extensions/widget/v2/settings", json={"settings": widget_settings()})
                for a in apps
            ]
            hooks = [c.post(f"/apps/{apps[0]['id']}/webhooks", json=webhook(f"e{i}")) for i in range(10)]
            results = await asyncio.gather(*reads, *writes, *hooks)
            assert all(r.status_code == 200 for r in results), [r.text for r in results if r.status_code != 200]
            widgets = (await c.get(f"/apps/{apps[3]['id']}/extensions/widget/v2/settings")).json()
            assert len(widgets["data"]["body"]["data"]) == 2
            assert (await c.get("/openapi.json")).json()["info"]["title"]

    asyncio.run(scenario())
