"""Every envelope variant in the reference (management-api-facts.md) parses; anything else is MalformedResponse.

Fixtures are JSON literals copied in shape from the reference's examples (MA-a / MA-c), one per variant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tenantdeck.api.envelopes import (
    Envelope,
    EnvelopeError,
    normalise_record,
    parse_error_body,
    to_epoch,
    to_id,
)
from tenantdeck.api.errors import ApiError, MalformedResponse, NotFoundError, Operation

OP = Operation("list apps", subject="apps")

# --- §3.1 apps ------------------------------------------------------------------------------------------------------

APPS_LIST_MA_A: dict[str, Any] = {
    "data": [
        {
            "id": "21c2e8f0a1b2c3d4", "name": "Support", "plan": "trial", "trialEndsAt": 1735689600,
            "state": "active", "owner": 12345, "region": "us", "createdAt": 1733097600,
            "appOwner": {"id": "o1", "name": "Owner", "email": "o@example.com"},
            "appRegion": {"id": "us", "name": "USA", "description": "servers located at Ohio"},
            "apiKeys": {"k1": {"apiKey": "k1", "name": "Rest API Key", "scope": "fullAccess",
                               "createdBy": "app_system"}},
        }
    ],
    "meta": {"pagination": {"total": 1, "count": 1, "per_page": 25, "current_page": 1, "total_pages": 1,
                            "links": "{}"}},
}

APPS_LIST_MA_C: dict[str, Any] = {
    "data": [
        {
            "id": 987654, "name": "Sales", "plan": "free-2023-01", "planName": "Build", "version": "3",
            "owner": "owner-1", "region": "eu", "createdAt": "2025-05-01T12:14:55Z",
            "updatedAt": "2025-05-02T08:00:00+02:00", "role": "owner", "statsToken": "x",
            "metadata": {"industry": "retail", "technology": "react", "otherTechnology": ""},
            "appRegion": {"id": "eu", "name": "Europe", "meta": {"apiHost": "api-eu.cometchat.io"}},
        }
    ],
    "meta": {"pagination": {"total": "3", "count": 1, "per_page": 1, "current_page": 2, "total_pages": 3,
                            "links": {"next": "https://apimgmt.cometchat.io/apps?page=3"}}},
}

APP_CREATE = {"data": {"id": "abc", "name": "New", "region": "in", "createdAt": 1733097600, "plan": "trial"}}
APP_DELETE = {"data": {"success": True, "scheduledToDeleteAt": 1735689600}}

# --- §3.2 extensions ------------------------------------------------------------------------------------------------

EXTENSIONS_LIST = {
    "data": [
        {"id": "polls", "name": "Polls", "tagLine": "t", "isActive": True, "createdAt": 1600000000,
         "hooks": {"data": [{"hook": "before_message", "isActive": True, "enabled": True, "createdAt": 1600000000}]},
         "categories": {"data": []}},
        {"id": "stickers", "name": "Stickers", "enabled": False, "createdAt": "2021-01-01T00:00:00Z"},
    ],
    "meta": {"pagination": {"total": 2, "count": 2, "per_page": 25, "current_page": 1, "total_pages": 1}},
}
EXTENSIONS_SET = {"data": {"enabled": {"polls": {"success": True, "message": "ok"}},
                           "disabled": {"stickers": {"success": True, "message": "ok"}}}}

# --- §8 widgets, §10 SMS (extension proxy envelope) -----------------------------------------------------------------

WIDGET_CREATE = {"data": {"statusCode": 200, "success": True, "responseTime": 153.22,
                          "body": {"data": {"widgetId": "5b0c9f7e-6c4f-4d8a-9a55-6f0a3f7e2c11"}}}}
WIDGET_UPDATE = {"data": {"statusCode": 200, "success": True, "responseTime": 0.5,
                          "body": {"data": {"success": True}}}}
WIDGET_LIST = {"data": {"statusCode": 200, "success": True, "responseTime": 12.75, "body": {"data": [
    {"configuration": {"name": "Support", "version": "v2", "appId": "abc", "style": {}, "sidebar": {}, "main": {}},
     "widgetId": "w-1"},
]}}}
SMS_GET = {"data": {"statusCode": 200, "success": True, "responseTime": 4.2, "body": {"data": {"settings": {
    "fromMobileNo": "+12345678", "messageDelay": 60, "twilioAccountSid": "AC1", "twilioAuthToken": "tok",
    "websiteURL": "www.somewebsite.com", "appId": "abc"}}}}}
SMS_STORE = {"data": {"statusCode": 200, "success": True, "responseTime": 3.14159, "body": {"success": True}}}
EXT_SETTINGS_STORE = {"data": {"statusCode": 200, "success": True, "responseTime": 1.5,
                               "body": {"data": {"settings": {"dropMessage": True}}}}}
GIPHY_DELETE = {"data": {"statusCode": 200, "success": True, "responseTime": 1,
                         "body": {"data": {"settings": {"success": True}}}}}

# --- §7 webhooks and triggers ---------------------------------------------------------------------------------------

WEBHOOK_LIST = {
    "data": [{"id": "hook1", "name": "Hook 1", "webhookURL": "https://h.example.com/1", "createdAt": 1700000000,
              "updatedAt": "2024-01-01T00:00:00.000Z"}],
    "meta": {"pagination": {"total": 1, "count": 1, "per_page": 100, "current_page": 1, "total_pages": 1}},
}
WEBHOOK_CREATE_TOP_LEVEL_LIST = [{"data": {"id": "hook1", "name": "Hook 1", "webhookURL": "https://h.example.com/1",
                                           "enabled": True}}]
WEBHOOK_CREATE_DATA_LIST = {"data": [{"data": {"id": "hook1", "name": "Hook 1", "enabled": True}}]}
WEBHOOK_GET_NESTED = {"data": [{"data": {"id": "hook1", "name": "Hook 1", "webhookURL": "https://h.example.com/1",
                                         "enabled": False, "createdAt": "1700000000"}}]}
WEBHOOK_GET_PLAIN = {"data": {"id": 77, "name": "Hook 77", "webhookURL": "https://h.example.com/77"}}
WEBHOOK_GET_DOUBLE_DATA = {"data": {"data": {"id": "hook1", "name": "Hook 1"}}}
WEBHOOK_DELETE = {"data": {"success": True, "message": "Deleted Webhook successfully."}}
TRIGGERS_ADD = {"data": {"message_sent": {"success": True, "message": "Triggers has been added successfully."},
                         "call_ended": {"success": False, "message": "nope"}}}
TRIGGERS_LIST = {"data": [{"id": "message_sent", "description": "Message sent"},
                          {"id": "message_read_receipt", "description": "[Beta] read receipt"}],
                 "meta": {"pagination": {"total": 2, "count": 2, "per_page": 100, "current_page": 1,
                                         "total_pages": 1}}}
TRIGGERS_REMOVE = {"data": {"success": True, "message": "Removed trigger successfully."}}

# --- §3.4 team, §3.5 settings ---------------------------------------------------------------------------------------

COLLABORATORS = {"data": [{"id": 5, "name": "Ann", "email": "ann@example.com", "role": "admin",
                           "createdAt": "2024-03-01T10:00:00Z"}]}
APP_SETTINGS = {"data": {"core.conversations.updateOnGroupActions": True,
                         "core.notifications.push.advanced.included": ["preferences", "templates"]}}


def env(doc: Any, status: int = 200, op: Operation = OP) -> Envelope:
    return Envelope(doc, operation=op, status=status)


def test_apps_list_ma_a_shape() -> None:
    e = env(APPS_LIST_MA_A)
    [app] = e.records()
    assert app["id"] == "21c2e8f0a1b2c3d4"
    assert app["createdAt"] == 1733097600 and app["trialEndsAt"] == 1735689600
    assert app["owner"] == 12345  # only `id` and `...At` keys are normalised
    pag = e.pagination()
    assert pag is not None and pag.is_last and pag.per_page == 25


def test_apps_list_ma_c_shape_iso_timestamps_and_int_ids() -> None:
    e = env(APPS_LIST_MA_C)
    [app] = e.records()
    assert app["id"] == "987654"
    assert app["createdAt"] == 1746101695  # 2025-05-01T12:14:55Z
    assert app["updatedAt"] == 1746165600  # 2025-05-02T08:00:00+02:00
    pag = e.pagination()
    assert pag is not None and (pag.current_page, pag.total_pages, pag.total) == (2, 3, 3)
    assert not pag.is_last


@pytest.mark.parametrize("doc", [APP_CREATE, APP_DELETE, EXTENSIONS_SET, WEBHOOK_DELETE, TRIGGERS_REMOVE])
def test_plain_data_objects(doc: dict[str, Any]) -> None:
    assert env(doc).obj() == doc["data"]


def test_extensions_list() -> None:
    polls, stickers = env(EXTENSIONS_LIST).records()
    assert polls["id"] == "polls" and "enabled" not in polls
    assert stickers["enabled"] is False and stickers["createdAt"] == 1609459200


def test_widget_create_proxy_envelope_with_fractional_response_time() -> None:
    assert env(WIDGET_CREATE).obj() == {"widgetId": "5b0c9f7e-6c4f-4d8a-9a55-6f0a3f7e2c11"}


def test_widget_update_and_list() -> None:
    assert env(WIDGET_UPDATE).obj() == {"success": True}
    env(WIDGET_UPDATE).check_success()
    [item] = env(WIDGET_LIST).items()
    assert item["widgetId"] == "w-1" and item["configuration"]["version"] == "v2"


def test_sms_get_and_store() -> None:
    assert env(SMS_GET).obj()["settings"]["twilioAuthToken"] == "tok"
    assert env(SMS_STORE).obj() == {"success": True}  # data.body without a data level
    env(SMS_STORE).check_success()


def test_generic_extension_settings_and_giphy_delete() -> None:
    assert env(EXT_SETTINGS_STORE).obj() == {"settings": {"dropMessage": True}}
    assert env(GIPHY_DELETE).obj() == {"settings": {"success": True}}


def test_webhook_list() -> None:
    [hook] = env(WEBHOOK_LIST).records()
    assert hook["updatedAt"] == 1704067200 and hook["createdAt"] == 1700000000


@pytest.mark.parametrize(
    "doc",
    [WEBHOOK_CREATE_TOP_LEVEL_LIST, WEBHOOK_CREATE_DATA_LIST, WEBHOOK_GET_NESTED, WEBHOOK_GET_DOUBLE_DATA],
    ids=["[{data}]", "data:[{data}]", "get data:[{data}]", "data:{data}"],
)
def test_webhook_nested_variants(doc: Any) -> None:
    record = env(doc).record()
    assert record["id"] == "hook1" and record["name"] == "Hook 1"


def test_webhook_nested_get_normalises_string_epoch() -> None:
    assert env(WEBHOOK_GET_NESTED).record()["createdAt"] == 1700000000


def test_webhook_integer_id_becomes_str() -> None:
    assert env(WEBHOOK_GET_PLAIN).record()["id"] == "77"


def test_triggers() -> None:
    assert env(TRIGGERS_ADD).obj()["call_ended"]["success"] is False
    assert [t["id"] for t in env(TRIGGERS_LIST).items()] == ["message_sent", "message_read_receipt"]


def test_collaborators_and_app_settings() -> None:
    [person] = env(COLLABORATORS).records()
    assert person["id"] == "5" and person["createdAt"] == 1709287200
    settings = env(APP_SETTINGS).obj()
    assert settings["core.notifications.push.advanced.included"] == ["preferences", "templates"]


def test_empty_list_and_null_payload() -> None:
    assert env({"data": []}).items() == []
    assert env({"data": None}).optional_obj() is None
    empty_proxy = {"data": {"statusCode": 200, "success": True, "responseTime": 1, "body": {"data": {}}}}
    assert env(empty_proxy).optional_obj() is None


# --- scalars --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1700000000, 1700000000),
        (1700000000.9, 1700000000),
        ("1700000000", 1700000000),
        (1700000000123, 1700000000),  # milliseconds
        ("2023-11-14T22:13:20Z", 1700000000),
        ("2023-11-14T22:13:20.500Z", 1700000000),
        ("2023-11-14T23:13:20+01:00", 1700000000),
        ("2023-11-14T22:13:20", 1700000000),  # naive means UTC
        (None, None),
        ("", None),
    ],
)
def test_to_epoch(value: Any, expected: int | None) -> None:
    assert to_epoch(value) == expected


@pytest.mark.parametrize("value", [True, "yesterday", {"a": 1}, float("nan")])
def test_to_epoch_rejects(value: Any) -> None:
    with pytest.raises(EnvelopeError):
        to_epoch(value)


def test_to_id() -> None:
    assert to_id(5) == "5" and to_id("abc") == "abc"
    for bad in (True, None, "", 1.5, {}):
        with pytest.raises(EnvelopeError):
            to_id(bad)


def test_normalise_record_leaves_other_keys_alone() -> None:
    rec = normalise_record({"id": 1, "owner": 2, "createdAt": "2023-11-14T22:13:20Z", "meta": {"createdAt": "x"}})
    assert rec == {"id": "1", "owner": 2, "createdAt": 1700000000, "meta": {"createdAt": "x"}}


# --- malformed ------------------------------------------------------------------------------------------------------


def _malformed(callable_: Any) -> MalformedResponse:
    with pytest.raises(MalformedResponse) as info:
        callable_()
    return info.value


def test_missing_data_key_names_operation_status_and_hint() -> None:
    err = _malformed(lambda: env({"apps": []}, op=Operation("list apps")).items())
    text = str(err)
    assert text.startswith("list apps failed: HTTP 200: unexpected response: no 'data' key (keys: apps)")
    assert "Hint: " in text and "--base-url" in text
    assert err.status == 200 and err.operation == "list apps"


@pytest.mark.parametrize(
    ("doc", "call", "reason"),
    [
        ({"data": {"id": "x"}}, "items", "expected an array, got object"),
        ({"data": [{"id": "a"}, {"id": "b"}]}, "obj", "expected one object, got an array of 2"),
        ({"data": "hello"}, "obj", "expected an object, got string"),
        ({"data": [1, 2]}, "items", "item 0 of the array is number"),
        ({"data": [{"id": True}]}, "records", "expected an id (string or integer), got boolean"),
        ({"data": [{"id": "a", "createdAt": "last tuesday"}]}, "records", "createdAt: expected a timestamp"),
        ("just a string", "obj", "expected a JSON object, got string"),
        ({"data": [], "meta": {"pagination": {"current_page": "one", "total_pages": 1}}}, "pagination",
         "meta.pagination: expected an integer"),
    ],
)
def test_malformed_variants(doc: Any, call: str, reason: str) -> None:
    err = _malformed(lambda: getattr(env(doc), call)())
    assert reason in str(err)
    assert "HTTP 200" in str(err)


def test_non_json_body_is_malformed() -> None:
    err = _malformed(lambda: Envelope.from_bytes(b"<html><body>Welcome to nginx</body></html>",
                                                 operation=OP, status=200, content_type="text/html"))
    assert "the body is not JSON (text/html)" in str(err)
    assert "list apps failed: HTTP 200" in str(err)


def test_empty_body_is_fine_for_updates_but_not_for_reads() -> None:
    e = Envelope.from_bytes(b"", operation=OP, status=204)
    assert e.doc is None and e.optional_obj() is None
    e.check_success()
    with pytest.raises(MalformedResponse, match="expected an object, got null"):
        e.obj()
    with pytest.raises(MalformedResponse, match="expected an array, got an empty body"):
        e.items()


def test_proxied_failure_inside_200_is_an_error_with_inner_status() -> None:
    doc = {"data": {"statusCode": 404, "success": False, "responseTime": 2.5,
                    "body": {"error": {"code": "ERR_SETTINGS_NOT_FOUND", "message": "No settings."}}}}
    with pytest.raises(NotFoundError) as info:
        env(doc, op=Operation("get SMS settings of app abc", subject="sms", app_id="abc")).obj()
    assert info.value.status == 404 and info.value.code == "ERR_SETTINGS_NOT_FOUND"


def test_success_false_is_an_error() -> None:
    with pytest.raises(ApiError, match="could not delete"):
        env({"data": {"success": False, "message": "could not delete"}}).check_success()


def test_error_body_under_200_is_an_error() -> None:
    with pytest.raises(ApiError, match="ERR_X: boom"):
        env({"error": {"code": "ERR_X", "message": "boom"}}).obj()


# --- error bodies ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "ctype", "code", "message", "details"),
    [
        (json.dumps({"error": {"message": "Invalid.", "devMessage": "dev", "source": "chat-api",
                               "code": "ERR_BAD_REQUEST", "details": {"webhookURL": ["must be https"]}}}),
         "application/json", "ERR_BAD_REQUEST", "Invalid.", {"webhookURL": ["must be https"]}),
        (json.dumps({"error": {"devMessage": "only dev", "code": "ERR_Y"}}), "application/json", "ERR_Y", "only dev",
         None),
        (json.dumps({"message": "Unauthorized", "code": 401}), "application/json", "401", "Unauthorized", None),
        (json.dumps({"error": "Forbidden"}), "application/json", None, "Forbidden", None),
        (json.dumps({"data": {"success": False, "message": "nope"}}), "application/json", None, "nope", None),
        (json.dumps({"detail": "Not Found"}), "application/json", None, "Not Found", None),
        (json.dumps("plain json string"), "application/json", None, "plain json string", None),
        ("upstream connect error\nor disconnect", "text/plain", None, "upstream connect error or disconnect", None),
        ("<html><h1>502 Bad Gateway</h1></html>", "text/html", None, "the service answered with an HTML page, not JSON",
         None),
        ("", None, None, None, None),
    ],
)
def test_parse_error_body(body: str, ctype: str | None, code: str | None, message: str | None, details: Any) -> None:
    info = parse_error_body(body.encode(), ctype)
    assert (info.code, info.message, info.details) == (code, message, details)
