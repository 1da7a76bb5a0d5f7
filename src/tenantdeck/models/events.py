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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)
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

Status = Literal["available", "online", "offline"]
Scope = Literal["admin", "moderator", "participant"]


class User(EventModel):
    """A user as events carry it. The published examples leave out ``avatar`` for users without one and
    ``lastActiveAt`` for users never seen online (user_mentioned, group_created, call_initiated), so those are
    optional; what is there must have its type."""

    uid: str
    name: str
    status: Status
    role: str
    avatar: str | None = None
    lastActiveAt: Seconds | None = None
    conversationId: str | None = None
    createdAt: Seconds | None = None


class Group(EventModel):
    """A group as events carry it; ``onlineMembersCount`` is absent from the creator's view in group_created."""

    guid: str
    name: str
    type: Literal["public", "private", "password"]
    membersCount: int
    conversationId: str
    createdAt: Seconds
    owner: str
    onlineMembersCount: int
    scope: Scope | None = None
    joinedAt: Seconds | None = None
    hasJoined: bool | None = None
    updatedAt: Seconds | None = None
    updatedBy: str | None = None
    oldOwner: str | None = None


class CreatedGroup(Group):
    """The creator's view of a new group (group_created): scope, joinedAt and hasJoined, no online count."""

    onlineMembersCount: int | None = None  # type: ignore[assignment]
    scope: Scope
    joinedAt: Seconds
    hasJoined: bool


class UpdatedGroup(Group):
    updatedAt: Seconds
    updatedBy: str


class OwnedGroup(UpdatedGroup):
    oldOwner: str


class GroupRef(EventModel):
    """A group as the receiver entity of a message (no published example: the identity is all that is checked)."""

    guid: str
    name: str


def _tags(value: list[str]) -> list[str]:
    if len(value) > TAGS_MAX:
        raise PydanticCustomError("too_many_tags", "has {n} tags; at most {max}", {"n": len(value), "max": TAGS_MAX})
    for tag in value:
        if len(tag) > TAG_MAX_CHARS:
            raise PydanticCustomError("tag_too_long", "a tag is longer than {max} characters", {"max": TAG_MAX_CHARS})
    return value


class UserEntity(EventModel):
    entity: User
    entityType: Literal["user"]


class GroupEntity(EventModel):
    entity: GroupRef
    entityType: Literal["group"]


def _entity_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("entityType")
        return f"{_TAG}{kind}" if isinstance(kind, str) else None
    return None


#: Discriminator tags carry this prefix so that :func:`_messages` can leave them out of a problem's path.
_TAG: Final = "entityType="
UserOrGroupEntity = Annotated[
    Annotated[UserEntity, Tag(f"{_TAG}user")] | Annotated[GroupEntity, Tag(f"{_TAG}group")],
    Discriminator(_entity_kind, custom_error_type="entity_type",
                  custom_error_message="entityType must be 'user' or 'group'"),
]


class MessageEntities(EventModel):
    sender: UserEntity
    receiver: UserOrGroupEntity


class MessageContent(EventModel):
    """``message.data`` of a chat (non-action) message: whatever the message type carries, and the entities."""

    entities: MessageEntities
    text: str | None = None
    resource: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _size(cls, value: Any) -> Any:
        if isinstance(value, dict):
            size = data_size(value)
            if size > DATA_MAX_BYTES:
                raise PydanticCustomError(
                    "data_too_large",
                    "data is {size} bytes; at most {limit} (10 KB)",
                    {"size": size, "limit": DATA_MAX_BYTES},
                )
        return value


class MessageBase(EventModel):
    """What every message carries, chat or action."""

    id: str
    conversationId: str
    sender: str
    receiverType: Literal["user", "group"]
    receiver: str
    category: str
    type: str
    sentAt: Seconds
    updatedAt: Seconds
    muid: str | None = None
    tags: Annotated[list[str], AfterValidator(_tags)] | None = None
    editedAt: Seconds | None = None
    editedBy: str | None = None
    deliveredAt: Seconds | None = None
    readAt: Seconds | None = None
    deletedAt: Seconds | None = None
    deletedBy: str | None = None


