"""The one place where request bodies meet ``tenantdeck.models``.

The sandbox validates with the very models the draft uses, so "valid draft" and "accepted by the sandbox" cannot
drift apart. Routes call the ``parse_*`` functions here and get plain, normalised documents back (or an
:class:`~tenantdeck.sandbox.errors.ApiError` 422 whose ``details`` map field paths to messages). On top of the
models this module adds only what a *server* must refuse but a draft may hold: unresolved ``${VAR}`` secret
references, mismatched ids, unknown extension ids reported with the API's own code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from tenantdeck.jsonlimits import EXTENSION_SETTINGS_MAX_BYTES, json_size
from tenantdeck.models import AppCreate, Extensions, SmsSettings, WebhookBody, WidgetSettings, catalog
from tenantdeck.models.extension_catalog import EXTENSIONS, ExtensionSpec, Setting
from tenantdeck.models.extension_settings import request_model
from tenantdeck.models.secrets import check_secret, is_reference, secret_fields
from tenantdeck.rules import webhook_id_breaks_rule, webhook_name_breaks_rule, widget_value_breaks_rule
from tenantdeck.sandbox import errors
from tenantdeck.sandbox.store import KEEP_PASSWORD
from tenantdeck.textsafe import shown

TRIGGER_IDS: frozenset[str] = frozenset(catalog.TRIGGER_IDS)
EXTENSION_IDS: tuple[str, ...] = tuple(catalog.EXTENSION_IDS)
WIDGETS_PER_APP: int = catalog.WIDGETS_PER_APP
WEBHOOKS_PER_APP: int = catalog.WEBHOOKS_PER_APP
#: collaborators of one app, its owner included (facts §3.4, "25 collaborators per app" [V PC])
COLLABORATORS_PER_APP: int = catalog.TEAM_PER_APP

M = TypeVar("M", bound=BaseModel)



def _secret_keys(settings: tuple[Setting, ...]) -> set[str]:
    """The keys of the catalog's secret settings, nested ones included (``fcmCredentials.private_key``)."""
    return {s.key for s in settings if s.secret} | {k for s in settings for k in _secret_keys(s.fields)}


#: Fields whose values must never appear in an error message (the models mark them: ``models.secrets.Secret``).
SECRET_FIELDS = frozenset(name for model in (SmsSettings, WebhookBody) for name in secret_fields(model))
#: What validation messages are scrubbed of: :data:`SECRET_FIELDS` and every secret of the extension catalog, at any
#: depth (``fcmCredentials.private_key``). Matched by name wherever such a key occurs in a body, so a nested secret
#: is covered too; a name that is a secret somewhere is scrubbed everywhere, which only ever hides more.
SCRUBBED_FIELDS = SECRET_FIELDS | frozenset(key for spec in EXTENSIONS for key in _secret_keys(spec.settings))


