"""One module per resource kind, and the registry of them.

Each kind (:class:`~tenantdeck.sync.kinds.base.Kind`) says how its resources are cut out of a canonical app and
written back, how its fields are labelled and which are secret, which plan steps it has, which API call each step
is and how a step that succeeded updates the base snapshot. Everything generic (compare, plan, settle, the push
executor, render, the journal) asks the registry below instead of switching on a kind's name.

Adding a kind: one module here, one entry in :data:`KINDS`.
"""

from __future__ import annotations

from tenantdeck.sync.kinds import app, extensions, sms, triggers, webhook, widget
from tenantdeck.sync.kinds.base import Kind, StepFailed, StepKind

#: Every kind, in the order the steps of one app run.
KINDS: tuple[Kind, ...] = (app.KIND, extensions.KIND, widget.KIND, sms.KIND, webhook.KIND, triggers.KIND)

BY_NAME: dict[str, Kind] = {kind.name: kind for kind in KINDS}
ORDER: dict[str, int] = {kind.name: i for i, kind in enumerate(KINDS)}
#: step kind ("create_widget") -> (its resource kind, its description)
STEPS: dict[str, tuple[Kind, StepKind]] = {s.name: (kind, s) for kind in KINDS for s in kind.steps}


def kind(name: str) -> Kind:
    return BY_NAME[name]


def step_kind(name: str) -> StepKind:
    return STEPS[name][1]


def kind_of_step(name: str) -> Kind:
    return STEPS[name][0]


def label(kind_name: str, path: str) -> str:
    """The human label of ``path`` inside a resource of ``kind_name`` (falls back to the path itself)."""
    found = BY_NAME.get(kind_name)
    return found.label(path) if found is not None else path


def is_secret(kind_name: str, path: str) -> bool:
    found = BY_NAME.get(kind_name)
    return found is not None and found.is_secret(path)


def empty_app(app_id: str, name: str, region: str, version: str) -> dict[str, object]:
    """A canonical app with nothing in it yet (what the base records right after ``create_app``)."""
    out: dict[str, object] = {"id": app_id, "name": name, "region": region, "version": version}
    for k in KINDS:
        out.update(k.empty)
    return out


__all__ = ["BY_NAME", "KINDS", "STEPS", "Kind", "StepFailed", "StepKind", "empty_app", "is_secret", "kind",
           "kind_of_step", "label", "step_kind"]