class Message(MessageBase):
    """A chat message as events carry it (``data.entities`` holds sender and receiver)."""

    data: MessageContent


class EditedOn(Message):
    editedAt: Seconds
    editedBy: str


class DeletedOn(MessageBase):
    """A deleted message keeps its entities but may have lost its content (the published example has no text)."""

    data: MessageContent
    deletedAt: Seconds
    deletedBy: str


class EditedOnEntity(EventModel):
    entity: EditedOn
    entityType: Literal["message"]


class DeletedOnEntity(EventModel):
    entity: DeletedOn
    entityType: Literal["message"]


class EditedEntities(EventModel):
    by: UserEntity
    for_: UserOrGroupEntity = Field(alias="for")
    on: EditedOnEntity


class DeletedEntities(EventModel):
    by: UserEntity
    for_: UserOrGroupEntity = Field(alias="for")
    on: DeletedOnEntity


class EditedAction(EventModel):
    action: Literal["edited"]
    entities: EditedEntities


class DeletedAction(EventModel):
    action: Literal["deleted"]
    entities: DeletedEntities


class EditedMessage(MessageBase):
    """``category: action, type: message``: ``data.action`` and the edited message in ``data.entities.on``."""

    category: Literal["action"]
    type: Literal["message"]
    data: EditedAction


class DeletedMessage(MessageBase):
    category: Literal["action"]
    type: Literal["message"]
    data: DeletedAction


class MentionContent(MessageContent):
    text: str
    mentions: dict[str, User]

    @model_validator(mode="after")
    def _every_token_has_an_entry(self) -> MentionContent:
        uids = mentioned_uids(self.text)
        if not uids:
            raise PydanticCustomError("mention_token", "@text: must contain a mention token <@uid:UID>", {})
        missing = [uid for uid in uids if uid not in self.mentions]
        if missing:
            raise PydanticCustomError("mentions_missing", "@mentions: has no entry for {uids}", {"uids": missing})
        return self


class MentionMessage(Message):
    data: MentionContent


# -- trigger data --------------------------------------------------------------------------------------------


class MessageData(EventModel):
    message: Message


class EditedData(EventModel):
    message: EditedMessage


class DeletedData(EventModel):
    message: DeletedMessage


class MentionData(EventModel):
    message: MentionMessage


class ModerationRule(EventModel):
    id: str
    name: str
    revisionId: str
    action: list[str]
    blockedAt: Seconds


class ModerationCondition(EventModel):
    entity: str
    operand: str
    operator: str
    value: Any
    category: str | None = None
    message: str | None = None


class ModerationFilter(EventModel):
    entity: str
    operand: str
    operator: str
    value: Any
    type: str


class ModerationMatch(EventModel):
    """A rule that matched: its ``condition``, or the ``filter`` that kept it from blocking (filter failure)."""

    rule: ModerationRule
    condition: ModerationCondition | None = None
    filter: ModerationFilter | None = None

    @model_validator(mode="after")
    def _says_why(self) -> ModerationMatch:
        if self.condition is None and self.filter is None:
            raise PydanticCustomError("missing", "@condition: is required (or filter)", {})
        return self


class ModerationData(EventModel):
    """moderation_engine_approved: the approved message; ``moderation`` lists a rule whose condition matched
    but whose filter did not (the "filter failure" example), absent on a plain approval."""

    message: Message
    moderation: list[ModerationMatch] | None = None


class ModerationBlockedData(ModerationData):
    """moderation_engine_blocked / moderation_manual_approved: the message and the rule(s) that blocked it."""

    moderation: Annotated[list[ModerationMatch], Field(min_length=1)]  # type: ignore[assignment]


class Reaction(EventModel):
    id: str
    messageId: str
    reaction: str
    uid: str
    reactedAt: Seconds
    reactedBy: User


class ReactionData(EventModel):
    reaction: Reaction


class ReceiptUser(User):
    hasBlockedMe: bool
    blockedByMe: bool
    deactivatedAt: Seconds
    avatar: str
    lastActiveAt: Seconds


class ReceiptBody(EventModel):
    action: Literal["delivered", "read"]
    messageId: str
    user: ReceiptUser
    timestamp: Seconds | None = None


