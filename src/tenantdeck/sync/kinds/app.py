"""The app itself: name, region and version. Created and deleted as a whole; the API has no update-app call.

There is no module-level ``KIND`` here: the registry (:mod:`tenantdeck.sync.kinds`) builds :class:`AppKind` with the
other kinds, whose empty sections a new app's base holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tenantdeck.models import catalog
from tenantdeck.models.app import App as AppModel
from tenantdeck.models.base import field_labels
from tenantdeck.sync.kinds.base import Kind, Planner
from tenantdeck.sync.types import Leaves, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import RemoteAppBundle, ResourceDiff, Step

FIELDS = ("name", "region", "version")


class AppKind(Kind):
    name = "app"
    reads = ("id", "name", "region", "version")
    steps = (StepKind("create_app", "create app", "create", assigns_id=True),
             StepKind("delete_app", "delete app", "delete"))
    labels = field_labels(AppModel)

    def __init__(self, parts: Sequence[Kind] = ()) -> None:
        #: the other kinds, in the registry's order: a new app's base holds each one's empty section. Given by the
        #: registry (tenantdeck.sync.kinds) rather than imported from it, which would make a circle.
        self.parts = tuple(parts)

    def empty_app(self, app_id: str, name: str, region: str, version: str) -> dict[str, Any]:
        """A canonical app with nothing in it yet (what the base records right after ``create_app``)."""
        out: dict[str, Any] = {"id": app_id, "name": name, "region": region, "version": version}
        for k in (self, *self.parts):
            out.update(k.empty)
        return out

    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes,
                   env: Mapping[str, str]) -> dict[str, Any]:
        return {"id": app.id, "name": app.name, "region": app.region, "version": app.version}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        app = remote.app
        return {"id": app.id, "name": app.name, "region": app.region, "version": app.version or catalog.APP_VERSION}

    def title(self, rid: str, name: str | None) -> str:
        return "app"

    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        return {"": {k: app[k] for k in FIELDS if app.get(k) is not None}}

    def leaves(self, raw: Any) -> Leaves:
        return dict(raw)

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        app.update(leaves)

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        """``create_app`` and ``delete_app`` are planned with the app itself (``plan._AppPlanner.build``); a local
        change of an existing app's fields can only be noted."""
        if planner.app.status != "create" and res.by_state("local"):
            fields = ", ".join(leaf.path for leaf in res.by_state("local"))
            planner.note(f"cannot change {fields} of an existing app (the API has no update-app call); left as it is",
                         "unsupported")

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        """A created app's base is an empty app; a deleted app has none (None)."""
        if step.kind == "delete_app":
            return None
        payload = step.payload
        return self.empty_app(result["app_id"], payload["name"], payload["region"], payload.get("version", "3"))

