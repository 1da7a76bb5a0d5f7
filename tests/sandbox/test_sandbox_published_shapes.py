"""The sandbox fires what the vendor sends: each delivery it can fire has the published example's structure.

Every trigger the sandbox can fire is fired through its chat API (HTTP, in process) to a receiver, and the
delivery's structure (its key paths and their JSON types; values may differ) is compared with the published
example in tests/fixtures/events. Keys of uid-keyed maps (``members``, ``users``, ``mentions``) are written ``*``
and list items ``[]``. The triggers the sandbox cannot fire yet are printed (and listed in docs/event-lab.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import MakeApp
from test_sandbox_messaging import Chat, make_chat, text

from tenantdeck.models import catalog

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "events"
#: Maps keyed by uid or guid: their keys are data, not structure.
_KEYED = ("members", "users", "mentions")
#: Paths a sandbox delivery may have beyond the example because of the data, not the shape: a user's avatar,
#: last activity and creation time (users in other published examples have them; user_mentioned shows createdAt),
#: the mentions of a message that mentions someone (this run's message_sent does), and the edit stamps of a
#: deleted message that had been edited first (this run's does).
VALUE_DEPENDENT = [re.compile(p) for p in (
    r"(entity|reactedBy|by|user|\*)\.(avatar|lastActiveAt|createdAt)$",
    r"^data\.message\.data\.mentions(\..*)?$",
    r"^data\.message\.data\.entities\.on\.entity\.(editedAt|editedBy)$",
)]  # fmt: skip


def structure(node: Any, prefix: str = "") -> dict[str, str]:
    """``{key path: JSON type}`` of a JSON value (``data.members.*.uid: string``, ``data.all_occupants[]...``)."""
    kind = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(node), "number")
    out = {prefix: kind} if prefix else {}
    if isinstance(node, dict):
        keyed = prefix.rsplit(".", 1)[-1] in _KEYED
        for key, value in node.items():
            out.update(structure(value, f"{prefix}.{'*' if keyed else key}" if prefix else key))
    elif isinstance(node, list):
        for value in node:
            out.update(structure(value, f"{prefix}[]"))
    return out


def published(trigger: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / f"{trigger}.json").read_text(encoding="utf-8"))
    return payload


async def fire_everything(chat: Chat) -> dict[str, dict[str, Any]]:
    """Every action the sandbox's chat API has, in an order where each has what it needs; the first delivery of
    each trigger, by trigger. Users carry avatars where the published examples show them."""
    mid = (await chat.ok("POST", "/messages", "alice", json=text("bob", "hi <@uid:bob>")))["id"]
    await chat.ok("POST", "/users/alice/conversation/delivered", "bob", json={"messageId": mid})
    await chat.ok("POST", "/users/alice/conversation/read", "bob", json={"messageId": mid})
    await chat.ok("PUT", f"/messages/{mid}", "alice", json={"data": {"text": "hi again"}})
    await chat.ok("POST", f"/messages/{mid}/reactions/👍", "bob")
    await chat.ok("DELETE", f"/messages/{mid}/reactions/👍", "bob")
    await chat.ok("POST", "/users/alice/blockedusers", json={"blockedUids": ["carol"]})
    await chat.ok("DELETE", "/users/alice/blockedusers", json={"blockedUids": ["carol"]})
    await chat.ok("PUT", "/users/carol/presence", json={"status": "offline"})
    await chat.ok("POST", "/groups", "alice", json={"guid": "team", "name": "Team"})
    await chat.ok("POST", "/groups/team/members", "alice", json={"participants": ["bob"]})
    await chat.ok("POST", "/groups/team/join", "carol")
    await chat.ok("PUT", "/groups/team/members/bob", "alice", json={"scope": "moderator"})
    await chat.ok("PUT", "/groups/team", "alice", json={"name": "Team 2"})
    await chat.ok("PUT", "/groups/team", "alice", json={"owner": "bob"})
    await chat.ok("POST", "/groups/team/leave", "carol")
    await chat.ok("POST", "/groups/team/bannedusers/carol", "bob")
    await chat.ok("DELETE", "/groups/team/bannedusers/carol", "bob")
    await chat.ok("DELETE", "/groups/team/members/alice", "bob")
    await chat.ok("DELETE", f"/messages/{mid}", "alice")
    await chat.ok("DELETE", "/groups/team")
    first: dict[str, dict[str, Any]] = {}
    for delivery in await chat.delivered():
        first.setdefault(str(delivery.trigger), {"payload": delivery.payload, "problems": list(delivery.problems)})
    return first


async def test_each_sandbox_delivery_has_the_published_structure(make_app: MakeApp) -> None:
    async for chat in make_chat(make_app):
        fired = await fire_everything(chat)
    examples = {p.stem for p in FIXTURES.glob("*.json")}
    differences: dict[str, dict[str, list[str]]] = {}
    for trigger, seen in sorted(fired.items()):
        assert trigger in examples, f"{trigger}: no published example to compare with"
        ours, theirs = structure(seen["payload"]), structure(published(trigger))
        missing = sorted(f"{p}: {t}" for p, t in theirs.items() if ours.get(p) != t)
        extra = sorted(f"{p}: {t}" for p, t in ours.items()
                       if p not in theirs and not any(v.search(p) for v in VALUE_DEPENDENT))
        if missing or extra or seen["problems"]:
            differences[trigger] = {"missing or other type": missing, "not in the example": extra,
                                    "problems": seen["problems"]}
    cannot = sorted(t for t in catalog.TRIGGER_IDS if t not in fired)
    print(f"\nthe sandbox fires {len(fired)} triggers; it cannot fire yet: {', '.join(cannot)}")
    assert differences == {}, json.dumps(differences, indent=1)
    assert len(fired) == 22


async def test_a_retried_delivery_repeats_its_idempotency_key_and_the_receiver_says_so(make_app: MakeApp) -> None:
    """The receiver got the first attempt but the sandbox saw 503 (a lost answer): ``retryOnFailure`` sends the
    same payload again, so the receiver records a second delivery with the same key, marked a duplicate."""
    async for chat in make_chat(make_app, fail=1, lose=True, triggers=("message_sent",)):
        sent = await chat.ok("POST", "/messages", "alice", json=text("bob", "once"))
        first, retry = await chat.delivered()
        [entry] = await chat.log()
    assert entry["attempts"] == 2 and entry["status"] == "delivered"
    assert first.idempotency_key == retry.idempotency_key == f"lab|message_sent|{sent['id']}"
    assert (first.duplicate_of, retry.duplicate_of) == (None, first.seq)
    assert "DUPLICATE of #1" in retry.line() and retry.to_json()["duplicate_of"] == first.seq