class ReceiptData(EventModel):
    """A receipt: the published examples put ``timestamp`` in ``body``, the spec's table beside it; either is
    accepted (the variant says which), none is a problem at the published place."""

    receiver: str
    receiverType: Literal["user", "group"]
    type: Literal["receipts"]
    sender: str
    messageSender: str
    body: ReceiptBody
    timestamp: Seconds | None = None

    @model_validator(mode="after")
    def _timestamp_somewhere(self) -> ReceiptData:
        if self.body.timestamp is None and self.timestamp is None:
            raise PydanticCustomError("missing", "@body.timestamp: is required", {})
        return self


class ReceiptToAllBody(EventModel):
    messageId: str
    timestamp: Seconds
    action: Literal["deliveredToAll", "readByAll"]
    user: User


class ReceiptToAllData(EventModel):
    """message_delivered_to_all / message_read_by_all (enhanced messaging status): sent by ``app_system``."""

    receiver: str
    receiverType: Literal["user", "group"]
    type: Literal["receipts"]
    sender: str
    messageSender: str
    body: ReceiptToAllBody


def _receipt(action: str) -> Any:
    def check(data: Any) -> Any:
        if data.body.action != action:
            raise PydanticCustomError("receipt_action", "@body.action: must be {want}", {"want": repr(action)})
        return data

    return AfterValidator(check)


class UsersByData(EventModel):
    users: Annotated[dict[str, User], Field(min_length=1)]
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
    status: Status
    currentConnection: Connection
    userPresenceChanged: bool


class GroupData(EventModel):
    group: UpdatedGroup


class GroupCreatedData(EventModel):
    group: CreatedGroup
    members: Annotated[dict[str, User], Field(min_length=1)]


class GroupMembersData(EventModel):
    group: Group
    members: Annotated[dict[str, User], Field(min_length=1)]


class GroupMembersByData(GroupMembersData):
    by: User


class ScopedMember(User):
    scope: Scope
    oldScope: Scope


class ScopeChangedData(EventModel):
    group: Group
    members: Annotated[dict[str, ScopedMember], Field(min_length=1)]
    by: User


class OwnerTransferredData(EventModel):
    group: OwnedGroup


class CallOnContent(EventModel):
    entities: MessageEntities


class CallOn(EventModel):
    """The call in ``call_initiated``'s ``entities.on``: the ringing page shows only these four fields; the
    webhook events page adds the conversation, sender, receiver, entities and ``joinedAt``."""

    sessionid: str
    status: str
    type: Literal["audio", "video"]
    initiatedAt: Seconds
    conversationId: str | None = None
    sender: str | None = None
    receiverType: Literal["user", "group"] | None = None
    receiver: str | None = None
    data: CallOnContent | None = None
    joinedAt: Seconds | None = None


class CallOnEntity(EventModel):
    entity: CallOn
    entityType: Literal["call"]


class CallEntities(EventModel):
    by: UserEntity
    on: CallOnEntity
    for_: UserOrGroupEntity | None = Field(default=None, alias="for")


class CallActionData(EventModel):
    action: Literal["initiated"]
    entities: CallEntities
    resource: str | None = None


class CallBase(EventModel):
    id: str
    conversationId: str
    sender: str
    receiverType: Literal["user", "group"]
    receiver: str
    category: Literal["call"]
    type: Literal["audio", "video"]
    sentAt: Seconds
    updatedAt: Seconds


class Call(CallBase):
    data: CallActionData


class CallData(EventModel):
    call: Call


def _outcome(action: str) -> Any:
    class OutcomeAction(EventModel):
        action: Literal[action]  # type: ignore[valid-type]

    class OutcomeCall(CallBase):
        data: OutcomeAction

    class OutcomeData(EventModel):
        call: OutcomeCall

    OutcomeData.__name__ = f"Call{action.title()}Data"
    return OutcomeData


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
    all_occupants: list[LeftOccupant]
    destroyed_at: Seconds
    created_at: Seconds
    sessionId: str


class RecordingData(EventModel):
    recordingDate: str
    duration: str
    startTime: str
    sessionId: str
    recording_url: str


