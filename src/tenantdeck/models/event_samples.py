"""Building webhook payloads: the shared shapes, the envelope, and a sample payload for every trigger.

The sandbox builds the payloads it delivers with these same functions (from its stored users, groups and
messages), and :func:`sample_payload` builds one for any trigger from fixed sample data, for "Send test event"
and for tests. Both are checked by :func:`tenantdeck.models.events.check_delivery`, so a builder that drifts
from the models fails a test instead of an admin's receiver.
"""

from __future__ import annotations

import time
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.models.events import TRIGGERS

AVATAR = "https://assets.example.invalid/avatar.png"


def user_object(
    uid: str,
    name: str,
    *,
    avatar: str = AVATAR,
    status: str = "offline",
    role: str = "default",
    last_active_at: int,
    created_at: int | None = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """The spec's user shape: uid, name, avatar, status, role, lastActiveAt (+ createdAt, conversationId)."""
    out: dict[str, Any] = {
        "uid": uid,
        "name": name,
        "avatar": avatar,
        "status": status,
        "role": role,
        "lastActiveAt": last_active_at,
    }
    if created_at is not None:
        out["createdAt"] = created_at
    if conversation_id is not None:
        out["conversationId"] = conversation_id
    return out


def group_object(
    guid: str,
    name: str,
    *,
    group_type: str = "public",
    members_count: int,
    online_members_count: int,
    owner: str,
    created_at: int,
    **optional: Any,
) -> dict[str, Any]:
    """The spec's group shape; ``optional`` adds scope, joinedAt, hasJoined, updatedAt, updatedBy, oldOwner."""
    out: dict[str, Any] = {
        "guid": guid,
        "name": name,
        "type": group_type,
        "membersCount": members_count,
        "conversationId": group_conversation_id(guid),
        "createdAt": created_at,
        "owner": owner,
        "onlineMembersCount": online_members_count,
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    return out


def group_conversation_id(guid: str) -> str:
    return f"group_{guid}"


def user_conversation_id(uid_a: str, uid_b: str) -> str:
    """``<smaller uid>_user_<larger uid>``, as the service names one-to-one conversations."""
    first, second = sorted((uid_a, uid_b))
    return f"{first}_user_{second}"


def entity(obj: dict[str, Any], entity_type: str) -> dict[str, Any]:
    return {"entity": obj, "entityType": entity_type}


def envelope(trigger: str, data: dict[str, Any], *, app_id: str, region: str, webhook_id: str) -> dict[str, Any]:
    """``{trigger, data, appId, region, webhook}``, plus ``type`` (call/meet) where the trigger's spec says so."""
    out: dict[str, Any] = {"trigger": trigger, "data": data, "appId": app_id, "region": region, "webhook": webhook_id}
    spec = TRIGGERS.get(trigger)
    if spec is not None and spec.envelope_type in ("call", "meet"):
        out["type"] = spec.envelope_type
    return out


def action_message(
    *,
    message_id: str,
    action: str,
    by: dict[str, Any],
    for_: dict[str, Any],
    on: dict[str, Any],
    conversation_id: str,
    sender: str,
    receiver: str,
    receiver_type: str,
    now: int,
) -> dict[str, Any]:
    """An action message (category action, type message) about ``on`` (the affected message)."""
    return {
        "id": message_id,
        "conversationId": conversation_id,
        "sender": sender,
        "receiverType": receiver_type,
        "receiver": receiver,
        "category": "action",
        "type": "message",
        "data": {
            "action": action,
            "entities": {
                "by": entity(by, "user"),
                "for": for_,
                "on": entity(on, "message"),
            },
        },
        "sentAt": now,
        "updatedAt": now,
    }


# -- samples -------------------------------------------------------------------------------------------------


def _sample_users(now: int) -> tuple[dict[str, Any], dict[str, Any]]:
    alice = user_object("alice", "Alice", status="online", last_active_at=now - 60, created_at=now - 86400)
    bob = user_object("bob", "Bob", last_active_at=now - 3600, created_at=now - 86400)
    return alice, bob


def _sample_message(now: int, alice: dict[str, Any], bob: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "101",
        "conversationId": user_conversation_id("alice", "bob"),
        "sender": "alice",
        "receiverType": "user",
        "receiver": "bob",
        "category": "message",
        "type": "text",
        "data": {"text": text, "entities": {"sender": entity(alice, "user"), "receiver": entity(bob, "user")}},
        "sentAt": now,
        "updatedAt": now,
    }


def _sample_group(now: int, **optional: Any) -> dict[str, Any]:
    return group_object(
        "support", "Support", members_count=2, online_members_count=1, owner="alice", created_at=now - 600, **optional
    )


def sample_data(trigger: str, now: int | None = None) -> dict[str, Any]:
    """A realistic ``data`` object for ``trigger`` (an empty object for triggers the spec does not describe)."""
    t = int(time.time()) if now is None else now
    alice, bob = _sample_users(t)
    members = {"alice": alice, "bob": bob}
    group = _sample_group(t)
    message = _sample_message(t, alice, bob, "Hello Bob")
    if trigger in ("message_sent",):
        return {"message": message}
    if trigger in ("message_edited", "message_deleted"):
        action = "edited" if trigger == "message_edited" else "deleted"
        on = dict(message)
        stamp = {"editedAt": t, "editedBy": "alice"} if action == "edited" else {"deletedAt": t, "deletedBy": "alice"}
        on.update(stamp)
        return {
            "message": action_message(
                message_id="102",
                action=action,
                by=alice,
                for_=entity(bob, "user"),
                on=on,
                conversation_id=message["conversationId"],
                sender="alice",
                receiver="bob",
                receiver_type="user",
                now=t,
            )
        }
    if trigger in ("message_reaction_added", "message_reaction_removed"):
        return {
            "reaction": {
                "id": "7",
                "messageId": "101",
                "reaction": "👍",
                "uid": "bob",
                "reactedAt": t,
                "reactedBy": bob,
            }
        }
    if trigger in ("message_delivery_receipt", "message_read_receipt"):
        action = "delivered" if trigger == "message_delivery_receipt" else "read"
        user = {**bob, "hasBlockedMe": False, "blockedByMe": False, "deactivatedAt": 0}
        user.pop("createdAt", None)
        return {
            "receiver": "alice",
            "receiverType": "user",
            "type": "receipts",
            "sender": "bob",
            "messageSender": "alice",
            "body": {"action": action, "messageId": "101", "user": user, "timestamp": t},
        }
    if trigger in ("message_delivered_to_all", "message_read_by_all"):
        system = {"uid": "app_system", "name": "System", "avatar": "", "role": "default", "status": "offline"}
        action = "deliveredToAll" if trigger == "message_delivered_to_all" else "readByAll"
        return {
            "receiver": "support",
            "receiverType": "group",
            "type": "receipts",
            "sender": "app_system",
            "messageSender": "alice",
            "body": {"messageId": "101", "timestamp": t, "action": action, "user": system},
        }
    if trigger == "user_mentioned":
        mention = _sample_message(t, alice, bob, "Hi <@uid:bob>, can you check?")
        mention["data"]["mentions"] = {"bob": bob}
        return {"message": mention}
    if trigger in ("user_blocked", "user_unblocked"):
        return {"users": {"bob": bob}, "by": alice}
    if trigger == "user_connection_status_changed":
        ms = t * 1000
        return {
            "timestamp": ms,
            "user": alice,
            "status": "online",
            "currentConnection": {
                "action": "connect",
                "appInfo": {
                    "version": "4.0.0",
                    "apiVersion": "3.0",
                    "origin": "https://app.example.invalid",
                    "uts": ms,
                    "clientIp": "127.0.0.1",
                },
                "platform": "javascript",
                "userAgent": "tenantdeck-sample",
                "connectedAt": ms,
            },
            "userPresenceChanged": True,
        }
    if trigger == "group_created":
        creator = {k: v for k, v in group.items() if k != "onlineMembersCount"}
        return {"group": {**creator, "scope": "admin", "joinedAt": t - 600, "hasJoined": True}, "members": members}
    if trigger in ("group_updated", "group_deleted"):
        return {"group": _sample_group(t, updatedAt=t, updatedBy="alice")}
    if trigger == "group_owner_transferred":
        return {"group": {**_sample_group(t, updatedAt=t, updatedBy="alice", oldOwner="alice"), "owner": "bob"}}
    if trigger in ("group_member_joined", "group_member_left"):
        return {"group": group, "members": {"bob": bob}}
    if trigger in ("group_member_added", "group_member_kicked", "group_member_banned", "group_member_unbanned"):
        return {"group": group, "members": {"bob": bob}, "by": alice}
    if trigger == "group_member_scope_changed":
        return {"group": group, "members": {"bob": {**bob, "scope": "admin", "oldScope": "participant"}}, "by": alice}
    if trigger == "call_initiated":
        conversation = user_conversation_id("alice", "bob")
        on = {
            "sessionid": "v1.us.sample.session",
            "conversationId": conversation,
            "sender": "alice",
            "receiverType": "user",
            "receiver": "bob",
            "status": "initiated",
            "type": "audio",
            "data": {"entities": {"sender": entity(alice, "user"), "receiver": entity(bob, "user")}},
            "initiatedAt": t,
            "joinedAt": t,
        }
        return {
            "call": {
                "id": "103",
                "conversationId": conversation,
                "sender": "alice",
                "receiverType": "user",
                "receiver": "bob",
                "category": "call",
                "type": "audio",
                "data": {
                    "action": "initiated",
                    "resource": "sample",
                    "entities": {"by": entity(alice, "user"), "for": entity(bob, "user"), "on": entity(on, "call")},
                },
                "sentAt": t,
                "updatedAt": t,
            }
        }
    if trigger in ("call_busy", "call_cancelled", "call_rejected", "call_unanswered"):
        return {
            "call": {
                "id": "104",
                "conversationId": user_conversation_id("alice", "bob"),
                "sender": "alice",
                "receiverType": "user",
                "receiver": "bob",
                "category": "call",
                "type": "audio",
                "data": {"action": trigger.removeprefix("call_")},
                "sentAt": t,
                "updatedAt": t,
            }
        }
    if trigger in ("moderation_engine_approved", "moderation_engine_blocked", "moderation_manual_approved"):
        out: dict[str, Any] = {"message": message}
        if trigger != "moderation_engine_approved":
            out["moderation"] = [{
                "condition": {"entity": "message", "operand": "text", "category": "pattern", "operator": "contains",
                              "value": ["sample"], "message": "Text message contains a sample pattern"},
                "rule": {"id": "sample_filter", "name": "Sample filter", "revisionId": "sample_filter_1",
                         "action": ["blockMessage"], "blockedAt": t},
            }]
        return out
    if trigger in ("call_started", "meeting_started"):
        return {"created_at": t, "sessionId": "v1.us.sample.session"}
    occupant = {"joined_at": t - 60, "audio_call": "false", "name": "Alice"}
    if trigger in ("call_participant_joined", "meeting_participant_joined"):
        return {
            "occupant": occupant,
            "initial_config": {
                "is_video_muted": "false",
                "start_recording_on_call_start": "false",
                "call_version": "4",
                "is_audio_muted": "false",
                "sdk": "javascript",
                "mode": "DEFAULT",
                "platform": "web",
                "is_audio_only": "false",
            },
            "sessionId": "v1.us.sample.session",
        }
    if trigger in ("call_participant_left", "meeting_participant_left"):
        return {"occupant": {**occupant, "left_at": t}, "sessionId": "v1.us.sample.session"}
    if trigger in ("call_ended", "meeting_ended"):
        return {
            "all_occupants": [{**occupant, "left_at": t}],
            "destroyed_at": t,
            "created_at": t - 120,
            "sessionId": "v1.us.sample.session",
        }
    if trigger == "recording_generated":
        return {
            "recordingDate": time.strftime("%Y-%m-%d", time.gmtime(t)),
            "duration": "120.5",
            "startTime": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t - 120)),
            "sessionId": "v1.us.sample.session",
            "recording_url": "https://recordings.example.invalid/s.mp4",
        }
    return {}


def sample_payload(
    trigger: str,
    *,
    app_id: str = "sampleapp",
    region: str = "us",
    webhook_id: str = "samplehook",
    now: int | None = None,
) -> dict[str, Any]:
    """A complete delivery for ``trigger`` (envelope + data) that :func:`check_delivery` accepts.

    Raises ``ValueError`` for an id that is not a trigger at all (every catalog trigger is accepted).
    """
    if trigger not in catalog.TRIGGER_IDS:
        raise ValueError(f"unknown trigger {trigger!r}")
    return envelope(trigger, sample_data(trigger, now), app_id=app_id, region=region, webhook_id=webhook_id)
