"""The sync vocabulary: the plain data every sync module speaks, with no behaviour that needs another sync module.

Compare, plan, settle, render, the resource kinds (:mod:`tenantdeck.sync.kinds`) and the I/O layers
(:mod:`tenantdeck.sync.remote`, :mod:`tenantdeck.sync.workspace`) all pass these around. They live here, apart from
the modules that make them, so that a kind can name a :class:`ResourceDiff` or a :class:`Step` without importing
compare or plan (which import the kinds): this module imports no other sync module, so nothing it holds can sit in
an import circle.

* what is absent and what cannot be told: :data:`ABSENT`, :data:`UNKNOWN` (``{"unknown": True}``) and its tests;
* the keys of things not created yet: ``new:<name>`` (:func:`new_key`, :func:`new_name`, :func:`app_key_for`);
* a field that differs (:class:`FieldChange`), a conflict (:class:`Conflict`), a note (:class:`Note`);
* a comparison's results per leaf, resource and app (:class:`Leaf`, :class:`ResourceDiff`, :class:`AppDiff`);
* a plan step and its description (:class:`Step`, :class:`StepKind`);
* what the service holds for one app, as read (:class:`RemoteAppBundle`).

They are plain dataclasses; those a saved plan holds have ``to_json``/``from_json`` so it round-trips exactly. A
secret field never carries its value here: ``before``/``after`` of a secret are replaced by a state word ("set",
"unknown", ...) at the moment the change is built (see :func:`secret_word`), so nothing downstream can leak one by
accident.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tenantdeck.absent import ABSENT

if TYPE_CHECKING:
    from tenantdeck.api.models import RemoteApp, RemoteExtension, RemoteWidget

Origin = Literal["local", "remote", "conflict"]


# ABSENT (tenantdeck.absent): "not there on that side", the one sentinel the draft layer's views share

#: A value the service does not tell: a field it never returns (a webhook's write-only fields), the unreported
#: secret state, and (by identity, as a whole resource) a trigger set the API does not list, for which the base
#: stands in. Copy it (``dict(UNKNOWN)``) to put it in a value; compare the whole-resource marker with ``is``.
UNKNOWN: dict[str, bool] = {"unknown": True}


#: a canonical remote app's key for the collaborators a draft never names (the owner, developers): kept in the base
#: so the editor can show them, read by no kind (never compared, never planned)
SERVICE_TEAM = "service_team"
#: a base app's key for what pull kept as the service holds it because the draft's model cannot hold it:
#: ``{section: [key, ...]}`` (an extension's settings with a value of another type, a team email our rules
#: refuse). A draft that leaves such an entry out means "as the base holds it" (:func:`with_verbatim`): never
#: planned as a delete, in sync after the pull that kept it.
VERBATIM = "verbatim"
#: the :data:`VERBATIM` entry of a base app pull kept out of the draft as a whole, because the draft's model refuses
#: one of the app's own fields (a name with a newline, a region outside us/eu/in): ``{"app": [field, ...]}``. A
#: draft without that app means "as the service holds it" (:func:`kept_whole`): never a delete, never a create.
WHOLE_APP = "app"
#: a canonical draft app's key: ``{widget id: [leaf paths]}``, the fields of each widget the draft does not write
#: (the model's default fills them in): :func:`with_verbatim` tells by it a field pull kept verbatim from one the
#: user wrote. Never compared, never in a base.
DEFAULTED = "defaulted"
#: keys of a canonical app that are shown, not compared (a canonical draft never has them)
SHOWN_ONLY = (SERVICE_TEAM, VERBATIM)


def is_unknown(value: object) -> bool:
    """True for :data:`UNKNOWN`: a field or secret whose remote value the service does not reveal."""
    return isinstance(value, Mapping) and value.get("unknown") is True


def kept_whole(base: Mapping[str, Any] | None) -> bool:
    """Whether pull kept the app of ``base`` (a base app) out of the draft as a whole (:data:`WHOLE_APP`)."""
    kept = (base or {}).get(VERBATIM)
    return isinstance(kept, Mapping) and bool(kept.get(WHOLE_APP))


def with_verbatim(draft: Mapping[str, Any], base: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``draft`` (a canonical draft app) with each entry pull kept verbatim (:data:`VERBATIM` in ``base``) that
    the draft leaves out filled in from the base: the draft cannot write it, so leaving it out is not a delete.
    A section whose verbatim entry is a mapping (``widgets: {id: [field paths]}``) names fields of a resource the
    draft holds: each field the draft does not write (:data:`DEFAULTED`, or absent) is the base's too. A section
    the draft does not manage (None) stays None; ``draft`` itself is never changed."""
    kept = (base or {}).get(VERBATIM)
    if not kept or not isinstance(kept, Mapping):
        return draft
    out = dict(draft)
    for section, keys in kept.items():
        mine, theirs = draft.get(section), (base or {}).get(section)
        if not isinstance(mine, Mapping) or not isinstance(theirs, Mapping):
            continue
        missing = {k: theirs[k] for k in keys if k not in mine and k in theirs}
        if isinstance(keys, Mapping):
            missing.update(_held_fields(mine, theirs, keys, (draft.get(DEFAULTED) or {})))
        if missing:
            out[section] = {**mine, **missing}
    return out


