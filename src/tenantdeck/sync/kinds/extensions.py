"""Extension switches: ``{extension id: enabled}``. The draft manages only the extensions it names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.sync.kinds.base import DraftEdit, Kind, Planner
from tenantdeck.sync.types import UNKNOWN, Leaves, StepKind, is_unknown

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


class ExtensionsKind(Kind):
    name = "extensions"
    section = "extensions"
    reads = ("extensions",)
    empty = {"extensions": None}
    partial = True
    steps = (StepKind("set_extensions", "switch", "update"),)

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        """Per-extension state, or None when the draft has no extensions block (it manages none)."""
        if app.extensions is None:
            return {"extensions": None}
        states = {ext: False for ext in app.extensions.disabled}
        states.update({ext: True for ext in app.extensions.enabled})
        return {"extensions": dict(sorted(states.items()))}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """Per-extension state; None when not read (a push that does not change them skips the request);
        :data:`~tenantdeck.sync.types.UNKNOWN` when the service does not say which are enabled (the vendor's list
        carries no per-app flag). Unknown is not empty: compare lets the base stand in, never "deleted remotely"."""
        if remote.extensions is None:
            return {"extensions": None}
        states: dict[str, bool] = {}
        for ext in remote.extensions:
            if ext.enabled is None:
                return {"extensions": UNKNOWN}
            states[str(ext.id)] = bool(ext.enabled)
        return {"extensions": dict(sorted(states.items()))}

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        ext = app.get("extensions")
        if not isinstance(ext, dict):
            return []
        enabled = [e for e in ext.get("enabled") or [] if e != conflict.path]
        disabled = [e for e in ext.get("disabled") or [] if e != conflict.path]
        (enabled if conflict.live is True else disabled).append(conflict.path)
        return [("set", ("apps", index, "extensions"), {**ext, "enabled": enabled, "disabled": disabled})]

    def label(self, path: str) -> str:
        return f"Extension {path}"

    def title(self, rid: str, name: str | None) -> str:
        return "extensions"

    def leaves(self, raw: Any) -> Leaves:
        return dict(raw)

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        app["extensions"] = dict(sorted({**(app.get("extensions") or {}), **leaves}.items()))

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        local = res.by_state("local")
        if not local:
            return
        enabled = sorted(leaf.path for leaf in local if leaf.draft is True)
        disabled = sorted(leaf.path for leaf in local if leaf.draft is False)
        step = planner.step("set_extensions", res, changes=planner.changes(res),
                            payload={"enabled": enabled, "disabled": disabled}, unchanged=res.unchanged)
        planner.ext_key = step.key

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        old = base.get("extensions")
        states = {} if old is None or is_unknown(old) else dict(old)
        states.update(dict.fromkeys(sent["enabled"], True))
        states.update(dict.fromkeys(sent["disabled"], False))
        base["extensions"] = dict(sorted(states.items()))
        return base


KIND = ExtensionsKind()
