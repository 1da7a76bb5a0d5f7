"""Pydantic models of each extension's settings, built from the catalog (:mod:`tenantdeck.models.extension_catalog`).

Two models per extension come from one entry: the draft's (:func:`draft_model`: a secret is a ``${VAR}``
reference, marked :class:`~tenantdeck.models.secrets.Secret`) and the request's (:func:`request_model`: what the
API takes, a secret in clear; the sandbox validates with it). Nothing here names a field: a new catalog entry gets
its models, its JSON Schema, its labels (``title``) and its checks without an edit.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    create_model,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tenantdeck.models.base import StrictModel
from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS, EXTENSIONS, ExtensionSpec, Setting
from tenantdeck.models.secrets import Secret, SecretValue


def _number(setting: Setting) -> BeforeValidator:
    """Accept an int or a float, nothing else (not a bool, not "60"), reported at the field itself."""
    what = f"a number of {setting.unit}" if setting.unit else "a number"
    example = setting.default if isinstance(setting.default, int | float) else 60

    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise PydanticCustomError("number_type", "must be {what}, such as {example}",
                                      {"what": what, "example": example})
        return value

    return BeforeValidator(check)


def _regex(value: str) -> str:
    """A mask's pattern must compile: the service would otherwise drop it (or every message) at run time."""
    try:
        re.compile(value)
    except re.error as exc:
        raise PydanticCustomError("regex", "is not a valid regular expression: {why}", {"why": str(exc)}) from None
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be empty", {})
    return value


class _OpenModel(StrictModel):
    """Objects the service may extend (a sticker): fields the catalog does not list are kept, not refused."""

    model_config = ConfigDict(extra="allow")


def _class_name(*parts: str) -> str:
    return "".join(p[:1].upper() + p[1:] for part in parts for p in re.split(r"[-_]", part) if p)


def _annotation(setting: Setting, owner: str, *, wire: bool) -> Any:
    """The field's type, checked against the setting's bounds by :meth:`Setting.check` (the one message style)."""
    annotation = _type_of(setting, owner, wire=wire)
    if not setting.limits():
        return annotation
    return Annotated[annotation, AfterValidator(_bounds(setting))]


#: the JSON Schema keywords of a setting's bounds, by its type: (lower, upper)
_SCHEMA_BOUNDS = {"integer": ("minimum", "maximum"), "number": ("minimum", "maximum"),
                  "string": ("minLength", "maxLength"), "strings": ("minItems", "maxItems"),
                  "objects": ("minItems", "maxItems"), "mapping": ("minProperties", "maxProperties")}


def _schema_bounds(setting: Setting) -> dict[str, float]:
    """The bounds :meth:`Setting.check` enforces, said in the JSON Schema too (an editor warns as one types)."""
    names = _SCHEMA_BOUNDS.get(setting.type)
    if names is None:
        return {}
    numeric = setting.type in ("integer", "number")
    low, high = (setting.minimum, setting.maximum) if numeric else (setting.min_length, setting.max_length)
    return {name: bound for name, bound in zip(names, (low, high), strict=True) if bound is not None}


def _bounds(setting: Setting) -> Any:
    def check(value: Any) -> Any:
        why = setting.check(value)
        if why is not None:
            raise PydanticCustomError("setting_bounds", "{why}", {"why": why})
        return value

    return check


def _type_of(setting: Setting, owner: str, *, wire: bool) -> Any:
    kind = setting.type
    if kind == "bool":
        return bool
    if kind == "integer":
        return Literal[setting.choice_values] if setting.choices else int  # type: ignore[valid-type]
    if kind == "number":
        return Annotated[int | float, _number(setting)]
    if kind == "string":
        if setting.secret:
            return str if wire else SecretValue  # marked Secret by _field, around the optional too
        checks = [AfterValidator(_regex)] if setting.regex else []
        if setting.required:
            checks.append(AfterValidator(_not_blank))
        text = Annotated[str, *checks] if checks else str
        return text | int if setting.int_id else text  # strict: a bool is not an id; the type sent is kept
    if kind == "strings":
        return list[str]
    if kind == "mapping":
        return dict[str, str]
    model = _object_model(setting, owner, wire=wire)
    return model if kind == "object" else list[model]  # type: ignore[valid-type]


def _field(setting: Setting, owner: str, *, wire: bool) -> tuple[Any, Any]:
    annotation = _annotation(setting, owner, wire=wire)
    extra = {"default": setting.default} if setting.default not in (None, ()) else {}
    extra.update(_schema_bounds(setting))
    info = Field(title=setting.label, description=setting.description or setting.label, json_schema_extra=extra)
    if not setting.required:
        annotation = annotation | None
        info = Field(None, title=setting.label, description=setting.description or setting.label,
                     json_schema_extra=extra)
    if setting.secret and not wire:
        annotation = Annotated[annotation, Secret(setting.secret)]
    return annotation, info


