"""SMS notification settings: store, get, update, delete and their double-wrapped envelopes."""

from __future__ import annotations

import httpx
import pytest
from sandbox_helpers import assert_error, sms

pytestmark = pytest.mark.anyio


def _path(app_id: str) -> str:
    return f"/apps/{app_id}/extensions/sms-notification/v1/settings"


def _assert_ok(r: httpx.Response) -> dict[str, object]:
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data["statusCode"] == 200 and data["success"] is True and isinstance(data["responseTime"], float)
    body: dict[str, object] = data["body"]
    return body


async def test_lifecycle(client: httpx.AsyncClient, app_id: str) -> None:
    assert_error(await client.get(_path(app_id)), 404, "ERR_SETTINGS_NOT_FOUND")
    assert_error(await client.put(_path(app_id), json=sms()), 404, "ERR_SETTINGS_NOT_FOUND")
    assert_error(await client.delete(_path(app_id)), 404, "ERR_SETTINGS_NOT_FOUND")

    assert _assert_ok(await client.post(_path(app_id), json=sms())) == {"success": True}
    got = _assert_ok(await client.get(_path(app_id)))
    assert got == {"data": {"settings": {**sms()["settings"], "appId": app_id}}}

    assert _assert_ok(await client.put(_path(app_id), json=sms(messageDelay=120))) == {"success": True}
    got = _assert_ok(await client.get(_path(app_id)))
    assert got["data"]["settings"]["messageDelay"] == 120  # type: ignore[index]

    assert _assert_ok(await client.delete(_path(app_id))) == {"success": True}
    assert_error(await client.get(_path(app_id)), 404, "ERR_SETTINGS_NOT_FOUND")


async def test_validation_never_echoes_secrets(client: httpx.AsyncClient, app_id: str) -> None:
    body = sms()
    del body["settings"]["fromMobileNo"]
    body["settings"]["extra"] = 1
    err = assert_error(await client.post(_path(app_id), json=body), 422, "ERR_BAD_REQUEST")
    assert {"settings.fromMobileNo", "settings.extra"} <= set(err["details"])

    r = await client.post(_path(app_id), json=sms(twilioAuthToken="${TWILIO_TOKEN}"))
    err = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert "settings.twilioAuthToken" in err["details"]
    r = await client.post(_path(app_id), json=sms(twilioAuthToken="$BROKEN{"))
    assert "$BROKEN{" not in r.text and "twiliotokenvalue" not in r.text
