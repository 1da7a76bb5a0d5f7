"""App settings in the sandbox over HTTP: map booleans (all or nothing), refusals leave everything as it was, a
list value cannot be mapped, unmap goes back to a fresh app's settings; and the client's map_settings on top."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tenantdeck.api.client import ManagementClient, Operation
from tenantdeck.api.errors import ValidationFailed
from tenantdeck.sandbox import records, validation
from tests.sync.helpers_push import BASE_URL, KEY, SECRET, make_sandbox

REPLIES = "core.conversations.updateOnReplies"
INCLUDED = "core.notifications.push.advanced.included"


@pytest.fixture
def sandbox(tmp_path: Path) -> Any:
    return make_sandbox(tmp_path / "db.sqlite3")


def run(sandbox: Any, fn: Any) -> Any:
    async def go() -> Any:
        transport = httpx.ASGITransport(app=sandbox)
        async with ManagementClient(BASE_URL, KEY, SECRET, transport=transport, max_retries=0) as client:
            app_id = (await client.list_apps())[0].id
            return await fn(client, app_id)

    return asyncio.run(go())


def raw(sandbox: Any, method: str, body: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=sandbox)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL,
                                     headers={"key": KEY, "secret": SECRET}) as http:
            app_id = (await http.get("/apps")).json()["data"][0]["id"]
            return await http.request(method, f"/apps/{app_id}/settings", json=body)

    return asyncio.run(go())


def test_map_sets_only_the_keys_sent(sandbox: Any) -> None:
    async def go(client: ManagementClient, app_id: str) -> Any:
        before = await client.get_app_settings(app_id)
        result = await client.map_settings(app_id, {REPLIES: not before[REPLIES], "custom.flag": True})
        return before, result, await client.get_app_settings(app_id)

    before, result, after = run(sandbox, go)
    assert result == {REPLIES: True, "custom.flag": True}
    assert after == {**before, REPLIES: not before[REPLIES], "custom.flag": True}


@pytest.mark.parametrize("body", [{}, {"settings": []}, {"settings": {REPLIES: "yes"}}, {"settings": {"": True}},
                                  {"settings": {REPLIES: True}, "other": 1}, {"settings": {INCLUDED: True}},
                                  [], {"settings": {REPLIES: True, "x": None}}, {"settings": {" ": True}},
                                  {"settings": {"k" * 201: True}}, {"settings": {REPLIES: True, "a\x1b[2Jb": True}},
                                  {"settings": {REPLIES: True, INCLUDED: False}}, {"settings": {REPLIES: 1}}])
def test_a_refused_body_changes_nothing(sandbox: Any, body: Any) -> None:
    before = run(sandbox, lambda c, a: c.get_app_settings(a))
    answer = raw(sandbox, "POST", body)
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "ERR_BAD_REQUEST"
    assert run(sandbox, lambda c, a: c.get_app_settings(a)) == before


def test_the_client_refuses_a_non_boolean_before_any_request(sandbox: Any) -> None:
    with pytest.raises(TypeError):
        run(sandbox, lambda c, a: c.map_settings(a, {INCLUDED: ["templates"]}))  # type: ignore[dict-item]
    assert run(sandbox, lambda c, a: c.map_settings(a, {})) == {}


def test_a_list_setting_is_a_typed_refusal(sandbox: Any) -> None:
    async def go(client: ManagementClient, app_id: str) -> Any:
        with pytest.raises(ValidationFailed):
            await client._call(Operation("map a list setting", subject="settings"),  # a body map_settings refuses
                               "POST", f"/apps/{app_id}/settings", body={"settings": {INCLUDED: True}})

    run(sandbox, go)


def test_unmap_goes_back_to_a_fresh_apps_settings(sandbox: Any) -> None:
    async def go(client: ManagementClient, app_id: str) -> Any:
        await client.map_settings(app_id, {REPLIES: True, "custom.flag": True})
        await client.unmap_settings(app_id)
        return await client.get_app_settings(app_id)

    assert run(sandbox, go) == records.default_app_settings()


def test_answers_have_the_vendor_examples_shapes(sandbox: Any) -> None:
    """POST: ``data{key: {success, message}}`` per key sent, with the example's message; DELETE ``data{success,
    message}``. (tests/api/test_settings_conformance.py compares these with the vendor's own examples.)"""
    mapped = raw(sandbox, "POST", {"settings": {REPLIES: True, "core.notifications.push.enabled": True}})
    assert mapped.status_code == 200
    done = {"success": True, "message": "Added setting(s) successfully."}
    assert mapped.json() == {"data": {REPLIES: done, "core.notifications.push.enabled": done}}
    unmapped = raw(sandbox, "DELETE", None)
    assert unmapped.status_code == 200
    assert set(unmapped.json()["data"]) == {"success", "message"} and unmapped.json()["data"]["success"] is True


def test_an_empty_settings_object_changes_nothing(sandbox: Any) -> None:
    before = run(sandbox, lambda c, a: c.get_app_settings(a))
    answer = raw(sandbox, "POST", {"settings": {}})
    assert answer.status_code == 200 and answer.json() == {"data": {}}
    assert run(sandbox, lambda c, a: c.get_app_settings(a)) == before


def test_refusals_say_why_and_escape_the_key(sandbox: Any) -> None:
    listed = raw(sandbox, "POST", {"settings": {INCLUDED: True}}).json()["error"]
    assert "a list" in str(listed) and "booleans only" in str(listed)
    hostile = raw(sandbox, "POST", {"settings": {"a\x1b]52;c;eA==\x07b": True}}).json()["error"]
    [(shown_key, why)] = hostile["details"].items()
    assert shown_key == "settings.a\\x1b]52;c;eA==\\x07b"  # escaped, as the sandbox's other messages
    assert not any(ord(c) < 0x20 for c in shown_key) and why == ["a key must not hold control or bidi characters"]


def test_an_app_holds_a_bounded_number_of_settings(sandbox: Any) -> None:
    """Any key is accepted (the vendor's schema allows any), so a sandbox left running bounds how many an app
    holds; the request that would cross the bound is refused whole."""
    fresh = len(records.default_app_settings())
    room = validation.SETTINGS_PER_APP - fresh
    assert raw(sandbox, "POST", {"settings": {f"custom.k{i}": True for i in range(room)}}).status_code == 200
    before = run(sandbox, lambda c, a: c.get_app_settings(a))
    assert len(before) == validation.SETTINGS_PER_APP
    over = raw(sandbox, "POST", {"settings": {REPLIES: True, "custom.one-more": True}})
    assert over.status_code == 422 and over.json()["error"]["code"] == "ERR_BAD_REQUEST"
    assert run(sandbox, lambda c, a: c.get_app_settings(a)) == before
    assert raw(sandbox, "POST", {"settings": {REPLIES: True, "custom.k0": False}}).status_code == 200  # known keys


def test_an_unknown_app_is_404(sandbox: Any) -> None:
    async def go() -> list[int]:
        transport = httpx.ASGITransport(app=sandbox)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL,
                                     headers={"key": KEY, "secret": SECRET}) as http:
            return [(await http.request(m, "/apps/no-such-app/settings", json=b)).status_code
                    for m, b in (("GET", None), ("POST", {"settings": {REPLIES: True}}), ("DELETE", None))]

    assert asyncio.run(go()) == [404, 404, 404]
