"""The plan: an ordered list of operations, each one API call, built from a :class:`~.compare.Comparison`.

Order: destructive operations first (only with ``allow_delete``), then per app ``create_app, set_extensions,
create_widget/update_widget, store_sms/update_sms, create_webhook/update_webhook, add_triggers``. Operations of one
app run in that order (``depends_on`` names what must have succeeded first); apps are independent of each other.

A plan is JSON round-trippable and never holds a secret: secret fields in payloads are placeholders
(``{"$secret": {...}}``, :mod:`tenantdeck.sync.placeholders`) resolved at push time. For a saved plan it also records,
for every remote resource an operation touches, a fingerprint (hash of its canonical live state) and that state, so
``push FILE`` can refuse a stale plan and say which field moved.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.models import Draft
from tenantdeck.models.secrets import is_secret_state
from tenantdeck.rules import app_name_breaks_rule
from tenantdeck.sync.compare import Comparison, change_of, conflicts_of, drift_of
from tenantdeck.sync.kinds import STEPS, kind, kind_of_step
from tenantdeck.sync.placeholders import secret_placeholder
from tenantdeck.sync.types import ABSENT, AppDiff, Conflict, FieldChange, Leaves, Note, ResourceDiff, Step

FORMAT_VERSION = 1

#: step kinds by effect (each kind's module declares its steps: tenantdeck.sync.kinds)
DESTRUCTIVE_KINDS = tuple(name for name, (_, spec) in STEPS.items() if spec.destructive)
CREATE_KINDS = tuple(name for name, (_, spec) in STEPS.items() if spec.creates)
UPDATE_KINDS = tuple(name for name, (_, spec) in STEPS.items() if spec.effect == "update")


def resource_key(step: Step) -> str:
    """Key of the remote resource ``step`` touches, as used in :attr:`Plan.fingerprints`: ``APP_KEY/KIND:RID``.
    Here, not a property of :class:`~tenantdeck.sync.types.Step`: which resource kind a step belongs to is the
    kinds' registry's to say, and the vocabulary module imports no kind."""
    return f"{step.app_key}/{kind_of_step(step.kind).name}:{step.rid}"


@dataclass(slots=True)
class Plan:
    """Everything a push needs, and everything a reviewer reads."""

    format: int = FORMAT_VERSION
    draft_path: str = ""
    profile: str | None = None
    base_url: str | None = None
    operations: list[Step] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    drift: list[FieldChange] = field(default_factory=list)
    fingerprints: dict[str, str] = field(default_factory=dict)
    snapshots: dict[str, Any] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    skipped_deletions: int = 0
    allow_delete: bool = False
    offline: bool = False
    created_at: float = field(default_factory=time.time)
    draft_sha256: str = ""
    unchanged_apps: int = 0
    #: name -> ids of live apps of that name, for each app the plan creates: a saved plan is stale only when an
    #: app of that name appears that the plan did not know of (see :mod:`tenantdeck.sync.names`)
    existing_names: dict[str, list[str]] = field(default_factory=dict)
    #: this plan's own identity, random, made once with the plan: a saved plan's journal is matched by it, so
    #: ``push FILE`` again resumes that file's runs and no other plan's (a new plan whose operations equal an
    #: applied one's was reported "applied by an earlier run" and not sent; trial L, L2)
    plan_id: str = field(default_factory=lambda: secrets.token_hex(8))

    @property
    def has_changes(self) -> bool:
        """Whether a push would send anything: what `diff`/`plan` exit 2 on. Notes, drift and deletions skipped
        without ``--allow-delete`` send nothing, so alone they are exit 0 (a CI job reads 2 as "changes to push",
        and a note that is there after every pull would otherwise read as changes forever)."""
        return bool(self.operations)

    @property
    def refused(self) -> list[Conflict]:
        """The draft's own values a push refuses to send (``Conflict.invalid``): an invalid draft, fixed in the draft,
        with nothing to take from either side (exit 1)."""
        return [c for c in self.conflicts if c.invalid]

    @property
    def settleable(self) -> list[Conflict]:
        """The three-way conflicts: the draft and the service changed a value differently; taking one side settles
        it (exit 3)."""
        return [c for c in self.conflicts if not c.invalid]

    def counts(self) -> dict[str, int]:
        """How many operations create, update and delete (the summary line)."""
        out = {"create": 0, "update": 0, "delete": 0}
        for op in self.operations:
            out["delete" if op.destructive else "create" if op.kind in CREATE_KINDS else "update"] += 1
        return out

    def plan_hash(self) -> str:
        """A short, stable hash of the operations (recorded in the history): equal for two plans that send the same
        requests, so it names what is sent, not which plan; :attr:`plan_id` is the plan's own identity."""
        body = json.dumps([op.to_json() for op in self.operations], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def to_json(self, *, with_snapshots: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format_version": self.format,
            "tool": "tenantdeck",
            "created_at": self.created_at,
            "draft_path": self.draft_path,
            "draft_sha256": self.draft_sha256,
            "profile": self.profile,
            "base_url": self.base_url,
            "offline": self.offline,
            "allow_delete": self.allow_delete,
            "plan_hash": self.plan_hash(),
            "plan_id": self.plan_id,
            "summary": {**self.counts(), "skipped_deletions": self.skipped_deletions,
                        "conflicts": len(self.conflicts), "drift": len(self.drift)},
            "operations": [op.to_json() for op in self.operations],
            "conflicts": [c.to_json() for c in self.conflicts],
            "drift": [d.to_json() for d in self.drift],
            "notes": [n.to_json() for n in self.notes],
            "fingerprints": dict(self.fingerprints),
            "unchanged_apps": self.unchanged_apps,
            "existing_names": self.existing_names,
        }
        if with_snapshots:
            data["snapshots"] = self.snapshots
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise ValueError(f"unsupported plan format_version {version!r} (this tenantdeck reads {FORMAT_VERSION})")
        return cls(
            format=version,
            draft_path=data.get("draft_path", ""),
            profile=data.get("profile"),
            base_url=data.get("base_url"),
            operations=[Step.from_json(o) for o in data.get("operations", [])],
            conflicts=[Conflict.from_json(c) for c in data.get("conflicts", [])],
            drift=[FieldChange.from_json(d) for d in data.get("drift", [])],
            fingerprints=dict(data.get("fingerprints", {})),
            snapshots=dict(data.get("snapshots", {})),
            notes=[Note.from_json(n) for n in data.get("notes", [])],
            skipped_deletions=int(data.get("summary", {}).get("skipped_deletions", 0)),
            allow_delete=bool(data.get("allow_delete", False)),
            offline=bool(data.get("offline", False)),
            created_at=float(data.get("created_at", 0.0)),
            draft_sha256=data.get("draft_sha256", ""),
            unchanged_apps=int(data.get("unchanged_apps", 0)),
            existing_names={str(k): list(v) for k, v in (data.get("existing_names") or {}).items()},
            plan_id=str(data.get("plan_id", "")),
        )


def fingerprint_leaves(leaves: Leaves | None) -> str:
    """Hash of a resource's canonical live state; ``absent`` when it does not exist."""
    if leaves is None:
        return "absent"
    body = json.dumps(leaves, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()[:32]


# -- building -----------------------------------------------------------------------------------------------------


class _AppPlanner:
    """Steps of one app, in order, with their dependencies. The app's own create and delete are planned here;
    every resource is planned by its kind (``Kind.plan``, :mod:`tenantdeck.sync.kinds`), which this object serves
    as :class:`~tenantdeck.sync.kinds.base.Planner`."""

    def __init__(self, app: AppDiff, draft: Draft | None, allow_delete: bool, plan: Plan) -> None:
        self.app = app
        self.draft = draft
        self.allow_delete = allow_delete
        self.plan = plan
        self.ops: list[Step] = []
        self.destructive: list[Step] = []
        self.create_key: str | None = None
        self.ext_key: str | None = None
        self.hook_keys: dict[str, str] = {}
        self.refused: set[str] = set()  #: webhooks whose create was refused (their triggers wait too)

    # the Planner protocol
    def step(self, kind: str, res: ResourceDiff | None, rid: str = "", **kw: Any) -> Step:
        app = self.app
        title = res.title if res is not None else f'app "{app.name}"'
        op = Step(key=f"{app.key}/{kind}/{rid}".rstrip("/"), kind=kind, app_id=app.app_id, app_name=app.name,
                  resource=title, app_key=app.key, rid=rid, destructive=kind in DESTRUCTIVE_KINDS, **kw)
        if self.create_key and kind != "create_app":
            op.depends_on.append(self.create_key)
        if res is not None and app.live is not None and kind != "create_app":
            self.plan.fingerprints[resource_key(op)] = fingerprint_leaves(res.live)
            self.plan.snapshots[resource_key(op)] = res.live
        (self.destructive if op.destructive else self.ops).append(op)
        return op

    def skip_delete(self, what: str) -> None:
        self.plan.skipped_deletions += 1
        self.note(f"{what} is not in the draft: delete skipped", "delete_skipped")

    def note(self, message: str, code: str) -> None:
        self.plan.notes.append(Note(self.app.name, message, code))

    def changes(self, res: ResourceDiff) -> list[FieldChange]:
        return [change_of(res, leaf, self.app.name) for leaf in res.by_state("local")]

    def secretise(self, res: ResourceDiff, leaves: Leaves, *, local_paths: set[str]) -> Leaves:
        found = kind(res.kind)
        out = dict(leaves)
        for path, value in leaves.items():
            # a fingerprint is never sent: a secret under a key the catalog does not know is one too (its value is
            # read back from the service at push time, like a known secret the draft did not change)
            if value is not ABSENT and (found.is_secret(path) or is_secret_state(value)):
                field_path = found.secret_path.format(rid=res.rid, path=path)
                source = "draft" if path in local_paths or found.secrets_from_draft else "live"
                out[path] = secret_placeholder(self.draft, self.app.name, field_path, source=source,
                                               app_id=self.app.app_id)
        return out

    def merged(self, res: ResourceDiff) -> Leaves:
        merged = dict(res.live or {})
        for leaf in res.by_state("local"):
            if leaf.draft is ABSENT:
                merged.pop(leaf.path, None)
            else:
                merged[leaf.path] = leaf.draft
        return merged

    def refuse(self, res: ResourceDiff | None, message: str) -> None:
        title = res.title if res is not None else f'app "{self.app.name}"'
        self.plan.conflicts.append(Conflict(self.app.name, self.app.app_id, title, "", title, "", "", "",
                                            False, f"refused: {message}", invalid=True))

    def build(self) -> None:
        app = self.app
        if app.status == "delete":
            if self.allow_delete:
                op = self.step("delete_app", None, changes=[FieldChange("", "App", app.name, "(deleted)", "local")])
                op.resource = f'app "{app.name}" ({app.app_id})'
            else:
                self.skip_delete(f'app "{app.name}" ({app.app_id})')
            return
        if app.status in ("in_sync", "drift", "conflict", "remote_deleted", "no_base"):
            if app.status == "no_base":
                self.note(f"app {app.app_id} has no base snapshot: run tenantdeck pull (an offline diff cannot "
                          "compare it)", "no_base")
            if app.status != "drift":
                return
        if app.status == "create":
            assert app.draft is not None
            if (why := app_name_breaks_rule(str(app.draft["name"]))) is not None:
                self.refuse(None, f"{why}; a new app must follow it (shorten it in the draft)")
                return
            payload = {"name": app.draft["name"], "region": app.draft["region"], "version": app.draft["version"]}
            res = app.resource("app")
            op = self.step("create_app", None, changes=self.changes(res) if res else [], payload=payload)
            self.create_key = op.key
        for res in app.resources:
            kind(res.kind).plan(self, res)


def build_plan(
    comparison: Comparison,
    draft: Draft | None,
    *,
    allow_delete: bool = False,
    draft_path: str = "",
    profile: str | None = None,
    base_url: str | None = None,
) -> Plan:
    """The operations that bring the service to the draft, never clobbering a remote-only change."""
    plan = Plan(draft_path=draft_path, profile=profile, base_url=base_url, allow_delete=allow_delete,
                offline=comparison.offline)
    destructive: list[Step] = []
    ops: list[Step] = []
    for app in comparison.apps:
        plan.conflicts.extend(conflicts_of(app))
        plan.drift.extend(drift_of(app))
        planner = _AppPlanner(app, draft, allow_delete, plan)
        planner.build()
        destructive.extend(planner.destructive)
        ops.extend(planner.ops)
        if not planner.ops and not planner.destructive and app.status in ("in_sync", "drift"):
            plan.unchanged_apps += 1
    plan.operations = destructive + ops
    return plan