class LegacyMessage(MessageBase):
    """A legacy (v1) ``before_message`` delivery's ``data``: the message itself, in flight (no ``id`` yet)."""

    id: str | None = None  # type: ignore[assignment]
    data: MessageContent


class LegacyStoredMessage(LegacyMessage):
    """A legacy ``after_message`` delivery's ``data``: the stored message, with its ``id``."""

    id: str


def _receipt_variant(payload: dict[str, Any]) -> str:
    body = _get(payload, "data.body")
    if isinstance(body, dict) and "timestamp" in body:
        return "published: timestamp in data.body"
    return "spec table: timestamp beside data.body"


def _call_initiated_variant(payload: dict[str, Any]) -> str:
    entities = _get(payload, "data.call.data.entities")
    if isinstance(entities, dict) and "for" in entities:
        return "webhook events page: by, for, on and resource"
    return "ringing page: by and on only"


def _moderation_variant(payload: dict[str, Any]) -> str:
    if _get(payload, "data.moderation") is not None:
        return "with the matched rule (data.moderation)"
    return "no rule matched"


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    """One trigger's payload: its ``data`` model, the envelope ``type``, its idempotency key and variants.

    ``envelope_type`` is the value ``type`` must have (``call``/``meet``), None where it may be absent, and
    ``"absent"`` where the published examples have no type key (recording_generated). ``key`` lists the payload
    paths that, after ``webhook`` and ``trigger``, make the delivery's idempotency key (``keys(p)`` is the sorted
    keys of the object at ``p``); ``key_published`` says whether the vendor's docs give that key or it is this
    project's choice (docs/event-lab.md lists which). ``variant`` names the published variant a payload follows
    where more than one is in the wild. ``legacy`` marks v1 webhook triggers, which no v2 webhook subscribes to.
    """

    id: str
    data: type[BaseModel] | Any
    key: tuple[str, ...]
    key_published: bool = False
    envelope_type: str | None = None
    variant: Callable[[dict[str, Any]], str] | None = None
    legacy: bool = False

    @property
    def description(self) -> str:
        """When it fires, in the vendor's words (:data:`tenantdeck.models.catalog.TRIGGER_DESCRIPTIONS`)."""
        return catalog.TRIGGER_DESCRIPTIONS.get(self.id) or LEGACY_DESCRIPTIONS.get(self.id, "")


