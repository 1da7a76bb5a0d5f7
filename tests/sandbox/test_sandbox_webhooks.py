"""Webhooks and triggers: envelopes, write-only fields never coming back, limits, uniqueness, validation."""

from __future__ import annotations

import httpx
import pytest
from sandbox_helpers import MakeApp, assert_error, client_for, webhook

pytestmark = pytest.mark.anyio

#: As the real service answers (facts §7): never useBasicAuth, username, password or retryOnFailure.
FIELDS = {"id", "name", "webhookURL", "enabled", "createdAt", "updatedAt"}


async def test_create_get_list_update_delete(make_app: MakeApp, app_id: str) -> None:
    app = make_app()
    async with client_for(app) as client:
        r = await client.post(f"/apps/{app_id}/webhooks", json=webhook("orders"), headers={"X-Webhook-Version": "2"})
        assert r.status_code == 200
        created = r.json()["data"]
        assert set(created) == FIELDS
        assert created["id"] == "orders" and "hookuser" not in r.text and "TopSecretPw1" not in r.text
        stored = app.state.store.webhook_doc(app_id, "orders")
        assert stored["useBasicAuth"] is True and stored["username"] == "hookuser"

        got = (await client.get(f"/apps/{app_id}/webhooks/orders")).json()["data"]
        assert got == created

        listed = (await client.get(f"/apps/{app_id}/webhooks")).json()
        assert [w["id"] for w in listed["data"]] == ["orders"]
        assert listed["meta"]["pagination"]["per_page"] == 100

        update = webhook("orders", name="Renamed", enabled=False)
        del update["id"]
        del update["password"]  # absent password: the stored one is kept
        r = await client.put(f"/apps/{app_id}/webhooks/orders", json=update)
        assert r.status_code == 200
        updated = r.json()["data"]
        assert (
            updated["name"] == "Renamed"
            and updated["enabled"] is False
            and updated["createdAt"] == created["createdAt"]
        )
        assert app.state.store.webhook_password(app_id, "orders") == "TopSecretPw1"

        r = await client.put(f"/apps/{app_id}/webhooks/orders", json={**update, "password": "NewPw2"})
        assert r.status_code == 200 and "NewPw2" not in r.text
        assert app.state.store.webhook_password(app_id, "orders") == "NewPw2"

        r = await client.delete(f"/apps/{app_id}/webhooks/orders")
        assert r.json()["data"] == {"success": True, "message": "Deleted Webhook successfully."}
        assert_error(await client.get(f"/apps/{app_id}/webhooks/orders"), 404, "ERR_WEBHOOK_NOT_FOUND")
        assert_error(await client.delete(f"/apps/{app_id}/webhooks/orders"), 404, "ERR_WEBHOOK_NOT_FOUND")
        assert_error(await client.put(f"/apps/{app_id}/webhooks/orders", json=update), 404, "ERR_WEBHOOK_NOT_FOUND")


async def test_search_and_pages(client: httpx.AsyncClient, app_id: str) -> None:
    for i in range(5):
        await client.post(
            f"/apps/{app_id}/webhooks", json=webhook(f"h{i}", name=f"{'Billing' if i % 2 else 'Chat'} {i}")
        )
    found = (await client.get(f"/apps/{app_id}/webhooks", params={"searchKey": "billing"})).json()["data"]
    assert [w["id"] for w in found] == ["h1", "h3"]
    page = (await client.get(f"/apps/{app_id}/webhooks", params={"perPage": 2, "page": 3})).json()
    assert [w["id"] for w in page["data"]] == ["h4"] and page["meta"]["pagination"]["total_pages"] == 3


async def test_duplicate_id_is_409(client: httpx.AsyncClient, app_id: str) -> None:
    assert (await client.post(f"/apps/{app_id}/webhooks", json=webhook("dup"))).status_code == 200
    assert_error(await client.post(f"/apps/{app_id}/webhooks", json=webhook("dup")), 409, "ERR_WEBHOOK_ALREADY_EXISTS")


async def test_twenty_sixth_webhook_is_refused(client: httpx.AsyncClient, app_id: str) -> None:
    for i in range(25):
        assert (await client.post(f"/apps/{app_id}/webhooks", json=webhook(f"w{i}"))).status_code == 200
    assert_error(await client.post(f"/apps/{app_id}/webhooks", json=webhook("w25")), 422, "ERR_WEBHOOK_LIMIT_REACHED")


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"id": "x" * 51}, "id"),
        ({"id": "has space"}, "id"),
        ({"name": "n" * 51}, "name"),
        ({"webhookURL": "ftp://example.com"}, "webhookURL"),
        ({"webhookURL": "https://example.com/" + "a" * 250}, "webhookURL"),
        ({"password": "not alnum!"}, "password"),
        ({"password": "${HOOK_PASSWORD}"}, "password"),
        ({"enabled": "true"}, "enabled"),
        ({"triggers": ["message_sent"]}, "triggers"),
    ],
)
async def test_validation(client: httpx.AsyncClient, app_id: str, overrides: dict[str, object], field: str) -> None:
    r = await client.post(f"/apps/{app_id}/webhooks", json=webhook(**overrides))  # type: ignore[arg-type]
    err = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert field in err["details"], err
    assert "TopSecretPw1" not in r.text and "not alnum!" not in r.text


