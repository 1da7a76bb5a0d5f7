"""Chat widgets: ``{widgetId (or new:<name>): settings}``, each compared field by field and updated as a whole.

The API has no widget delete: a widget gone from the draft is reported, never deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.rules import merge_settings, widget_value_breaks_rule
from tenantdeck.sync.canonical import normalise_widget_settings
from tenantdeck.sync.kinds.base import (
    DraftEdit,
    Kind,
    Planner,
    field_path,
    flatten,
    leaf_edit,
    unflatten,
    with_changes,
)
from tenantdeck.sync.types import ABSENT, DEFAULTED, StepKind, new_key, new_name, value_at

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


class WidgetKind(Kind):
    name = "widget"
    section = "widgets"
    reads = ("widgets",)  # and the presets
    empty = {"widgets": {}}
    steps = (StepKind("create_widget", "create", "create", assigns_id=True, folds_defaults=True),
             StepKind("update_widget", "update", "update"))
    #: leaf path -> the value a new widget has when it leaves the setting out (plan text folds those)
    defaults = {
        **{f"style.{k}": v for k, v in catalog.STYLE_DEFAULTS.items()},
        **{f"sidebar.{k}": v for k, v in catalog.SIDEBAR_DEFAULTS.items()},
        **{f"main.{k}": v for k, v in catalog.MAIN_DEFAULTS.items()},
        "version": catalog.WIDGET_VERSION,
    }

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        widgets = app.get("widgets") or []
        j = next((n for n, w in enumerate(widgets) if isinstance(w, dict) and w.get("id") == conflict.rid), None)
        return [] if j is None else [leaf_edit(("apps", index, "widgets", j, *field_path(conflict)), conflict.live)]

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        """Each widget resolved against its preset and normalised, keyed by its id (by its name before it has
        one)."""
        widgets: dict[str, Any] = {}
        defaulted: dict[str, list[str]] = {}
        for j, widget in enumerate(app.widgets):
            preset = draft.presets.get(widget.extends) if widget.extends else None
            written = merge_settings(preset, widget)
            settings = normalise_widget_settings(written)
            if widget.id:
                key = widget.id
                if left := [path for path in flatten(settings) if value_at(written, path) is None]:
                    defaulted[key] = left  # what pull may have kept verbatim (types.with_verbatim)
            else:
                name = settings.get("name")
                key = new_key(name if isinstance(name, str) else f"#{j}")
            widgets[key] = settings
        return {"widgets": widgets, DEFAULTED: defaulted} if defaulted else {"widgets": widgets}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        return {"widgets": {w.widget_id: normalise_widget_settings(w.settings) for w in remote.widgets}}

    def label(self, path: str) -> str:
        section, _, key = path.partition(".")
        if section == "main" and key in catalog.TOGGLES_BY_KEY:
            return catalog.TOGGLES_BY_KEY[key].label
        if section == "style" and key in catalog.STYLE_LABELS:
            return catalog.STYLE_LABELS[key]
        if section == "sidebar" and key in catalog.SIDEBAR_LABELS:
            return catalog.SIDEBAR_LABELS[key]
        return {"name": "Widget name", "version": "Widget version"}.get(path, path)

    def title(self, rid: str, name: str | None) -> str:
        shown = "new" if new_name(rid) is not None else rid
        return f'widget "{name or rid}" ({shown})'

    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        return dict(app.get("widgets") or {})

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        app["widgets"] = {**(app.get("widgets") or {}), rid: unflatten(leaves)}

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        deps = [planner.ext_key] if planner.ext_key else []
        if res.status in ("create", "update"):
            # a value outside the documented rules is sent only as the service already holds it (an update lays
            # the local changes on the live widget); creating or setting one is refused
            sets = (res.draft or {}) if res.status == "create" else {
                leaf.path: leaf.draft for leaf in res.by_state("local") if leaf.draft is not ABSENT}
            broken = [why for path, value in sets.items() if (why := widget_value_breaks_rule(path, value))]
            if broken:
                verb = "a new widget" if res.status == "create" else "a widget's changed values"
                planner.refuse(res, f"{'; '.join(broken)}; {verb} must follow the documented rules")
                return
        if res.status == "create":
            planner.step("create_widget", res, res.rid, changes=planner.changes(res), depends_on=deps,
                         payload={"settings": unflatten(res.draft or {})})
        elif res.status == "update":
            planner.step("update_widget", res, res.rid, changes=planner.changes(res), depends_on=deps,
                         payload={"settings": unflatten(planner.merged(res))}, unchanged=res.unchanged)
        elif res.status == "delete":
            planner.note(f"{res.title} is gone from the draft, but the API has no widget delete: it stays on the "
                         "service (remove it in the dashboard)", "widget_delete_unsupported")

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        widgets = dict(base.get("widgets") or {})
        if step.kind == "create_widget":
            widgets[result["widget_id"]] = sent["settings"]
        else:
            widgets[step.rid] = with_changes(widgets.get(step.rid), step, sent["settings"])
        base["widgets"] = widgets
        return base


KIND = WidgetKind()
