"""The edits the extension settings form makes: each key's ``set``/``insert``/``delete`` on the draft, as data
(:data:`Edit`), applied by the editor as one undo step; a new extension's settings from the catalog. No Textual."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from tenantdeck.draft.extension_form.model import (
    ENTRY,
    EXTRA,
    ITEM,
    ROW,
    TOGGLE,
    Form,
    KeyPath,
    Row,
    _app,
    _block,
    _get,
    prefix_of,
    required_now,
    setting_at,
    settings_of,
)
from tenantdeck.models.extension_catalog import (
    BY_ID,
    Setting,
    sample_value,
)
from tenantdeck.models.secrets import derived_secret_name, is_secret_state

# -- edits ----------------------------------------------------------------------------------------------------------

Edit = tuple[str, KeyPath, Any]  #: (verb, path in the draft, value) for ``Editor.apply``: one undo step


def new_settings(ext_id: str, app_name: str) -> dict[str, Any]:
    """Settings for an extension the draft has none of: every field the API requires and every field with a
    default, at the catalog's value (a required field without one empty, so validation names it at once); a
    secret as the ``${VAR}`` reference pull would derive, and a group's required fields the same way."""
    spec = BY_ID[ext_id]
    out = _new_object(spec.settings, app_name)
    for name in required_now(spec, out):
        setting = spec.setting(name)
        if setting is not None and name not in out:
            out[name] = _new_value(setting, app_name)
    return out


def _new_value(setting: Setting, app_name: str) -> Any:
    if setting.secret:
        return f"${{{derived_secret_name(app_name or 'app', setting.secret)}}}"
    if setting.type == "object":
        return _new_object(setting.fields, app_name)
    return sample_value(setting)


