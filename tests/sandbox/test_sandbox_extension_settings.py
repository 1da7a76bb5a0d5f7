"""Every documented extension's ``/v1/settings`` over HTTP: round trips built from the catalog, 404s, validation
that is located and never repeats a secret, data-masking's removals, stickers' ``reported_as``, the size bound,
the operationIds and request bodies of the sandbox's OpenAPI, and the migration of the old SMS table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from ext_samples import changed, settings_for, stored_form
from pydantic import BaseModel, ValidationError, model_validator
from sandbox_helpers import MakeApp, assert_error, client_for

from tenantdeck.models.extension_catalog import BY_ID, EXTENSIONS, ExtensionSpec
from tenantdeck.models.extension_settings import request_model
from tenantdeck.sandbox import ext_settings, samples, validation
from tenantdeck.sandbox.ddl import connect
from tenantdeck.sandbox.limits import EXTENSION_SETTINGS_MAX_BYTES

pytestmark = pytest.mark.anyio

SERVED = ext_settings.served()
IDS = [spec.id for spec in SERVED]


def path(app_id: str, spec: ExtensionSpec | str) -> str:
    ext_id = spec if isinstance(spec, str) else spec.id
    return f"/apps/{app_id}/extensions/{ext_id}/v1/settings"


def body_of(r: httpx.Response) -> Any:
    """The double-wrapped envelope checked; its ``body`` returned."""
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert set(data) == {"statusCode", "success", "responseTime", "body"}, data
    assert data["statusCode"] == 200 and data["success"] is True and isinstance(data["responseTime"], float)
    return data["body"]


async def store(client: httpx.AsyncClient, app_id: str, spec: ExtensionSpec, settings: dict[str, Any]) -> Any:
    send = client.post if spec.store == "POST" else client.put
    return body_of(await send(path(app_id, spec), json={"settings": settings}))


def test_every_documented_extension_is_served() -> None:
    """The routes come from the catalog: every documented spec, the undocumented ones not."""
    assert set(IDS) == {spec.id for spec in EXTENSIONS if spec.documented}
    assert {"intercom", "human-moderation", "virus-malware-scanner"}.isdisjoint(IDS)
    assert "sms-notification" in IDS


@pytest.mark.parametrize("ext_id", IDS)
async def test_store_get_update_delete_round_trip(client: httpx.AsyncClient, app_id: str, ext_id: str) -> None:
    spec = BY_ID[ext_id]
    where = path(app_id, spec)
    assert_error(await client.get(where), 404, "ERR_SETTINGS_NOT_FOUND")
    assert_error(await client.delete(where), 404, "ERR_SETTINGS_NOT_FOUND")
    settings = settings_for(spec)
    if spec.store == "POST":  # an update of nothing is refused; with PUT as the store method it stores
        assert_error(await client.put(where, json={"settings": settings}), 404, "ERR_SETTINGS_NOT_FOUND")
    else:
        assert_error(await client.post(where, json={"settings": settings}), 405, "ERR_METHOD_NOT_ALLOWED")

    answer = await store(client, app_id, spec, settings)
    assert answer == ext_settings.write_reply(spec, stored_form(spec, settings))
    got = body_of(await client.get(where))
    assert got == {"data": {"settings": {**stored_form(spec, settings), "appId": app_id}}}

    key, updated = changed(spec, settings)
    answer = body_of(await client.put(where, json={"settings": updated}))
    assert answer == ext_settings.write_reply(spec, stored_form(spec, updated))
    reported = body_of(await client.get(where))["data"]["settings"]
    assert reported == {**stored_form(spec, updated), "appId": app_id}
    assert reported != {**stored_form(spec, settings), "appId": app_id}, key

    assert body_of(await client.delete(where)) == ext_settings.delete_reply(spec)
    assert_error(await client.get(where), 404, "ERR_SETTINGS_NOT_FOUND")
    assert_error(await client.delete(where), 404, "ERR_SETTINGS_NOT_FOUND")


async def test_answers_follow_the_vendor_shapes(client: httpx.AsyncClient, app_id: str) -> None:
    """The per-extension answers the OpenAPI examples show: an echo, a bare success, Giphy's nested delete, SMS's
    body-level success."""
    giphy = BY_ID["gifs-giphy"]
    assert await store(client, app_id, giphy, {"giphyApiKey": "k1"}) == {"data": {"settings": {"giphyApiKey": "k1"}}}
    assert body_of(await client.delete(path(app_id, giphy))) == {"data": {"settings": {"success": True}}}
    profanity = BY_ID["profanity-filter"]
    assert await store(client, app_id, profanity, settings_for(profanity)) == {"data": {"success": True}}
    assert body_of(await client.delete(path(app_id, profanity))) == {"data": {"success": True}}
    sms = BY_ID["sms-notification"]
    assert await store(client, app_id, sms, settings_for(sms)) == {"success": True}
    assert body_of(await client.delete(path(app_id, sms))) == {"success": True}


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE"])
async def test_unknown_app(client: httpx.AsyncClient, method: str) -> None:
    spec = BY_ID["profanity-filter"]
    body = {"settings": settings_for(spec)} if method in ("POST", "PUT") else None
    r = await client.request(method, path("nosuchapp", spec), json=body)
    assert_error(r, 404, "ERR_APP_NOT_FOUND")


@pytest.mark.parametrize("ext_id", [spec.id for spec in SERVED if any(s.secret for s in spec.settings)
                                    or any(f.secret for s in spec.settings for f in s.fields)])
async def test_validation_is_located_and_never_repeats_a_secret(
    client: httpx.AsyncClient, app_id: str, ext_id: str
) -> None:
    spec = BY_ID[ext_id]
    settings = settings_for(spec, tag="LEAK")
    secrets = [v for v in json.dumps(settings).split('"') if "LEAK" in v and v.startswith("s3cret")]
    assert secrets  # the body carries secrets, so the check below can fail
    expected = {"settings.notASetting"}
    settings["notASetting"] = "LEAKnot-secret"
    required = next((s for s in spec.settings if s.required and not s.secret), None)
    if required is not None:  # a spec whose only setting is its secret (Giphy) keeps it, so it is in the body
        del settings[required.key]
        expected.add(f"settings.{required.key}")
    r = await client.request(spec.store, path(app_id, spec), json={"settings": settings})
    err = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert expected <= set(err["details"])
    for secret in secrets:
        assert secret not in r.text
    assert_error(await client.get(path(app_id, spec)), 404, "ERR_SETTINGS_NOT_FOUND")  # nothing was stored


@pytest.mark.parametrize("value", ["${FCM_PRIVATE_KEY}", "", "$BROKEN{s3cret"])
async def test_a_nested_secret_must_be_a_resolved_value(client: httpx.AsyncClient, app_id: str, value: str) -> None:
    spec = BY_ID["push-notification"]
    settings = settings_for(spec)
    settings["fcmCredentials"]["private_key"] = value
    r = await client.post(path(app_id, spec), json={"settings": settings})
    err = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert list(err["details"]) == ["settings.fcmCredentials.private_key"]
    if value:
        assert value not in r.text


def test_secret_values_are_scrubbed_from_any_message() -> None:
    """Defence in depth: pydantic's own messages rarely quote an input, but a model-level message may quote any
    value, and a secret nested anywhere in the body must not come back in it."""

    class Quoting(BaseModel):
        name: str
        fcmCredentials: dict[str, str]

        @model_validator(mode="after")
        def quote(self) -> Quoting:
            raise ValueError(f"{self.name} does not match {self.fcmCredentials['private_key']}")

    data = {"name": "acme", "fcmCredentials": {"private_key": "TOPSECRETKEY"}}
    with pytest.raises(ValidationError) as info:
        Quoting.model_validate(data)
    details = validation._details(info.value, ("settings",), data)
    assert details == {"settings": ["Value error, acme does not match ***"]}
    assert {"private_key", "giphyApiKey", "twilioAuthToken", "basicAuthPassword"} <= validation.SCRUBBED_FIELDS


async def test_body_shape_and_app_id(client: httpx.AsyncClient, app_id: str) -> None:
    spec = BY_ID["gifs-giphy"]
    where = path(app_id, spec)
    err = assert_error(await client.post(where, json={"giphyApiKey": "k"}), 422, "ERR_BAD_REQUEST")
    assert "giphyApiKey" in err["details"]
    assert_error(await client.post(where, content=b"{nope", headers={"content-type": "application/json"}),
                 400, "ERR_BAD_REQUEST")
    err = assert_error(await client.post(where, json={"settings": {"giphyApiKey": "k", "appId": 7}}),
                       422, "ERR_BAD_REQUEST")
    assert list(err["details"]) == ["settings.appId"]
    # an echoed appId (the GET reports one) is accepted and ignored: the path names the app
    await store(client, app_id, spec, {"giphyApiKey": "k", "appId": "some-other-app"})
    assert body_of(await client.get(where))["data"]["settings"] == {"giphyApiKey": "k", "appId": app_id}


async def test_requirements_are_checked(client: httpx.AsyncClient, app_id: str) -> None:
    spec = BY_ID["report-user"]
    r = await client.post(path(app_id, spec), json={"settings": {"maxReports": 3, "useWebhook": True}})
    err = assert_error(r, 422, "ERR_BAD_REQUEST")
    assert "webhookURL" in " ".join(err["details"]["settings"])
    r = await client.post(path(app_id, spec), json={"settings": {"maxReports": 0, "useWebhook": False}})
    assert "settings.maxReports" in assert_error(r, 422, "ERR_BAD_REQUEST")["details"]


def _masks(*ids: str) -> list[dict[str, str]]:
    return [{"id": i, "name": f"mask {i}", "regex": f"{i}[0-9]+"} for i in ids]


def _masking(custom: list[dict[str, str]], delete: list[str]) -> dict[str, Any]:
    return {"settings": {"dropMessage": False, "defaultRegexData": [], "customregexData": custom,
                         "deleteCustomRegexData": delete}}


async def test_data_masking_keeps_sent_and_kept_masks_and_removes_by_id(
    client: httpx.AsyncClient, app_id: str
) -> None:
    where = path(app_id, "data-masking")

    async def stored_ids() -> list[str]:
        return [m["id"] for m in body_of(await client.get(where))["data"]["settings"]["customregexData"]]

    body_of(await client.put(where, json=_masking(_masks("a", "b"), [])))
    assert await stored_ids() == ["a", "b"]
    body_of(await client.put(where, json=_masking(_masks("c"), ["a", "never-stored"])))
    assert await stored_ids() == ["b", "c"]
    renamed = [{"id": "b", "name": "renamed", "regex": "b+"}]
    body_of(await client.put(where, json=_masking(renamed, [])))  # same id: the sent one replaces the kept one
    settings = body_of(await client.get(where))["data"]["settings"]
    assert settings["customregexData"] == [*_masks("c"), *renamed]
    assert "deleteCustomRegexData" not in settings  # a request field, never stored

    err = assert_error(await client.put(where, json=_masking(_masks("d"), ["d"])), 422, "ERR_BAD_REQUEST")
    assert list(err["details"]) == ["settings.customregexData[0].id"]
    err = assert_error(await client.put(where, json=_masking(_masks("e", "e"), [])), 422, "ERR_BAD_REQUEST")
    assert list(err["details"]) == ["settings.customregexData[1].id"]
    bad = [{"id": "f", "name": "broken", "regex": "([a-z"}]
    err = assert_error(await client.put(where, json=_masking(bad, [])), 422, "ERR_BAD_REQUEST")
    assert list(err["details"]) == ["settings.customregexData[0].regex"]
    assert await stored_ids() == ["c", "b"]  # refusals change nothing


async def test_the_union_of_masks_is_bounded(client: httpx.AsyncClient, app_id: str) -> None:
    """Each PUT adds masks to those kept, so the bound is checked on the result, inside the write."""
    where = path(app_id, "data-masking")
    per_put = EXTENSION_SETTINGS_MAX_BYTES // 2 // 80
    first = [{"id": f"a{i:05}", "name": "x" * 30, "regex": f"a{i:05}"} for i in range(per_put)]
    second = [{"id": f"b{i:05}", "name": "x" * 30, "regex": f"b{i:05}"} for i in range(per_put)]
    body_of(await client.put(where, json=_masking(first, [])))
    body_of(await client.put(where, json=_masking(second, [])))
    third = [{"id": f"c{i:05}", "name": "x" * 30, "regex": f"c{i:05}"} for i in range(per_put)]
    err = assert_error(await client.put(where, json=_masking(third, [])), 422, "ERR_BAD_REQUEST")
    assert f"at most {EXTENSION_SETTINGS_MAX_BYTES} bytes" in err["details"]["settings"][0]
    held = body_of(await client.get(where))["data"]["settings"]["customregexData"]
    assert len(held) == 2 * per_put  # the refused PUT left the stored masks as they were
    body_of(await client.put(where, json=_masking(third, [m["id"] for m in first])))  # room made: accepted


async def test_one_document_is_bounded(client: httpx.AsyncClient, app_id: str) -> None:
    words = [f"word{i:06}" for i in range(EXTENSION_SETTINGS_MAX_BYTES // 10)]
    r = await client.post(path(app_id, "profanity-filter"), json={"settings": {"dropMessage": False,
                                                                                "badwords": words}})
    assert "settings" in assert_error(r, 422, "ERR_BAD_REQUEST")["details"]


async def test_stickers_report_custom_stickers_under_their_reported_name(
    client: httpx.AsyncClient, app_id: str
) -> None:
    spec = BY_ID["stickers"]
    custom = [{"id": "s1", "stickerName": "wave", "stickerUrl": "https://cdn.example/wave.png", "stickerOrder": 1}]
    assert await store(client, app_id, spec, {"customStickersData": custom}) == {"data": {"success": True}}
    settings = body_of(await client.get(path(app_id, spec)))["data"]["settings"]
    assert settings == {"customMasterStickersData": custom, "appId": app_id}  # open objects keep stickerOrder
    r = await client.put(path(app_id, spec), json={"settings": {"customMasterStickersData": custom}})
    assert "settings.customMasterStickersData" in assert_error(r, 422, "ERR_BAD_REQUEST")["details"]


async def test_settings_do_not_need_the_extension_enabled(client: httpx.AsyncClient, app_id: str) -> None:
    """No refusal is documented for a disabled extension; a client may store settings before enabling it."""
    states = {e["id"]: e["enabled"] for e in (await client.get(f"/apps/{app_id}/extensions",
                                                                  params={"perPage": 1000})).json()["data"]}
    assert states["e2ee"] is False
    await store(client, app_id, BY_ID["e2ee"], settings_for(BY_ID["e2ee"]))


async def test_openapi_names_each_operation_and_its_body(make_app: MakeApp) -> None:
    async with client_for(make_app(), auth=False) as c:
        doc = (await c.get("/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    for spec in SERVED:
        item = doc["paths"][f"/apps/{{appId}}{spec.path}"]
        assert set(item) == {m.lower() for m in ext_settings.methods(spec)}, spec.id
        for method in ext_settings.methods(spec):
            op = item[method.lower()]
            assert op["operationId"] == ext_settings.operation_id(spec, method)
            if method in ("POST", "PUT"):
                schema = op["requestBody"]["content"]["application/json"]["schema"]
                name = schema["properties"]["settings"]["$ref"].rsplit("/", 1)[1]
                assert name == request_model(spec.id).__name__
                assert "appId" in schemas[name]["properties"]
                required = {s.key for s in spec.settings if s.required} | {r for _, r in spec.removals}
                assert set(schemas[name].get("required", [])) == required, spec.id
    ids = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    assert {"store-settings-gifs-giphy", "delete-settings-for-giphy-gifs-giphy", "adds-settings-profanity-filter",
            "store-or-update-settings-data-masking", "update-settings-stickers", "store-settings-sms-notification",
            "get-settings-message-shortcuts"} <= ids


async def test_seeded_extension_settings_are_valid(make_app: MakeApp) -> None:
    """The demo account (make run) shows extension settings, each one what a client could have sent."""
    async with client_for(make_app(seed=True)) as c:
        found: dict[str, dict[str, Any]] = {}
        for app in (await c.get("/apps")).json()["data"]:
            for spec in SERVED:
                r = await c.get(path(app["id"], spec))
                if r.status_code == 200:
                    settings = dict(body_of(r)["data"]["settings"])
                    assert settings.pop("appId") == app["id"]
                    request_model(spec.id).model_validate(
                        {**settings, **{removal: [] for _, removal in spec.removals}})
                    found[spec.id] = settings
    assert {"profanity-filter", "data-masking", "push-notification", "report-user", "sms-notification"} <= set(found)
    assert found["profanity-filter"]["badwords"] and found["data-masking"]["customregexData"]
    assert found["push-notification"]["fcmCredentials"]["private_key"] == samples.FAKE_PRIVATE_KEY


def test_an_old_database_brings_its_sms_settings_along(tmp_path: Path) -> None:
    """Version 1 kept SMS settings in ``sms_settings``; opening such a file moves them to ``extension_settings``."""
    db = tmp_path / "old.sqlite3"
    old = sqlite3.connect(db)
    old.executescript(
        "CREATE TABLE sms_settings (app_id TEXT PRIMARY KEY, settings TEXT NOT NULL, updated_at INTEGER NOT NULL);"
        "INSERT INTO sms_settings VALUES ('app1', '{\"fromMobileNo\":\"+1\"}', 5);"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema_version', '1');"
    )
    old.commit()
    old.close()
    conn = connect(db)
    try:
        rows = conn.execute("SELECT app_id, ext_id, settings, updated_at FROM extension_settings").fetchall()
        assert rows == [("app1", "sms-notification", '{"fromMobileNo":"+1"}', 5)]
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'sms_settings'").fetchone() is None
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)
    finally:
        conn.close()
    connect(db).close()  # opening again is a no-op