def _path(prefix: tuple[str | int, ...], loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in (*prefix, *loc):
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "body"


def _secret_values(data: Any) -> set[str]:
    """Every string held under a :data:`SCRUBBED_FIELDS` key anywhere in ``data``: what no message may repeat."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in SCRUBBED_FIELDS and isinstance(value, str) and value:
                found.add(value)
            else:
                found |= _secret_values(value)
    elif isinstance(data, list):
        for item in data:
            found |= _secret_values(item)
    return found


def _scrub(message: str, secrets: set[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):  # the longest first: one secret may contain another
        message = message.replace(value, "***")
    return message


def _details(exc: ValidationError, prefix: tuple[str | int, ...], data: Any = None) -> dict[str, list[str]]:
    """pydantic errors -> ``{field path: [messages]}``; the body's secret values are scrubbed from every message
    (not only the secret field's own: a model-level message may quote any value)."""
    secrets = _secret_values(data)
    details: dict[str, list[str]] = {}
    for err in exc.errors(include_url=False, include_input=True):
        loc = tuple(err.get("loc", ()))
        message = str(err.get("msg", "invalid"))
        value = err.get("input")
        if loc and loc[-1] in SCRUBBED_FIELDS and isinstance(value, str) and value:
            secrets.add(value)
        details.setdefault(_path(prefix, loc), []).append(_scrub(message, secrets))
    return details


def _validate(model: type[M], data: Any, prefix: tuple[str | int, ...]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise errors.validation_error(_details(exc, prefix, data)) from None


def _refuse_unresolved(doc: dict[str, Any], prefix: tuple[str, ...]) -> None:
    """A ``${VAR}`` reaching the server means the client forgot to resolve a secret; storing it would be silent."""
    details = {
        _path(prefix, (key,)): ["is an unresolved ${...} reference; resolve secrets before sending them"]
        for key in SECRET_FIELDS
        if isinstance(doc.get(key), str) and is_reference(doc[key])
    }
    if details:
        raise errors.validation_error(details)


def _object(data: Any, path: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise errors.validation_error({path: ["must be a JSON object"]})
    return data


def _settings_of(body: Any) -> dict[str, Any]:
    """The ``settings`` object of an extension-settings body, which must be ``{"settings": {...}}`` exactly."""
    body = _object(body, "body")
    extra = sorted(set(body) - {"settings"})
    if extra:
        raise errors.validation_error({k: ['unknown key; the body is {"settings": {...}}'] for k in extra})
    if "settings" not in body:
        raise errors.validation_error({"settings": ["is required"]})
    return dict(_object(body["settings"], "settings"))


def parse_app_create(body: Any) -> AppCreate:
    return _validate(AppCreate, _object(body, "body"), ())


def parse_widget(
    body: Any, app_id: str, *, update: bool, stored: Callable[[str], dict[str, Any] | None] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """Widget create/update body -> (widgetId for updates, configuration to store).

    ``settings.widgetId`` is required on update and refused on create; ``settings.appId`` (present in what GET
    returns, so a client may echo it) is accepted when it names this app and then dropped. ``stored(widgetId)``
    gives an updated widget's stored configuration: a value outside the documented rules (a listing value, a
    long name) that it already holds may be sent back unchanged, as on the real service; a new one is refused.
    """
    settings = _settings_of(body)
    widget_id = settings.pop("widgetId", None)
    if update and not (isinstance(widget_id, str) and widget_id):
        raise errors.validation_error({"settings.widgetId": ["is required (a string) when updating a widget"]})
    if not update and widget_id is not None:
        raise errors.validation_error({"settings.widgetId": ["must not be sent when creating a widget"]})
    if "appId" in settings and settings.pop("appId") != app_id:
        raise errors.validation_error({"settings.appId": ["does not match the app in the path"]})
    held = (stored(widget_id) if update and stored is not None and isinstance(widget_id, str) else None) or {}
    kept = _leaves(held)
    sent_back: dict[str, Any] = {}
    try:
        model = WidgetSettings.model_validate(settings)
    except ValidationError as exc:  # one validation on the common path; a second only when values were set aside
        settings, sent_back = _held_values_aside(settings, kept, exc)
        model = _validate(WidgetSettings, settings, ("settings",))  # still refused: the located 422
    doc = _with_leaves(model.model_dump(mode="json", exclude_none=True), sent_back)
    if update and not held:
        return widget_id, doc  # an unknown widget: the store answers 404
    details = {
        f"settings.{path}": [why]
        for path, value in _leaves(doc).items()
        if kept.get(path) != value and (why := widget_value_breaks_rule(path, value)) is not None
    }
    if details:
        raise errors.validation_error(details)
    return widget_id, doc


def _held_values_aside(settings: dict[str, Any], kept: dict[str, Any],
                       exc: ValidationError) -> tuple[dict[str, Any], dict[str, Any]]:
    """``settings`` without the values the model refused (``exc``) that the widget already holds, and those values
    by path.

    The real service holds what its dashboard wrote (a colour such as ``red; background:url(...)``); a
    whole-object update sends it back as it is, and must not be refused for it: a trial found that one such value
    made every later change to the widget fail with 422, push after push. A refused value that is new, or a held
    one that was changed, is still refused."""
    refused = {".".join(str(p) for p in err.get("loc", ())) for err in exc.errors(include_url=False)}
    aside = {path: value for path, value in _leaves(settings).items() if path in refused and path in kept
             and kept[path] == value}
    if not aside:
        return settings, {}
    rest = _leaves(settings)
    for path in aside:
        rest.pop(path)
    return _with_leaves({}, rest), aside


def _with_leaves(doc: dict[str, Any], leaves: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with each dotted ``path: value`` of ``leaves`` set (the inverse of :func:`_leaves`)."""
    out = {key: dict(value) if isinstance(value, dict) else value for key, value in doc.items()}
    for path, value in leaves.items():
        *parents, last = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _leaves(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"sidebar": {"user_listing": x}}`` -> ``{"sidebar.user_listing": x}`` (the paths the rules name)."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            out.update(_leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@dataclass(frozen=True, slots=True)
class ExtensionWrite:
    """A checked extension-settings body: the ``settings`` to store (removal fields taken out) and, per list
    setting the spec removes by id, the ids to remove (data-masking's ``deleteCustomRegexData``)."""

    settings: dict[str, Any]
    removals: dict[str, list[str | int]]


def parse_extension_settings(spec: ExtensionSpec, body: Any, stored: dict[str, Any] | None = None) -> ExtensionWrite:
    """``{"settings": {...}}`` for ``spec``'s ``/v1/settings``, validated with the catalog's request model.

    On top of the model, as a server must: a secret may be neither empty nor an unresolved (or broken) ``${VAR}``
    reference; a list removed by id may not name one id twice nor send an id it also removes; the document is at
    most :data:`~tenantdeck.jsonlimits.EXTENSION_SETTINGS_MAX_BYTES`. ``settings.appId`` (the GET reports it,
    and the vendor's own push-notification request example sends one) is accepted as a string and dropped: the
    app is the path's. Messages never repeat a secret value (:func:`_details`). A key the catalog does not know
    is refused unless ``stored`` (what the app holds) has it with the same value: the real service holds what
    others wrote, and a whole-object update sends it back as it is (docs/real-service.md §9).
    """
    settings = _settings_of(body)
    if "appId" in settings and not isinstance(settings.pop("appId"), str):
        raise errors.validation_error({"settings.appId": ["must be a string (it is ignored: the path names the app)"]})
    settings, held = _held_extras(spec.settings, settings, stored or {})
    doc = _validate(request_model(spec.id), settings, ("settings",)).model_dump(mode="json", exclude_none=True)
    doc = _with_extras(doc, held)
    details = {path: [why] for path, why in _secret_problems(spec.settings, doc, "settings")}
    removals: dict[str, list[str | int]] = {}
    for list_key, removal_key in spec.removals:
        ids = removals[list_key] = list(dict.fromkeys(doc.pop(removal_key, [])))
        seen: dict[str | int, int] = {}
        for i, item in enumerate(doc.get(list_key) or []):
            item_id = item.get("id") if isinstance(item, dict) else None
            if item_id in seen:
                details[f"settings.{list_key}[{i}].id"] = [f"is also the id of item {seen[item_id]}; ids are unique"]
            elif item_id in ids:
                details[f"settings.{list_key}[{i}].id"] = [f"is also in {removal_key}: keep it or remove it"]
            if isinstance(item_id, str | int) and not isinstance(item_id, bool):
                seen.setdefault(item_id, i)
    if details:
        raise errors.validation_error(details)
    check_settings_size(doc)
    return ExtensionWrite(doc, removals)


def _held_extras(known: tuple[Setting, ...], sent: dict[str, Any],
                 stored: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``sent`` without the keys the catalog does not know that ``stored`` holds with the same value (in objects,
    not in lists), and those keys apart."""
    by_key = {s.key: s for s in known}
    stored = stored if isinstance(stored, dict) else {}
    rest: dict[str, Any] = {}
    held: dict[str, Any] = {}
    for key, value in sent.items():
        setting = by_key.get(key)
        if setting is None and key in stored and stored[key] == value:
            held[key] = value
        elif setting is not None and setting.type == "object" and isinstance(value, dict):
            rest[key], inner = _held_extras(setting.fields, value, stored.get(key))
            if inner:
                held[key] = inner
        else:
            rest[key] = value
    return rest, held


def _with_extras(doc: dict[str, Any], held: dict[str, Any]) -> dict[str, Any]:
    for key, value in held.items():
        doc[key] = _with_extras(dict(doc.get(key) or {}), value) if isinstance(doc.get(key), dict) else value
    return doc


def check_settings_size(doc: dict[str, Any]) -> None:
    """422 when ``doc`` (a whole settings document, as stored) is over the per-extension bound."""
    size = json_size(doc)
    if size > EXTENSION_SETTINGS_MAX_BYTES:
        raise errors.validation_error(
            {"settings": [f"would hold {size} bytes; an extension's settings hold at most "
                          f"{EXTENSION_SETTINGS_MAX_BYTES} bytes of JSON"]}
        )  # fmt: skip


def _secret_problems(settings: tuple[Setting, ...], doc: Any, path: str) -> list[tuple[str, str]]:
    """(path, why) for each secret in ``doc`` that is empty or a ``${VAR}`` reference, following the catalog's
    nesting (an ``object`` setting's fields, each item of an ``objects`` list). Never quotes the value."""
    if not isinstance(doc, dict):
        return []
    out: list[tuple[str, str]] = []
    for setting in settings:
        value, here = doc.get(setting.key), f"{path}.{setting.key}"
        if setting.secret and isinstance(value, str):
            if not value:
                out.append((here, "must not be empty"))
            elif is_reference(value):
                out.append((here, "is an unresolved ${...} reference; resolve secrets before sending them"))
            else:
                try:
                    check_secret(value)
                except PydanticCustomError as exc:  # "looks like a broken environment reference": no value in it
                    out.append((here, exc.message()))
        elif setting.type == "object":
            out += _secret_problems(setting.fields, value, here)
        elif setting.type == "objects" and isinstance(value, list):
            for i, item in enumerate(value):
                out += _secret_problems(setting.fields, item, f"{here}[{i}]")
    return out


_KEPT_PASSWORD_STAND_IN = "StoredPassword"


def parse_webhook(
    body: Any, *, path_id: str | None = None, stored: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Any]:
    """Webhook create (``path_id`` None) or update body -> (document without password, password).

    On update the id comes from the path (a body ``id`` must match it), the body is laid over the ``stored``
    fields (an omitted field keeps its value), and an absent ``password`` key yields
    :data:`~tenantdeck.sandbox.store.KEEP_PASSWORD`: the API never returns write-only fields, so a client cannot
    be expected to echo them back.
    """
    data = dict(_object(body, "body"))
    if path_id is not None:
        if "id" in data and data["id"] != path_id:
            raise errors.validation_error({"id": ["does not match the webhook id in the path"]})
        data = {**(stored or {}), **data, "id": path_id}
    keep = path_id is not None and "password" not in data
    if keep:
        # Stand-in so the model's Basic Auth check passes; the store then checks a password really is stored.
        data["password"] = _KEPT_PASSWORD_STAND_IN
    model = _validate(WebhookBody, data, ())
    _documented_rules(model, body=data if path_id is None else dict(body), stored=stored)
    doc = model.model_dump(mode="json", exclude_none=True)
    _refuse_unresolved(doc, ())
    password = doc.pop("password", None)
    if path_id is None:
        doc = {**catalog.WEBHOOK_CREATE_DEFAULTS, **doc}  # the service's defaults for what a create leaves out
    return doc, (KEEP_PASSWORD if keep else password)


def _documented_rules(model: WebhookBody, *, body: dict[str, Any], stored: dict[str, Any] | None) -> None:
    """The documented id and name rules, for what is *sent*: a new webhook's id and name, a changed name.

    The model takes what the service may already hold (its own example id is ``test_webhook201``), so a webhook
    seeded or loaded that way can still be read and updated; only a value being set must follow the rules.
    """
    details: dict[str, list[str]] = {}
    if stored is None and (why := webhook_id_breaks_rule(model.id)) is not None:
        details["id"] = [why]
    name_sent = "name" in body and (stored is None or body["name"] != stored.get("name"))
    if name_sent and (why := webhook_name_breaks_rule(model.name)) is not None:
        details["name"] = [why]
    if details:
        raise errors.validation_error(details)


def parse_trigger_ids(body: Any) -> list[str]:
    """``{"triggerIds": [...]}``: a non-empty list of known trigger ids (duplicates collapse)."""
    body = _object(body, "body")
    extra = sorted(set(body) - {"triggerIds"})
    if extra:
        raise errors.validation_error({k: ['unknown key; the body is {"triggerIds": [...]}'] for k in extra})
    ids = body.get("triggerIds")
    if not isinstance(ids, list) or not ids:
        raise errors.validation_error({"triggerIds": ["is required: a non-empty list of trigger ids"]})
    details: dict[str, list[str]] = {}
    for i, trigger_id in enumerate(ids):
        if not isinstance(trigger_id, str):
            details[f"triggerIds[{i}]"] = ["must be a string"]
        elif trigger_id not in TRIGGER_IDS:
            details[f"triggerIds[{i}]"] = [f"unknown trigger id {trigger_id!r}"]
    if details:
        raise errors.validation_error(details)
    return list(dict.fromkeys(ids))


def parse_extension_toggle(body: Any) -> Extensions:
    """``{"enabled": [...], "disabled": [...]}``; unknown ids are a 404 ``ERR_EXTENSION_NOT_FOUND``, as on the API."""
    body = _object(body, "body")
    unknown: dict[str, list[str]] = {}
    for key in ("enabled", "disabled"):
        values = body.get(key)
        if isinstance(values, list):
            for i, ext_id in enumerate(values):
                if isinstance(ext_id, str) and ext_id not in EXTENSION_IDS:
                    unknown[f"{key}[{i}]"] = [f"no extension with id {ext_id!r}"]
    if unknown:
        raise errors.ApiError(
            404, errors.EXTENSION_NOT_FOUND, "One or more extension ids do not exist.", details=unknown
        )
    model = _validate(Extensions, body, ())
    both = sorted(set(model.enabled) & set(model.disabled))
    if both:
        raise errors.validation_error({"body": [f"{', '.join(both)}: listed as both enabled and disabled"]})
    return model


#: The body keys of add-collaborator, in the vendor OpenAPI's order, and the role each one gives (None: remove).
TEAM_LISTS: dict[str, str | None] = {"admins": "admin", "moderators": "moderator", "collaboratorsToRemove": None}

#: One address: the draft's rule for team emails (``catalog.EMAIL_PATTERN``).
_EMAIL = re.compile(catalog.EMAIL_PATTERN)
EMAIL_MAX: int = catalog.EMAIL_MAX


@dataclass(frozen=True, slots=True)
class TeamChange:
    """A checked add-collaborator body: emails per list, duplicates within a list dropped, order kept."""

    admins: list[str]
    moderators: list[str]
    remove: list[str]

    def roles(self) -> dict[str, str]:
        """email -> the role it is given (admins and moderators only)."""
        return {**dict.fromkeys(self.admins, "admin"), **dict.fromkeys(self.moderators, "moderator")}


def email_key(email: str) -> str:
    """How two addresses are compared: case-insensitively (``Ana@X.example`` is ``ana@x.example``)."""
    return email.casefold()


def parse_team_update(body: Any) -> TeamChange:
    """``{"admins": [...], "moderators": [...], "collaboratorsToRemove": [...]}``; every key optional.

    Refused with 422 ``ERR_BAD_REQUEST`` (nothing changes): an unknown key, a value that is not a list of
    strings, a string that is not an email address, an address in two lists. An address twice in one list counts
    once. Messages never repeat the value (it is data; the field path says which one).
    """
    body = _object(body, "body")
    extra = sorted(set(body) - set(TEAM_LISTS))
    if extra:
        keys = ", ".join(TEAM_LISTS)
        raise errors.validation_error({shown(k[:100]): [f"unknown key; the body's keys are {keys}"] for k in extra})
    details: dict[str, list[str]] = {}
    lists: dict[str, dict[str, tuple[int, str]]] = {}  # list -> email key -> (index in the body, email as sent)
    for key in TEAM_LISTS:
        values = body.get(key, [])
        if not isinstance(values, list):
            details[key] = ["must be a list of email addresses"]
            continue
        kept = lists[key] = {}
        for i, value in enumerate(values):
            if not isinstance(value, str):
                details[f"{key}[{i}]"] = ["must be a string"]
            elif len(value) > EMAIL_MAX or not _EMAIL.match(value) or shown(value) != value:  # no controls, no bidi
                details[f"{key}[{i}]"] = ["must be an email address, such as ana@example.com"]
            else:
                kept.setdefault(email_key(value), (i, value))
    if details:
        raise errors.validation_error(details)
    first_list: dict[str, str] = {}
    for key, kept in lists.items():
        for email, (i, _) in kept.items():
            first = first_list.setdefault(email, key)
            if first != key:
                details[f"{key}[{i}]"] = [f"is also in {first}; an address goes in one list"]
    if details:
        raise errors.validation_error(details)
    admins, moderators, remove = ([email for _, email in lists[key].values()] for key in TEAM_LISTS)
    return TeamChange(admins, moderators, remove)


#: The longest app-setting key the sandbox stores. The vendor documents none; its keys are dotted names of about
#: 40 characters (facts §3.5), and a bound keeps a sandbox left running from storing arbitrary text as keys.
SETTING_KEY_MAX = 200
#: The most settings one app may hold (the ten a fresh app reports included): any key is accepted (the vendor's
#: schema allows any), so without a bound repeated requests would grow an app's settings without end.
SETTINGS_PER_APP = 100


def parse_settings_update(body: Any) -> dict[str, bool]:
    """``{"settings": {key: bool}}`` (map-settings): the vendor's schema allows any key with a boolean value.

    Refused with 422 ``ERR_BAD_REQUEST`` (nothing changes): a body without ``settings`` or with other keys, a
    ``settings`` that is not an object, an empty key, a key longer than :data:`SETTING_KEY_MAX` or holding control
    or bidi characters (keys are dotted names; such a key would only ever be shown escaped), a value that is not a
    boolean. Messages name the key (cut and escaped: it is data), never the value."""
    body = _object(body, "body")
    extra = sorted(set(body) - {"settings"})
    if extra or "settings" not in body:
        raise errors.validation_error({"settings": ["the body is {\"settings\": {key: true|false}}"]})
    settings = body["settings"]
    if not isinstance(settings, dict):
        raise errors.validation_error({"settings": ["must be an object of key: true|false"]})
    details: dict[str, list[str]] = {}
    for key, value in settings.items():
        name = f"settings.{shown(key[:100])}"
        if not key.strip():
            details["settings"] = ["a key must not be empty"]
        elif len(key) > SETTING_KEY_MAX:
            details[name] = [f"a key is at most {SETTING_KEY_MAX} characters"]
        elif shown(key) != key:
            details[name] = ["a key must not hold control or bidi characters"]
        elif not isinstance(value, bool):
            details[name] = ["must be true or false"]
    if details:
        raise errors.validation_error(details)
    return dict(settings)


def request_schemas() -> dict[str, type[BaseModel]]:
    """Models whose JSON Schemas /openapi.json publishes as request bodies."""
    return {
        "AppCreate": AppCreate,
        "WidgetSettings": WidgetSettings,
        "SmsSettings": SmsSettings,
        **{request_model(spec.id).__name__: request_model(spec.id) for spec in EXTENSIONS if spec.documented},
        "WebhookBody": WebhookBody,
        "Extensions": Extensions,
    }
