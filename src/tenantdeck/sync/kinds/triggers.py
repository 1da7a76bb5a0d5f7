"""The trigger set of each webhook: ``{trigger id: True}``, added and removed by their own endpoints. Held inside
the canonical webhook (its ``triggers`` list), created with it and deleted with it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.rules import unknown_triggers
from tenantdeck.sync.kinds.base import DraftEdit, Kind, Planner, webhook_index
from tenantdeck.sync.types import ABSENT, UNKNOWN, Leaves, StepKind, cannot_tell

if TYPE_CHECKING:
    from tenantdeck.sync.types import Conflict, ResourceDiff, Step


def draft_triggers(hook: Any) -> list[str]:
    """A webhook's triggers in the canonical form (a sorted list; the webhook kind puts it in the webhook's)."""
    return sorted(hook.triggers)


def remote_triggers(hook: Mapping[str, Any]) -> list[str] | dict[str, bool]:
    """The service's triggers of a webhook, sorted; :data:`UNKNOWN` when it does not list them."""
    found = hook.get("triggers")
    return sorted(str(t) for t in found) if isinstance(found, list) else dict(UNKNOWN)


class TriggersKind(Kind):
    name = "triggers"
    section = "webhooks"
    parent = "webhook"
    reads = ()  # held in the webhook kind's part
    steps = (StepKind("add_triggers", "add", "update", shown_as="create"),
             StepKind("remove_triggers", "remove", "delete"))

    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        k = webhook_index(app, conflict.rid)
        if k is None:
            return []
        triggers = [t for t in app["webhooks"][k].get("triggers") or [] if t != conflict.path]
        if conflict.live is True:
            triggers.append(conflict.path)
        return [("set", ("apps", index, "webhooks", k, "triggers"), triggers)]

    def label(self, path: str) -> str:
        return f"Trigger {path}"

    def title(self, rid: str, name: str | None) -> str:
        return f"triggers of webhook {rid}"

    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for hid, hook in (app.get("webhooks") or {}).items():
            triggers = hook.get("triggers")
            out[hid] = UNKNOWN if cannot_tell(triggers) else {t: True for t in triggers or []}
        return out

    def leaves(self, raw: Any) -> Leaves:
        return dict(raw)

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        hooks = dict(app.get("webhooks") or {})
        hook = dict(hooks.get(rid) or {})
        hook["triggers"] = sorted(t for t, on in leaves.items() if on)
        hooks[rid] = hook
        app["webhooks"] = hooks

    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        if res.status not in ("create", "update") or res.rid in planner.refused:
            return
        local = res.by_state("local")
        add = sorted(leaf.path for leaf in local if leaf.draft is True)
        if unknown := unknown_triggers(add):
            planner.refuse(res, f"{', '.join(unknown)}: not documented trigger id(s); only documented ones can be "
                                "added")
            add = [t for t in add if t not in unknown]
        remove = sorted(leaf.path for leaf in local if leaf.draft is ABSENT)
        deps = [planner.hook_keys[res.rid]] if res.rid in planner.hook_keys else []
        changes = {c.path: c for c in planner.changes(res)}
        if remove:
            if planner.allow_delete:
                planner.step("remove_triggers", res, res.rid, payload={"ids": remove},
                             changes=[changes[t] for t in remove])
            else:
                planner.skip_delete(f"{len(remove)} trigger(s) of webhook {res.rid}")
        if add:
            planner.step("add_triggers", res, res.rid, payload={"ids": add}, depends_on=deps,
                         changes=[changes[t] for t in add])

    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        assert base is not None
        hooks = dict(base.get("webhooks") or {})
        hook = dict(hooks.get(step.rid) or {})
        current = set(hook.get("triggers") or []) if isinstance(hook.get("triggers"), list) else set()
        current = current | set(sent["ids"]) if step.kind == "add_triggers" else current - set(sent["ids"])
        hook["triggers"] = sorted(current)
        hooks[step.rid] = hook
        base["webhooks"] = hooks
        return base


KIND = TriggersKind()
