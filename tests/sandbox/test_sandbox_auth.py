"""key/secret authentication: 401 in the error envelope, before anything else happens."""

from __future__ import annotations

import httpx
import pytest
from sandbox_helpers import AUTH, MakeApp, assert_error, client_for

pytestmark = pytest.mark.anyio


async def test_missing_headers_are_401_empty_auth(make_app: MakeApp) -> None:
    async with client_for(make_app(), auth=False) as c:
        assert_error(await c.get("/apps"), 401, "AUTH_ERR_EMPTY_AUTH_HEADER")
        assert_error(await c.get("/apps", headers={"key": AUTH["key"]}), 401, "AUTH_ERR_EMPTY_AUTH_HEADER")
        assert_error(await c.get("/apps", headers={"secret": AUTH["secret"]}), 401, "AUTH_ERR_EMPTY_AUTH_HEADER")


@pytest.mark.parametrize(
    "headers", [{"key": "sandbox-key", "secret": "wrong"}, {"key": "wrong", "secret": "sandbox-secret"}]
)
async def test_wrong_credentials_are_401(make_app: MakeApp, headers: dict[str, str]) -> None:
    async with client_for(make_app(), auth=False) as c:
        err = assert_error(await c.get("/apps", headers=headers), 401, "AUTH_ERR_INVALID_CREDENTIALS")
        assert "wrong" not in err["message"]


async def test_auth_comes_before_body_parsing(make_app: MakeApp) -> None:
    async with client_for(make_app(), auth=False) as c:
        r = await c.post("/apps", content=b"{not json", headers={"content-type": "application/json"})
        assert_error(r, 401, "AUTH_ERR_EMPTY_AUTH_HEADER")


async def test_custom_credentials(make_app: MakeApp) -> None:
    app = make_app(key="k1", secret="s1")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as c:
        assert (await c.get("/apps", headers={"key": "k1", "secret": "s1"})).status_code == 200
        assert_error(await c.get("/apps", headers=AUTH), 401, "AUTH_ERR_INVALID_CREDENTIALS")


async def test_openapi_is_open_and_names_operations(make_app: MakeApp) -> None:
    async with client_for(make_app(), auth=False) as c:
        r = await c.get("/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    operation_ids = {op["operationId"] for path in doc["paths"].values() for op in path.values()}
    assert {
        "create-app", "list-apps", "delete-app", "list-extensions", "enable-extension", "store-chat-widget",
        "update-chat-widget", "list-chat-widget", "store-settings-sms-notification", "get-settings-sms-notification",
        "update-settings-sms-notification", "delete-settings-sms-notification", "create-webhook", "list-webhooks",
        "get-webhook", "update-webhook", "delete-webhook", "add-triggers", "list-triggers", "remove-triggers",
        "list-collaborators", "list-settings",
    } <= operation_ids  # fmt: skip
    assert {"WidgetSettings", "WebhookBody", "SmsSettings", "AppCreate"} <= set(doc["components"]["schemas"])
    # every $ref resolves inside the document
    text = r.text
    for name in {part.split('"')[0] for part in text.split('"#/components/schemas/')[1:]}:
        assert name in doc["components"]["schemas"], name


async def test_unknown_route_and_method_use_the_envelope(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/nope"), 404, "ERR_NOT_FOUND")
    assert_error(await client.patch("/apps"), 405, "ERR_METHOD_NOT_ALLOWED")
