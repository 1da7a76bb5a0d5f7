"""Messages as the chat API takes them: ``data`` within 10 KB, tags, mentions, and interactive ``formFields``.

Transcribed from ``service-spec.md`` ("Message", "Interactive message elements", "Limits") and facts §11. The
element and action tables are data (:data:`ELEMENT_TYPES`, :data:`BUTTON_ACTION_TYPES`), and the models below
follow them field for field, with the spec's defaults: ``textInput.optional`` and ``checkbox.optional`` default to
true, the navigation actions default their ``actionType``.

The sandbox validates every message it is sent with these models, and the webhook checks in
:mod:`tenantdeck.models.events` reuse the size, tag and mention rules, so "accepted by the sandbox" and "a valid
payload" mean the same thing.
"""

from __future__ import annotations

import json
import re
import zoneinfo
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from tenantdeck.models.base import StrictModel

# Limits (service-spec.md "Limits"; send-message constraints for mentions)
DATA_MAX_BYTES: Final = 10 * 1024
TAGS_MAX: Final = 25
TAG_MAX_CHARS: Final = 100
MENTIONS_MAX: Final = 10
UID_MAX: Final = 100

#: Keys of ``data`` with a defined meaning. The spec spells the third ``custome_data`` (a typo); the vendor's
#: send-message page and SDKs use ``customData``, which is what the sandbox writes.
DATA_KEYS: Final = ("text", "attachments", "customData", "metadata")

RECEIVER_TYPES: Final = ("user", "group")
#: Categories a client may send; ``action`` and ``call`` messages are made by the service itself.
SENDABLE_CATEGORIES: Final = ("message", "custom", "interactive")
MESSAGE_TYPES: Final = ("text", "image", "video", "audio", "file")
INTERACTIVE_TYPES: Final = ("form", "card", "scheduler", "customInteractive")

#: formFields element types -> the fields beyond ``elementType``/``elementId`` (spec table, in its order).
ELEMENT_TYPES: Final[dict[str, tuple[str, ...]]] = {
    "label": ("text",),
    "textInput": ("optional", "label", "maxLines", "placeholder"),
    "button": ("buttonText", "disableAfterInteracted", "action"),
    "checkbox": ("optional", "label", "defaultValue", "options"),
    "dropdown": ("optional", "label", "defaultValue", "options"),
    "radio": ("optional", "label", "defaultValue", "options"),
    "singleSelect": ("optional", "label", "defaultValue", "options"),
    "dateTime": ("optional", "label", "defaultValue", "dateTimeFormat", "mode", "timezoneCode", "from", "to"),
}

#: Button action kinds -> their fields (besides ``actionType``).
BUTTON_ACTION_TYPES: Final[dict[str, tuple[str, ...]]] = {
    "apiAction": ("method", "payload", "headers", "dataKey", "url"),
    "urlNavigation": ("url",),
    "deepLinkAction": ("url",),
    "customAction": (),
}

MENTION = re.compile(r"<@uid:([^<>\s]{1,100})>")


def mentioned_uids(text: str) -> list[str]:
    """The uids of ``<@uid:UID>`` tokens in ``text``, first occurrence order, without repeats."""
    return list(dict.fromkeys(MENTION.findall(text)))


def data_size(data: Any) -> int:
    """Bytes ``data`` takes as compact UTF-8 JSON: what the 10 KB limit is measured on.

    Attachment *files* are uploaded separately and never appear here; their properties (url, size, name ...) are
    part of ``data.attachments`` and count, as the spec says.
    """
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _data_within_limit(data: dict[str, Any]) -> dict[str, Any]:
    size = data_size(data)
    if size > DATA_MAX_BYTES:
        raise PydanticCustomError(
            "data_too_large",
            "is {size} bytes as UTF-8 JSON; at most {limit} bytes (10 KB; attachment files are not counted, "
            "their properties are)",
            {"size": size, "limit": DATA_MAX_BYTES},
        )
    return data


def _unique_uids(value: list[str]) -> list[str]:
    if len(set(value)) != len(value):
        raise PydanticCustomError("duplicate_item", "lists a uid twice", {})
    return value


Tag = Annotated[str, StringConstraints(min_length=1, max_length=TAG_MAX_CHARS)]
Tags = Annotated[list[Tag], Field(max_length=TAGS_MAX)]
Uid = Annotated[str, StringConstraints(min_length=1, max_length=UID_MAX, pattern=r"^[A-Za-z0-9_-]+$")]
MessageData = Annotated[dict[str, Any], AfterValidator(_data_within_limit)]


