"""Request bodies for every extension's ``/v1/settings``, built from the catalog (unique module name: tests/ has
no packages).

A body is each setting's :func:`~tenantdeck.models.extension_catalog.sample_value`, with the empty ones (a string
without default, an empty list) filled in so the request model accepts it, and every optional setting present too,
which satisfies any conditional requirement. Nothing here names an extension: a new catalog entry is covered by
the round-trip tests without an edit.
"""

from __future__ import annotations

from typing import Any

from tenantdeck.models.extension_catalog import ExtensionSpec, Setting, sample_value


def sample(setting: Setting, tag: str = "") -> Any:
    """A valid value of ``setting``: its default or sample value, made non-empty where it is empty."""
    value = sample_value(setting)
    kind = setting.type
    if kind == "string":
        if setting.regex:
            return value or "sample[0-9]+"
        if setting.secret:
            return f"s3cret-{setting.key}-{tag}value"
        return value or f"sample-{setting.key}{tag}"
    if kind == "strings":
        return list(value) or [f"word{tag}"]
    if kind == "mapping":
        return dict(value) or {"!ty": f"Thank you{tag}"}
    if kind == "object":
        return {f.key: sample(f, tag) for f in setting.fields}
    if kind == "objects":
        return list(value) or [{f.key: sample(f, tag) for f in setting.fields}]
    if setting.check(value) is not None:  # a number outside its bounds: the nearest bound
        return setting.minimum if setting.minimum is not None and value < setting.minimum else setting.maximum
    return value


def settings_for(spec: ExtensionSpec, tag: str = "") -> dict[str, Any]:
    """Every setting of ``spec`` with a valid value (``tag`` varies strings, to tell two bodies apart); the
    removal fields (data-masking's ``deleteCustomRegexData``) empty."""
    settings = {s.key: sample(s, tag) for s in spec.settings}
    settings.update({removal: [] for _, removal in spec.removals})
    return settings


def stored_form(spec: ExtensionSpec, settings: dict[str, Any]) -> dict[str, Any]:
    """What a GET reports for ``settings`` as sent (no removal fields; ``reported_as`` names), before ``appId``."""
    removal_keys = {removal for _, removal in spec.removals}
    names = {s.key: s.reported_as for s in spec.settings if s.reported_as}
    return {names.get(k, k): v for k, v in settings.items() if k not in removal_keys}


def changed(spec: ExtensionSpec, settings: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(the key changed, ``settings`` with one top-level value changed): a flag flipped, else a string, a number,
    a list or a mapping altered, so an update is visible in the GET. Requirements stay met: every field is set."""
    out = dict(settings)
    for setting in spec.settings:
        value = out[setting.key]
        if setting.type == "bool":
            out[setting.key] = not value
        elif setting.type == "string" and not setting.regex:
            out[setting.key] = f"{value}-changed"
        elif setting.type == "number":
            out[setting.key] = value + 1
        elif setting.type == "strings":
            out[setting.key] = [*value, "another"]
        elif setting.type == "mapping":
            out[setting.key] = {**value, "!bye": "Goodbye"}
        elif setting.type == "objects" and value:
            field = next((f for f in setting.fields if f.type == "string" and f.key != "id" and not f.regex), None)
            if field is None:
                continue
            first = {**value[0], field.key: f"{value[0][field.key]}-changed"}
            out[setting.key] = [first, *value[1:]]
        else:
            continue
        return setting.key, out
    raise AssertionError(f"{spec.id}: no setting a test knows how to change")
