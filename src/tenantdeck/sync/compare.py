"""Three-way comparison of canonical apps: base (last pulled or pushed), draft, and live.

Every canonical app (see ``docs/architecture.md``) is cut into *resources* (the app itself, its extension switches,
each widget, SMS, each webhook and each webhook's trigger set), and every resource into *leaves* (dotted field paths
to plain values). Each leaf is classified:

* in sync: nothing to do;
* local change (base -> draft): will be pushed;
* remote change, or drift (base -> live): kept as it is, shown so nobody is surprised;
* conflict: both sides moved the same leaf to different values; push refuses until it is settled.

Why leaves: the widget update is a whole-object PUT, so the update body is built by laying only the *local* changes
onto the *live* object (:func:`merged_leaves`). A field changed remotely and untouched in the draft survives.

Where an app has no base at all (never pulled here and no committed lock file: a fresh clone), nothing says which
side changed a field, so a difference between draft and live is a conflict, never a write, unless the user says
which side wins (``prefer="draft"``: live stands in for the base, the draft wins; ``prefer="live"``: the draft
stands in, the service's values are kept). Where only a resource has no base (a create whose result was not
recorded), the live state stands in for it. Offline, live *is* the base.

A base secret read with another fingerprint key than the one it was made with (``{"unknown": true,
"unverifiable": true}``, :mod:`tenantdeck.sync.workspace.lockfile`) is unknown, never "will rotate": a difference
is shown only where the service reports the secret (then it is a conflict).

Secrets are :data:`SecretState` dicts compared by keyed fingerprint; a side that cannot tell (the live webhook
password, a ``${VAR}`` whose variable is unset) is replaced by the base. So is every live value the service does
not report (a webhook's write-only fields): those compare draft against base, which holds what tenantdeck last
pushed, and can never show as drift or conflict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.sync.kinds import BY_NAME, KINDS, ORDER, Kind, is_secret, label
from tenantdeck.sync.types import (
    ABSENT,
    UNKNOWN,
    AppDiff,
    Conflict,
    FieldChange,
    Leaf,
    LeafState,
    Leaves,
    ResourceDiff,
    ResourceKey,
    app_key_for,
    cannot_tell,
    is_unknown,
    kept_whole,
    secret_word,
    with_verbatim,
)

# -- cutting canonical apps into resources and leaves (each kind knows its own: tenantdeck.sync.kinds) -----------


def raw_resources(app: Mapping[str, Any], kinds: Iterable[Kind] = KINDS) -> dict[ResourceKey, Any]:
    """All resources of one canonical app (of ``kinds``), each as its canonical (nested) value: cheap to compare
    for equality."""
    return {(kind.name, rid): raw for kind in kinds for rid, raw in kind.resources(app).items()}


def _kinds_to_compare(draft: Mapping[str, Any], base: Mapping[str, Any], live: Mapping[str, Any]) -> list[Kind]:
    """The kinds whose section of the canonical app is not equal on all three sides, and the app's own kind.

    A kind's resources are cut from its section alone (``Kind.resources``), so a section equal on every side gives
    resources identical on every side, which the comparison skips anyway: this skips cutting and comparing them
    one by one (after a bulk edit of one toggle, 5,000 apps differ from their base in one widget each)."""
    out: list[Kind] = []
    for kind in KINDS:
        section = kind.section
        if section is None:
            out.append(kind)
            continue
        d = draft.get(section)
        b = base.get(section)
        if not (d == b and (live is base or live.get(section) == b)):
            out.append(kind)
    return out


def _leaves(kind: str, raw: Any) -> Leaves | None:
    if raw is None or raw is UNKNOWN:
        return raw
    return BY_NAME[kind].leaves(raw)


def app_resources(app: Mapping[str, Any]) -> dict[ResourceKey, Leaves]:
    """All resources of one canonical app, each as leaves."""
    return {key: _leaves(key[0], raw) for key, raw in raw_resources(app).items()}  # type: ignore[misc]


# -- results (Leaf, ResourceDiff, AppDiff: tenantdeck.sync.types) ---------------------------------------------------


@dataclass(slots=True)
class Comparison:
    apps: list[AppDiff]
    offline: bool

    @property
    def conflicts(self) -> list[Conflict]:
        return [c for app in self.apps for c in conflicts_of(app)]

    @property
    def drift(self) -> list[FieldChange]:
        return [d for app in self.apps for d in drift_of(app)]


# -- the comparison ----------------------------------------------------------------------------------------------


def classify(base: Any, draft: Any, live: Any) -> LeafState:
    """The three-way rule for one leaf (``ABSENT`` is a value like any other)."""
    if draft == base:
        return "same" if live == base else "remote"
    if live == base:
        return "local"
    if live == draft:
        return "same"
    return "conflict"


def _unverifiable(value: Any) -> bool:
    return type(value) is dict and bool(value.get("unverifiable"))


def compare_leaves(base: Leaves | None, draft: Leaves, live: Leaves, *, kind: str,
                   mine: frozenset[str] = frozenset()) -> list[Leaf]:
    """Classify every leaf present on any side, in a stable order. ``base=None``: no base at all, so a leaf draft
    and live differ on is a conflict (what neither side can tell is not a difference), unless its path is in
    ``mine``."""
    if base is None:
        return _without_base(draft, live, kind=kind, mine=mine)
    leaves: list[Leaf] = []
    spec = BY_NAME[kind]
    offline = live is base  # live stands for the base: one lookup less per leaf (a widget has 70)
    for path in _ordered(base, draft) if offline else _ordered(base, draft, live):
        b, d = base.get(path, ABSENT), draft.get(path, ABSENT)
        lv = b if offline else live.get(path, ABSENT)
        if d == b and (lv is b or lv == b) and type(b) is not dict:
            leaves.append(Leaf(path, b, d, lv, "same"))  # the common case, without the checks below
            continue
        if spec.partial and d is ABSENT:
            continue  # only the entries the draft names are managed (extensions)
        if _unverifiable(b):
            # fingerprints made with another key: only a service that reports the secret can show a difference
            known = not cannot_tell(d) and not cannot_tell(lv) and d is not ABSENT
            leaves.append(Leaf(path, b, d, lv, "conflict" if known and d != lv else "same"))
            continue
        if cannot_tell(d) and b is not ABSENT:
            d = b  # a ${VAR} whose variable is unset: cannot tell, so no change
        if d is ABSENT and spec.absent_is_unchanged(path):
            d = b  # left out of the draft = left as it is (a secret cannot be cleared; a webhook update keeps it)
        if cannot_tell(lv):
            lv = b if b is not ABSENT else d  # the service does not reveal it: the base stands in
        leaves.append(Leaf(path, b, d, lv, classify(b, d, lv)))
    return leaves


def _without_base(draft: Leaves, live: Leaves, *, kind: str, mine: frozenset[str] = frozenset()) -> list[Leaf]:
    """``mine``: the paths the user said the draft wins (``--take-mine KEY`` where no base exists): a local change
    instead of a conflict."""
    spec = BY_NAME[kind]
    leaves: list[Leaf] = []
    for path in _ordered(draft, live):
        d, lv = draft.get(path, ABSENT), live.get(path, ABSENT)
        if spec.partial and d is ABSENT:
            continue
        unknowable = cannot_tell(d) or cannot_tell(lv) or (d is ABSENT and spec.absent_is_unchanged(path))
        state: LeafState = "same" if unknowable or d == lv else "local" if path in mine else "conflict"
        leaves.append(Leaf(path, ABSENT, d, lv, state))
    return leaves


def _ordered(*sides: Mapping[str, Any]) -> list[str]:
    """Every key of the sides, each once, in the order they are first met."""
    seen: dict[str, None] = {}
    for side in sides:
        seen.update(dict.fromkeys(side))
    return list(seen)


def resource_title(kind: str, rid: str, *sides: Leaves | None) -> str:
    """How a resource is named in plans: ``widget "Support" (w-1)``, ``webhook "Orders" (orders)``, ``SMS``."""
    name = next((s["name"] for s in sides if s and isinstance(s.get("name"), str)), None)
    return BY_NAME[kind].title(rid, name)


def compare_resource(
    kind: str, rid: str, base: Leaves | None, draft: Leaves | None, live: Leaves | None, *, no_base: bool = False,
    mine: frozenset[str] = frozenset(),
) -> ResourceDiff:
    """Classify one resource, including its existence on each side. ``no_base``: its app has no base at all, so
    a difference between draft and live is a conflict, never an operation, except on the paths of ``mine`` (the
    user settled them for the draft: an update)."""
    title = resource_title(kind, rid, draft, live, base)
    res = ResourceDiff(kind, rid, title, "in_sync", base=base, draft=draft, live=live)
    if no_base and base is None and draft is not None:
        if live is None:
            res.status = "conflict"
            res.message = ("in the draft, not on the service, and no base says which side changed it (--prefer "
                           "draft creates it, --prefer live leaves it out)")
            return res
        res.leaves = compare_leaves(None, draft, live, kind=kind, mine=mine)
        if res.by_state("conflict"):
            res.status = "conflict"
            res.message = ""
        elif res.by_state("local"):
            res.status = "update"
        return res
    if draft is not None:
        if base is None and live is None:
            res.status = "create"
            res.leaves = [Leaf(p, ABSENT, v, ABSENT, "local") for p, v in draft.items()]
            return res
        if live is None:
            # It was in the base but is gone remotely: a remote delete. Editing it meanwhile is a conflict.
            assert base is not None
            res.leaves = compare_leaves(base, draft, base, kind=kind)
            if res.by_state("local") and BY_NAME[kind].parent is None:
                res.status = "conflict"
                res.message = "deleted remotely, changed in the draft"
            else:
                res.status = "remote_deleted"
            return res
        res.leaves = compare_leaves(live if base is None else base, draft, live, kind=kind)
        if res.by_state("conflict"):
            res.status = "conflict"
        elif res.by_state("local"):
            res.status = "update"
        elif res.by_state("remote"):
            res.status = "drift"
        return res
    if base is not None:
        res.status = "delete" if live is not None else "gone"
        res.leaves = [Leaf(p, v, ABSENT, (live or {}).get(p, ABSENT), "local") for p, v in base.items()]
        return res
    res.status = "remote_only" if live is not None else "gone"
    return res


def compare_app(
    draft: Mapping[str, Any] | None,
    base: Mapping[str, Any] | None,
    live: Mapping[str, Any] | None,
    *,
    offline: bool = False,
    prefer: str | None = None,
    base_leaves: dict[ResourceKey, tuple[Any, Leaves | None]] | None = None,
    take_mine: frozenset[str] = frozenset(),
) -> AppDiff:
    """Compare one app on its three sides. Offline, the base stands in for live. An app the draft names by id with
    no base, that is on the service: ``prefer`` says which side wins; None makes each difference a conflict, but
    for the conflicts ``take_mine`` names by key (``--take-mine KEY``: there is no base to record the live value
    in, so the draft's value is the change to send); ``APP/*`` there (``--take-mine-all``) is ``prefer="draft"``.

    ``base_leaves``: kept by a caller that compares against the same base again (the editor's change states after
    each edit): each base resource's leaves, reused while its canonical value is the same object."""
    if offline:
        live = base
    if draft is not None and base is not None:
        draft = with_verbatim(draft, base)  # what pull kept as the service holds it is not a local delete
    no_base = False
    if not offline and draft is not None and draft.get("id") and base is None and live is not None:
        if prefer is None and take_mine and f"{app_key_for(draft.get('id'), draft['name'])}/*" in take_mine:
            prefer = "draft"  # --take-mine-all: every difference the draft's, as --prefer draft says it
        if prefer == "live":
            base = draft  # the draft stands in for the base: what the service has is kept
        elif prefer != "draft":
            no_base = True
    ident = draft or base or live
    assert ident is not None
    app_id = ident.get("id") or (base or {}).get("id") or (live or {}).get("id")
    key = app_key_for(app_id, ident["name"])
    kinds = _kinds_to_compare(draft, base, live) if draft is not None and base is not None and live is not None \
        else KINDS
    d_res = raw_resources(draft, kinds) if draft is not None else {}
    b_res = raw_resources(base, kinds) if base is not None else {}
    l_res = b_res if live is base else raw_resources(live, kinds) if live is not None else {}
    keys = sorted(set(d_res) | set(b_res) | set(l_res), key=lambda k: (ORDER[k[0]], k[1]))
    diff = AppDiff(key, app_id, str(ident["name"]), "in_sync", [], dict(draft) if draft else None,
                   dict(base) if base else None, dict(live) if live else None)
    if draft is None:
        diff.status = "delete" if live is not None else "in_sync"
        if kept_whole(base):
            diff.status = "in_sync"  # pull kept it out of the draft, as the service holds it: not a local delete
        if base is not None and live is None:
            diff.status = "in_sync"  # gone on both sides
        return diff
    if offline and draft.get("id") and base is None:
        diff.status = "no_base"  # offline, an app the base does not know cannot be compared
        return diff
    if base is not None and live is None:
        # Gone on the service. Which resources the draft changed decides between drift and conflict.
        diff.resources = compare_app(draft, base, base).resources
        diff.status = "remote_deleted"
        return diff
    if draft.get("id") and base is None and live is None and not offline:
        diff.status = "remote_deleted"
        return diff
    for rkey in keys:
        kind, rid = rkey
        spec = BY_NAME[kind]
        if spec.partial and rkey not in d_res:
            continue  # only the entries the draft names are managed (extensions)
        if spec.optional and draft.get(spec.section or "") is None:
            continue  # the draft does not manage this kind at all (team, extension settings)
        if spec.parent and (spec.parent, rid) not in d_res and (spec.parent, rid) in b_res:
            continue  # covered by the parent's own delete (a webhook's triggers)
        live_res = l_res.get(rkey)
        if live_res is UNKNOWN or (spec.partial and is_unknown(live_res)):
            # the service does not tell: the base stands in (a partial kind's entry the base never had is a local
            # change to send, not one to take for granted; a trigger set the base lacks is the draft's)
            live_res = b_res.get(rkey) if spec.partial else b_res.get(rkey, d_res.get(rkey))
        d_raw, b_raw = d_res.get(rkey), b_res.get(rkey)
        live_is_base = live_res is b_raw  # offline: one side's leaves serve both
        if spec.partial and d_raw is not None:
            # only the entries the draft names are managed; the base and live list every known one
            b_raw = _only(b_raw, d_raw)
            live_res = b_raw if live_is_base else _only(live_res, d_raw)
        if d_raw is not None and d_raw == b_raw and live_res == b_raw:
            continue  # identical on all three sides: nothing to say, and no need to look at each field
        if base_leaves is None:
            b_leaves = _leaves(kind, b_raw)
        else:
            kept = base_leaves.get(rkey)
            if kept is None or kept[0] is not b_raw:
                kept = base_leaves[rkey] = (b_raw, _leaves(kind, b_raw))
            b_leaves = kept[1]
        res = compare_resource(kind, rid, b_leaves, _leaves(kind, d_raw),
                               b_leaves if live_is_base else _leaves(kind, live_res), no_base=no_base,
                               mine=_paths_of(take_mine, key, kind, rid) if no_base and take_mine else frozenset())
        if spec.parent and res.status == "create":
            res.title = resource_title(kind, rid)
        diff.resources.append(res)
    statuses = {r.status for r in diff.resources}
    if live is None and base is None:
        diff.status = "create"
    elif "conflict" in statuses:
        diff.status = "conflict"
    elif statuses & {"create", "update", "delete"}:
        diff.status = "update"
    elif statuses & {"drift", "remote_only", "remote_deleted"}:
        diff.status = "drift"
    return diff


def _paths_of(keys: frozenset[str], app_key: str, kind: str, rid: str) -> frozenset[str]:
    """The field paths of resource ``(kind, rid)`` of app ``app_key`` that conflict ``keys`` name
    (:attr:`tenantdeck.sync.types.Conflict.key`: ``APP/KIND[:RID]/FIELD``)."""
    prefix = f"{app_key}/{kind}{':' + rid if rid else ''}/"
    return frozenset(k[len(prefix):] for k in keys if k.startswith(prefix))


def _only(states: Any, managed: Mapping[str, Any]) -> Any:
    """``states`` restricted to the keys of ``managed`` (None and unknown markers pass through)."""
    if not isinstance(states, Mapping) or is_unknown(states):
        return states
    return {k: v for k, v in states.items() if k in managed}


def compare_all(
    draft_apps: Iterable[Mapping[str, Any]],
    base: Mapping[str, Mapping[str, Any]],
    live: Mapping[str, Mapping[str, Any]] | None,
    *,
    in_sync: Mapping[str, str] | None = None,
    prefer: str | None = None,
    prefer_apps: Mapping[str, str] | None = None,
    take_mine: frozenset[str] = frozenset(),
) -> Comparison:
    """Compare a whole draft. ``live=None`` means offline (draft against base, no network). ``take_mine``: the
    conflicts of apps with no base settled for the draft (:func:`compare_app`).

    ``in_sync`` (app id -> name) lists apps already known to match their base (the offline in-sync cache): they
    are reported in sync without being compared, and their base is neither needed nor a delete candidate.
    """
    offline = live is None
    seen: set[str] = set(in_sync or ())
    apps: list[AppDiff] = [
        AppDiff(app_id, app_id, name, "in_sync", [], None, None, None) for app_id, name in (in_sync or {}).items()
    ]
    for app in draft_apps:
        app_id = app.get("id")
        b = base.get(app_id) if app_id else None
        lv = (live or {}).get(app_id) if app_id else None
        if app_id:
            seen.add(app_id)
        apps.append(compare_app(app, b, lv, offline=offline, prefer=(prefer_apps or {}).get(app_id or "", prefer),
                                take_mine=take_mine))
    for app_id, b in base.items():
        if app_id not in seen:
            apps.append(compare_app(None, b, (live or {}).get(app_id) if not offline else b, offline=offline))
    return Comparison(apps, offline)


# -- views used by plan and render ------------------------------------------------------------------------------


def change_of(res: ResourceDiff, leaf: Leaf, app: str, *, origin: str = "local") -> FieldChange:
    """A :class:`FieldChange` for a leaf; a secret's values become state words."""
    secret = is_secret(res.kind, leaf.path)
    before, after = (leaf.base, leaf.draft) if origin == "local" else (leaf.base, leaf.live)
    if secret:
        before, after = secret_word(before), _rotation_word(before, after)
    return FieldChange(leaf.path, label(res.kind, leaf.path), before, after, origin, secret, app, res.title)  # type: ignore[arg-type]


def _rotation_word(before: Any, after: Any) -> str:
    if after is ABSENT or after is None:
        return "(removed)"
    if before is ABSENT or before is None:
        return "will be set"
    if isinstance(before, Mapping) and before.get("unknown"):
        return "will rotate (never pushed by tenantdeck)"
    return "will rotate"


def conflicts_of(app: AppDiff) -> list[Conflict]:
    out: list[Conflict] = []
    if app.status == "remote_deleted":
        if app.base is None or any(r.by_state("local") for r in app.resources):
            out.append(Conflict(app.name, app.app_id, "app", "", "App", "", "", "", False,
                                "app not found on the service (deleted remotely, or a wrong id in the draft)"))
        return out
    for res in app.resources:
        if res.status == "conflict" and res.message:
            out.append(Conflict(app.name, app.app_id, res.title, "", res.title, "", "", "", False, res.message))
        for leaf in res.by_state("conflict"):
            secret = is_secret(res.kind, leaf.path)
            vals = [secret_word(v) for v in (leaf.base, leaf.draft, leaf.live)] if secret else [
                leaf.base, leaf.draft, leaf.live]
            out.append(Conflict(app.name, app.app_id, res.title, leaf.path, label(res.kind, leaf.path), *vals,
                                secret=secret, kind=res.kind, rid=res.rid))
    return out


def drift_of(app: AppDiff) -> list[FieldChange]:
    """Remote changes the push keeps: the leaves that moved on the service only, and remote-only resources."""
    out: list[FieldChange] = []
    if app.status == "remote_deleted" and app.base is not None and not conflicts_of(app):
        out.append(FieldChange("", "App", "present", "deleted remotely", "remote", False, app.name, "app"))
    for res in app.resources:
        if res.status == "remote_only":
            out.append(FieldChange("", res.title, ABSENT, "created remotely", "remote", False, app.name, res.title))
        elif res.status == "remote_deleted":
            out.append(FieldChange("", res.title, "present", "deleted remotely", "remote", False, app.name, res.title))
        for leaf in res.by_state("remote"):
            out.append(change_of(res, leaf, app.name, origin="remote"))
    return out
