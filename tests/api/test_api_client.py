"""ManagementClient behaviour against scripted answers (httpx.MockTransport): headers, paging, retries,
create-after-confirm, error messages users see, and that the key/secret never show up anywhere."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from api_helpers import BASE, KEY, SECRET, Script, Sleeps, err, make_client, ok, pagination, proxied

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import (
    ApiError,
    AuthError,
    ConflictError,
    MalformedResponse,
    NotFoundError,
    RateLimited,
    ServerError,
    TransportError,
    ValidationFailed,
)

pytestmark = pytest.mark.anyio

APP = {"id": "abc", "name": "Support", "region": "us", "version": "3", "createdAt": 1700000000}
HOOK = {"id": "hook1", "name": "Hook 1", "webhookURL": "https://h.example.com/1", "enabled": True}


def no_secrets(*texts: str) -> None:
    for text in texts:
        assert KEY not in text and SECRET not in text, text


# --- headers and paths ----------------------------------------------------------------------------------------------


async def test_credentials_on_every_call_and_webhook_version_only_on_webhook_calls() -> None:
    script = Script({
        "GET /apps": [ok([APP])],
        "GET /apps/abc/webhooks": [ok([HOOK])],
        "DELETE /apps/abc/webhooks/hook1/triggers": [ok({"success": True, "message": "Removed trigger successfully."})],
    })
    async with make_client(script) as client:
        await client.list_apps()
        await client.list_webhooks("abc")
        await client.remove_triggers("abc", "hook1", ["message_sent"])
    for request in script.requests:
        assert request.headers["key"] == KEY and request.headers["secret"] == SECRET
    assert "x-webhook-version" not in script.requests[0].headers
    assert script.requests[1].headers["x-webhook-version"] == "2"
    delete = script.requests[2]
    assert delete.headers["x-webhook-version"] == "2"
    assert Script.body(delete) == {"triggerIds": ["message_sent"]}  # DELETE with a JSON body


async def test_ids_are_escaped_in_paths() -> None:
    script = Script({"GET /apps/a%2Fb/webhooks/x%20y": [ok(HOOK)]})
    async with make_client(script) as client:
        assert (await client.get_webhook("a/b", "x y"))["id"] == "hook1"
    assert script.requests[0].url.raw_path == b"/apps/a%2Fb/webhooks/x%20y"


async def test_base_url_with_path_prefix() -> None:
    script = Script({"GET /mgmt/v1/apps": [ok([APP])]})
    client = ManagementClient(BASE + "/mgmt/v1/", KEY, SECRET, transport=httpx.MockTransport(script))
    async with client:
        assert [a.id for a in await client.list_apps()] == ["abc"]


# --- paging ---------------------------------------------------------------------------------------------------------


async def test_list_apps_reads_every_page_until_total_pages() -> None:
    def page(request: httpx.Request) -> httpx.Response:
        n = int(request.url.params["page"])
        assert request.url.params["perPage"] == "100"
        return ok([{**APP, "id": f"app{n}", "createdAt": "2023-11-14T22:13:20Z"}], pagination(n, 3, 3, 1))

    script = Script({"GET /apps": [page]})
    async with make_client(script) as client:
        apps = await client.list_apps()
    assert [a.id for a in apps] == ["app1", "app2", "app3"]
    assert apps[0].created_at == 1700000000 and apps[0].region == "us" and apps[0].version == "3"
    assert len(script.requests) == 3


async def test_list_apps_stops_on_empty_page_and_passes_search_key() -> None:
    script = Script({"GET /apps": [ok([APP], pagination(1, 9, 1, 1)), ok([], pagination(2, 9, 1, 1))]})
    async with make_client(script) as client:
        apps = await client.list_apps(search="Supp")
    assert [a.id for a in apps] == ["abc"]
    assert [r.url.params["searchKey"] for r in script.requests] == ["Supp", "Supp"]


async def test_a_list_shorter_than_announced_is_an_error_not_the_whole_account() -> None:
    # issue 8: was returned as if complete; a following --allow-delete would have seen the rest as absent
    script = Script({"GET /apps": [ok([APP], pagination(1, 9, 9, 1)), ok([], pagination(2, 9, 9, 1))]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse) as info:
            await client.list_apps()
    assert "read 1 of the 9" in str(info.value) and "try again" in str(info.value)


async def test_list_apps_stops_when_server_ignores_page_parameter() -> None:
    # the server repeats page 1 (current_page 1) while announcing 5 records: incomplete, so an error (issue 8)
    script = Script({"GET /apps": [ok([APP], pagination(1, 5, 5, 1))]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse):
            await client.list_apps()
    assert len(script.requests) == 2


async def test_list_without_meta_keeps_paging_while_pages_are_full() -> None:
    """The newer OpenAPI's list-apps example has no `meta`: 250 apps come back 100, 100, 50."""
    apps = [{**APP, "id": f"app{i:03d}"} for i in range(250)]

    def page(request: httpx.Request) -> httpx.Response:
        n, size = int(request.url.params["page"]), int(request.url.params["perPage"])
        return httpx.Response(200, json={"data": apps[(n - 1) * size:n * size]})

    script = Script({"GET /apps": [page]})
    async with make_client(script) as client:
        listed = await client.list_apps()
    assert [a.id for a in listed] == [a["id"] for a in apps]
    assert [r.url.params["page"] for r in script.requests] == ["1", "2", "3"]


