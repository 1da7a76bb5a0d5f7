"""What every resource kind provides (:class:`Kind`), and the helpers kinds share (leaves and the base after a step).

A canonical app (:mod:`tenantdeck.sync.canonical`) holds several kinds of resource: the app's own fields, its
extension switches, widgets, SMS settings, webhooks and each webhook's trigger set. Compare, plan, settle and the
push executor are generic; whatever differs between kinds is asked of the kind's module here.

A kind is pure, data in and steps out: it reads the draft's models and what the service holds (a
``RemoteAppBundle``), plans steps (``Step``, both in :mod:`tenantdeck.sync.types`) and says how a step that
succeeded changes the base.
It never talks to the service: the API call of each step is :data:`tenantdeck.sync.remote.ops.CALLS`. It imports
only the vocabulary (:mod:`tenantdeck.sync.types`), the normal form's rules (:mod:`tenantdeck.sync.canonical`),
the models and the rules, never compare, plan or the I/O layers (``tests/sync/test_kinds_are_pure.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from tenantdeck.models.secrets import SECRET_STATE_KEYS as _SECRET_STATE_KEYS
from tenantdeck.models.secrets import is_secret_state
from tenantdeck.sync.types import ABSENT, Leaves, StepKind

if TYPE_CHECKING:
    from tenantdeck.models import App, Draft
    from tenantdeck.sync.types import AppDiff, Conflict, FieldChange, RemoteAppBundle, ResourceDiff, Step

#: one edit of the draft's plain data: ``("set", path, value)`` or ``("delete", path, None)``
DraftEdit = tuple[str, tuple[Any, ...], Any]


def leaf_edit(path: tuple[Any, ...], live: Any) -> DraftEdit:
    """Write ``live`` at ``path``; a value the service does not have removes the key."""
    return ("delete", path, None) if live is ABSENT or live is None else ("set", path, live)


def field_path(conflict: Conflict) -> tuple[str, ...]:
    """The conflict's field as path parts below its resource (``main.send_gifs`` -> ``("main", "send_gifs")``)."""
    return tuple(conflict.path.split("."))


def webhook_index(app: Mapping[str, Any], rid: str) -> int | None:
    """Where the webhook ``rid`` sits in the draft app's ``webhooks`` list."""
    hooks = app.get("webhooks") or []
    return next((n for n, h in enumerate(hooks) if isinstance(h, dict) and str(h.get("id")) == rid), None)


#: values that are leaves by their type alone: :func:`flatten` runs over every field of every compared resource
#: (70 per widget), and an ABC ``isinstance`` check is several times slower than this set lookup
_LEAF_TYPES = frozenset({str, bool, int, float, list})


def flatten(value: Mapping[str, Any], prefix: str = "") -> Leaves:
    """Nested dicts -> ``{"style.primary_color": ...}``. Lists and secret states are leaves; None means absent."""
    out: Leaves = {}
    for key, item in value.items():
        if item is None:
            continue
        kind = type(item)
        if kind in _LEAF_TYPES or (kind is dict and not _SECRET_STATE_KEYS.isdisjoint(item)) or (
                kind is not dict and (not isinstance(item, Mapping) or is_secret_state(item))):
            out[f"{prefix}{key}"] = item
        else:
            out.update(flatten(item, f"{prefix}{key}."))
    return out


