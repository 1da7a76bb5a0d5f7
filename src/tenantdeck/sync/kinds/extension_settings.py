"""Each extension's settings: ``{extension id: settings}``, one resource per extension, described by the catalog.

Nothing here names an extension or a field: the catalog (:mod:`tenantdeck.models.extension_catalog`) says which
fields are secrets (fingerprinted like SMS's token: these APIs report them in clear, so a whole-object update sends
back the service's current value of a secret the draft did not change), what a field the service leaves out
defaults to, and which list's items the API removes by id (data-masking's custom masks).

A draft without an ``extension_settings`` block does not manage any (``optional``); with one, each extension it
names is managed, and one it no longer names is deleted on the service (with ``--allow-delete``), like a webhook.
A field the draft leaves out is left as the service has it: the update is a whole-object ``PUT`` built from the
live settings with the draft's changes laid on top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS, Setting
from tenantdeck.models.secrets import names_a_secret
from tenantdeck.sync.canonical import number, secret_state_of_draft, secret_state_of_value
from tenantdeck.sync.kinds.base import (
    DraftEdit,
    Kind,
    Planner,
    field_path,
    leaf_edit,
    unflatten,
    with_changes,
)
from tenantdeck.sync.types import UNKNOWN, FieldChange, StepKind, is_unknown, value_at

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


#: extension id -> (dotted path, setting) of each field (the catalog's walk)
_FIELDS: dict[str, list[tuple[str, Setting]]] = {ext: BY_ID[ext].fields() for ext in DRAFT_EXTENSIONS}
_SECRETS: dict[str, frozenset[str]] = {
    ext: frozenset(path for path, s in fields if s.secret) for ext, fields in _FIELDS.items()
}


def _labels() -> dict[str, str]:
    labels: dict[str, str] = {}
    for fields in _FIELDS.values():
        for path, setting in fields:
            parent = path.rpartition(".")[0]
            outer = labels.get(parent)
            labels.setdefault(path, f"{outer}: {setting.label}" if outer else setting.label)
    return labels


def _canonical(value: Any, setting: Setting | None) -> Any:
    """One value in normal form: whole floats as ints (YAML ``60.0`` is the service's ``60``), objects field by
    field, a list of objects item by item; anything the catalog does not know is kept as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, Mapping) and setting is not None and setting.type == "object":
        inner = {s.key: s for s in setting.fields}
        return {k: _canonical(v, inner.get(k)) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_canonical(v, setting) if isinstance(v, Mapping) else v for v in value]
    if isinstance(value, Mapping):
        return {k: _canonical(v, None) for k, v in value.items() if v is not None}
    return value