def _held_fields(mine: Mapping[str, Any], theirs: Mapping[str, Any], fields: Mapping[str, Any],
                 defaulted: Mapping[str, Any]) -> dict[str, Any]:
    """Each resource of ``mine`` with the fields ``fields`` names for it (dotted paths) that the draft does not
    write taken from ``theirs`` (the base): the draft's model cannot hold the service's value, so pull left it
    out; a value the draft writes is the user's (validated strictly) and stays."""
    out: dict[str, Any] = {}
    for rid, paths in fields.items():
        if rid not in mine or rid not in theirs or not isinstance(paths, list):
            continue
        left = set(defaulted.get(rid) or ())
        resource = mine[rid]
        for path in paths:
            if path in left or value_at(resource, path) is None:
                resource = _put(resource, path, value_at(theirs[rid], path))
        if resource is not mine[rid]:
            out[rid] = resource
    return out


def value_at(value: Any, path: str) -> Any:
    """The value at dotted ``path`` inside nested mappings (``fcmCredentials.private_key``), None when any part is
    missing: the one way kinds, pull, the push's secret reads and the held fields look inside a resource (here, the
    lowest module of sync, so that :func:`with_verbatim` can use it too; ``kinds.base`` re-exports it)."""
    for part in path.split(".") if path else ():
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _put(value: Mapping[str, Any], path: str, item: Any) -> dict[str, Any]:
    """A copy of ``value`` with ``item`` at dotted ``path`` (None: without it), the mappings on the way copied."""
    head, _, rest = path.partition(".")
    out = dict(value)
    if rest:
        out[head] = _put(out.get(head) if isinstance(out.get(head), Mapping) else {}, rest, item)
    elif item is None:
        out.pop(head, None)
    else:
        out[head] = item
    return out


def cannot_tell(value: Any) -> bool:
    """A side that cannot tell this value: :data:`UNKNOWN`, or a ``${VAR}`` secret (``{"ref": VAR}``) whose
    variable is unset. Compare treats such a side as "no information", never a change."""
    return type(value) is dict and (bool(value.get("unknown")) or "ref" in value)


# -- keys of what the service has not created yet ------------------------------------------------------------------

_NEW = "new:"


def new_key(name: str) -> str:
    """The key of an app or widget that has no id yet (the draft creates it): ``new:<name>``."""
    return f"{_NEW}{name}"


def new_name(key: str) -> str | None:
    """The name inside a :func:`new_key` key; None when ``key`` is an id (the object exists on the service)."""
    return key[len(_NEW):] if key.startswith(_NEW) else None


def app_key_for(app_id: str | None, name: str) -> str:
    """How plans, conflicts and the push name an app: its id, or ``new:<name>`` until ``create_app`` has run."""
    return app_id or new_key(name)


def jsonable(value: Any) -> Any:
    """ABSENT becomes None for JSON output (the change's ``kind`` says whether it is an add or a removal)."""
    return None if value is ABSENT else value


