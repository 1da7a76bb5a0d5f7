"""Canonical app state: one plain, JSON-able dict per app, built the same way from the draft and from the service.

Diffing, hashing and storing a base snapshot are only trustworthy when both sides are normalised identically, so
the normalisations live here, and each kind's module (:mod:`tenantdeck.sync.kinds`, ``from_draft`` beside
``from_remote``) applies them to its resources from both sides; the registry there assembles a whole app
(``canonical_app_from_draft``, ``canonical_app_from_remote``). This module imports no kind (the kinds import it):

* optional fields the service fills in when they are left out are filled from :mod:`tenantdeck.models.catalog`'s
  defaults on *both* sides, so "unset in the draft" and "default on the service" never show as a change;
* the spec's foreground default ``" #000000"`` (and any colour with stray spaces) becomes ``"#000000"``;
* server-only fields (``appId``, ``widgetId``, ``createdAt``, ``updatedAt``, unknown keys) are dropped;
* ``None`` values are dropped inside widget settings (the API body is written with ``exclude_none``);
* integral floats become ints (``60.0`` and ``60`` are the same delay);
* secrets become :data:`SecretState` dicts: a keyed fingerprint, the unresolved reference name, or "unknown".

A field the service did not return (a webhook's write-only ``useBasicAuth``, ``username``, ``password``,
``retryOnFailure``: ``catalog.WEBHOOK_WRITE_ONLY``) is recorded as :data:`~tenantdeck.sync.types.UNKNOWN`
(``{"unknown": True}``) rather than guessed: compare treats it as "no information", never a change. The base
snapshot instead keeps what tenantdeck last pushed for such a field (:func:`with_last_pushed`), and the draft side
records a webhook field only where the draft writes it: left out means "left as it is on the service" (see
``docs/real-service.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tenantdeck.models import SmsSettings, WebhookBody, WidgetSettings, catalog
from tenantdeck.models.secrets import fingerprint, reference_name, secret_fields
from tenantdeck.models.widget import SECTION_MODELS, SECTIONS
from tenantdeck.sync.types import is_unknown

COLOUR_KEYS = frozenset({"primary_color", "foreground_color", "background_color", "docked_layout_icon_background"})
#: The plain (compared) fields of a webhook and of SMS settings, in the models' order: every field but the id and
#: the secrets (``SECRET`` on the model), which are fingerprinted instead.
WEBHOOK_SECRETS = secret_fields(WebhookBody)
WEBHOOK_FIELDS = tuple(k for k in WebhookBody.model_fields if k != "id" and k not in WEBHOOK_SECRETS)
WEBHOOK_REQUIRED = frozenset(k for k in WEBHOOK_FIELDS if WebhookBody.model_fields[k].is_required())
SMS_SECRETS = secret_fields(SmsSettings)
SMS_FIELDS = tuple(k for k in SmsSettings.model_fields if k not in SMS_SECRETS)

_SECTION_DEFAULTS: dict[str, Mapping[str, object]] = {
    "style": catalog.STYLE_DEFAULTS,
    "sidebar": catalog.SIDEBAR_DEFAULTS,
    "main": catalog.MAIN_DEFAULTS,
}
_SECTION_KEYS = {name: tuple(model.model_fields) for name, model in SECTION_MODELS.items()}


# --- scalars and secrets ----------------------------------------------------------------------------------------


def number(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _colour(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def secret_state_of_value(value: str, *, secret_key: bytes) -> dict[str, str]:
    """The fingerprint of a secret value; the value itself must go no further than this call."""
    return {"fingerprint": fingerprint(value, secret_key)}


def secret_state_of_draft(value: str | None, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any] | None:
    """A draft secret: ``${VAR}`` with VAR set -> its fingerprint; VAR unset -> ``{"ref": VAR}``; literal ->
    fingerprint; absent -> None."""
    if value is None:
        return None
    name = reference_name(value)
    if name is None:
        return secret_state_of_value(value, secret_key=secret_key)
    if name in env:
        return secret_state_of_value(env[name], secret_key=secret_key)
    return {"ref": name}


# --- widgets ----------------------------------------------------------------------------------------------------


def normalise_widget_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Complete, comparable widget settings from either side (see the module docstring for the rules).

    Keys are emitted in the model's field order so the stored JSON is stable and readable.
    """
    out: dict[str, Any] = {}
    name = settings.get("name")
    if name is not None:
        out["name"] = name
    out["version"] = settings.get("version") or catalog.WIDGET_VERSION
    for section in SECTIONS:
        given = settings.get(section)
        given = given if isinstance(given, Mapping) else {}
        defaults = _SECTION_DEFAULTS[section]
        values: dict[str, Any] = {}
        for key in _SECTION_KEYS[section]:
            value = given.get(key)
            if value is None:
                value = defaults.get(key)
            if value is None:
                continue
            if section == "style" and key in COLOUR_KEYS:
                value = _colour(value)
            values[key] = list(value) if type(value) is list else value  # only lists of str are mutable here
        out[section] = values
    return out


def canonical_preset(preset: WidgetSettings) -> dict[str, Any]:
    """A preset's settings, normalised like any widget (used to tell which remote values are overrides)."""
    return normalise_widget_settings(preset.model_dump(mode="json", exclude_none=True))


def with_last_pushed(live: Mapping[str, Any], base: Mapping[str, Any] | None) -> dict[str, Any]:
    """``live`` (a freshly read canonical app) with each unreported webhook field, and which file each push
    certificate the service holds came from, taken from ``base``.

    The service never returns a webhook's write-only fields, nor which certificate it holds, so the only thing
    anyone can know about them is what tenantdeck last pushed, which the base recorded. Pull writes the new base
    through this, so a pull does not forget it (the next rename would otherwise look like it changes them, the
    next push would upload the same certificate again), and the draft it writes can say what was pushed. A value
    the service does report always wins; nothing is carried where the base knew nothing.
    """
    out = dict(live)
    if is_unknown(live.get("extensions")):
        # which extensions are enabled is not reported (the vendor's list has no per-app flag): what tenantdeck
        # last pushed is all anyone knows, and a pull must not turn it into "none"
        old_states = (base or {}).get("extensions")
        out["extensions"] = None if old_states is None or is_unknown(old_states) else dict(old_states)
    for section in ("webhooks", "push_certificates"):
        old_items = (base or {}).get(section) or {}
        items = live.get(section) or {}
        if not old_items or not items:
            continue
        merged: dict[str, Any] = {}
        for rid, item in items.items():
            old = old_items.get(rid)
            if not isinstance(old, Mapping):
                merged[rid] = item
                continue
            merged[rid] = {
                key: old[key] if is_unknown(value) and key in old and not is_unknown(old[key]) else value
                for key, value in item.items()
            }
        out[section] = merged
    return out