async def test_update_id_must_match_path(client: httpx.AsyncClient, app_id: str) -> None:
    await client.post(f"/apps/{app_id}/webhooks", json=webhook("a1"))
    r = await client.put(f"/apps/{app_id}/webhooks/a1", json=webhook("b2"))
    assert "id" in assert_error(r, 422, "ERR_BAD_REQUEST")["details"]


async def test_triggers(client: httpx.AsyncClient, app_id: str) -> None:
    await client.post(f"/apps/{app_id}/webhooks", json=webhook("t1"))
    base = f"/apps/{app_id}/webhooks/t1/triggers"
    r = await client.post(base, json={"triggerIds": ["message_sent", "group_created"]})
    assert r.status_code == 200
    data = r.json()["data"]
    assert set(data) == {"message_sent", "group_created"} and data["message_sent"]["success"] is True
    again = (await client.post(base, json={"triggerIds": ["message_sent"]})).json()["data"]
    assert again["message_sent"]["success"] is True

    listed = (await client.get(base)).json()
    assert sorted(t["id"] for t in listed["data"]) == ["group_created", "message_sent"]
    assert all(isinstance(t["description"], str) for t in listed["data"])
    assert listed["meta"]["pagination"]["total"] == 2

    err = assert_error(await client.post(base, json={"triggerIds": ["message_sent", "bogus"]}), 422, "ERR_BAD_REQUEST")
    assert "triggerIds[1]" in err["details"]
    assert_error(await client.post(base, json={"triggerIds": []}), 422, "ERR_BAD_REQUEST")

    r = await client.request("DELETE", base, json={"triggerIds": ["message_sent", "call_ended"]})
    assert r.json()["data"] == {"success": True, "message": "Removed trigger successfully."}
    assert [t["id"] for t in (await client.get(base)).json()["data"]] == ["group_created"]

    assert_error(await client.get(f"/apps/{app_id}/webhooks/none/triggers"), 404, "ERR_WEBHOOK_NOT_FOUND")
    await client.delete(f"/apps/{app_id}/webhooks/t1")
    await client.post(f"/apps/{app_id}/webhooks", json=webhook("t1"))
    assert (await client.get(base)).json()["data"] == []  # triggers went with the deleted webhook


async def test_nested_envelope_option(make_app: MakeApp) -> None:
    async with client_for(make_app(webhook_envelope="nested")) as client:
        app_id = (await client.post("/apps", json={"name": "N", "region": "us", "version": "3"})).json()["data"]["id"]
        created = (await client.post(f"/apps/{app_id}/webhooks", json=webhook("n1"))).json()
        assert created["data"][0]["data"]["id"] == "n1"
        got = (await client.get(f"/apps/{app_id}/webhooks/n1")).json()
        assert got["data"][0]["data"]["id"] == "n1"


async def test_update_keeping_password_needs_one_stored(client: httpx.AsyncClient, app_id: str) -> None:
    await client.post(
        f"/apps/{app_id}/webhooks", json=webhook("plain", useBasicAuth=False, username=None, password=None)
    )
    update = {
        "name": "Now with auth",
        "webhookURL": "https://hooks.example.com/p",
        "useBasicAuth": True,
        "username": "u1",
    }
    err = assert_error(await client.put(f"/apps/{app_id}/webhooks/plain", json=update), 422, "ERR_BAD_REQUEST")
    assert "password" in err["details"]
    assert (await client.put(f"/apps/{app_id}/webhooks/plain", json={**update, "password": "Pw1"})).status_code == 200


async def test_update_keeps_every_field_it_leaves_out(make_app: MakeApp, app_id: str) -> None:
    """A client cannot read the write-only fields, so it cannot echo them back: a rename must not reset them."""
    app = make_app()
    async with client_for(app) as client:
        await client.post(f"/apps/{app_id}/webhooks", json=webhook("orders", retryOnFailure=True))
        r = await client.put(f"/apps/{app_id}/webhooks/orders", json={"name": "Renamed"})
        assert r.status_code == 200, r.text
        stored = app.state.store.webhook_doc(app_id, "orders")
        assert stored["name"] == "Renamed"
        assert stored["useBasicAuth"] is True and stored["username"] == "hookuser" and stored["retryOnFailure"] is True
        assert app.state.store.webhook_password(app_id, "orders") == "TopSecretPw1"


async def test_documented_rules_apply_to_what_is_sent_not_to_what_is_held(make_app: MakeApp, app_id: str) -> None:
    """The service holds ids and names outside its documented rules (its own example id is test_webhook201): such a
    webhook can be read and updated; creating one, or renaming to a too-long name, is refused."""
    app = make_app()
    store = app.state.store
    store.create_webhook(app_id, {"id": "test_webhook201", "name": "n" * 60, "webhookURL": "https://e.example/t",
                                  "enabled": True}, None, 25)
    async with client_for(app) as client:
        got = (await client.get(f"/apps/{app_id}/webhooks/test_webhook201")).json()["data"]
        assert got["name"] == "n" * 60
        r = await client.put(f"/apps/{app_id}/webhooks/test_webhook201", json={"name": "n" * 60, "enabled": False})
        assert r.status_code == 200, r.text
        assert_error(await client.put(f"/apps/{app_id}/webhooks/test_webhook201", json={"name": "m" * 51}),
                     422, "ERR_BAD_REQUEST")
        assert_error(await client.post(f"/apps/{app_id}/webhooks", json=webhook("test_webhook202")),
                     422, "ERR_BAD_REQUEST")