def unflatten(leaves: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`flatten` (absent leaves are simply left out)."""
    out: dict[str, Any] = {}
    for path, value in leaves.items():
        if value is ABSENT:
            continue
        node = out
        *parents, last = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def with_changes(old: Mapping[str, Any] | None, step: Step, sent: Mapping[str, Any]) -> dict[str, Any]:
    """The base of an updated resource: the old base with only the step's *local* changes applied.

    Not simply what was sent: the body also carries remote-only changes (drift) that the draft does not have, and
    recording them as base would make the next diff show them as local reverts. Secrets changed locally take the
    fingerprint of the value sent.
    """
    if old is None:
        return dict(sent)
    leaves = flatten(old)
    sent_leaves = flatten(sent)
    for change in step.changes:
        if change.secret:
            if change.path in sent_leaves:
                leaves[change.path] = sent_leaves[change.path]
        elif change.after is None or change.after is ABSENT:
            leaves.pop(change.path, None)
        else:
            leaves[change.path] = change.after
    return unflatten(leaves)


class Planner(Protocol):
    """What a kind's :meth:`Kind.plan` gets to build the steps of one resource (``sync.plan._AppPlanner``):
    the app's comparison, the options, what earlier kinds planned, and the helpers every kind shares."""

    app: AppDiff
    draft: Draft | None  #: the draft the plan is made from (None: a plan of canonical data alone)
    allow_delete: bool
    ext_key: str | None  #: the app's set_extensions step, which widgets wait for
    hook_keys: dict[str, str]  #: webhook id -> its create/update step, which its triggers wait for
    refused: set[str]  #: webhooks whose create was refused (their triggers wait too)

    def step(self, kind: str, res: ResourceDiff | None, rid: str = "", **kw: Any) -> Step:
        """Add one step (its fingerprint, dependencies on ``create_app``) and return it."""
        ...

    def changes(self, res: ResourceDiff) -> list[FieldChange]:
        """The local changes of ``res``, as the plan shows them."""
        ...

    def merged(self, res: ResourceDiff) -> Leaves:
        """Live leaves with the local changes laid on top: what a whole-object update sends."""
        ...

    def secretise(self, res: ResourceDiff, leaves: Leaves, *, local_paths: set[str]) -> Leaves:
        """``leaves`` with each secret replaced by its placeholder (resolved at push time)."""
        ...

    def refuse(self, res: ResourceDiff | None, message: str) -> None:
        """A value outside the documented rules the draft would send: a ``refused:`` conflict (push stops)."""
        ...

    def skip_delete(self, what: str) -> None:
        """A deletion not planned (no ``--allow-delete``): counted and noted."""
        ...

    def note(self, message: str, code: str) -> None:
        """A note about this app in the plan."""
        ...


class Kind:
    """One kind of resource of a canonical app. Subclasses override what differs; the defaults fit a kind held as
    one nested object (SMS)."""

    name: ClassVar[str]  #: the kind in comparisons, fingerprints and labels: "widget"
    section: ClassVar[str | None] = None  #: the canonical app's key that holds it ("widgets"); None: the app itself
    steps: ClassVar[tuple[StepKind, ...]] = ()
    #: the section's value in an app that has nothing of this kind yet
    empty: ClassVar[Mapping[str, Any]] = {}
    secret_fields: ClassVar[frozenset[str]] = frozenset()
    labels: ClassVar[Mapping[str, str]] = {}
    #: the draft manages only the entries it names (extensions: the others are left as they are)
    partial: ClassVar[bool] = False
    #: a draft that leaves the section out does not manage it (team); one that has it says all of it
    optional: ClassVar[bool] = False
    #: the kind whose resources these belong to (triggers of a webhook): created and deleted with it
    parent: ClassVar[str | None] = None
    #: leaf path -> the value a new resource has when the draft leaves it out (see ``StepKind.folds_defaults``)
    defaults: ClassVar[Mapping[str, Any]] = {}
    #: the fields of the draft app :meth:`from_draft` reads, besides the draft's presets, the secret key and the
    #: environment: while these are the same objects, its part is the same, so a refresh of the change states after
    #: an edit of one section reuses the other kinds' parts (``canonical_app_from_draft(parts=...)``). None: it
    #: reads something else too (a file), so its part is built every time.
    reads: ClassVar[tuple[str, ...] | None] = None

    # -- the canonical form, from either side (tenantdeck.sync.canonical assembles an app from these)
    def from_draft(self, draft: Draft, app: App, *, secret_key: bytes, env: Mapping[str, str]) -> dict[str, Any]:
        """This kind's part of the canonical form of ``app`` (a validated draft app): the canonical app's keys it
        holds. Default: nothing (a kind held inside another's resources, such as a webhook's triggers)."""
        return {}

    def from_remote(self, remote: RemoteAppBundle, *, secret_key: bytes) -> dict[str, Any]:
        """This kind's part of the canonical form of what the service holds, normalised exactly like
        :meth:`from_draft` (secrets fingerprinted with ``secret_key``, unreported values
        :data:`~tenantdeck.sync.types.UNKNOWN`)."""
        return {}

    # -- naming
    def draft_edits(self, index: int, app: Mapping[str, Any], conflict: Conflict) -> list[DraftEdit]:
        """The edits of the draft's app ``index`` (its plain data ``app``) that write ``conflict``'s live value into
        the draft ("take theirs"): ``(verb, path, value)`` with verb ``set`` or ``delete``. Empty when the field is
        out of the draft's reach (its resource is not in the draft) or the kind has nothing to take."""
        return []

    def label(self, path: str) -> str:
        """The human label of ``path`` inside a resource of this kind (falls back to the path itself)."""
        return self.labels.get(path, path)

    def title(self, rid: str, name: str | None) -> str:
        """How plans name one resource of this kind: ``widget "Support" (w-1)``."""
        return self.name

    def is_secret(self, path: str) -> bool:
        return path in self.secret_fields

    def absent_is_unchanged(self, path: str) -> bool:
        """A field the draft leaves out is left as it is on the service (not cleared). True for secrets: the API
        cannot clear one, and an update without it keeps it."""
        return self.is_secret(path)

    # -- cutting a canonical app into resources and leaves, and back
    def resources(self, app: Mapping[str, Any]) -> dict[str, Any]:
        """rid -> the canonical (nested) value of each resource of this kind in ``app``."""
        value = app.get(self.section or "")
        return {} if value is None else {"": value}

    def leaves(self, raw: Any) -> Leaves:
        return flatten(raw)

    def put(self, app: dict[str, Any], rid: str, leaves: Mapping[str, Any]) -> None:
        """Write one resource's leaves back into a canonical app (the inverse of :meth:`resources`)."""
        assert self.section is not None
        app[self.section] = unflatten(leaves)

    #: where a secret of this kind sits in a draft app (``webhooks.{rid}.password``), for its placeholder
    secret_path: ClassVar[str] = "{path}"
    #: a secret an update sends unchanged is read from the draft (else from the service: ``source="live"``)
    secrets_from_draft: ClassVar[bool] = False

    # -- planning
    def plan(self, planner: Planner, res: ResourceDiff) -> None:
        """Add the steps that bring ``res`` (one resource of this kind) to the draft: the kind's half of
        :func:`tenantdeck.sync.plan.build_plan`. Default: nothing to do."""

    # -- after the service applied a step (the call itself is tenantdeck.sync.remote.ops: kinds do no I/O)
    def apply(self, base: dict[str, Any] | None, step: Step, sent: Any,
              result: Mapping[str, Any]) -> dict[str, Any] | None:
        """The app's base (a copy, None before ``create_app``) after ``step`` succeeded: its resource replaced by
        what was sent (secrets as fingerprints). None: the app is gone."""
        return base