def _new_object(fields: Sequence[Setting], app_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for setting in fields:
        if setting.required or (not setting.secret and setting.type != "object"
                                and setting.default not in (None, ())):
            out[setting.key] = _new_value(setting, app_name)
    return out


def start_edits(data: Any, app_index: int, ext_id: str, service: Mapping[str, Any] | None = None) -> list[Edit]:
    """Manage ``ext_id``'s settings in the draft, starting from the catalog's defaults (empty when it already
    has settings); ``service``: the settings the service holds (as last read), which the start keeps instead."""
    app = _app(data, app_index)
    if settings_of(data, app_index, ext_id) is not None:
        return []
    block = from_service(new_settings(ext_id, str(app.get("name") or "")), ext_id, service)
    if not isinstance(app.get("extension_settings"), dict):
        return [("set", ("apps", app_index, "extension_settings"), {ext_id: block})]
    return [("set", prefix_of(app_index, ext_id), block)]


def from_service(block: dict[str, Any], ext_id: str, service: Mapping[str, Any] | None) -> dict[str, Any]:
    """``block`` with every value the service holds laid over it, but for secrets (the service reports a
    fingerprint, not a value: the block's ``${VAR}`` stays) and anything holding one. Why: a second trial flipped
    one switch of an extension whose service settings were kept out of the draft, and the block the form started
    from the catalog's defaults planned to replace the service's word list with ``[]``."""
    spec = BY_ID[ext_id]
    out = dict(block)
    for key, value in (service or {}).items():
        setting = spec.setting(key)
        if (setting is not None and setting.secret) or _holds_secret_state(value):
            continue
        out[key] = copy.deepcopy(value)
    return out


def _holds_secret_state(value: Any) -> bool:
    """A secret as the base records it (:func:`~tenantdeck.models.secrets.is_secret_state`), anywhere in
    ``value``."""
    if is_secret_state(value):
        return True
    if isinstance(value, Mapping):
        return any(_holds_secret_state(v) for v in value.values())
    return isinstance(value, list) and any(_holds_secret_state(v) for v in value)


def stop_edits(data: Any, app_index: int, ext_id: str) -> list[Edit]:
    """Stop managing ``ext_id``'s settings: its block removed (the whole ``extension_settings`` when it was the
    only one), so a push leaves the service's settings as they are."""
    app = _app(data, app_index)
    block = _block(app)
    if ext_id not in block:
        return []
    if set(block) == {ext_id}:
        return [("delete", ("apps", app_index, "extension_settings"), None)]
    return [("delete", prefix_of(app_index, ext_id), None)]


def set_edits(data: Any, app_index: int, ext_id: str, path: KeyPath, value: Any) -> list[Edit]:
    """Write ``value`` at ``path`` of the extension's settings. An extension without settings gets them first
    (the catalog's defaults, then this field: one undo step); a missing group is made on the way."""
    prefix = prefix_of(app_index, ext_id)
    current = settings_of(data, app_index, ext_id)
    if current is None:
        app = _app(data, app_index)
        block = _with(new_settings(ext_id, str(app.get("name") or "")), path, value)
        if not isinstance(app.get("extension_settings"), dict):
            return [("set", ("apps", app_index, "extension_settings"), {ext_id: block})]
        return [("set", prefix, block)]
    # the deepest part of the path that exists: set the rest there as a new value (a group made on the way)
    node: Any = current
    for depth, part in enumerate(path[:-1]):
        nxt = _get(node, (part,))
        if not isinstance(nxt, dict | list):
            return [("set", (*prefix, *path[:depth + 1]), _with({}, path[depth + 1:], value))]
        node = nxt
    return [("set", (*prefix, *path), value)]


def toggle_edits(data: Any, app_index: int, ext_id: str, row: Row) -> list[Edit]:
    """Space on a toggle: the opposite of what it shows (of its default when the draft does not write it). On an
    object of a table with an ``On`` switch (a mask, a sticker), that switch."""
    if row.kind == ROW and row.setting is not None:
        flag = next((f for f in row.setting.fields if f.type == "bool"), None)
        if flag is None or not isinstance(row.value, dict):
            return []
        current = row.value.get(flag.key, flag.default)
        return set_edits(data, app_index, ext_id, (*row.path, flag.key), not bool(current))
    if row.kind != TOGGLE:
        return []
    current = row.value if row.written else (row.setting.default if row.setting is not None else False)
    return set_edits(data, app_index, ext_id, row.path, not bool(current))


def new_item(setting: Setting, block: Mapping[str, Any] | None) -> dict[str, Any]:
    """A new object for a table of the settings ``block``: each field's default (required ones empty), and an
    ``id`` one above the highest number any object of the block uses (a custom mask's id must not be a default
    mask's: they share the service's id space, and "of your choice" makes a fresh number a fine start)."""
    item = _new_object(setting.fields, "")
    if any(f.key == "id" for f in setting.fields):
        numbers = [int(obj["id"]) for value in (block or {}).values() if isinstance(value, list)
                   for obj in value if isinstance(obj, dict) and str(obj.get("id", "")).isdigit()]
        item["id"] = str(max(numbers, default=0) + 1)
    return item


def add_edits(data: Any, app_index: int, ext_id: str, container: KeyPath, item: Any) -> list[Edit]:
    """Append ``item`` to the list at ``container`` (for a mapping, ``item`` is ``(key, value)``)."""
    current = _get(settings_of(data, app_index, ext_id) or {}, container)
    setting = setting_at(ext_id, container)
    if setting is not None and setting.type == "mapping":
        key, value = item
        if isinstance(current, dict):
            return set_edits(data, app_index, ext_id, (*container, key), value)
        return set_edits(data, app_index, ext_id, container, {key: value})
    if isinstance(current, list):
        return [("insert", (*prefix_of(app_index, ext_id), *container, len(current)), item)]
    return set_edits(data, app_index, ext_id, container, [item])


def remove_edits(data: Any, app_index: int, ext_id: str, row: Row) -> tuple[list[Edit], str]:
    """``d`` on a row: an item or entry removed, an optional field unset (its default applies, or the service's
    value stays); ``([], why)`` when there is nothing to remove or the field is required."""
    prefix = prefix_of(app_index, ext_id)
    if row.kind in (ITEM, ENTRY, ROW, EXTRA):
        return [("delete", (*prefix, *row.path), None)], ""
    if not row.written:
        return [], f"{row.label} is not set in the draft."
    if row.required:
        return [], f"{row.label} is required: change it instead (Ctrl+R removes all of this extension's settings)."
    return [("delete", (*prefix, *row.path), None)], ""


def row_index(form: Form, path: KeyPath) -> int | None:
    """Where the row of ``path`` is (or the nearest row above it in the path), for keeping the cursor."""
    for cut in range(len(path), 0, -1):
        for i, row in enumerate(form.rows):
            if row.path == path[:cut]:
                return i
    return None


def _with(block: Any, path: KeyPath, value: Any) -> Any:
    """A deep copy of ``block`` with ``path`` set to ``value`` (missing mappings made on the way)."""
    import copy

    out = copy.deepcopy(block)
    node = out
    for part in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(part, {})
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return out
    if isinstance(node, dict) or (isinstance(node, list) and isinstance(path[-1], int) and 0 <= path[-1] < len(node)):
        node[path[-1]] = value
    return out
