"""The sandbox's messaging area in process: chat API, webhook deliveries to the real receiver, the delivery log.

Deliveries go through an httpx ASGI transport to a :class:`tenantdeck.receiver.Receiver` (the code behind
``tenantdeck listen``), so every payload the sandbox sends is checked by the same models a user's receiver is.
Retry delays are zero: the tests never wait.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sandbox_helpers import AUTH, MakeApp, assert_error

from tenantdeck.models import catalog
from tenantdeck.receiver import Receiver
from tenantdeck.sandbox.messaging import DeliveryConfig

pytestmark = pytest.mark.anyio

HOOK_URL = "http://127.0.0.1:9/hook"  # never dialled: the delivery transport is the in-process receiver


class FlakyReceiver:
    """The receiver behind an ASGI app that answers 503 to the first ``fail`` requests; with ``lose``, the receiver
    does get them (and answers 200) but the sender sees 503, as when an answer is lost on its way back."""

    def __init__(self, receiver: Receiver, fail: int, lose: bool = False) -> None:
        self.receiver, self.fail, self.lose, self.calls = receiver, fail, lose, 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls += 1
        if self.calls <= self.fail and self.lose:
            async def swallow(message: dict[str, Any]) -> None:
                return None

            await self.receiver.asgi(scope, receive, swallow)
        if self.calls <= self.fail:
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await self.receiver.asgi(scope, receive, send)


@dataclass
class Chat:
    client: httpx.AsyncClient
    app: Any
    app_id: str
    base: str
    key: str
    receiver: Receiver
    flaky: FlakyReceiver

    def h(self, as_uid: str | None = None) -> dict[str, str]:
        return {"apikey": self.key, **({"onBehalfOf": as_uid} if as_uid else {})}

    async def call(self, method: str, path: str, as_uid: str | None = None, **kw: Any) -> httpx.Response:
        return await self.client.request(method, self.base + path, headers=self.h(as_uid), **kw)

    async def ok(self, method: str, path: str, as_uid: str | None = None, **kw: Any) -> Any:
        r = await self.call(method, path, as_uid, **kw)
        assert r.status_code == 200, r.text
        return r.json()["data"]

    async def delivered(self) -> list[Any]:
        await self.app.state.delivery.drain()
        return list(self.receiver.deliveries)

    async def log(self, **params: Any) -> list[dict[str, Any]]:
        await self.app.state.delivery.drain()
        r = await self.client.get(f"/apps/{self.app_id}/webhook-deliveries", params=params)
        assert r.status_code == 200, r.text
        items: list[dict[str, Any]] = r.json()["data"]
        return items


async def make_chat(make_app: MakeApp, *, fail: int = 0, retry: bool = True,
                    triggers: tuple[str, ...] = catalog.TRIGGER_IDS, lose: bool = False) -> AsyncIterator[Chat]:
    receiver = Receiver(basic_auth=("hookuser", "HookPass1"))
    flaky = FlakyReceiver(receiver, fail, lose)
    app = make_app(delivery=DeliveryConfig(retry_delays=(0, 0), transport=httpx.ASGITransport(app=flaky)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox",
                                 headers=AUTH) as client:
        created = await client.post("/apps", json={"name": "Chat", "region": "eu", "version": "3"})
        app_id = created.json()["data"]["id"]
        hook = {"id": "lab", "name": "Lab", "webhookURL": HOOK_URL, "useBasicAuth": True, "username": "hookuser",
                "password": "HookPass1", "enabled": True, "retryOnFailure": retry}
        assert (await client.post(f"/apps/{app_id}/webhooks", json=hook)).status_code == 200
        r = await client.post(f"/apps/{app_id}/webhooks/lab/triggers", json={"triggerIds": list(triggers)})
        assert r.status_code == 200
        creds = (await client.get(f"/apps/{app_id}/chat-api")).json()["data"]
        assert creds["baseUrl"].endswith(f"/chat/{app_id}/v3") and creds["region"] == "eu"
        chat = Chat(client, app, app_id, f"/chat/{app_id}/v3", creds["apiKey"], receiver, flaky)
        for uid in ("alice", "bob", "carol"):
            await chat.ok("POST", "/users", json={"uid": uid, "name": uid.title(), "status": "online"})
        yield chat


@pytest.fixture
async def chat(make_app: MakeApp) -> AsyncIterator[Chat]:
    async for c in make_chat(make_app):
        yield c


def text(receiver: str, body: str, receiver_type: str = "user") -> dict[str, Any]:
    return {"receiver": receiver, "receiverType": receiver_type, "category": "message", "type": "text",
            "data": {"text": body}}


async def test_chat_api_needs_the_apps_apikey_and_keeps_the_management_auth(chat: Chat) -> None:
    r = await chat.client.get(chat.base + "/users", headers={"apikey": "wrong"})
    assert r.status_code == 401 and r.json()["error"]["source"] == "chat-api"
    assert (await chat.client.get(chat.base + "/users")).status_code == 401
    assert (await chat.client.get(f"/apps/{chat.app_id}/chat-api", headers={"key": "x"})).status_code == 401
    users = await chat.ok("GET", "/users", params={"perPage": 2})
    assert [u["uid"] for u in users] == ["alice", "bob"]


async def test_a_sent_message_is_delivered_valid_with_basic_auth(chat: Chat) -> None:
    sent = await chat.ok("POST", "/messages", "alice", json=text("bob", "hello"))
    [delivery] = await chat.delivered()
    assert delivery.authorized and delivery.valid and delivery.trigger == "message_sent", delivery.problems
    assert delivery.payload["data"]["message"]["id"] == sent["id"]
    assert delivery.payload["appId"] == chat.app_id and delivery.payload["region"] == "eu"
    assert delivery.payload["webhook"] == "lab"
    [entry] = await chat.log()
    assert entry["status"] == "delivered" and entry["attempts"] == 1 and entry["statusCode"] == 200
    assert entry["latencyMs"] >= 0 and "HookPass1" not in str(entry)


async def test_every_action_fires_a_valid_delivery(chat: Chat) -> None:
    mid = (await chat.ok("POST", "/messages", "alice", json=text("bob", "hi <@uid:bob>")))["id"]
    await chat.ok("PUT", f"/messages/{mid}", "alice", json={"data": {"text": "hi again"}})
    await chat.ok("POST", f"/messages/{mid}/reactions/👍", "bob")
    await chat.ok("DELETE", f"/messages/{mid}/reactions/👍", "bob")
    await chat.ok("POST", "/users/alice/conversation/delivered", "bob", json={"messageId": mid})
    await chat.ok("POST", "/users/alice/conversation/read", "bob", json={"messageId": mid})
    await chat.ok("POST", "/users/alice/blockedusers", json={"blockedUids": ["carol"]})
    await chat.ok("DELETE", "/users/alice/blockedusers", json={"blockedUids": ["carol"]})
    await chat.ok("PUT", "/users/carol/presence", json={"status": "offline"})
    await chat.ok("POST", "/groups", "alice", json={"guid": "team", "name": "Team"})
    await chat.ok("POST", "/groups/team/members", "alice", json={"participants": ["bob"]})
    await chat.ok("POST", "/groups/team/join", "carol")
    await chat.ok("PUT", "/groups/team/members/bob", "alice", json={"scope": "moderator"})
    await chat.ok("PUT", "/groups/team", "alice", json={"name": "Team 2", "owner": "bob"})
    await chat.ok("POST", "/groups/team/leave", "carol")
    await chat.ok("POST", "/groups/team/bannedusers/carol", "bob")
    await chat.ok("DELETE", "/groups/team/bannedusers/carol", "bob")
    await chat.ok("DELETE", "/groups/team/members/alice", "bob")
    await chat.ok("DELETE", f"/messages/{mid}", "alice")
    await chat.ok("DELETE", "/groups/team")
    deliveries = await chat.delivered()
    assert [d for d in deliveries if not d.valid] == []
    assert {d.trigger for d in deliveries} == {
        "message_sent", "user_mentioned", "message_edited", "message_reaction_added", "message_reaction_removed",
        "message_delivery_receipt", "message_read_receipt", "user_blocked", "user_unblocked",
        "user_connection_status_changed", "group_created", "group_member_added", "group_member_joined",
        "group_member_scope_changed", "group_updated", "group_owner_transferred", "group_member_left",
        "group_member_banned", "group_member_unbanned", "group_member_kicked", "message_deleted", "group_deleted",
    }


async def test_soft_delete_keeps_the_message_permanent_delete_removes_it(chat: Chat) -> None:
    soft = (await chat.ok("POST", "/messages", "alice", json=text("bob", "soft")))["id"]
    hard = (await chat.ok("POST", "/messages", "alice", json=text("bob", "hard")))["id"]
    action = await chat.ok("DELETE", f"/messages/{soft}", "alice")
    assert action["data"]["action"] == "deleted" and action["data"]["entities"]["on"]["entity"]["id"] == soft
    kept = await chat.ok("GET", f"/messages/{soft}")
    assert kept["deletedBy"] == "alice" and kept["deletedAt"] >= kept["sentAt"] and kept["data"]["text"] == "soft"
    await chat.ok("DELETE", f"/messages/{hard}", "alice", json={"permanent": True})
    r = await chat.call("GET", f"/messages/{hard}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "ERR_MESSAGE_NOT_FOUND"
    history = await chat.ok("GET", "/users/bob/messages", "alice")
    ids = [m["id"] for m in history if m["category"] != "action"]
    assert soft in ids and hard not in ids
    visible = await chat.ok("GET", "/users/bob/messages", "alice", params={"hideDeleted": "true"})
    assert soft not in [m["id"] for m in visible]
    deleted = [d for d in await chat.delivered() if d.trigger == "message_deleted"]
    assert len(deleted) == 2 and all(d.valid for d in deleted)


async def test_history_pages_by_id_cursor(chat: Chat) -> None:
    ids = [(await chat.ok("POST", "/messages", "alice", json=text("bob", f"m{i}")))["id"] for i in range(5)]
    r = await chat.call("GET", "/users/bob/messages", "alice", params={"perPage": 2})
    page = r.json()
    assert [m["id"] for m in page["data"]] == ids[3:] and page["meta"]["next"] == {"affix": "prepend", "id": ids[3]}
    older = await chat.ok("GET", "/users/bob/messages", "alice", params={"perPage": 2, "id": ids[3]})
    assert [m["id"] for m in older] == ids[1:3]
    newer = await chat.ok("GET", "/users/bob/messages", "alice", params={"perPage": 10, "id": ids[1],
                                                                       "affix": "append"})
    assert [m["id"] for m in newer] == ids[2:]


async def test_retries_when_the_receiver_fails_twice(make_app: MakeApp) -> None:
    async for chat in make_chat(make_app, fail=2):
        await chat.ok("POST", "/messages", "alice", json=text("bob", "third time lucky"))
        [entry] = await chat.log()
        assert entry["status"] == "delivered" and entry["attempts"] == 3
        assert [a["statusCode"] for a in entry["attemptLog"]] == [503, 503, 200]
        assert [d.trigger for d in chat.receiver.deliveries] == ["message_sent"]


async def test_no_retry_without_retry_on_failure(make_app: MakeApp) -> None:
    async for chat in make_chat(make_app, fail=1, retry=False):
        await chat.ok("POST", "/messages", "alice", json=text("bob", "once"))
        [entry] = await chat.log(status="failed")
        assert entry["attempts"] == 1 and entry["statusCode"] == 503 and "503" in entry["attemptLog"][0]["error"]
        assert not chat.receiver.deliveries


async def test_unsubscribed_disabled_and_non_loopback_webhooks(make_app: MakeApp) -> None:
    async for chat in make_chat(make_app, triggers=("group_created",)):
        await chat.ok("POST", "/messages", "alice", json=text("bob", "nobody listens"))
        assert await chat.log() == []
        hook = {"id": "prod", "name": "Prod", "webhookURL": "https://hooks.example.com/x", "enabled": True}
        assert (await chat.client.post(f"/apps/{chat.app_id}/webhooks", json=hook)).status_code == 200
        await chat.client.post(f"/apps/{chat.app_id}/webhooks/prod/triggers", json={"triggerIds": ["group_created"]})
        await chat.client.put(f"/apps/{chat.app_id}/webhooks/lab", json={
            "name": "Lab", "webhookURL": HOOK_URL, "useBasicAuth": True, "username": "hookuser", "enabled": False})
        await chat.ok("POST", "/groups", "alice", json={"guid": "g", "name": "G"})
        [entry] = await chat.log()
        assert entry["webhookId"] == "prod" and entry["status"] == "blocked" and entry["attempts"] == 0
        assert "loopback" in entry["attemptLog"][0]["error"]
        assert chat.flaky.calls == 0


async def _big_group(chat: Chat, members: int) -> None:
    uids = [f"u{i}" for i in range(members)]
    for uid in uids:
        await chat.ok("POST", "/users", json={"uid": uid, "name": uid})
    await chat.ok("POST", "/groups", "alice", json={"guid": "big", "name": "Big"})
    for start in range(0, len(uids), 25):
        await chat.ok("POST", "/groups/big/members", "alice", json={"participants": uids[start:start + 25]})


@pytest.mark.parametrize("members, updated", [(299, True), (300, False)])
async def test_a_group_above_300_members_gets_no_unread_updates(chat: Chat, members: int, updated: bool) -> None:
    await _big_group(chat, members)  # members + alice: 300 (limit) or 301 (above)
    mid = (await chat.ok("POST", "/messages", "alice", json=text("big", "all hands", "group")))["id"]
    unread = (await chat.ok("GET", "/groups/big/conversation", "u7"))["unreadMessageCount"]
    assert unread == (1 if updated else 0)
    assert (await chat.ok("GET", "/groups/big/conversation", "alice"))["unreadMessageCount"] == 0
    await chat.ok("POST", "/groups/big/conversation/read", "u7", json={"messageId": mid})
    assert (await chat.ok("GET", "/groups/big/conversation", "u7"))["unreadMessageCount"] == 0


async def test_receipts_only_for_groups_of_at_most_300_online_users(chat: Chat) -> None:
    await _big_group(chat, 300)
    for i in range(299):
        await chat.ok("PUT", f"/users/u{i}/presence", json={"status": "online"})
    mid = (await chat.ok("POST", "/messages", "alice", json=text("big", "hi", "group")))["id"]
    await chat.ok("POST", "/groups/big/conversation/read", "u1", json={"messageId": mid})  # 300 online: sent
    await chat.ok("PUT", "/users/u299/presence", json={"status": "online"})  # 301 online
    await chat.ok("POST", "/groups/big/conversation/delivered", "u2", json={"messageId": mid})  # not sent
    receipts = [d for d in await chat.delivered() if d.trigger and d.trigger.endswith("_receipt")]
    assert [(d.trigger, d.valid) for d in receipts] == [("message_read_receipt", True)]


async def test_unread_counts_have_no_limit(chat: Chat) -> None:
    for i in range(120):
        await chat.ok("POST", "/messages", "alice", json=text("bob", f"#{i}"))
    conversation = await chat.ok("GET", "/users/alice/conversation", "bob")
    assert conversation["unreadMessageCount"] == 120 and conversation["conversationType"] == "user"


@pytest.mark.parametrize(
    "body, field",
    [
        ({**text("bob", "x"), "tags": ["t"] * 26}, "tags"),
        ({**text("bob", "x"), "data": {"text": "x" * 10_300}}, "data"),
        ({**text("bob", "x"), "receiverType": "channel"}, "receiverType"),
        ({"receiver": "bob", "receiverType": "user", "category": "interactive", "type": "form",
          "data": {"interactiveData": {"formFields": [{"elementType": "checkbox", "elementId": "c"}]}}},
         "data.interactiveData.formFields[0].label"),
    ],
)
async def test_invalid_messages_are_refused_with_the_chat_error_shape(chat: Chat, body: dict[str, Any],
                                                                      field: str) -> None:
    r = await chat.call("POST", "/messages", "alice", json=body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "ERR_BAD_REQUEST" and error["source"] == "chat-api" and field in error["details"]
    assert await chat.log() == []


async def test_interactive_form_messages_are_accepted_and_delivered(chat: Chat) -> None:
    form = {"receiver": "bob", "receiverType": "user", "category": "interactive", "type": "form",
            "data": {"interactiveData": {"title": "Order", "formFields": [
                {"elementType": "textInput", "elementId": "name", "label": "Name"},
                {"elementType": "button", "elementId": "go", "buttonText": "Send",
                 "action": {"actionType": "apiAction", "url": "https://x.invalid", "method": "POST"}}]}}}
    await chat.ok("POST", "/messages", "alice", json=form)
    [delivery] = await chat.delivered()
    assert delivery.valid and delivery.payload["data"]["message"]["category"] == "interactive"


async def test_errors_name_what_is_missing(chat: Chat) -> None:
    assert (await chat.call("POST", "/messages", json=text("bob", "x"))).json()["error"]["code"] == \
        "ERR_ON_BEHALF_OF_REQUIRED"
    r = await chat.call("POST", "/messages", "alice", json=text("nobody", "x"))
    assert r.status_code == 404 and r.json()["error"]["code"] == "ERR_UID_NOT_FOUND"
    r = await chat.call("POST", "/messages", "alice", content=b"{nope")
    assert r.status_code == 400
    r = await chat.call("POST", "/users", json={"uid": "alice", "name": "Again"})
    assert r.status_code == 409
    assert_error(await chat.client.get("/apps/nope/webhook-deliveries"), 404, "ERR_APP_NOT_FOUND")