class ExtensionSettingsKind(Kind):
    name = "extension_settings"
    section = "extension_settings"
    reads = ("extension_settings",)
    empty = {"extension_settings": {}}
    optional = True
    secret_fields = frozenset().union(*_SECRETS.values())
    secret_path = "extension_settings.{rid}.{path}"
    labels = _labels()
    steps = (StepKind("store_extension_settings", "store", "create"),
             StepKind("update_extension_settings", "update", "update"),
             StepKind("delete_extension_settings", "delete", "delete"))

    # -- both sides in normal form
    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        from tenantdeck.models.extension_settings import settings_of

        if app.extension_settings is None:
            return {"extension_settings": None}
        out: dict[str, Any] = {}
        for ext, settings in settings_of(app.extension_settings).items():
            out[ext] = self._normal(ext, settings, lambda v: secret_state_of_draft(v, secret_key=secret_key,
                                                                                    env=env))
        return {"extension_settings": out}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """The settings read (an extension the service has none of is left out); the secrets they report in clear
        are fingerprinted here and go no further. A required field the service leaves out takes the catalog's
        documented default, or is unknown when there is none (never a value nobody reported)."""
        read = remote.extension_settings
        if read is None:
            return {"extension_settings": None}
        out: dict[str, Any] = {}
        for ext, settings in sorted(read.items()):
            if settings is None:
                continue
            normal = self._normal(ext, settings, lambda v: secret_state_of_value(v, secret_key=secret_key)
                                  if isinstance(v, str) and v else None)
            spec = BY_ID.get(ext)
            for setting in spec.settings if spec is not None else ():
                if setting.required and setting.key not in normal:
                    normal[setting.key] = (dict(UNKNOWN) if setting.default is None
                                           else _canonical(_plain(setting.default), setting))
            out[ext] = normal
        return {"extension_settings": out}

    @staticmethod
    def _normal(ext: str, settings: Mapping[str, Any], secret: Any) -> dict[str, Any]:
        spec = BY_ID.get(ext)
        by_key = {s.key: s for s in spec.settings} if spec is not None else {}
        removals = {removal for _, removal in spec.removals} if spec is not None else set()
        out = {k: _canonical(v, by_key.get(k)) for k, v in settings.items() if v is not None and k not in removals}
        for key in out.keys() - by_key.keys():  # kept as the service holds it: a secret in it goes no further
            out[key] = _unknown_secrets(key, out[key], secret)
        for path in _SECRETS.get(ext, ()):
            parent, _, last = path.rpartition(".")
            holder = value_at(out, parent)
            if isinstance(holder, dict) and last in holder:
                holder[last] = secret(holder[last])
        return out

    # -- naming
    def title(self, rid: str, name: str | None) -> str:
        spec = BY_ID.get(rid)
        return f"{spec.name if spec else rid} settings ({rid})"

    def is_secret(self, path: str) -> bool:
        return path in self.secret_fields

    def absent_is_unchanged(self, path: str) -> bool:
        """Every field: the update is the live object with the draft's changes on top, so a field the draft does
        not write keeps the service's value."""
        return True

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        block = app.get("extension_settings")
        if not isinstance(block, dict) or not isinstance(block.get(conflict.rid), dict):
            return []
        return [leaf_edit(("apps", index, "extension_settings", conflict.rid, *field_path(conflict)), conflict.live)]

    # -- resources
    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        value = app.get("extension_settings")
        return dict(value) if isinstance(value, Mapping) else {}

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        block = dict(app.get("extension_settings") or {})
        block[rid] = unflatten(leaves)
        app["extension_settings"] = block

    # -- planning
    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        spec = BY_ID.get(res.rid)
        if spec is None:
            planner.refuse(res, f"{res.rid} is not an extension with settings tenantdeck knows")
            return
        if res.status == "create":
            leaves = planner.secretise(res, res.draft or {}, local_paths=set(res.draft or {}))
            settings = unflatten(leaves)
            for _, removal in spec.removals:
                settings[removal] = []
            planner.step("store_extension_settings", res, res.rid, changes=planner.changes(res),
                         payload={"ext": res.rid, "settings": settings})
        elif res.status == "update":
            local = {leaf.path for leaf in res.by_state("local")}
            merged = {k: v for k, v in planner.merged(res).items() if not is_unknown(v)}
            settings = unflatten(planner.secretise(res, merged, local_paths=local))
            for items, removal in spec.removals:
                kept = {_item_id(i) for i in (res.draft or {}).get(items) or []}
                settings[removal] = sorted((i for i in (_item_id(x) for x in (res.live or {}).get(items) or [])
                                            if i is not None and i not in kept), key=str)
            planner.step("update_extension_settings", res, res.rid, changes=planner.changes(res),
                         payload={"ext": res.rid, "settings": settings}, unchanged=res.unchanged)
        elif res.status == "delete":
            if planner.allow_delete:
                planner.step("delete_extension_settings", res, res.rid, payload={"ext": res.rid},
                             changes=[FieldChange("", res.title, "set", "(deleted)", "local")])
            else:
                planner.skip_delete(res.title)

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        block = dict(base.get("extension_settings") or {})
        if step.kind == "delete_extension_settings":
            block.pop(step.rid, None)
        else:
            spec = BY_ID.get(step.rid)
            removals = {removal for _, removal in spec.removals} if spec is not None else set()
            settings = {k: v for k, v in sent["settings"].items() if k not in removals}
            block[step.rid] = (settings if step.kind == "store_extension_settings"
                               else with_changes(block.get(step.rid), step, settings))
        base["extension_settings"] = block
        return base


def _item_id(item: Any) -> str | int | None:
    """An item's id as the service holds it (``2`` stays an integer: the removal names it in the type it has)."""
    return item["id"] if isinstance(item, Mapping) and item.get("id") not in (None, "") else None


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


KIND = ExtensionSettingsKind()


def _unknown_secrets(key: str, value: Any, secret: Any) -> Any:
    """A value under a key the catalog does not know, with every text whose key names a secret
    (:func:`~tenantdeck.models.secrets.names_a_secret`) replaced by its fingerprint: the base holds such keys to
    tell a dashboard's change from none, and the base is committed beside a lock file. The push sends the service's
    own value back (the update is the live object with the draft's changes on top), so the fingerprint is all the
    base needs."""
    if isinstance(value, str):
        return secret(value) if value and names_a_secret(key) else value
    if isinstance(value, Mapping):
        return {k: _unknown_secrets(str(k), v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_unknown_secrets(key, v, secret) for v in value]
    return value
