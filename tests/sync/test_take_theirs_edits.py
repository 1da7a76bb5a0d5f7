"""'Take theirs' writes the live value where the conflict's kind keeps it in the draft: each kind says its edits."""

from __future__ import annotations

from typing import Any

import pytest

from tenantdeck.sync.settle import draft_edits
from tenantdeck.sync.types import ABSENT, Conflict

DATA: dict[str, Any] = {"apps": [
    {"name": "Other", "id": "a0"},
    {"name": "Acme", "id": "a1",
     "widgets": [{"id": "w9"}, {"id": "w1", "main": {"send_gifs": True}}],
     "sms": {"fromMobileNo": "+1"},
     "extensions": {"enabled": ["polls"], "disabled": ["stickers"]},
     "webhooks": [{"id": "h0"}, {"id": "h1", "name": "Hook", "triggers": ["message_sent"]}]},
]}


def conflict(kind: str, path: str, live: Any, rid: str = "") -> Conflict:
    return Conflict(app="Acme", app_id="a1", resource=kind, path=path, label=path, base=None, draft=None, live=live,
                    kind=kind, rid=rid)


@pytest.mark.parametrize(("c", "edits"), [
    (conflict("widget", "main.send_gifs", False, "w1"),
     [("set", ("apps", 1, "widgets", 1, "main", "send_gifs"), False)]),
    (conflict("widget", "main.send_gifs", ABSENT, "w1"),
     [("delete", ("apps", 1, "widgets", 1, "main", "send_gifs"), None)]),
    (conflict("widget", "main.send_gifs", False, "gone"), []),
    (conflict("sms", "fromMobileNo", "+2"), [("set", ("apps", 1, "sms", "fromMobileNo"), "+2")]),
    (conflict("webhook", "name", "Renamed", "h1"), [("set", ("apps", 1, "webhooks", 1, "name"), "Renamed")]),
    (conflict("triggers", "call_initiated", True, "h1"),
     [("set", ("apps", 1, "webhooks", 1, "triggers"), ["message_sent", "call_initiated"])]),
    (conflict("triggers", "message_sent", False, "h1"), [("set", ("apps", 1, "webhooks", 1, "triggers"), [])]),
    (conflict("extensions", "stickers", True),
     [("set", ("apps", 1, "extensions"), {"enabled": ["polls", "stickers"], "disabled": []})]),
])
def test_each_kind_writes_the_live_value_where_the_draft_keeps_it(c: Conflict, edits: list[Any]) -> None:
    assert draft_edits(c, DATA) == edits


def test_nothing_to_write_outside_the_draft() -> None:
    assert draft_edits(conflict("sms", "fromMobileNo", "+2"), {"apps": [{"name": "Acme", "id": "a1"}]}) == []
    assert draft_edits(conflict("webhook", "name", "x", "h1"), {"apps": [{"name": "Else", "id": "a2"}]}) == []
    assert draft_edits(conflict("nonsense", "x", 1), DATA) == []
