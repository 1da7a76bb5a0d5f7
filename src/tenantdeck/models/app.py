"""Apps and their extension switches."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from tenantdeck.models import catalog
from tenantdeck.models.base import AppName, HeldAppName, StrictModel
from tenantdeck.models.extension_settings import ExtensionSettings
from tenantdeck.models.secrets import secret_fields
from tenantdeck.models.sms import SmsSettings
from tenantdeck.models.team import Team
from tenantdeck.models.webhook import Webhook, _unique
from tenantdeck.models.widget import WidgetDraft
from tenantdeck.textsafe import shown

Region = Literal["us", "eu", "in"]


def _printable_key(value: str) -> str:
    if shown(value) != value:  # a control or bidi character: the sandbox refuses it, a terminal would act on it
        raise PydanticCustomError("setting_key", "must not contain control or bidi characters", {})
    return value


#: a setting's key as the service names it (``core.conversations.updateOnReplies``): no spaces, not empty
SettingKey = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^\S+$"),
                       AfterValidator(_printable_key)]
#: what the service reports: a boolean (settable) or a list of strings (reported, not settable through the API)
SettingValue = bool | list[str]
_KEY: TypeAdapter[str] = TypeAdapter(SettingKey)
_VALUE: TypeAdapter[Any] = TypeAdapter(SettingValue, config=ConfigDict(strict=True))
_JSON_KINDS = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}


def setting_refused(key: str, value: Any) -> str | None:
    """Why a draft may not hold ``key: value`` in an app's ``settings``, or None: the one rule validation and pull
    share (pull keeps such a setting as the service holds it, ``core.limits.maxGroupSize: 100``, instead of failing
    the whole account). The reason names no data: the caller shows the key, escaped."""
    try:
        _KEY.validate_python(key)
    except ValidationError:
        return "the key is not 1 to 200 characters without spaces or control characters"
    try:
        _VALUE.validate_python(value)
    except ValidationError:
        what = "null" if value is None else _JSON_KINDS.get(type(value), "a value")
        return f"holds {'a list with an item that is not text' if what == 'a list' else what}, not true/false or a " \
            "list of text"
    known = catalog.APP_SETTING_BY_KEY.get(key)
    if known is not None and known.settable and not isinstance(value, bool):
        return "holds a list, not true or false (the service documents it as a switch)"
    return None
ExtensionId = Literal[catalog.EXTENSION_IDS]  # type: ignore[valid-type]
ExtensionList = Annotated[list[ExtensionId], AfterValidator(_unique)]  # type: ignore[valid-type]


class AppCreate(StrictModel):
    """Body of ``POST /apps``."""

    name: AppName = Field(description="App name, at most 100 characters")
    region: Region = Field(description="Data region: us, eu or in")
    version: Literal["3"] = Field("3", description='App version: the string "3" (the only one offered)')
    skipSampleData: bool | None = Field(None, description="Create the app without sample users and groups")


class Extensions(StrictModel):
    """Which extensions this app enables and disables.

    Leaving the block out means "not managed here": the tool then does not know the app's extension state, and
    toggles that need an extension only get a warning.
    """

    enabled: ExtensionList = Field(default_factory=list, description="Extension ids to enable")
    disabled: ExtensionList = Field(default_factory=list, description="Extension ids to disable")


def _certificate_path(suffix: str) -> Any:
    def check(value: str) -> str:
        if "\n" in value or "\r" in value or not value.strip():
            raise PydanticCustomError("certificate_path", "must be the path of one file", {})
        if not value.lower().endswith(suffix):
            raise PydanticCustomError("certificate_path", "must name a {suffix} file, not {value}",
                                      {"suffix": suffix, "value": repr(value[-60:])})
        return value

    return AfterValidator(check)


class PushCertificates(StrictModel):
    """The APNs certificates of the push-notification extension, by the path of their file (relative to the
    draft's folder, or absolute). The file's content is never in the draft: push uploads it when its fingerprint
    changed since the last push, and the service only says whether it holds one (query-certificates)."""

    p12: Annotated[str, _certificate_path(".p12")] | None = Field(
        None, title="APNs .p12 certificate", description="Path of the .p12 certificate file")
    p8: Annotated[str, _certificate_path(".p8")] | None = Field(
        None, title="APNs .p8 key", description="Path of the .p8 key file (it never expires)")


#: a label's key and value: short, one line, no spaces in the key (``tier``, ``customer``)
LabelKey = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")]
LabelValue = Annotated[str, StringConstraints(max_length=100, pattern=r"^[^\n\r\t]*$")]


class App(StrictModel):
    """One tenant app and everything tenantdeck manages in it."""

    id: str | None = Field(None, description="appId on the service; absent = to be created")
    name: HeldAppName = Field(
        title="App name",
        description="App name, at most 100 characters (a longer one the service holds is kept, with a warning)",
    )
    region: Region = Field(title="Region", description="Data region: us, eu or in")
    version: Literal["3"] = Field("3", title="App version", description='App version: the string "3"')
    labels: dict[LabelKey, LabelValue] | None = Field(
        None, description="Your own labels (tier: gold, customer: acme) that fleet policies select apps by "
        "(<draft>.policies.yaml); never sent to the service, kept by pull")
    extensions: Extensions | None = Field(None, description="Extensions enabled and disabled in this app")
    widgets: list[WidgetDraft] = Field(
        default_factory=list, max_length=catalog.WIDGETS_PER_APP, description="Chat widgets v2 (at most 25)"
    )
    sms: SmsSettings | None = Field(None, description="SMS notification settings")
    webhooks: list[Webhook] = Field(
        default_factory=list, max_length=catalog.WEBHOOKS_PER_APP, description="Webhooks (at most 25)"
    )
    team: Team | None = Field(
        None, description="Admins and moderators by email; left out: the service's team is not managed here"
    )
    extension_settings: ExtensionSettings | None = Field(  # type: ignore[valid-type]
        None, description="Each extension's settings by extension id (profanity-filter, push-notification, ...): "
        "only the extensions written here are managed; secrets are ${ENV_VAR} references"
    )
    push_certificates: PushCertificates | None = Field(
        None, description="APNs certificate files (p12, p8) uploaded to the push-notification extension; left out: "
        "not managed here"
    )
    settings: dict[SettingKey, SettingValue] | None = Field(
        None, description="App settings by the service's key (core.conversations.*, core.notifications.push.*): "
        "only the keys written here are managed; booleans can be changed, lists are the service's (shown, kept)"
    )


@dataclass(frozen=True, slots=True)
class SecretField:
    """One secret field of a draft app, found from the models' ``SECRET`` marks (:func:`app_secret_fields`).

    ``section`` is the :class:`App` field that holds it (``sms``, ``webhooks``, ``extension_settings``), ``keyed``
    says the section is a list of objects with ids (a plan then names the field with the object's id:
    ``webhooks.<id>.password``). ``via`` is the way down from the section to the model that holds it, as (attribute,
    draft key) pairs: ``extension_settings.push-notification.fcmCredentials.private_key`` goes through
    ``push_notification`` (key ``push-notification``) and ``fcmCredentials``.
    """

    section: str
    name: str
    model: type[BaseModel]
    keyed: bool
    via: tuple[tuple[str, str], ...] = ()

    def field(self, rid: str = "") -> str:
        """How a plan names it: ``sms.twilioAuthToken``, ``webhooks.<id>.password``."""
        if self.keyed:
            return f"{self.section}.{rid}.{self.name}"
        return ".".join((self.section, *(key for _, key in self.via), self.name))

    def locate(self, app: App, rid: str = "") -> tuple[Any, tuple[str | int, ...]] | None:
        """(the draft's value, its key path inside the app), or None when the app has no such object."""
        holder = getattr(app, self.section)
        if not self.keyed:
            for attr, _ in self.via:
                holder = getattr(holder, attr, None) if holder is not None else None
            path = (self.section, *(key for _, key in self.via), self.name)
            return (getattr(holder, self.name) if holder is not None else None), path
        for j, item in enumerate(holder):
            if item.id == rid:
                return getattr(item, self.name), (self.section, j, self.name)
        return None


def app_secret_fields() -> tuple[SecretField, ...]:
    """Every secret field a draft app can hold, each once: read off the ``SECRET`` marks of the models that
    :class:`App`'s fields hold (``SmsSettings.twilioAuthToken``, ``Webhook.password``, each extension's API keys,
    nested ones such as push-notification's ``fcmCredentials.private_key`` included). Placeholders, preflight, the
    push's live reads and the draft's messages all ask this; none spells a secret's name."""
    if not _SECRET_FIELDS:
        for section, info in App.model_fields.items():
            for tp in _arms(info.annotation):
                keyed = typing.get_origin(tp) is list
                model = typing.get_args(tp)[0] if keyed else tp
                if _is_model(model):
                    _SECRET_FIELDS.extend(_secrets_below(section, model, keyed, ()))
    return tuple(_SECRET_FIELDS)


def _arms(annotation: Any) -> tuple[Any, ...]:
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return typing.get_args(annotation) if union else (annotation,)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _secrets_below(section: str, model: type[BaseModel], keyed: bool,
                   via: tuple[tuple[str, str], ...]) -> list[SecretField]:
    found = [SecretField(section, name, model, keyed, via) for name in secret_fields(model)]
    if keyed:
        return found
    for attr, info in model.model_fields.items():
        for tp in _arms(info.annotation):
            if _is_model(tp):
                found.extend(_secrets_below(section, tp, False, (*via, (attr, info.alias or attr))))
    return found


_SECRET_FIELDS: list[SecretField] = []


def app_secret_values(app: App) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path inside the app, value) of every secret ``app`` writes, in every section the models mark one
    (``sms.twilioAuthToken``, ``webhooks[2].password``, ``extension_settings.gifs-giphy.giphyApiKey``): what the
    literal-secret warning and pull's note about a replaced literal both walk. Only the sections and extensions
    the app writes are looked at (it runs for every app the rules check)."""
    by_holder = _secrets_by_holder()
    for section in ("sms", "webhooks", "extension_settings"):
        holder = getattr(app, section)
        if not holder:
            continue
        keys = holder.model_fields_set if section == "extension_settings" else ("",)
        for key in keys:
            for found in by_holder.get((section, key), ()):
                yield from _values_of(found, app)
    for found in by_holder.get(("", ""), ()):
        yield from _values_of(found, app)


def _values_of(found: SecretField, app: App) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if found.keyed:
        for j, item in enumerate(getattr(app, found.section)):
            value = getattr(item, found.name)
            if isinstance(value, str):
                yield (found.section, j, found.name), value
        return
    located = found.locate(app)
    if located is not None and isinstance(located[0], str):
        yield located[1], located[0]


@functools.cache
def _secrets_by_holder() -> dict[tuple[str, str], tuple[SecretField, ...]]:
    """:func:`app_secret_fields` by (section, extension attribute) for ``extension_settings``, (section, "") for
    ``sms`` and ``webhooks``, ("", "") for any other section (walked always)."""
    out: dict[tuple[str, str], list[SecretField]] = {}
    for found in app_secret_fields():
        if found.section == "extension_settings":
            key = (found.section, found.via[0][0])
        else:
            key = (found.section, "") if found.section in ("sms", "webhooks") else ("", "")
        out.setdefault(key, []).append(found)
    return {key: tuple(fields) for key, fields in out.items()}


def secret_field_of(field: str) -> tuple[SecretField, str] | None:
    """The secret a plan's field path names, and the object id in it (``""`` when unkeyed); None: not a secret."""
    for found in app_secret_fields():
        head, _, rest = field.partition(".")
        if head != found.section:
            continue
        if found.keyed:
            rid, _, name = rest.rpartition(".")
            if rid and name == found.name:
                return found, rid
        elif field == found.field():
            return found, ""
    return None
