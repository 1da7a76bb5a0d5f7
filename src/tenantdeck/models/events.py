"""Webhook deliveries: the envelope and the ``data`` of every trigger in the spec's Events section, as data.

:data:`TRIGGERS` maps each trigger id the spec describes to its data model and the envelope ``type`` it carries
(``call``, ``meet``, or none). Triggers in :data:`tenantdeck.models.catalog.TRIGGER_IDS` without a described
payload (campaigns, moderation, transcription ...) are checked for the envelope only.

Models here are **lenient about extras and strict about what is there**: the service adds fields over time, so
unknown keys are allowed, but every field the spec lists is required, has its JSON type (``3`` is not ``"3"``),
and timestamps are seconds, except the ones the spec says are milliseconds. Call and meeting flags are the
strings ``"true"``/``"false"``, as the spec shows them. :func:`check_delivery` turns any payload, however
malformed, into ``(trigger, problems)`` and never raises: the receiver keeps and flags what it cannot accept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from tenantdeck.models import catalog
from tenantdeck.models.messages import DATA_MAX_BYTES, TAG_MAX_CHARS, TAGS_MAX, data_size, mentioned_uids
from tenantdeck.problems import format_path

#: A Unix time in seconds after this is really milliseconds (1e11 s is the year 5138; 1e11 ms is 1973).
_MS_THRESHOLD: Final = 10**11


def _seconds(value: int) -> int:
    if value >= _MS_THRESHOLD:
        raise PydanticCustomError("timestamp_unit", "looks like milliseconds; this timestamp is in seconds", {})
    return value


def _millis(value: int) -> int:
    if 0 < value < _MS_THRESHOLD:
        raise PydanticCustomError("timestamp_unit", "looks like seconds; this timestamp is in milliseconds", {})
    return value


Seconds = Annotated[int, AfterValidator(_seconds)]
Millis = Annotated[int, AfterValidator(_millis)]
#: "true"/"false" as strings: the spec's call and meeting payloads (``audio_call``, ``initial_config.*``).
BoolString = Literal["true", "false"]


class EventModel(BaseModel):
    """Base of every payload model: strict types, unknown keys allowed (the service adds fields)."""

    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)


# -- shared shapes -------------------------------------------------------------------------------------------


class User(EventModel):
    uid: str
    name: str
    avatar: str
    status: Literal["available", "online", "offline"]
    role: str
    lastActiveAt: Seconds
    conversationId: str | None = None
    createdAt: Seconds | None = None


class Group(EventModel):
    guid: str
    name: str
    type: Literal["public", "private", "password"]
    membersCount: int
    conversationId: str
    createdAt: Seconds
    owner: str
    onlineMembersCount: int
    scope: Literal["admin", "moderator", "participant"] | None = None
    joinedAt: Seconds | None = None
    hasJoined: bool | None = None
    updatedAt: Seconds | None = None
    updatedBy: str | None = None
    oldOwner: str | None = None


class Entity(EventModel):
    entity: dict[str, Any]
    entityType: str


class MessageEntities(EventModel):
    sender: Entity
    receiver: Entity


def _tags(value: list[str]) -> list[str]:
    if len(value) > TAGS_MAX:
        raise PydanticCustomError("too_many_tags", "has {n} tags; at most {max}", {"n": len(value), "max": TAGS_MAX})
    for tag in value:
        if len(tag) > TAG_MAX_CHARS:
            raise PydanticCustomError("tag_too_long", "a tag is longer than {max} characters", {"max": TAG_MAX_CHARS})
    return value


class Message(EventModel):
    """A chat message as events carry it (``data.entities`` holds sender and receiver)."""

    id: str | int
    conversationId: str
    sender: str
    receiverType: Literal["user", "group"]
    receiver: str
    category: str
    type: str
    data: dict[str, Any]
    sentAt: Seconds
    updatedAt: Seconds
    tags: Annotated[list[str], AfterValidator(_tags)] | None = None
    editedAt: Seconds | None = None
    editedBy: str | None = None
    deliveredAt: Seconds | None = None
    readAt: Seconds | None = None
    deletedAt: Seconds | None = None
    deletedBy: str | None = None

    @model_validator(mode="after")
    def _data_rules(self) -> Message:
        size = data_size(self.data)
        if size > DATA_MAX_BYTES:
            raise PydanticCustomError(
                "data_too_large",
                "data is {size} bytes; at most {limit} (10 KB)",
                {"size": size, "limit": DATA_MAX_BYTES},
            )
        if self.category != "action":
            MessageEntities.model_validate(self.data.get("entities"))
        return self


class ActionEntities(EventModel):
    by: Entity
    for_: Entity = Field(alias="for")
    on: Entity


class ActionData(EventModel):
    action: str
    entities: ActionEntities


class ActionMessage(Message):
    """``category: action, type: message``: ``data.action`` and the affected message in ``data.entities.on``."""

    category: Literal["action"]
    type: Literal["message"]


def _action_message(action: Literal["edited", "deleted"], at: str, by: str) -> Any:
    """A validator for message_edited / message_deleted: the action, and ``on`` a message with ``at``/``by``."""

    def check(message: ActionMessage) -> ActionMessage:
        data = ActionData.model_validate(message.data)
        if data.action != action:
            raise PydanticCustomError("action", "data.action must be {want}", {"want": repr(action)})
        if data.entities.on.entityType != "message":
            raise PydanticCustomError("on_type", "data.entities.on.entityType must be 'message'", {})
        on = Message.model_validate(data.entities.on.entity)
        if getattr(on, at) is None or getattr(on, by) is None:
            raise PydanticCustomError(
                "on_fields", "the message in data.entities.on needs {at} and {by}", {"at": at, "by": by}
            )
        return message

    return AfterValidator(check)


def _mentions(message: Message) -> Message:
    text = message.data.get("text")
    if not isinstance(text, str) or not mentioned_uids(text):
        raise PydanticCustomError("mention_token", "data.text must contain a mention token <@uid:UID>", {})
    mentions = message.data.get("mentions")
    if not isinstance(mentions, dict):
        raise PydanticCustomError("mentions_map", "data.mentions must be a map keyed by uid", {})
    missing = [uid for uid in mentioned_uids(text) if uid not in mentions]
    if missing:
        raise PydanticCustomError("mentions_missing", "data.mentions has no entry for {uids}", {"uids": missing})
    for value in mentions.values():
        User.model_validate(value)
    return message


# -- trigger data --------------------------------------------------------------------------------------------


class MessageData(EventModel):
    message: Message


class EditedData(EventModel):
    message: Annotated[ActionMessage, _action_message("edited", "editedAt", "editedBy")]


class DeletedData(EventModel):
    message: Annotated[ActionMessage, _action_message("deleted", "deletedAt", "deletedBy")]


class MentionData(EventModel):
    message: Annotated[Message, AfterValidator(_mentions)]


class Reaction(EventModel):
    id: str | int
    messageId: str | int
    reaction: str
    uid: str
    reactedAt: Seconds
    reactedBy: User


class ReactionData(EventModel):
    reaction: Reaction


class ReceiptUser(EventModel):
    hasBlockedMe: bool
    blockedByMe: bool
    deactivatedAt: Seconds
    uid: str
    name: str
    avatar: str
    lastActiveAt: Seconds
    role: str
    status: Literal["available", "online", "offline"]


class ReceiptBody(EventModel):
    action: Literal["delivered", "read"]
    messageId: str | int
    user: ReceiptUser


class ReceiptData(EventModel):
    receiver: str
    receiverType: Literal["user", "group"]
    type: Literal["receipts"]
    sender: str
    messageSender: str
    body: ReceiptBody
    timestamp: Seconds


def _receipt(action: str) -> Any:
    def check(data: ReceiptData) -> ReceiptData:
        if data.body.action != action:
            raise PydanticCustomError("receipt_action", "body.action must be {want}", {"want": repr(action)})
        return data

    return AfterValidator(check)


class UsersByData(EventModel):
    users: dict[str, User]
    by: User


class AppInfo(EventModel):
    version: str
    apiVersion: str
    origin: str
    uts: int
    clientIp: str


class Connection(EventModel):
    action: str
    appInfo: AppInfo
    platform: str
    userAgent: str
    connectedAt: Millis


class ConnectionData(EventModel):
    timestamp: Millis
    user: User
    status: Literal["available", "online", "offline"]
    currentConnection: Connection
    userPresenceChanged: bool


class GroupData(EventModel):
    group: Group


class GroupMembersData(EventModel):
    group: Group
    members: dict[str, User]


class GroupMembersByData(GroupMembersData):
    by: User


class ScopedMember(User):
    scope: Literal["admin", "moderator", "participant"]
    oldScope: Literal["admin", "moderator", "participant"]


class ScopeChangedData(EventModel):
    group: Group
    members: dict[str, ScopedMember]
    by: User


def _owner_transferred(data: GroupData) -> GroupData:
    if data.group.oldOwner is None:
        raise PydanticCustomError("old_owner", "group.oldOwner is required when ownership is transferred", {})
    return data


class CallOn(EventModel):
    sessionid: str
    conversationId: str
    sender: str
    receiverType: Literal["user", "group"]
    receiver: str
    status: str
    type: str
    data: dict[str, Any]
    initiatedAt: Seconds
    joinedAt: Seconds


class CallActionData(EventModel):
    action: Literal["initiated"]
    entities: ActionEntities
    resource: str


class Call(EventModel):
    category: Literal["call"]
    type: Literal["audio", "video"]
    data: CallActionData
    sentAt: Seconds
    updatedAt: Seconds

    @model_validator(mode="after")
    def _on_call(self) -> Call:
        CallOn.model_validate(self.data.entities.on.entity)
        return self


class CallData(EventModel):
    call: Call


class SessionStarted(EventModel):
    created_at: Seconds
    sessionId: str


class InitialConfig(EventModel):
    is_video_muted: BoolString
    start_recording_on_call_start: BoolString
    call_version: str
    is_audio_muted: BoolString
    sdk: str
    mode: str
    platform: str
    is_audio_only: BoolString


class Occupant(EventModel):
    joined_at: Seconds
    audio_call: BoolString
    name: str


class LeftOccupant(Occupant):
    left_at: Seconds


class ParticipantJoined(EventModel):
    occupant: Occupant
    initial_config: InitialConfig
    sessionId: str


class ParticipantLeft(EventModel):
    occupant: LeftOccupant
    sessionId: str


class SessionEnded(EventModel):
    all_occupants: list[Occupant]
    destroyed_at: Seconds
    created_at: Seconds
    sessionId: str


class RecordingData(EventModel):
    recordingDate: str
    duration: str
    startTime: str
    sessionId: str
    recording_url: str


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    """One row of the spec's trigger table: when it fires, its ``data`` model, and the envelope ``type``.

    ``envelope_type`` is the value ``type`` must have (``call``/``meet``), None where it may be absent, and
    ``"absent"`` where the spec says there is no type key (recording_generated).
    """

    id: str
    fires: str
    data: type[BaseModel] | Any
    envelope_type: str | None = None


def _spec(trigger: str, fires: str, data: Any, envelope_type: str | None = None) -> TriggerSpec:
    return TriggerSpec(trigger, fires, data, envelope_type)


TRIGGERS: Final[dict[str, TriggerSpec]] = {
    s.id: s
    for s in (
        _spec("message_sent", "after a message is sent", MessageData),
        _spec("message_edited", "after an edit", EditedData),
        _spec("message_deleted", "after a deletion", DeletedData),
        _spec("message_reaction_added", "after a reaction is added", ReactionData),
        _spec("message_reaction_removed", "after a reaction is removed", ReactionData),
        _spec("message_delivery_receipt", "client confirms delivery", Annotated[ReceiptData, _receipt("delivered")]),
        _spec("message_read_receipt", "client confirms read", Annotated[ReceiptData, _receipt("read")]),
        _spec("user_mentioned", "a message mentions a user", MentionData),
        _spec("user_blocked", "a user blocks another", UsersByData),
        _spec("user_unblocked", "a user unblocks another", UsersByData),
        _spec("user_connection_status_changed", "user connects or disconnects", ConnectionData),
        _spec("group_created", "after creation", GroupMembersData),
        _spec("group_updated", "after update", GroupData),
        _spec("group_deleted", "after deletion", GroupData),
        _spec("group_owner_transferred", "owner changed", Annotated[GroupData, AfterValidator(_owner_transferred)]),
        _spec("group_member_joined", "user joins", GroupMembersData),
        _spec("group_member_left", "user leaves", GroupMembersData),
        _spec("group_member_added", "members added", GroupMembersByData),
        _spec("group_member_kicked", "members kicked", GroupMembersByData),
        _spec("group_member_banned", "members banned", GroupMembersByData),
        _spec("group_member_unbanned", "members unbanned", GroupMembersByData),
        _spec("group_member_scope_changed", "member scope changes", ScopeChangedData),
        _spec("call_initiated", "call initiated", CallData),
        _spec("call_started", "call starts", SessionStarted, "call"),
        _spec("call_participant_joined", "participant joins call", ParticipantJoined, "call"),
        _spec("call_participant_left", "participant leaves call", ParticipantLeft, "call"),
        _spec("call_ended", "call ends", SessionEnded, "call"),
        _spec("meeting_started", "meeting starts", SessionStarted, "meet"),
        _spec("meeting_participant_joined", "participant joins meeting", ParticipantJoined, "meet"),
        _spec("meeting_participant_left", "participant leaves meeting", ParticipantLeft, "meet"),
        _spec("meeting_ended", "meeting ends", SessionEnded, "meet"),
        _spec("recording_generated", "recording is generated", RecordingData, "absent"),
    )
}

#: Catalog triggers whose payload the spec does not describe: only the envelope is checked.
UNDESCRIBED_TRIGGERS: Final = tuple(t for t in catalog.TRIGGER_IDS if t not in TRIGGERS)


class Envelope(EventModel):
    """What every delivery POSTs: ``{trigger, data, appId, region, webhook}`` (+ ``type`` on call/meet events)."""

    trigger: str
    data: dict[str, Any]
    appId: str
    region: str
    webhook: str
    type: Literal["call", "meet"] | None = None


_DATA_ADAPTERS: dict[str, Any] = {}


def _data_adapter(spec: TriggerSpec) -> Any:
    from pydantic import TypeAdapter

    adapter = _DATA_ADAPTERS.get(spec.id)
    if adapter is None:
        adapter = _DATA_ADAPTERS[spec.id] = TypeAdapter(spec.data)
    return adapter


def _messages(exc: ValidationError, prefix: tuple[str | int, ...]) -> list[str]:
    out: list[str] = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "json-or-"))))
        path = format_path((*prefix, *loc))
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "is required"
        out.append(f"{path}: {msg}" if path else msg)
    return out


def check_delivery(payload: Any) -> tuple[str | None, list[str]]:
    """``(trigger, problems)`` for one delivered JSON value; an empty list means it is a valid delivery.

    Never raises: a non-object, a missing or unknown trigger, a missing field or a wrong type all become
    problem strings (``"data.message.sentAt: is required"``) so a receiver can keep and flag the delivery.
    """
    if not isinstance(payload, dict):
        return None, [f"the payload must be a JSON object, not {_json_kind(payload)}"]
    raw_trigger = payload.get("trigger")
    trigger = raw_trigger if isinstance(raw_trigger, str) else None
    problems: list[str] = []
    try:
        Envelope.model_validate(payload)
    except ValidationError as exc:
        problems += _messages(exc, ())
    if trigger is None:
        return None, problems
    spec = TRIGGERS.get(trigger)
    if spec is None:
        if trigger not in catalog.TRIGGER_IDS:
            problems.append(f"trigger: unknown trigger {trigger!r}")
        return trigger, problems
    if spec.envelope_type == "absent":
        if "type" in payload:
            problems.append(f"type: {trigger} carries no type key")
    elif spec.envelope_type is not None and payload.get("type") != spec.envelope_type:
        problems.append(f"type: must be {spec.envelope_type!r} for {trigger}")
    data = payload.get("data")
    if isinstance(data, dict):
        try:
            _data_adapter(spec).validate_python(data)
        except ValidationError as exc:
            problems += _messages(exc, ("data",))
    return trigger, problems


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def dumps(payload: Any) -> str:
    """Compact JSON as deliveries are sent (UTF-8, no ASCII escaping)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
