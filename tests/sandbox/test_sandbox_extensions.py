"""Extensions: the paged catalogue with the sandbox's ``enabled`` extra, and enable/disable."""

from __future__ import annotations

import httpx
import pytest
from sandbox_helpers import assert_error

from tenantdeck.models import catalog

pytestmark = pytest.mark.anyio


async def _all(client: httpx.AsyncClient, app_id: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    page = 1
    while True:
        body = (await client.get(f"/apps/{app_id}/extensions", params={"page": page})).json()
        out.update({e["id"]: e["enabled"] for e in body["data"]})
        meta = body["meta"]["pagination"]
        if meta["current_page"] >= meta["total_pages"]:
            return out
        page += 1


async def test_list_is_paged_and_carries_fields(client: httpx.AsyncClient, app_id: str) -> None:
    body = (await client.get(f"/apps/{app_id}/extensions")).json()
    assert body["meta"]["pagination"]["per_page"] == 25
    assert body["meta"]["pagination"]["total"] == len(catalog.EXTENSION_IDS)
    item = body["data"][0]
    assert {"id", "name", "tagLine", "description", "isActive", "hooks", "categories", "enabled"} <= set(item)
    states = await _all(client, app_id)
    assert set(states) == set(catalog.EXTENSION_IDS)
    assert not any(states.values())


async def test_enable_and_disable(client: httpx.AsyncClient, app_id: str) -> None:
    r = await client.post(f"/apps/{app_id}/extensions", json={"enabled": ["polls", "reactions"], "disabled": ["e2ee"]})
    assert r.status_code == 200
    data = r.json()["data"]
    assert set(data["enabled"]) == {"polls", "reactions"} and data["enabled"]["polls"]["success"] is True
    assert data["disabled"]["e2ee"]["success"] is True and isinstance(data["disabled"]["e2ee"]["message"], str)
    states = await _all(client, app_id)
    assert states["polls"] and states["reactions"] and not states["e2ee"]
    await client.post(f"/apps/{app_id}/extensions", json={"disabled": ["polls"]})
    assert not (await _all(client, app_id))["polls"]


async def test_unknown_extension_is_404_and_changes_nothing(client: httpx.AsyncClient, app_id: str) -> None:
    r = await client.post(f"/apps/{app_id}/extensions", json={"enabled": ["polls", "teleport"]})
    err = assert_error(r, 404, "ERR_EXTENSION_NOT_FOUND")
    assert "enabled[1]" in err["details"]
    assert not (await _all(client, app_id))["polls"]


async def test_enable_body_validation(client: httpx.AsyncClient, app_id: str) -> None:
    assert_error(
        await client.post(f"/apps/{app_id}/extensions", json={"enabled": ["polls"], "disabled": ["polls"]}),
        422, "ERR_BAD_REQUEST",
    )  # fmt: skip
    assert_error(await client.post(f"/apps/{app_id}/extensions", json={"enabled": "polls"}), 422, "ERR_BAD_REQUEST")
    assert_error(await client.post(f"/apps/{app_id}/extensions", json={"on": []}), 422, "ERR_BAD_REQUEST")
