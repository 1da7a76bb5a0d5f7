"""Apps: create, list (search + pages), delete, validation, persistence, seeding."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from sandbox_helpers import MakeApp, assert_error, client_for

from tenantdeck.sandbox import bulk

pytestmark = pytest.mark.anyio


async def test_create_app_envelope(client: httpx.AsyncClient) -> None:
    r = await client.post("/apps", json={"name": "Support", "region": "eu", "version": "3"})
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["name"] == "Support" and data["region"] == "eu" and data["version"] == "3"
    assert data["plan"] == "trial" and data["state"] == "active"
    assert isinstance(data["createdAt"], int)
    assert data["id"].isalnum() and data["id"].islower() and len(data["id"]) >= 12


async def test_duplicate_names_are_allowed(client: httpx.AsyncClient) -> None:
    ids = {(await client.post("/apps", json={"name": "Twin", "region": "us", "version": "3"})).json()["data"]["id"]
           for _ in range(2)}  # fmt: skip
    assert len(ids) == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x" * 101, "region": "us", "version": "3"}, "name"),
        ({"name": "ok", "region": "mars", "version": "3"}, "region"),
        ({"name": "ok", "region": "us", "version": 3}, "version"),
        ({"region": "us", "version": "3"}, "name"),
        ({"name": "ok", "region": "us", "version": "3", "colour": "red"}, "colour"),
    ],
)
async def test_create_app_validation(client: httpx.AsyncClient, body: dict[str, object], field: str) -> None:
    err = assert_error(await client.post("/apps", json=body), 422, "ERR_BAD_REQUEST")
    assert field in err["details"], err
    assert all(isinstance(m, str) for msgs in err["details"].values() for m in msgs)


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    r = await client.post("/apps", content=b'{"name": ', headers={"content-type": "application/json"})
    assert_error(r, 400, "ERR_BAD_REQUEST")
    assert_error(await client.post("/apps"), 400, "ERR_BAD_REQUEST")
    assert_error(await client.post("/apps", json=[1, 2]), 422, "ERR_BAD_REQUEST")


async def test_list_pagination(make_app: MakeApp, db_path: Path) -> None:
    bulk.populate(db_path, 30, webhooks_per_app=0, widgets_per_app=0)
    async with client_for(make_app()) as c:
        first = (await c.get("/apps")).json()
        assert len(first["data"]) == 25
        p = first["meta"]["pagination"]
        assert p == {**p, "total": 30, "count": 25, "per_page": 25, "current_page": 1, "total_pages": 2}
        assert "page=2" in p["links"]["next"]
        second = (await c.get("/apps", params={"page": 2})).json()
        assert second["meta"]["pagination"]["count"] == 5 and second["meta"]["pagination"]["current_page"] == 2
        assert "next" not in second["meta"]["pagination"]["links"]
        ids = [a["id"] for a in first["data"] + second["data"]]
        assert len(set(ids)) == 30
        big = (await c.get("/apps", params={"perPage": 1000})).json()
        assert [a["id"] for a in big["data"]] == ids
        assert big["meta"]["pagination"]["total_pages"] == 1
        beyond = (await c.get("/apps", params={"page": 9})).json()
        assert beyond["data"] == [] and beyond["meta"]["pagination"]["count"] == 0
        assert_error(await c.get("/apps", params={"perPage": 1001}), 422, "ERR_BAD_REQUEST")
        assert_error(await c.get("/apps", params={"page": 0}), 422, "ERR_BAD_REQUEST")


async def test_empty_list_is_one_page(client: httpx.AsyncClient) -> None:
    body = (await client.get("/apps")).json()
    assert body["data"] == []
    assert body["meta"]["pagination"]["total"] == 0 and body["meta"]["pagination"]["total_pages"] == 1


async def test_search_key_matches_id_or_name(client: httpx.AsyncClient) -> None:
    a = (await client.post("/apps", json={"name": "Alpha Support", "region": "us", "version": "3"})).json()["data"]
    await client.post("/apps", json={"name": "Beta", "region": "in", "version": "3"})
    by_name = (await client.get("/apps", params={"searchKey": "alpha"})).json()["data"]
    assert [x["id"] for x in by_name] == [a["id"]]
    by_id = (await client.get("/apps", params={"searchKey": a["id"][:10]})).json()["data"]
    assert [x["id"] for x in by_id] == [a["id"]]
    assert (await client.get("/apps", params={"searchKey": "%"})).json()["data"] == []


async def test_delete_app(client: httpx.AsyncClient, app_id: str) -> None:
    r = await client.delete(f"/apps/{app_id}")
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["success"] is True and isinstance(data["scheduledToDeleteAt"], int)
    assert app_id not in [a["id"] for a in (await client.get("/apps")).json()["data"]]
    for path in ("/extensions", "/extensions/widget/v2/settings", "/webhooks", "/collaborators", "/settings",
                 "/extensions/sms-notification/v1/settings", "/webhooks/x", "/webhooks/x/triggers"):  # fmt: skip
        assert_error(await client.get(f"/apps/{app_id}{path}"), 404, "ERR_APP_NOT_FOUND")
    hook = {"id": "h1", "name": "H", "webhookURL": "https://h.example"}
    assert_error(await client.post(f"/apps/{app_id}/webhooks", json=hook), 404, "ERR_APP_NOT_FOUND")
    assert_error(await client.delete(f"/apps/{app_id}"), 404, "ERR_APP_NOT_FOUND")
    assert_error(await client.delete("/apps/doesnotexist"), 404, "ERR_APP_NOT_FOUND")


async def test_data_survives_a_new_app_on_the_same_file(make_app: MakeApp) -> None:
    async with client_for(make_app()) as c:
        app = (await c.post("/apps", json={"name": "Kept", "region": "in", "version": "3"})).json()["data"]
        r = await c.post(
            f"/apps/{app['id']}/webhooks", json={"id": "h1", "name": "H", "webhookURL": "https://h.example"}
        )
        assert r.status_code == 200
    async with client_for(make_app()) as c:
        apps = (await c.get("/apps")).json()["data"]
        assert [a["id"] for a in apps] == [app["id"]]
        hooks = (await c.get(f"/apps/{app['id']}/webhooks")).json()["data"]
        assert [h["id"] for h in hooks] == ["h1"]


async def test_seed_runs_once_per_file(make_app: MakeApp) -> None:
    async with client_for(make_app(seed=True)) as c:
        apps = (await c.get("/apps")).json()["data"]
        assert sorted(a["region"] for a in apps) == ["eu", "in", "us"]
        for a in apps:
            assert (await c.delete(f"/apps/{a['id']}")).status_code == 200
    async with client_for(make_app(seed=True)) as c:
        assert (await c.get("/apps")).json()["data"] == []


async def test_read_only_collaborators_and_settings(client: httpx.AsyncClient, app_id: str) -> None:
    collaborators = (await client.get(f"/apps/{app_id}/collaborators")).json()["data"]
    assert collaborators and {"id", "name", "email", "role", "createdAt"} <= set(collaborators[0])
    settings = (await client.get(f"/apps/{app_id}/settings")).json()["data"]
    assert isinstance(settings["core.notifications.push.advanced.included"], list)


async def test_seed_skips_a_file_that_already_has_apps(make_app: MakeApp) -> None:
    async with client_for(make_app(seed=False)) as c:
        await c.post("/apps", json={"name": "Mine", "region": "us", "version": "3"})
    async with client_for(make_app(seed=True)) as c:
        assert [a["name"] for a in (await c.get("/apps")).json()["data"]] == ["Mine"]


def test_405_names_every_method_of_the_path() -> None:
    """HTTP requires Allow on 405; GET and POST of one path are separate routes, and both must be listed."""
    import tempfile
    from pathlib import Path

    import httpx

    from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
    from tenantdeck.sandbox.app import create_app

    app = create_app(Path(tempfile.mkdtemp()) / "db.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=False)
    transport = httpx.ASGITransport(app=app)

    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
            return await client.request("PATCH", "/apps", headers={"key": DEFAULT_KEY, "secret": DEFAULT_SECRET})

    import asyncio

    response = asyncio.run(call())
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    assert response.json()["error"]["code"] == "ERR_METHOD_NOT_ALLOWED"


def test_an_absurd_page_number_is_a_422_not_a_crash() -> None:
    """schemathesis found page=2**63 overflowing SQLite's OFFSET (a 500); the bound is in the OpenAPI document."""
    import asyncio
    import tempfile
    from pathlib import Path

    import httpx

    from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
    from tenantdeck.sandbox.app import create_app

    app = create_app(Path(tempfile.mkdtemp()) / "db.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=True)

    async def call(page: int) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as client:
            return await client.get(
                "/apps", params={"page": page}, headers={"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}
            )

    assert asyncio.run(call(2**63)).status_code == 422
    far = asyncio.run(call(10_000_000))
    assert far.status_code == 200 and far.json()["data"] == []