# -- interactive elements ------------------------------------------------------------------------------------


class _Element(StrictModel):
    elementId: str = Field(min_length=1)


class Placeholder(StrictModel):
    text: str


class Option(StrictModel):
    value: str
    label: str


class ApiAction(StrictModel):
    actionType: Literal["apiAction"]
    method: str | None = None
    payload: dict[str, Any] | None = None
    headers: dict[str, Any] | None = None
    dataKey: str | None = None
    url: str | None = None


class UrlNavigation(StrictModel):
    actionType: Literal["urlNavigation"] = "urlNavigation"
    url: str


class DeepLinkAction(StrictModel):
    actionType: Literal["deepLinkAction"] = "deepLinkAction"
    url: str


class CustomAction(StrictModel):
    actionType: Literal["customAction"]


ButtonAction = Annotated[ApiAction | UrlNavigation | DeepLinkAction | CustomAction, Field(discriminator="actionType")]


class LabelElement(_Element):
    elementType: Literal["label"]
    text: str


class TextInputElement(_Element):
    elementType: Literal["textInput"]
    optional: bool = True
    label: str | None = None
    maxLines: int | float | None = None
    placeholder: Placeholder | None = None


class ButtonElement(_Element):
    elementType: Literal["button"]
    buttonText: str | None = None
    disableAfterInteracted: bool | None = None
    action: ButtonAction | None = None


class CheckboxElement(_Element):
    elementType: Literal["checkbox"]
    optional: bool = True
    label: str
    defaultValue: list[str] | None = None
    options: list[Option] | None = None


class _ChoiceElement(_Element):
    optional: bool | None = None
    label: str | None = None
    defaultValue: str | None = None
    options: list[Option] | None = None


class DropdownElement(_ChoiceElement):
    elementType: Literal["dropdown"]


class RadioElement(_ChoiceElement):
    elementType: Literal["radio"]


class SingleSelectElement(_ChoiceElement):
    elementType: Literal["singleSelect"]


def _iana_zone(value: str) -> str:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise PydanticCustomError("timezone", "is not an IANA time zone name such as Europe/Paris", {}) from None
    return value


class DateTimeElement(_Element):
    model_config = ConfigDict(populate_by_name=True)

    elementType: Literal["dateTime"]
    optional: bool | None = None
    label: str | None = None
    defaultValue: str | None = None
    dateTimeFormat: str | None = None
    mode: str | None = None
    timezoneCode: Annotated[str, AfterValidator(_iana_zone)] | None = None
    from_: str | None = Field(None, alias="from")
    to: str | None = None


FormElement = Annotated[
    LabelElement
    | TextInputElement
    | ButtonElement
    | CheckboxElement
    | DropdownElement
    | RadioElement
    | SingleSelectElement
    | DateTimeElement,
    Field(discriminator="elementType"),
]


class FormFields(BaseModel):
    """Just the ``formFields`` list, validated element by element (used wherever an interactive message is)."""

    model_config = ConfigDict(strict=True)

    formFields: list[FormElement] = Field(min_length=1)


# -- the send body -------------------------------------------------------------------------------------------


class MessageBody(StrictModel):
    """``POST /messages``: who receives it, what kind it is, its ``data`` and tags."""

    receiver: Uid
    receiverType: Literal["user", "group"]
    category: Literal["message", "custom", "interactive"]
    type: str = Field(min_length=1, max_length=100)
    data: MessageData
    tags: Tags | None = None
    multipleReceivers: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _kind_rules(self) -> MessageBody:
        if self.category == "message":
            if self.type not in MESSAGE_TYPES:
                raise PydanticCustomError(
                    "message_type", "type must be one of {types} for category message", {"types": list(MESSAGE_TYPES)}
                )
            if self.type == "text" and not isinstance(self.data.get("text"), str):
                raise PydanticCustomError("text_required", "a text message needs data.text (a string)", {})
        if self.category == "interactive" and self.type not in INTERACTIVE_TYPES:
            raise PydanticCustomError(
                "interactive_type",
                "type must be one of {types} for category interactive",
                {"types": list(INTERACTIVE_TYPES)},
            )
        text = self.data.get("text")
        if isinstance(text, str) and len(mentioned_uids(text)) > MENTIONS_MAX:
            raise PydanticCustomError(
                "too_many_mentions", "data.text mentions more than {n} distinct users", {"n": MENTIONS_MAX}
            )
        return self