_MSG: Final = ("data.message.id",)
_CALL: Final = ("data.call.id", "data.call.sentAt")
_RECEIPT: Final = ("data.body.messageId", "data.sender")
_GROUP_MEMBERS: Final = ("data.group.guid", "keys(data.members)", "data.group.membersCount")
_S = TriggerSpec
TRIGGERS: Final[dict[str, TriggerSpec]] = {
    s.id: s
    for s in (
        _S("message_sent", MessageData, _MSG, key_published=True),
        _S("message_edited", EditedData, _MSG),
        _S("message_deleted", DeletedData, _MSG),
        _S("message_reaction_added", ReactionData, ("data.reaction.id", "data.reaction.reactedAt")),
        _S("message_reaction_removed", ReactionData, ("data.reaction.id", "data.reaction.reactedAt")),
        _S("message_delivery_receipt", Annotated[ReceiptData, _receipt("delivered")], _RECEIPT,
           variant=_receipt_variant),
        _S("message_read_receipt", Annotated[ReceiptData, _receipt("read")], _RECEIPT, variant=_receipt_variant),
        _S("message_delivered_to_all", Annotated[ReceiptToAllData, _receipt("deliveredToAll")],
           ("data.body.messageId",)),
        _S("message_read_by_all", Annotated[ReceiptToAllData, _receipt("readByAll")], ("data.body.messageId",)),
        _S("user_mentioned", MentionData, _MSG),
        _S("user_blocked", UsersByData, ("data.by.uid", "keys(data.users)", "data.by.lastActiveAt")),
        _S("user_unblocked", UsersByData, ("data.by.uid", "keys(data.users)", "data.by.lastActiveAt")),
        _S("user_connection_status_changed", ConnectionData, ("data.user.uid", "data.timestamp")),
        _S("group_created", GroupCreatedData, ("data.group.guid", "data.group.createdAt")),
        _S("group_updated", GroupData, ("data.group.guid", "data.group.updatedAt")),
        _S("group_deleted", GroupData, ("data.group.guid", "data.group.updatedAt")),
        _S("group_owner_transferred", OwnerTransferredData, ("data.group.guid", "data.group.updatedAt")),
        _S("group_member_joined", GroupMembersData, _GROUP_MEMBERS),
        _S("group_member_left", GroupMembersData, _GROUP_MEMBERS),
        _S("group_member_added", GroupMembersByData, _GROUP_MEMBERS),
        _S("group_member_kicked", GroupMembersByData, _GROUP_MEMBERS),
        _S("group_member_banned", GroupMembersByData, _GROUP_MEMBERS),
        _S("group_member_unbanned", GroupMembersByData, _GROUP_MEMBERS),
        _S("group_member_scope_changed", ScopeChangedData, ("data.group.guid", "keys(data.members)",
                                                            "data.group.updatedAt")),
        _S("call_initiated", CallData, _CALL, key_published=True, variant=_call_initiated_variant),
        _S("call_busy", _outcome("busy"), _CALL, key_published=True),
        _S("call_cancelled", _outcome("cancelled"), _CALL, key_published=True),
        _S("call_rejected", _outcome("rejected"), _CALL, key_published=True),
        _S("call_unanswered", _outcome("unanswered"), _CALL, key_published=True),
        _S("call_started", SessionStarted, ("data.sessionId", "data.created_at"), True, "call"),
        _S("call_participant_joined", ParticipantJoined, ("data.sessionId", "data.occupant.joined_at"), True, "call"),
        _S("call_participant_left", ParticipantLeft, ("data.sessionId", "data.occupant.left_at"), True, "call"),
        _S("call_ended", SessionEnded, ("data.sessionId", "data.destroyed_at"), True, "call"),
        _S("meeting_started", SessionStarted, ("data.sessionId", "data.created_at"), True, "meet"),
        _S("meeting_participant_joined", ParticipantJoined, ("data.sessionId", "data.occupant.joined_at"), True,
           "meet"),
        _S("meeting_participant_left", ParticipantLeft, ("data.sessionId", "data.occupant.left_at"), True, "meet"),
        _S("meeting_ended", SessionEnded, ("data.sessionId", "data.destroyed_at"), True, "meet"),
        _S("recording_generated", RecordingData, ("data.sessionId", "data.startTime"), True, "absent"),
        _S("moderation_engine_approved", ModerationData, _MSG, variant=_moderation_variant),
        _S("moderation_engine_blocked", ModerationBlockedData, _MSG, variant=_moderation_variant),
        _S("moderation_manual_approved", ModerationBlockedData, _MSG, variant=_moderation_variant),
        _S("before_message", LegacyMessage, ("data.sender", "data.sentAt"), legacy=True),
        _S("after_message", LegacyStoredMessage, ("data.id",), legacy=True),
    )
}

#: Legacy (v1) webhook triggers: recognised and labelled, never offered for subscription (facts §7).
LEGACY_DESCRIPTIONS: Final[dict[str, str]] = {
    "before_message": "A message is in flight (legacy v1 webhooks).",
    "after_message": "A message was sent (legacy v1 webhooks).",
}
LEGACY_TRIGGERS: Final = tuple(LEGACY_DESCRIPTIONS)

#: Catalog triggers without a published payload (campaigns, notifications, transcription, moderation failures):
#: only the envelope is checked.
UNDESCRIBED_TRIGGERS: Final = tuple(t for t in catalog.TRIGGER_IDS if t not in TRIGGERS)


class Envelope(EventModel):
    """What every delivery POSTs: ``{trigger, data, appId, region, webhook}`` (+ ``type`` on call/meet events)."""

    trigger: str
    data: dict[str, Any]
    appId: str
    region: str
    webhook: str
    type: Literal["call", "meet"] | None = None


class LegacyEnvelope(Envelope):
    """A v1 webhook's envelope: no ``region`` (the legacy examples have none)."""

    region: str | None = None  # type: ignore[assignment]


_DATA_ADAPTERS: dict[str, Any] = {}


