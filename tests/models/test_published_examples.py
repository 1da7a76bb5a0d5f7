"""The vendor's published webhook examples (tests/fixtures/events, sources in its SOURCES.md) against the models.

Nobody on this project wrote these payloads, so they are the test that counts: every one must be valid, and each
single realistic corruption of one (a field removed, a field's JSON type changed) must be flagged with a problem
located at that field or the object holding it. The fields whose removal is allowed are listed here, each with
the published example that shows it absent or the reason it is optional, so loosening a model shows up in a diff.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.models import catalog
from tenantdeck.models.events import TRIGGERS, check_delivery, idempotency_key, inspect_delivery
from tenantdeck.problems import format_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "events"
EXAMPLES = sorted(FIXTURES.glob("*.json"))

#: Paths (member/user map keys written ``*``) a published example may lack, and why.
OPTIONAL = [re.compile(p) for p in (
    r"\.avatar$",  # user_mentioned, group_created, call_initiated (ringing): users without an avatar
    r"\.lastActiveAt$",  # user_mentioned's sender, call_initiated's callee: users never seen online
    r"(entity|\*)\.(conversationId|createdAt)$",  # present on some users only
    r"\.muid$", r"\.text$", r"\.resource$",  # a message's client id, content and client resource
    r"on\.entity\.(deliveredAt|readAt)$",  # the edited/deleted message was delivered/read, or not yet
    r"^data\.group\.updatedAt$",  # group_member_added's group has none
    r"^data\.call\.data\.entities\.for$",  # call_initiated: the ringing page has by and on only
    r"^data\.call\.data\.entities\.on\.entity\.(conversationId|data|joinedAt|receiver|receiverType|sender)$",
    r"^data\.moderation$",  # moderation_engine_approved without a matched rule
    r"^data\.moderation\[0\]\.(condition|filter)$",  # one of them says why
    r"\.condition\.(category|message)$", r"\.filter\._id$",
)]  # fmt: skip
#: Leaves whose JSON type is open (a moderation rule's value: a list of patterns, a uid ...).
FREE_TYPE = [re.compile(p) for p in (r"\.value(\[\d+\])?$", r"\.filter\._id$")]


def _load(path: Path) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return payload


def _paths(node: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield (*prefix, key), value
        yield from _paths(value, (*prefix, key))


def _pattern_path(payload: dict[str, Any], path: tuple[str | int, ...]) -> str:
    """``format_path`` with the keys of uid-keyed maps (members, users, mentions) written ``*``."""
    parts: list[str | int] = []
    for i, part in enumerate(path):
        parts.append("*" if i and path[i - 1] in ("members", "users", "mentions") else part)
    return format_path(tuple(parts))


def _other_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 7
    return {} if isinstance(value, list) else [] if isinstance(value, dict) else 7


def _located(problems: list[str], path: tuple[str | int, ...]) -> bool:
    """Some problem names the corrupted field or an object holding it."""
    ancestors = {format_path(path[:n]) for n in range(1, len(path) + 1)}
    return any(p.split(": ", 1)[0] in ancestors for p in problems)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_published_example_is_valid(example: Path) -> None:
    payload = _load(example)
    assert check_delivery(payload) == (payload["trigger"], [])


def test_every_trigger_with_a_model_has_a_published_example_and_the_catalog_has_them_all() -> None:
    triggers = {_load(p)["trigger"] for p in EXAMPLES}
    assert triggers == set(TRIGGERS)
    assert {t for t in TRIGGERS if not TRIGGERS[t].legacy} <= set(catalog.TRIGGER_IDS)
    assert set(catalog.TRIGGER_DESCRIPTIONS) == set(catalog.TRIGGER_IDS)
    for new in ("call_busy", "call_cancelled", "call_rejected", "call_unanswered", "message_delivered_to_all",
                "message_read_by_all"):
        assert new in catalog.TRIGGER_IDS and catalog.TRIGGER_DESCRIPTIONS[new]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_each_removed_field_or_changed_type_is_flagged_where_it_is(example: Path) -> None:
    payload = _load(example)
    missed: list[str] = []
    for path, value in _paths(payload):
        shown = _pattern_path(payload, path)
        if not isinstance(path[-1], int) and not any(p.search(shown) for p in OPTIONAL):
            removed = copy.deepcopy(payload)
            node: Any = removed
            for part in path[:-1]:
                node = node[part]
            del node[path[-1]]
            problems = check_delivery(removed)[1]
            if not _located(problems, path):
                missed.append(f"removed {shown}: {problems}")
        if any(p.search(shown) for p in FREE_TYPE):
            continue
        changed = copy.deepcopy(payload)
        node = changed
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = _other_type(value)
        problems = check_delivery(changed)[1]
        if not _located(problems, path):
            missed.append(f"retyped {shown}: {problems}")
    assert missed == []


def test_the_issue_s_false_alarms_and_missed_corruptions() -> None:
    """The measured failures of issue 23, each now the other way round."""
    for name in ("call_initiated", "message_delivery_receipt", "message_read_receipt", "user_mentioned",
                 "group_created", "call_busy", "message_read_by_all"):
        assert check_delivery(_load(FIXTURES / f"{name}.json"))[1] == [], name
    for name in ("moderation_engine_approved", "moderation_engine_blocked", "moderation_manual_approved"):
        payload = _load(FIXTURES / f"{name}.json")
        del payload["data"]["message"]
        assert check_delivery(payload)[1] == ["data.message: is required"], name


def test_the_variant_seen_is_named_where_several_are_in_the_wild() -> None:
    ringing = inspect_delivery(_load(FIXTURES / "call_initiated.json"))
    fuller = inspect_delivery(_load(FIXTURES / "call_initiated.webhooks-events.json"))
    assert (ringing.variant, fuller.variant) == ("ringing page: by and on only",
                                                 "webhook events page: by, for, on and resource")
    receipt = _load(FIXTURES / "message_read_receipt.json")
    assert inspect_delivery(receipt).variant == "published: timestamp in data.body"
    receipt["data"]["timestamp"] = receipt["data"]["body"].pop("timestamp")
    spec_variant = inspect_delivery(receipt)
    assert (spec_variant.problems, spec_variant.variant) == ((), "spec table: timestamp beside data.body")
    del receipt["data"]["timestamp"]
    assert inspect_delivery(receipt).problems == ("data.body.timestamp: is required",)
    for name in ("before_message", "after_message"):
        legacy = inspect_delivery(_load(FIXTURES / f"legacy.{name}.json"))
        assert (legacy.trigger, legacy.problems, legacy.legacy, legacy.variant) == (
            name, (), True, "legacy (v1 webhook)")
        assert name not in catalog.TRIGGER_IDS  # recognised, never offered for subscription


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("message_sent", "<webhookID>|message_sent|1"),
        ("call_busy", "<webhookId>|call_busy|43414|1744960250"),
        ("call_initiated", "<webhookID>|call_initiated|52|1696934199"),
        ("meeting_participant_joined", "<webhookID>|meeting_participant_joined|<sessionId>|1696934692"),
        ("meeting_participant_left", "<webhookID>|meeting_participant_left|<sessionId>|1696934730"),
        ("call_ended", "<webhookID>|call_ended|<sessionId>|1696934553"),
        ("recording_generated", "<webhookID>|recording_generated|<sessionId>|1696937627"),
        ("group_member_kicked", "<webhookID>|group_member_kicked|cometchat-guid-1|cometchat-uid-2|1"),
    ],
)
def test_idempotency_keys_follow_the_published_key_paths(name: str, key: str) -> None:
    payload = _load(FIXTURES / f"{name}.json")
    assert idempotency_key(payload) == key
    assert inspect_delivery(payload).idempotency_key == key


def test_every_published_example_has_an_idempotency_key() -> None:
    for example in EXAMPLES:
        assert idempotency_key(_load(example)) is not None, example.name
    published = {t for t, spec in TRIGGERS.items() if spec.key_published}
    assert {"message_sent", "call_initiated", "call_busy", "meeting_started", "recording_generated"} <= published
