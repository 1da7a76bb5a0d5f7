"""ManagementClient.map_settings / unmap_settings / get_app_settings: against the sandbox in process (real HTTP
over ASGI) for what the service does, and against scripted answers for what only a misbehaving network or service
can show (a key marked failed or not reported, a malformed answer, retries after a server error)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from api_helpers import Script, Sleeps, err, make_client, ok

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import ApiError, MalformedResponse, NotFoundError, ValidationFailed
from tenantdeck.sandbox import records

pytestmark = pytest.mark.anyio

PATH = "/apps/abc/settings"
REPLIES = "core.conversations.updateOnReplies"
GROUPS = "core.conversations.updateOnGroupActions"
INCLUDED = "core.notifications.push.advanced.included"
DONE = {"success": True, "message": "Added setting(s) successfully."}


@pytest.fixture
def client(sandbox_client: ManagementClient) -> ManagementClient:
    return sandbox_client


# --- against the sandbox ------------------------------------------------------------------------------------------


async def test_map_one_then_several_and_read_back(client: ManagementClient) -> None:
    app = await client.create_app("Settings app", "us")
    fresh = await client.get_app_settings(app.id)
    assert fresh == records.default_app_settings()

    assert await client.map_settings(app.id, {REPLIES: True}) == {REPLIES: True}
    assert await client.get_app_settings(app.id) == {**fresh, REPLIES: True}

    several = {REPLIES: False, GROUPS: False, "core.notifications.push.enabled": True}
    assert await client.map_settings(app.id, several) == dict.fromkeys(several, True)
    assert await client.get_app_settings(app.id) == {**fresh, **several}


async def test_an_unknown_key_is_kept_and_reported(client: ManagementClient) -> None:
    app = await client.create_app("Settings app", "us")
    assert await client.map_settings(app.id, {"custom.beta": True}) == {"custom.beta": True}
    assert (await client.get_app_settings(app.id))["custom.beta"] is True


async def test_a_list_setting_is_refused_whole_and_changes_nothing(client: ManagementClient) -> None:
    app = await client.create_app("Settings app", "us")
    before = await client.get_app_settings(app.id)
    with pytest.raises(ValidationFailed) as info:
        await client.map_settings(app.id, {REPLIES: True, INCLUDED: False})
    assert info.value.code == "ERR_BAD_REQUEST" and INCLUDED in str(info.value) and "a list" in str(info.value)
    assert await client.get_app_settings(app.id) == before


async def test_unmap_resets_to_a_fresh_apps(client: ManagementClient) -> None:
    app = await client.create_app("Settings app", "us")
    await client.map_settings(app.id, {REPLIES: True, GROUPS: False, "custom.beta": True})
    assert await client.unmap_settings(app.id) is None
    assert await client.get_app_settings(app.id) == records.default_app_settings()


async def test_an_unknown_app_is_not_found(client: ManagementClient) -> None:
    for call in (client.get_app_settings("nope"), client.map_settings("nope", {REPLIES: True}),
                 client.unmap_settings("nope")):  # fmt: skip
        with pytest.raises(NotFoundError):
            await call


# --- scripted answers -------------------------------------------------------------------------------------------


async def test_nothing_to_set_sends_nothing() -> None:
    script = Script({})
    async with make_client(script) as client:
        assert await client.map_settings("abc", {}) == {}
    assert script.requests == []


@pytest.mark.parametrize("value", [1, 0, "true", None, ["templates"], {"on": True}])
async def test_a_non_boolean_is_a_type_error_before_any_request(value: Any) -> None:
    script = Script({})
    async with make_client(script) as client:
        with pytest.raises(TypeError, match="booleans only"):
            await client.map_settings("abc", {REPLIES: True, INCLUDED: value})
    assert script.requests == []


async def test_a_type_error_escapes_the_keys_it_names() -> None:
    async with make_client(Script({})) as client:
        with pytest.raises(TypeError) as info:
            await client.map_settings("abc", {"a\x1b[2Jb": "yes"})  # type: ignore[dict-item]
    assert "\x1b" not in str(info.value) and "a\\x1b[2Jb" in str(info.value)


async def test_the_body_is_the_settings_object_only() -> None:
    script = Script({f"POST {PATH}": [ok({REPLIES: DONE, GROUPS: DONE})]})
    async with make_client(script) as client:
        await client.map_settings("abc", {REPLIES: True, GROUPS: False})
    [request] = script.requests
    assert Script.body(request) == {"settings": {REPLIES: True, GROUPS: False}}


async def test_a_failed_or_unreported_key_is_false_not_done() -> None:
    answer = ok({
        REPLIES: DONE,
        GROUPS: {"success": False, "message": "not allowed on this plan"},
        "core.threads.updateOnMessageActions": {"message": "Added setting(s) successfully."},  # no success
        "custom.not.asked": DONE,  # reported but not asked for: not returned
    })  # fmt: skip
    script = Script({f"POST {PATH}": [answer]})
    async with make_client(script) as client:
        result = await client.map_settings("abc", {REPLIES: True, GROUPS: True,
                                                   "core.threads.updateOnMessageActions": True,
                                                   "core.notifications.push.enabled": True})  # fmt: skip
    assert result == {REPLIES: True, GROUPS: False, "core.threads.updateOnMessageActions": False,
                      "core.notifications.push.enabled": False}  # fmt: skip


@pytest.mark.parametrize("data", [{}, None])
async def test_an_empty_answer_confirms_nothing(data: Any) -> None:
    script = Script({f"POST {PATH}": [ok(data)]})
    async with make_client(script) as client:
        assert await client.map_settings("abc", {REPLIES: True}) == {REPLIES: False}


async def test_an_answer_that_is_not_an_object_is_malformed() -> None:
    script = Script({f"POST {PATH}": [ok(["yes"])]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse):
            await client.map_settings("abc", {REPLIES: True})


async def test_map_is_resent_after_a_server_error() -> None:
    """Setting booleans is idempotent: after a 5xx the same POST goes again, with no read-back first."""
    script = Script({f"POST {PATH}": [err(503, "ERR_SERVICE_UNAVAILABLE", "busy"), ok({REPLIES: DONE})]})
    sleeps = Sleeps()
    async with make_client(script, sleeps) as client:
        assert await client.map_settings("abc", {REPLIES: True}) == {REPLIES: True}
    posts = script.calls(f"POST {PATH}")
    assert len(posts) == 2 and len(sleeps.delays) == 1
    assert Script.body(posts[0]) == Script.body(posts[1]) and script.calls(f"GET {PATH}") == []


async def test_map_is_resent_after_a_lost_connection() -> None:
    script = Script({f"POST {PATH}": [httpx.ReadError("connection reset"), ok({REPLIES: DONE})]})
    async with make_client(script) as client:
        assert await client.map_settings("abc", {REPLIES: True}) == {REPLIES: True}
    assert len(script.calls(f"POST {PATH}")) == 2


async def test_unmap_reporting_failure_raises() -> None:
    script = Script({f"DELETE {PATH}": [ok({"success": False, "message": "cannot unmap"})]})
    async with make_client(script) as client:
        with pytest.raises(ApiError, match="cannot unmap"):
            await client.unmap_settings("abc")