async def test_list_without_meta_refuses_a_server_that_ignores_page() -> None:
    full = [{**APP, "id": f"app{i:03d}"} for i in range(100)]
    script = Script({"GET /apps": [lambda request: httpx.Response(200, json={"data": full})]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse) as info:
            await client.list_apps()
    assert "repeats records" in str(info.value)


async def test_only_declared_query_parameters_are_sent() -> None:
    """list-extensions and list-webhooks declare perPage only, list-triggers nothing (management-apis.json)."""
    script = Script({
        "GET /apps/a1/extensions": [ok([{"id": "polls", "name": "Polls"}])],
        "GET /apps/a1/webhooks": [ok([HOOK])],
        "GET /apps/a1/webhooks/hook1/triggers": [ok([{"id": "message_sent"}])],
    })
    async with make_client(script) as client:
        await client.list_extensions("a1")
        await client.list_webhooks("a1")
        await client.list_triggers("a1", "hook1")
    params = [dict(r.url.params) for r in script.requests]
    assert params == [{"perPage": "1000"}, {"perPage": "1000"}, {}]


async def test_find_apps_by_name_is_exact_and_region_from_app_region() -> None:
    other = {"id": 42, "name": "Support 2", "appRegion": {"id": "eu", "name": "Europe"}}
    script = Script({"GET /apps": [ok([{**APP, "region": None, "appRegion": {"id": "eu"}}, other])]})
    async with make_client(script) as client:
        [app] = await client.find_apps_by_name("Support")
    assert app.id == "abc" and app.region == "eu"


# --- retries --------------------------------------------------------------------------------------------------------


async def test_429_retry_after_seconds_is_honoured() -> None:
    script = Script({"GET /apps": [err(429, "ERR_TOO_MANY_REQUESTS", "slow down", headers={"Retry-After": "7"}),
                                   ok([APP])]})
    sleeps = Sleeps()
    async with make_client(script, sleeps) as client:
        assert len(await client.list_apps()) == 1
    assert sleeps.delays == [7.0]


async def test_429_retry_after_http_date_is_honoured_and_capped() -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    late = format_datetime(datetime.now(UTC) + timedelta(hours=2), usegmt=True)
    script = Script({"GET /apps": [
        err(429, "ERR_TOO_MANY_REQUESTS", "slow", headers={"Retry-After": soon}),
        err(429, "ERR_TOO_MANY_REQUESTS", "slow", headers={"Retry-After": late}),
        ok([APP]),
    ]})
    sleeps = Sleeps()
    async with make_client(script, sleeps, max_retry_after=60) as client:
        await client.list_apps()
    assert 25 <= sleeps.delays[0] <= 30
    assert sleeps.delays[1] == 60


async def test_429_persisting_becomes_rate_limited_with_hint() -> None:
    script = Script({"GET /apps": [err(429, "ERR_TOO_MANY_REQUESTS", "Rate limit exceeded.",
                                       headers={"Retry-After": "1"})]})
    sleeps = Sleeps()
    async with make_client(script, sleeps, max_retries=2) as client:
        with pytest.raises(RateLimited) as info:
            await client.list_apps()
    assert len(script.requests) == 3 and sleeps.delays == [1.0, 1.0]
    assert str(info.value) == (
        "list apps failed: HTTP 429 ERR_TOO_MANY_REQUESTS: Rate limit exceeded. (after 3 attempts). "
        "Hint: rate limited by the service; lower --max-rps or try again later"
    )
    assert info.value.retry_after == 1.0


async def test_5xx_then_success_uses_full_jitter_backoff() -> None:
    script = Script({"GET /apps/abc/settings": [err(503, "ERR_SERVICE_UNAVAILABLE", "down"),
                                                httpx.Response(502, text="Bad Gateway"), ok({"a": True})]})
    sleeps = Sleeps()
    async with make_client(script, sleeps, retry_base_delay=1.0, rng=random.Random(3)) as client:
        assert await client.get_app_settings("abc") == {"a": True}
    assert len(sleeps.delays) == 2
    assert 0 <= sleeps.delays[0] <= 1.0 and 0 <= sleeps.delays[1] <= 2.0


async def test_5xx_persisting_becomes_server_error() -> None:
    script = Script({"GET /apps/abc/collaborators": [httpx.Response(500, text="oops")]})
    async with make_client(script, max_retries=1) as client:
        with pytest.raises(ServerError) as info:
            await client.list_collaborators("abc")
    assert str(info.value) == (
        "list collaborators of app abc failed: HTTP 500: oops (after 2 attempts). "
        "Hint: the service kept failing (HTTP 500); try again later"
    )


async def test_put_retried_after_read_timeout() -> None:
    script = Script({"PUT /apps/abc/extensions/widget/v2/settings": [
        httpx.ReadTimeout("read timed out"), ok(proxied({"data": {"success": True}}))]})
    async with make_client(script) as client:
        await client.update_widget("abc", "w1", {"name": "W", "version": "v2"})
    assert len(script.requests) == 2
    assert Script.body(script.requests[0]) == {"settings": {"name": "W", "version": "v2", "widgetId": "w1"}}


async def test_retried_delete_that_finds_nothing_succeeded_the_first_time() -> None:
    script = Script({"DELETE /apps/abc/webhooks/hook1": [
        httpx.ReadTimeout("timed out"), err(404, "ERR_WEBHOOK_NOT_FOUND", "gone")]})
    async with make_client(script) as client:
        await client.delete_webhook("abc", "hook1")
    assert len(script.requests) == 2


async def test_idempotent_posts_retry_freely() -> None:
    script = Script({
        "POST /apps/abc/extensions": [err(503, "E", "down"),
                                      ok({"enabled": {"polls": {"success": True}}, "disabled": {}})],
        "POST /apps/abc/webhooks/hook1/triggers": [
            httpx.ReadTimeout("t"),
            ok({"message_sent": {"success": True}, "call_ended": {"success": False, "message": "x"}})],
    })
    async with make_client(script) as client:
        assert await client.set_extensions("abc", enabled=["polls"], disabled=["stickers"]) == {
            "polls": True, "stickers": False}
        assert await client.add_triggers("abc", "hook1", ["message_sent", "call_ended"]) == {
            "message_sent": True, "call_ended": False}
    assert len(script.calls("POST /apps/abc/extensions")) == 2
    assert len(script.calls("POST /apps/abc/webhooks/hook1/triggers")) == 2


async def test_4xx_is_not_retried() -> None:
    script = Script({"GET /apps": [err(401, "AUTH_ERR_INVALID_CREDENTIALS", "Invalid key or secret.")]})
    sleeps = Sleeps()
    async with make_client(script, sleeps) as client:
        with pytest.raises(AuthError):
            await client.list_apps()
    assert len(script.requests) == 1 and sleeps.delays == []


# --- creates: never blindly retried ---------------------------------------------------------------------------------


async def test_create_webhook_5xx_then_confirm_absent_then_retry() -> None:
    script = Script({
        "POST /apps/abc/webhooks": [err(503, "ERR_SERVICE_UNAVAILABLE", "down"), ok(HOOK)],
        "GET /apps/abc/webhooks/hook1": [err(404, "ERR_WEBHOOK_NOT_FOUND", "no such webhook")],
    })
    async with make_client(script) as client:
        assert (await client.create_webhook("abc", HOOK))["id"] == "hook1"
    assert [f"{r.method} {r.url.path}" for r in script.requests] == [
        "POST /apps/abc/webhooks", "GET /apps/abc/webhooks/hook1", "POST /apps/abc/webhooks"]
    assert all(r.headers["x-webhook-version"] == "2" for r in script.requests)


async def test_create_webhook_timeout_but_it_landed_is_not_posted_again() -> None:
    script = Script({
        "POST /apps/abc/webhooks": [httpx.ReadTimeout("timed out")],
        "GET /apps/abc/webhooks/hook1": [ok([{"data": {**HOOK, "createdAt": "2024-01-01T00:00:00Z"}}])],
    })
    async with make_client(script) as client:
        created = await client.create_webhook("abc", HOOK)
    assert created["id"] == "hook1" and created["createdAt"] == 1704067200
    assert len(script.calls("POST /apps/abc/webhooks")) == 1


async def test_create_webhook_confirm_finds_a_different_webhook_is_a_conflict() -> None:
    script = Script({
        "POST /apps/abc/webhooks": [httpx.RemoteProtocolError("connection closed")],
        "GET /apps/abc/webhooks/hook1": [ok({**HOOK, "webhookURL": "https://elsewhere.example.com"})],
    })
    async with make_client(script) as client:
        with pytest.raises(ConflictError, match="exists with a different webhookURL"):
            await client.create_webhook("abc", HOOK)
    assert len(script.calls("POST /apps/abc/webhooks")) == 1


async def test_create_whose_outcome_cannot_be_checked_is_not_retried() -> None:
    script = Script({
        "POST /apps/abc/webhooks": [err(500, "ERR_INTERNAL", "boom")],
        "GET /apps/abc/webhooks/hook1": [err(500, "ERR_INTERNAL", "still boom")],
    })
    async with make_client(script, max_retries=2) as client:
        with pytest.raises(ServerError) as info:
            await client.create_webhook("abc", HOOK)
    assert len(script.calls("POST /apps/abc/webhooks")) == 1
    assert "may or may not have been applied" in str(info.value) and "tenantdeck pull" in str(info.value)


async def test_create_post_with_connect_error_is_retried_directly() -> None:
    script = Script({
        "GET /apps": [ok([])],  # snapshot before the create
        "POST /apps": [httpx.ConnectError("connection refused"), ok(APP)],
    })
    async with make_client(script) as client:
        app = await client.create_app("Support", "us")
    assert app.id == "abc"
    assert [f"{r.method} {r.url.path}" for r in script.requests] == ["GET /apps", "POST /apps", "POST /apps"]


async def test_create_post_429_is_retried_directly() -> None:
    script = Script({
        "POST /apps/abc/extensions/sms-notification/v1/settings": [
            err(429, "ERR_TOO_MANY_REQUESTS", "slow", headers={"Retry-After": "2"}), ok(proxied({"success": True}))],
    })
    sleeps = Sleeps()
    async with make_client(script, sleeps) as client:
        await client.store_sms("abc", {"fromMobileNo": "+1"})
    assert len(script.requests) == 2 and sleeps.delays == [2.0]


async def test_create_app_timeout_returns_the_app_that_appeared() -> None:
    existing = {**APP, "id": "old"}
    script = Script({
        "GET /apps": [ok([existing]), ok([existing, {**APP, "id": "new"}, {**APP, "id": "x", "name": "Supporters"}])],
        "POST /apps": [httpx.ReadTimeout("timed out")],
    })
    async with make_client(script) as client:
        app = await client.create_app("Support", "us")
    assert app.id == "new"
    assert len(script.calls("POST /apps")) == 1
    assert Script.body(script.calls("POST /apps")[0]) == {"name": "Support", "region": "us", "version": "3"}


async def test_create_app_two_new_apps_with_that_name_is_a_conflict() -> None:
    script = Script({
        "GET /apps": [ok([]), ok([{**APP, "id": "n1"}, {**APP, "id": "n2"}])],
        "POST /apps": [err(502, "E", "bad gateway")],
    })
    async with make_client(script) as client:
        with pytest.raises(ConflictError, match="2 new apps named 'Support' appeared"):
            await client.create_app("Support", "us")


async def test_create_widget_confirms_by_listing() -> None:
    before = [{"configuration": {"name": "Old", "version": "v2", "appId": "abc"}, "widgetId": "w-old"}]
    after = [*before, {"configuration": {"name": "Support", "version": "v2", "appId": "abc"}, "widgetId": "w-new"}]
    script = Script({
        "GET /apps/abc/extensions/widget/v2/settings": [ok(proxied({"data": before})), ok(proxied({"data": after}))],
        "POST /apps/abc/extensions/widget/v2/settings": [httpx.ReadTimeout("timed out")],
    })
    async with make_client(script) as client:
        assert await client.create_widget("abc", {"name": "Support", "version": "v2"}) == "w-new"
    assert len(script.calls("POST /apps/abc/extensions/widget/v2/settings")) == 1


async def test_create_widget_happy_path_and_list_strips_server_keys() -> None:
    listed = [{"configuration": {"name": "S", "version": "v2", "appId": "abc", "main": {}}, "widgetId": "w1"}]
    script = Script({
        "GET /apps/abc/extensions/widget/v2/settings": [ok(proxied({"data": listed}))],
        "POST /apps/abc/extensions/widget/v2/settings": [ok(proxied({"data": {"widgetId": "w2"}}))],
    })
    async with make_client(script) as client:
        assert await client.create_widget("abc", {"name": "S2"}) == "w2"
        [widget] = await client.list_widgets("abc")
    assert widget.widget_id == "w1" and widget.settings == {"name": "S", "version": "v2", "main": {}}
    assert Script.body(script.calls("POST /apps/abc/extensions/widget/v2/settings")[0]) == {"settings": {"name": "S2"}}


async def test_store_sms_confirms_with_get() -> None:
    settings = {"fromMobileNo": "+1", "messageDelay": 60}
    script = Script({
        "POST /apps/abc/extensions/sms-notification/v1/settings": [err(503, "E", "down")],
        "GET /apps/abc/extensions/sms-notification/v1/settings": [
            ok(proxied({"data": {"settings": {**settings, "appId": "abc"}}}))],
    })
    async with make_client(script) as client:
        await client.store_sms("abc", settings)
    assert len(script.calls("POST /apps/abc/extensions/sms-notification/v1/settings")) == 1


# --- not found ------------------------------------------------------------------------------------------------------


async def test_get_webhook_missing_is_none_but_missing_app_raises() -> None:
    script = Script({
        "GET /apps/abc/webhooks/nope": [err(404, "ERR_WEBHOOK_NOT_FOUND", "no")],
        "GET /apps/gone/webhooks/x": [err(404, "ERR_APP_NOT_FOUND", "The app 'gone' does not exist.")],
    })
    async with make_client(script) as client:
        assert await client.get_webhook("abc", "nope") is None
        with pytest.raises(NotFoundError) as info:
            await client.get_webhook("gone", "x")
    assert str(info.value) == (
        "get webhook 'x' of app gone failed: HTTP 404 ERR_APP_NOT_FOUND: The app 'gone' does not exist. "
        "Hint: the app gone may have been deleted; run `tenantdeck pull` to refresh the draft"
    )


async def test_get_sms_not_configured_is_none() -> None:
    script = Script({"GET /apps/abc/extensions/sms-notification/v1/settings": [
        err(404, "ERR_SETTINGS_NOT_FOUND", "none stored")]})
    async with make_client(script) as client:
        assert await client.get_sms("abc") is None


async def test_get_sms_strips_app_id() -> None:
    script = Script({"GET /apps/abc/extensions/sms-notification/v1/settings": [
        ok(proxied({"data": {"settings": {"fromMobileNo": "+1", "appId": "abc"}}}))]})
    async with make_client(script) as client:
        assert await client.get_sms("abc") == {"fromMobileNo": "+1"}


# --- what users read ------------------------------------------------------------------------------------------------


async def test_401_message() -> None:
    script = Script({"GET /apps": [err(401, "AUTH_ERR_INVALID_CREDENTIALS", "Invalid key or secret.")]})
    async with make_client(script) as client:
        with pytest.raises(AuthError) as info:
            await client.list_apps()
    assert str(info.value) == (
        "list apps failed: HTTP 401 AUTH_ERR_INVALID_CREDENTIALS: Invalid key or secret. "
        "Hint: check TENANTDECK_KEY and TENANTDECK_SECRET, or the profile's credentials file"
    )


async def test_401_uses_the_profile_specific_hint() -> None:
    script = Script({"GET /apps": [httpx.Response(401, text="Unauthorized")]})
    async with make_client(script, auth_hint="check PROD_KEY and PROD_SECRET (profile 'prod')") as client:
        with pytest.raises(AuthError, match=r"HTTP 401: Unauthorized\. Hint: check PROD_KEY and PROD_SECRET"):
            await client.list_apps()


async def test_404_on_app_subresource_suggests_pull() -> None:
    script = Script({"GET /apps/abc/extensions": [err(404, "ERR_APP_NOT_FOUND", "No such app.")]})
    async with make_client(script) as client:
        with pytest.raises(NotFoundError) as info:
            await client.list_extensions("abc")
    assert info.value.hint == "the app abc may have been deleted; run `tenantdeck pull` to refresh the draft"


async def test_422_names_the_rejected_fields() -> None:
    script = Script({"POST /apps/abc/webhooks": [err(
        422, "ERR_BAD_REQUEST", "The request body is not valid.",
        {"webhookURL": ["must be an https URL"], "name": ["at most 50 characters"]})]})
    async with make_client(script) as client:
        with pytest.raises(ValidationFailed) as info:
            await client.create_webhook("abc", HOOK)
    assert str(info.value) == (
        "create webhook 'hook1' in app abc failed: HTTP 422 ERR_BAD_REQUEST: The request body is not valid. "
        "Hint: the server rejected a field: webhookURL: must be an https URL; name: at most 50 characters"
    )
    assert len(script.requests) == 1


async def test_timeout_message() -> None:
    script = Script({"GET /apps": [httpx.ReadTimeout("The read operation timed out")]})
    async with make_client(script, timeout=2, max_retries=1) as client:
        with pytest.raises(TransportError) as info:
            await client.list_apps()
    assert info.value.kind == "timeout"
    assert str(info.value) == (
        "list apps failed: the service did not answer within 2 s (ReadTimeout) (after 2 attempts). "
        "Hint: check --base-url and the network, or try again later"
    )


async def test_connect_error_message_names_host() -> None:
    script = Script({"GET /apps": [httpx.ConnectError("[Errno 111] Connection refused")]})
    async with make_client(script, max_retries=0) as client:
        with pytest.raises(TransportError) as info:
            await client.list_apps()
    assert info.value.kind == "connect"
    assert "could not connect to mgmt.example.test: [Errno 111] Connection refused" in str(info.value)


async def test_html_200_is_malformed() -> None:
    script = Script({"GET /apps": [httpx.Response(200, text="<html>login</html>",
                                                  headers={"content-type": "text/html"})]})
    async with make_client(script) as client:
        with pytest.raises(MalformedResponse) as info:
            await client.list_apps()
    assert str(info.value).startswith("list apps failed: HTTP 200: the body is not JSON (text/html)")


async def test_redirect_is_not_followed() -> None:
    script = Script({"GET /apps": [httpx.Response(301, headers={"location": "https://evil.example.com/apps"})]})
    async with make_client(script) as client:
        with pytest.raises(ApiError, match=r"redirected to https://evil\.example\.com/apps"):
            await client.list_apps()
    assert len(script.requests) == 1


async def test_secrets_never_appear_in_errors_or_reprs() -> None:
    echo = f"bad key {KEY} with secret {SECRET}"
    script = Script({
        "GET /apps": [err(401, "AUTH_ERR", echo, {"secret": [SECRET], KEY: ["x"]})],
        "GET /apps/abc/settings": [httpx.ConnectError(f"proxy said {SECRET}")],
    })
    client = make_client(script, max_retries=0)
    async with client:
        with pytest.raises(AuthError) as auth:
            await client.list_apps()
        with pytest.raises(TransportError) as transport:
            await client.get_app_settings("abc")
    for exc in (auth.value, transport.value):
        no_secrets(str(exc), repr(exc), repr(exc.args), repr(exc.details), repr(vars(exc)))
        assert exc.__cause__ is None and exc.__context__ is None  # no chained httpx request with headers
    assert "***" in str(auth.value)
    no_secrets(repr(client), str(client))


# --- limits ---------------------------------------------------------------------------------------------------------


async def test_concurrency_is_capped_across_calls() -> None:
    in_flight = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return ok({"k": 1})

    client = ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler), concurrency=3,
                              max_concurrency=3)  # a fixed ceiling: the limit may not grow past it
    async with client:
        await asyncio.gather(*(client.get_app_settings(f"a{i}") for i in range(12)))
    assert peak == 3