def _object_model(setting: Setting, owner: str, *, wire: bool) -> type[StrictModel]:
    base = _OpenModel if setting.open else StrictModel
    fields = {f.key: _field(f, owner, wire=wire) for f in setting.fields}
    name = _class_name(owner, setting.key, "Request" if wire else "")
    return create_model(name, __base__=base, __doc__=setting.description or setting.label, **fields)  # type: ignore[call-overload,no-any-return]


def _requirements_check(spec: ExtensionSpec) -> Any:
    """A model validator that says which field a switch made required (``fcmCredentials`` when the provider is
    FCM), named by the field that is missing."""

    def check(model: Any) -> Any:
        said = []
        for rule in spec.requirements:
            value = getattr(model, rule.when, None)
            missing = [name for name in rule.then if getattr(model, name, None) in (None, "")] \
                if value in rule.values else []
            if missing:
                verb = " are" if len(missing) > 1 else " is"
                said.append(f"{' and '.join(missing)}{verb} required because {rule.why} ({rule.when}: {value!r})")
        if said:
            raise PydanticCustomError("required_when", "{said}", {"said": "; ".join(said)})
        return model

    return model_validator(mode="after")(check)


@cache
def draft_model(ext_id: str) -> type[StrictModel]:
    """The draft's model of ``ext_id``'s settings (secrets as ``${VAR}``)."""
    return _model(BY_ID[ext_id], wire=False)


@cache
def request_model(ext_id: str) -> type[StrictModel]:
    """The model of what the API takes for ``ext_id`` (secrets in clear; the removal fields, such as data-masking's
    ``deleteCustomRegexData``, included): the sandbox validates requests with it."""
    return _model(BY_ID[ext_id], wire=True)


def _model(spec: ExtensionSpec, *, wire: bool) -> type[StrictModel]:
    fields: dict[str, Any] = {s.key: _field(s, spec.id, wire=wire) for s in spec.settings}
    if wire:
        for _, removal in spec.removals:
            fields[removal] = (list[str | int], Field(title="Ids to remove", description="Ids of items to remove "
                                                      "(a string or an integer, as the item's id is held)"))
    validators = {"check_requirements": _requirements_check(spec)} if spec.requirements else {}
    name = _class_name(spec.id, "Request" if wire else "Settings")
    return create_model(  # type: ignore[call-overload,no-any-return]
        name, __base__=StrictModel, __doc__=f"{spec.name} settings ({spec.path})", __validators__=validators,
        **fields)


def _refuse(message: str) -> Any:
    def refuse(value: object) -> object:
        if value is None:
            return None  # not written (a dump of the block writes every key)
        raise PydanticCustomError("not_here", message, {})

    return BeforeValidator(refuse)


def _attr(ext_id: str) -> str:
    return ext_id.replace("-", "_")


class _ById(StrictModel):
    """Dumps under the extension ids (``profanity-filter``), the draft's and the API's keys, whatever the caller
    asks: a draft saved with a plain ``model_dump`` must not turn them into Python names (``profanity_filter``)."""

    @model_serializer(mode="wrap")
    def _by_id(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {_ID_OF.get(key, key): value for key, value in data.items()} if isinstance(data, dict) else data


_ID_OF: dict[str, str] = {ext.replace("-", "_"): ext for ext in BY_ID}


def _extension_settings_model() -> type[StrictModel]:
    fields: dict[str, Any] = {
        _attr(ext): (draft_model(ext) | None, Field(None, alias=ext, title=BY_ID[ext].name,
                                                    description=f"{BY_ID[ext].name} settings"))
        for ext in DRAFT_EXTENSIONS
    }
    for spec in EXTENSIONS:
        if spec.id in DRAFT_EXTENSIONS:
            continue
        why = (f"the vendor publishes no settings schema for {spec.name}; configure it in the dashboard"
               if spec.id != "sms-notification" else
               "SMS settings are the app's `sms` block, not an extension_settings entry")
        fields[_attr(spec.id)] = (Annotated[Any, _refuse(why)], Field(None, alias=spec.id,
                                                                         json_schema_extra={"not": {}}))
    return create_model(  # type: ignore[call-overload,no-any-return]
        "ExtensionSettings", __base__=_ById,
        __doc__="Each extension's settings by extension id; an extension left out is not managed here", **fields)


#: An app's ``extension_settings`` block: one optional entry per extension id (the id is the key, as in the API).
ExtensionSettings = _extension_settings_model()
#: The legacy SMS extension's settings, from the same catalog (a draft keeps them under the app's ``sms`` key).
SmsSettings = draft_model("sms-notification")


def settings_of(block: StrictModel | None) -> dict[str, dict[str, Any]]:
    """``extension_settings`` as ``{ext id: settings}`` (plain data, unset fields left out)."""
    if block is None:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for ext in DRAFT_EXTENSIONS:
        value = getattr(block, _attr(ext))
        if value is not None:
            out[ext] = value.model_dump(exclude_none=True)
    return out

