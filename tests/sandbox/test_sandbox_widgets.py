"""Chat widget v2 settings: envelopes, update by ``settings.widgetId``, the 25-widget limit, validation."""

from __future__ import annotations

import httpx
import pytest
from sandbox_helpers import assert_error, widget_settings

from tenantdeck.models import WidgetSettings

pytestmark = pytest.mark.anyio


def _path(app_id: str) -> str:
    return f"/apps/{app_id}/extensions/widget/v2/settings"


async def test_create_list_update(client: httpx.AsyncClient, app_id: str) -> None:
    r = await client.post(_path(app_id), json={"settings": widget_settings("First")})
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["statusCode"] == 200 and data["success"] is True and isinstance(data["responseTime"], float)
    widget_id = data["body"]["data"]["widgetId"]
    assert isinstance(widget_id, str) and widget_id

    listed = (await client.get(_path(app_id))).json()["data"]
    assert listed["statusCode"] == 200 and listed["success"] is True
    [item] = listed["body"]["data"]
    assert item["widgetId"] == widget_id
    config = item["configuration"]
    assert config["version"] == "v2" and config["appId"] == app_id and config["name"] == "First"
    # what GET returns (minus appId) is a valid WidgetSettings again
    WidgetSettings.model_validate({k: v for k, v in config.items() if k != "appId"})

    changed = widget_settings("Renamed")
    changed["main"]["send_gifs"] = True
    r = await client.put(_path(app_id), json={"settings": {**changed, "widgetId": widget_id}})
    assert r.status_code == 200
    assert r.json()["data"]["body"]["data"]["success"] is True
    [item] = (await client.get(_path(app_id))).json()["data"]["body"]["data"]
    assert item["configuration"]["name"] == "Renamed" and item["configuration"]["main"]["send_gifs"] is True


async def test_update_needs_a_known_widget_id(client: httpx.AsyncClient, app_id: str) -> None:
    settings = widget_settings()
    err = assert_error(await client.put(_path(app_id), json={"settings": settings}), 422, "ERR_BAD_REQUEST")
    assert "settings.widgetId" in err["details"]
    r = await client.put(_path(app_id), json={"settings": {**settings, "widgetId": "nope"}})
    assert_error(r, 404, "ERR_WIDGET_NOT_FOUND")
    r = await client.post(_path(app_id), json={"settings": {**settings, "widgetId": "x"}})
    assert_error(r, 422, "ERR_BAD_REQUEST")


async def test_validation_details_point_at_fields(client: httpx.AsyncClient, app_id: str) -> None:
    bad = widget_settings()
    bad["main"]["send_gifs"] = "yes"
    bad["style"]["primary_color"] = "blue"
    del bad["sidebar"]["users"]
    bad["version"] = "v3"
    err = assert_error(await client.post(_path(app_id), json={"settings": bad}), 422, "ERR_BAD_REQUEST")
    assert {"settings.main.send_gifs", "settings.style.primary_color", "settings.sidebar.users",
            "settings.version"} <= set(err["details"])  # fmt: skip
    assert_error(await client.post(_path(app_id), json={"config": {}}), 422, "ERR_BAD_REQUEST")
    assert_error(await client.post(_path(app_id), json={"settings": []}), 422, "ERR_BAD_REQUEST")


async def test_app_id_echo_is_accepted_only_for_this_app(client: httpx.AsyncClient, app_id: str) -> None:
    assert (
        await client.post(_path(app_id), json={"settings": {**widget_settings(), "appId": app_id}})
    ).status_code == 200
    r = await client.post(_path(app_id), json={"settings": {**widget_settings(), "appId": "other"}})
    assert "settings.appId" in assert_error(r, 422, "ERR_BAD_REQUEST")["details"]


async def test_twenty_sixth_widget_is_refused(client: httpx.AsyncClient, app_id: str) -> None:
    body = {"settings": widget_settings()}
    for _ in range(25):
        assert (await client.post(_path(app_id), json=body)).status_code == 200
    assert_error(await client.post(_path(app_id), json=body), 422, "ERR_WIDGET_LIMIT_REACHED")
    assert len((await client.get(_path(app_id))).json()["data"]["body"]["data"]) == 25


async def test_unknown_app(client: httpx.AsyncClient) -> None:
    assert_error(await client.get(_path("missing")), 404, "ERR_APP_NOT_FOUND")
    assert_error(await client.post(_path("missing"), json={"settings": widget_settings()}), 404, "ERR_APP_NOT_FOUND")