async def test_max_rps_spaces_requests() -> None:
    times: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        times.append(asyncio.get_running_loop().time())
        return ok({"k": 1})

    client = ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler), max_rps=50)
    async with client:
        await asyncio.gather(*(client.get_app_settings("a") for _ in range(6)))
    assert times[-1] - times[0] >= 5 / 50 - 0.01


# --- one client, many calls ------------------------------------------------------------------------------------------


async def test_client_runs_calls_on_one_loop() -> None:
    script = Script({"GET /apps": [ok([APP])], "GET /apps/abc/webhooks/hook1/triggers": [
        ok([{"id": "message_sent", "description": "d"}], pagination(1, 1, 1, 100))]})
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(script)) as client:
        assert (await client.list_apps())[0].name == "Support"
        assert await client.list_triggers("abc", "hook1") == ["message_sent"]
        assert KEY not in repr(client)


async def test_ping_reads_date_header() -> None:
    date = format_datetime(datetime(2024, 1, 1, tzinfo=UTC), usegmt=True)
    script = Script({"GET /apps": [ok([APP], pagination(1, 7, 7, 1), headers={"Date": date})]})
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(script)) as client:
        ping = await client.ping()
    assert ping.status == 200 and ping.apps_total == 7
    assert ping.server_date == datetime(2024, 1, 1, tzinfo=UTC)
    assert script.requests[0].url.params["perPage"] == "1"


def test_constructor_refuses_empty_credentials_without_echoing() -> None:
    with pytest.raises(ValueError, match="non-empty key and secret"):
        ManagementClient(BASE, "", SECRET)




async def test_update_webhook_with_empty_body_answer() -> None:
    script = Script({"PUT /apps/abc/webhooks/hook1": [httpx.Response(204)]})
    async with make_client(script) as client:
        assert await client.update_webhook("abc", "hook1", {**HOOK, "name": "New"}) == {}
    body = Script.body(script.requests[0])
    assert "id" not in body and body["name"] == "New"  # PUT takes every field except id