def form_fields_of(data: dict[str, Any]) -> tuple[tuple[str, ...], Any] | None:
    """Where an interactive message keeps its ``formFields``, and the value: ``data.interactiveData.formFields``
    (the SDKs' layout) or ``data.formFields``; None when neither is there."""
    inner = data.get("interactiveData")
    if isinstance(inner, dict) and "formFields" in inner:
        return ("interactiveData", "formFields"), inner["formFields"]
    if "formFields" in data:
        return ("formFields",), data["formFields"]
    return None


class MessageUpdate(StrictModel):
    """``PUT /messages/{id}``: new ``data`` and/or tags."""

    data: MessageData | None = None
    tags: Tags | None = None


class UserCreate(StrictModel):
    """``POST /users`` (the fields the sandbox keeps; ``status`` is a sandbox extra for receipts' online count)."""

    uid: Uid
    name: str = Field(min_length=1, max_length=100)
    avatar: str | None = None
    link: str | None = None
    role: str = Field("default", min_length=1, max_length=100)
    metadata: dict[str, Any] | None = None
    tags: Tags | None = None
    status: Literal["online", "offline"] = "offline"


class GroupMembersBody(StrictModel):
    """``POST /groups/{guid}/members``: uids per scope (at most 25 in all per call, as on the real service)."""

    admins: Annotated[list[Uid], AfterValidator(_unique_uids)] = Field(default_factory=list)
    moderators: Annotated[list[Uid], AfterValidator(_unique_uids)] = Field(default_factory=list)
    participants: Annotated[list[Uid], AfterValidator(_unique_uids)] = Field(default_factory=list)
    usersToBan: Annotated[list[Uid], AfterValidator(_unique_uids)] = Field(default_factory=list)

    @model_validator(mode="after")
    def _bounded(self) -> GroupMembersBody:
        total = len(self.admins) + len(self.moderators) + len(self.participants) + len(self.usersToBan)
        if total == 0:
            raise PydanticCustomError(
                "empty", "name at least one uid in admins, moderators, participants or usersToBan", {}
            )
        if total > 25:
            raise PydanticCustomError("too_many", "at most 25 uids per call across all scopes, not {n}", {"n": total})
        return self


class GroupCreate(StrictModel):
    """``POST /groups``."""

    guid: Uid
    name: str = Field(min_length=1, max_length=100)
    type: Literal["public", "private", "password"] = "public"
    password: str | None = None
    icon: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    owner: Uid | None = None
    tags: Tags | None = None
    members: GroupMembersBody | None = None

    @model_validator(mode="after")
    def _password(self) -> GroupCreate:
        if self.type == "password" and not self.password:
            raise PydanticCustomError("password_required", "a password group needs a password", {})
        return self


class GroupUpdate(StrictModel):
    """``PUT /groups/{guid}``; a new ``owner`` transfers ownership (to a member)."""

    name: str | None = Field(None, min_length=1, max_length=100)
    description: str | None = None
    icon: str | None = None
    metadata: dict[str, Any] | None = None
    owner: Uid | None = None
    tags: Tags | None = None


class ScopeChange(StrictModel):
    scope: Literal["admin", "moderator", "participant"]


class _Submit(BaseModel):
    model_config = ConfigDict(strict=True)

    submitElement: ButtonElement


def interactive_problems(message_type: str, data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Problems of an interactive message's ``formFields`` (and ``submitElement``), as ``(path, message)`` pairs
    with paths from ``data``. A ``form`` must have formFields; other interactive types are checked if they do."""
    from pydantic import ValidationError

    found = form_fields_of(data)
    if found is None:
        if message_type == "form":
            return [(("interactiveData", "formFields"), "is required for an interactive form")]
        return []
    where, value = found
    out: list[tuple[tuple[str | int, ...], str]] = []
    try:
        FormFields.model_validate({"formFields": value})
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])[1:]
            # drop the union tag pydantic inserts after the index ("[0].button.action...")
            if len(loc) >= 2 and isinstance(loc[0], int) and loc[1] in ELEMENT_TYPES:
                loc = (loc[0], *loc[2:])
            loc = tuple(p for p in loc if p not in BUTTON_ACTION_TYPES)
            out.append(((*where, *loc), str(err["msg"])))
    inner = data.get("interactiveData")
    if isinstance(inner, dict) and "submitElement" in inner:
        try:
            _Submit.model_validate({"submitElement": inner["submitElement"]})
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                out.append((("interactiveData", *tuple(err["loc"])), str(err["msg"])))
    return out