def secret_word(value: Any) -> str:
    """What a human may see of a secret state: never the value, never even the fingerprint."""
    if value is ABSENT or value is None:
        return "(none)"
    if isinstance(value, dict):
        if "ref" in value:
            return f"${{{value['ref']}}} (unset)"
        if value.get("unknown"):
            return "(unknown)"
    return "(set)"


@dataclass(slots=True)
class FieldChange:
    """One field that differs: ``path`` is relative to its resource, ``label`` is the human name from the catalog."""

    path: str
    label: str
    before: Any
    after: Any
    origin: Origin
    secret: bool = False
    app: str = ""  #: app name, for lists that span apps (drift)
    resource: str = ""  #: resource title, e.g. 'widget "Support" (w-1)'

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["before"] = jsonable(self.before)
        data["after"] = jsonable(self.after)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FieldChange:
        return cls(**data)


@dataclass(slots=True)
class Conflict:
    """The draft and the live service both changed one field (or resource) away from the base, differently."""

    app: str
    app_id: str | None
    resource: str
    path: str
    label: str
    base: Any
    draft: Any
    live: Any
    secret: bool = False
    message: str = ""
    kind: str = ""  #: the resource kind (widget, webhook, sms, extensions, triggers), for resolving it
    rid: str = ""  #: the resource id within the app (widget id, webhook id)
    #: a value the draft itself sets that a push refuses (over a service limit, undocumented): an invalid draft,
    #: not a three-way conflict; nothing to take from either side, so it is fixed in the draft (exit 1)
    invalid: bool = False

    @property
    def key(self) -> str:
        """How ``--take-mine``/``--take-theirs`` name this conflict: ``APP_ID/KIND[:RID]/FIELD``."""
        return f"{app_key_for(self.app_id, self.app)}/{self.kind}{':' + self.rid if self.rid else ''}/{self.path}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("base", "draft", "live"):
            data[key] = jsonable(data[key])
        if self.kind:  # what --take-mine/--take-theirs take, so a CI job can settle it from the JSON alone
            data["key"] = self.key
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conflict:
        return cls(**{k: v for k, v in data.items() if k != "key"})


@dataclass(slots=True)
class Note:
    """Something the user must know that is not an operation: skipped deletes, unsupported changes."""

    app: str
    message: str
    kind: str = "info"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Note:
        return cls(**data)


# -- a comparison's results (made by tenantdeck.sync.compare) ----------------------------------------------------

Leaves = dict[str, Any]  #: a resource's fields by dotted path (``style.primary_color``); see ``kinds.base.flatten``
ResourceKey = tuple[str, str]  #: (kind, id); id is "" for the app, extensions and sms
LeafState = Literal["same", "local", "remote", "conflict"]
ResourceStatus = Literal[
    "in_sync", "create", "update", "delete", "drift", "conflict", "remote_only", "remote_deleted", "gone"
]


@dataclass(slots=True)
class Leaf:
    path: str
    base: Any
    draft: Any
    live: Any
    state: LeafState


@dataclass(slots=True)
class ResourceDiff:
    """How one resource of one app compares, with the leaves of each side kept for plan building."""

    kind: str
    rid: str
    title: str
    status: ResourceStatus
    leaves: list[Leaf] = field(default_factory=list)
    base: Leaves | None = None
    draft: Leaves | None = None
    live: Leaves | None = None
    message: str = ""

    @property
    def key(self) -> ResourceKey:
        return (self.kind, self.rid)

    def by_state(self, state: LeafState) -> list[Leaf]:
        return [leaf for leaf in self.leaves if leaf.state == state]

    @property
    def unchanged(self) -> int:
        return sum(1 for leaf in self.leaves if leaf.state != "local" and leaf.state != "conflict")


@dataclass(slots=True)
class AppDiff:
    """One app: its identity on each side and its resources' diffs."""

    key: str  #: app id, or ``new:<name>`` for an app the draft creates (:func:`app_key_for`)
    app_id: str | None
    name: str
    status: Literal["create", "update", "delete", "in_sync", "conflict", "drift", "remote_deleted", "no_base"]
    resources: list[ResourceDiff]
    draft: dict[str, Any] | None
    base: dict[str, Any] | None
    live: dict[str, Any] | None

    def resource(self, kind: str, rid: str = "") -> ResourceDiff | None:
        for res in self.resources:
            if res.kind == kind and res.rid == rid:
                return res
        return None