def _data_adapter(spec: TriggerSpec) -> Any:
    from pydantic import TypeAdapter

    adapter = _DATA_ADAPTERS.get(spec.id)
    if adapter is None:
        adapter = _DATA_ADAPTERS[spec.id] = TypeAdapter(spec.data)
    return adapter


def _messages(exc: ValidationError, prefix: tuple[str | int, ...]) -> list[str]:
    """Pydantic errors as ``path: message`` lines. A custom message ``@sub.path: text`` names a place below the
    validated object (a rule across fields still points at the field it is about)."""
    out: list[str] = []
    for err in exc.errors(include_url=False):
        loc = tuple(
            p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "json-or-", _TAG)))
        )
        msg = str(err["msg"]).removeprefix("Value error, ")
        if msg.startswith("@"):
            sub, _, msg = msg[1:].partition(": ")
            loc = (*loc, *sub.split("."))
        path = format_path((*prefix, *loc))
        if err["type"] == "missing":
            msg = "is required"
        out.append(f"{path}: {msg}" if path else msg)
    return out


@dataclass(frozen=True, slots=True)
class Inspection:
    """What the receiver learns from one delivered JSON value.

    ``problems`` empty means valid. ``variant`` names the published variant seen where several exist (None
    otherwise); ``legacy`` marks a v1 webhook delivery; ``idempotency_key`` is ``webhook|trigger|<values>`` as
    :attr:`TriggerSpec.key` says (None when a part is missing or the trigger has no key).
    """

    trigger: str | None
    problems: tuple[str, ...]
    variant: str | None = None
    legacy: bool = False
    idempotency_key: str | None = None


def inspect_delivery(payload: Any) -> Inspection:
    """Check one delivered JSON value against its trigger's model; never raises (see :func:`check_delivery`)."""
    if not isinstance(payload, dict):
        return Inspection(None, (f"the payload must be a JSON object, not {_json_kind(payload)}",))
    raw_trigger = payload.get("trigger")
    trigger = raw_trigger if isinstance(raw_trigger, str) else None
    spec = TRIGGERS.get(trigger) if trigger is not None else None
    problems: list[str] = []
    try:
        (LegacyEnvelope if spec is not None and spec.legacy else Envelope).model_validate(payload)
    except ValidationError as exc:
        problems += _messages(exc, ())
    if trigger is None:
        return Inspection(None, tuple(problems))
    if spec is None:
        if trigger not in catalog.TRIGGER_IDS:
            problems.append(f"trigger: unknown trigger {trigger!r}")
        return Inspection(trigger, tuple(problems))
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
    variant = spec.variant(payload) if spec.variant is not None else None
    if spec.legacy:
        variant = "legacy (v1 webhook)"
    return Inspection(trigger, tuple(problems), variant, spec.legacy, idempotency_key(payload))


def check_delivery(payload: Any) -> tuple[str | None, list[str]]:
    """``(trigger, problems)`` for one delivered JSON value; an empty list means it is a valid delivery.

    Never raises: a non-object, a missing or unknown trigger, a missing field or a wrong type all become
    problem strings (``"data.message.sentAt: is required"``) so a receiver can keep and flag the delivery.
    """
    seen = inspect_delivery(payload)
    return seen.trigger, list(seen.problems)


def _get(payload: Any, path: str) -> Any:
    node = payload
    for part in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def idempotency_key(payload: Any) -> str | None:
    """``webhook|trigger|v1|v2...`` from the trigger's key paths, or None when the trigger has no key or a part
    is missing or not a scalar (a retried delivery repeats its payload, so its key repeats)."""
    if not isinstance(payload, dict):
        return None
    spec = TRIGGERS.get(payload.get("trigger"))  # type: ignore[arg-type]
    if spec is None:
        return None
    parts: list[str] = []
    for path in ("webhook", "trigger", *spec.key):
        if path.startswith("keys(") and path.endswith(")"):
            node = _get(payload, path[5:-1])
            if not isinstance(node, dict) or not node:
                return None
            parts.append(",".join(sorted(node)))
            continue
        value = _get(payload, path)
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            return None
        parts.append(str(value))
    return "|".join(parts)


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def dumps(payload: Any) -> str:
    """Compact JSON as deliveries are sent (UTF-8, no ASCII escaping)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
