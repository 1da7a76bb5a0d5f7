"""Seed data, bulk population and concurrent writes against one database."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from sandbox_helpers import MakeApp, client_for, webhook

from tenantdeck.models import SmsSettings, WebhookBody, WidgetSettings
from tenantdeck.sandbox import bulk

pytestmark = pytest.mark.anyio


async def test_seed_is_realistic_and_valid(make_app: MakeApp) -> None:
    sandbox = make_app(seed=True)
    async with client_for(sandbox) as c:
        apps = (await c.get("/apps")).json()["data"]
        assert len(apps) == 3
        widgets = webhooks = sms = 0
        for app in apps:
            base = f"/apps/{app['id']}"
            for item in (await c.get(f"{base}/extensions/widget/v2/settings")).json()["data"]["body"]["data"]:
                WidgetSettings.model_validate({k: v for k, v in item["configuration"].items() if k != "appId"})
                widgets += 1
            for hook in (await c.get(f"{base}/webhooks")).json()["data"]:
                assert not {"password", "useBasicAuth", "username", "retryOnFailure"} & set(hook)  # write-only
                stored = sandbox.state.store.webhook_doc(app["id"], hook["id"])
                WebhookBody.model_validate({**stored, **({"password": "x1"} if stored["useBasicAuth"] else {})})
                triggers = (await c.get(f"{base}/webhooks/{hook['id']}/triggers")).json()["data"]
                assert triggers
                webhooks += 1
            r = await c.get(f"{base}/extensions/sms-notification/v1/settings")
            if r.status_code == 200:
                settings = r.json()["data"]["body"]["data"]["settings"]
                SmsSettings.model_validate({k: v for k, v in settings.items() if k != "appId"})
                sms += 1
            enabled = (await c.get(f"{base}/extensions", params={"perPage": 1000})).json()["data"]
            assert any(e["enabled"] for e in enabled)
        assert widgets == 1 and webhooks >= 2 and sms == 1


async def test_bulk_populate(make_app: MakeApp, db_path: Path) -> None:
    started = time.perf_counter()
    ids = bulk.populate(db_path, 1000)
    assert time.perf_counter() - started < 10
    assert len(set(ids)) == 1000
    async with client_for(make_app(seed=True)) as c:  # populate marked the file seeded: no sample apps
        body = (await c.get("/apps", params={"perPage": 1000})).json()
        assert body["meta"]["pagination"]["total"] == 1000
        assert [a["id"] for a in body["data"]] == ids
        some = ids[500]
        assert len((await c.get(f"/apps/{some}/extensions/widget/v2/settings")).json()["data"]["body"]["data"]) == 1
        hooks = (await c.get(f"/apps/{some}/webhooks")).json()["data"]
        assert [h["id"] for h in hooks] == ["hook1", "hook2"] and "useBasicAuth" not in hooks[0]
        assert len((await c.get(f"/apps/{some}/webhooks/hook1/triggers")).json()["data"]) == 2


def test_bulk_refuses_unknown_triggers(db_path: Path) -> None:
    with pytest.raises(ValueError, match="bogus"):
        bulk.populate(db_path, 1, triggers=("bogus",))


async def test_concurrent_creates_respect_the_limit(client: httpx.AsyncClient, app_id: str) -> None:
    results = await asyncio.gather(*(client.post(f"/apps/{app_id}/webhooks", json=webhook(f"c{i}")) for i in range(50)))
    statuses = sorted(r.status_code for r in results)
    assert statuses.count(200) == 25 and statuses.count(422) == 25
    listed = (await client.get(f"/apps/{app_id}/webhooks")).json()
    assert listed["meta"]["pagination"]["total"] == 25


async def test_two_apps_on_one_file_see_each_others_writes(make_app: MakeApp) -> None:
    async with client_for(make_app()) as a, client_for(make_app()) as b:
        created = await asyncio.gather(
            *(
                x.post("/apps", json={"name": f"n{i}", "region": "us", "version": "3"})
                for i, x in enumerate([a, b] * 10)
            )
        )
        assert all(r.status_code == 200 for r in created)
        assert (await a.get("/apps")).json()["meta"]["pagination"]["total"] == 20