# -- plan steps (made by the kinds, through tenantdeck.sync.plan) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class StepKind:
    """One kind of plan step (one API call): how it counts, how the plan text names it. Each resource kind
    declares its own (``Kind.steps``); the call each one makes is ``tenantdeck.sync.remote.ops.CALLS``."""

    name: str  #: ``create_widget``: the ``kind`` of a :class:`Step`
    verb: str  #: what the plan text says before the resource: "create"
    effect: Literal["create", "update", "delete"]  #: how the summary counts it; "delete" is destructive
    shown_as: Literal["create", "update", "delete"] | None = None  #: the plan text's symbol, when not ``effect``
    assigns_id: bool = False  #: the service answers with the new object's id (written back into the draft)
    folds_defaults: bool = False  #: plan text lists only the values that differ from the defaults

    @property
    def destructive(self) -> bool:
        return self.effect == "delete"

    @property
    def creates(self) -> bool:
        """A create: journalled as an intent first, so a crash before its answer cannot make a duplicate."""
        return self.effect == "create"

    @property
    def symbol(self) -> str:
        return self.shown_as or self.effect


@dataclass(slots=True)
class Step:
    """One API call of a plan. Saved as an entry of the plan's ``operations`` list (the JSON is unchanged since
    this class was called ``Operation``). ``app_key`` is the app id, or ``new:<name>`` until ``create_app`` has run.
    The key of the resource it touches is ``tenantdeck.sync.plan.resource_key`` (it asks the kinds' registry).
    """

    key: str
    kind: str
    app_id: str | None
    app_name: str
    resource: str  #: human title: 'widget "Support" (w-1)'
    depends_on: list[str] = field(default_factory=list)
    destructive: bool = False
    changes: list[FieldChange] = field(default_factory=list)
    payload: dict[str, Any] = field(default_factory=dict)
    app_key: str = ""
    rid: str = ""  #: widget id / webhook id; ``new:<name>`` for a widget to create
    unchanged: int = 0  #: settings of this resource left as they are (rendered folded)

    def to_json(self) -> dict[str, Any]:
        # by hand, not dataclasses.asdict: that deep-copies every payload (a third of a 1,000-app JSON diff)
        data = {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]
        data["changes"] = [c.to_json() for c in self.changes]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Step:
        data = dict(data)
        data["changes"] = [FieldChange.from_json(c) for c in data.get("changes", [])]
        return cls(**data)


# -- what the service holds (read by tenantdeck.sync.remote.fetch) -----------------------------------------------


@dataclass(slots=True)
class RemoteAppBundle:
    """What the service holds for one app. Each webhook dict carries a ``"triggers"`` list.

    ``extensions`` is None when it could not be read; an extension whose ``enabled`` is None means the service
    does not tell per-app state (the real API), which the canonical form records as "unknown".
    ``sms`` may hold the Twilio auth token in clear: turn the bundle into canonical form (which fingerprints it)
    and drop the bundle; never log or store it. Plain data: the kinds read it (``Kind.from_remote``) without
    knowing how it was fetched.
    """

    app: RemoteApp
    extensions: list[RemoteExtension] | None
    widgets: list[RemoteWidget] = field(default_factory=list)
    sms: dict[str, Any] | None = field(default=None, repr=False)
    webhooks: list[dict[str, Any]] = field(default_factory=list)
    #: the collaborators (``{id, name, email, role, createdAt}``); None when not read
    team: list[dict[str, Any]] | None = None
    #: the app settings (``{key: value}``); None when not read
    settings: dict[str, Any] | None = None
    #: extension id -> its settings as the service reports them (secrets in clear, like ``sms``), or None when it
    #: has none; an extension not read is not a key. None: none read at all.
    extension_settings: dict[str, dict[str, Any] | None] | None = field(default=None, repr=False)
    #: which APNs certificates the service holds (``{"p12": bool, "p8": bool}``); None when not read
    certificates: dict[str, bool] | None = None
