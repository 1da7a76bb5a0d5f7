"""An app's settings: ``{key: value}`` as the service reports them (``core.conversations.updateOnReplies``...).

The draft manages only the keys it names (like extensions): a key it leaves out is the service's. Booleans are set
with one ``POST /apps/{appId}/settings`` carrying only the keys that changed; a list value (``...advanced.included``)
cannot be set through the API, so a draft that changes one is refused, not sent (for an app the push creates, it
is left out with a note: the new app has the service's value, which is what a pulled draft holds). Unmap
(``DELETE``) is not used: the API does not say which keys it resets (facts §3.5), and a push must not change what
the draft did not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.sync.kinds.base import DraftEdit, Kind, Planner, leaf_edit
from tenantdeck.sync.types import ABSENT, Leaves, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import Conflict, RemoteAppBundle, ResourceDiff, Step


class SettingsKind(Kind):
    name = "settings"
    section = "settings"
    reads = ("settings",)
    empty = {"settings": None}
    partial = True
    steps = (StepKind("map_settings", "update", "update"),)

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        return {"settings": None if app.settings is None else dict(sorted(app.settings.items()))}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """None when not read (a push that changes no setting skips the request)."""
        return {"settings": None if remote.settings is None else dict(sorted(remote.settings.items()))}

    def label(self, path: str) -> str:
        known = catalog.APP_SETTING_BY_KEY.get(path)
        return known.label if known is not None else "App setting"

    def title(self, rid: str, name: str | None) -> str:
        return "settings"

    def leaves(self, raw: Any) -> Leaves:
        return dict(raw)  # keys hold dots: one leaf per key, never split into a path

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        merged = {**(app.get("settings") or {}), **leaves}
        app["settings"] = dict(sorted((k, v) for k, v in merged.items() if v is not ABSENT))

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        if not isinstance(app.get("settings"), dict):
            return []
        return [leaf_edit(("apps", index, "settings", conflict.path), conflict.live)]

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        local = [leaf for leaf in res.by_state("local") if leaf.draft is not ABSENT]
        if not local:
            return
        lists = sorted(leaf.path for leaf in local if not isinstance(leaf.draft, bool))
        if lists and planner.app.status == "create":
            # a new app starts with the service's value, which a pulled draft holds (pull writes every setting):
            # refusing would stop every first push or promotion of a pulled account with nothing to settle
            planner.note(f"{', '.join(lists)}: not sent, the API cannot set it (it maps booleans only); the new "
                         "app has the service's value (`tenantdeck diff` after the push compares it)", "unsupported")
            local = [leaf for leaf in local if isinstance(leaf.draft, bool)]
            lists = []
        if not local:
            return
        if lists:
            planner.refuse(res, f"{', '.join(lists)}: the service reports this setting but the API cannot set it "
                                "(it maps booleans only); put back the service's value")
            return
        payload = {"settings": {leaf.path: leaf.draft for leaf in sorted(local, key=lambda leaf: leaf.path)}}
        changes = [change for change in planner.changes(res) if change.path in payload["settings"]]
        planner.step("map_settings", res, changes=changes, payload=payload, unchanged=res.unchanged)

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        base["settings"] = dict(sorted({**(base.get("settings") or {}), **sent["settings"]}.items()))
        return base


KIND = SettingsKind()
