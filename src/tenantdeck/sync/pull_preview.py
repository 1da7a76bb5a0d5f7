"""What a pull would change in the draft, before it changes anything: per app, per field (with labels), new and
removed resources, new and removed apps, and the draft edits that make the change.

The CLI's ``pull`` rewrites the file; the editor instead applies :attr:`PullPreview.edits` through its
:class:`~tenantdeck.draft.session.DraftSession`, as one undoable step that touches only the values that differ (so
hand comments elsewhere survive). Both convert the service's apps the same way
(:func:`~tenantdeck.sync.remote_to_draft.app_from_canonical`, apps matched by :func:`match_apps`), so the preview
is what a pull does. Pure: the live side comes in as canonical apps already read.

Whose change each difference is comes from the base, by compare's three-way rule (:func:`classify`), in the
vocabulary of :data:`~tenantdeck.sync.types.Origin`: ``remote``, the service changed it since the base and the
draft did not (the pull takes it); ``local``, the draft changed it and the service did not (an unpushed edit the
pull would discard); ``conflict``, both changed it (the pull discards the draft's value too). An app without a
base cannot tell, so, as compare says, a difference there is a ``conflict``. :attr:`PullPreview.lost` counts what
the pull would discard of the user's; the editor asks before it does that, and both the editor and the CLI say
it in these words (:data:`ORIGIN_WORDS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tenantdeck.models import App, Draft
from tenantdeck.sync.compare import _leaves, classify, raw_resources, resource_title
from tenantdeck.sync.kinds import canonical_app_from_draft, is_secret, label
from tenantdeck.sync.kinds import kind as kind_named
from tenantdeck.sync.remote_to_draft import SecretNamer, app_from_canonical, reserve_draft_references
from tenantdeck.sync.types import ABSENT, VERBATIM, FieldChange, Origin, secret_word

Edit = tuple[str, tuple[Any, ...], Any]  #: (verb: set | insert | delete, key path, value)

#: how every screen names whose change a pulled difference is (words, never a colour alone)
ORIGIN_WORDS: dict[Origin, str] = {
    "remote": "from the service",
    "local": "your edit, discarded",
    "conflict": "both: yours discarded",
}


@dataclass(slots=True)
class AppPull:
    """One app the pull changes: ``new`` (on the service, not in the draft), ``removed`` (gone from the service),
    or ``changed`` (field changes, resources added or removed)."""

    name: str
    app_id: str | None
    status: Literal["new", "removed", "changed"]
    changes: list[FieldChange] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  #: resource titles the pull adds to the draft
    removed: list[str] = field(default_factory=list)  #: resource titles the pull takes out of the draft
    #: whose change the app's own status is: ``local`` for an app the draft deleted that the pull brings back
    origin: Origin = "remote"
    #: resource title (of ``added`` or ``removed``) -> whose change it is, when not ``remote``: a resource the
    #: draft deleted that the pull brings back, or one the draft added that the pull takes out, is ``local``
    resource_origins: dict[str, Origin] = field(default_factory=dict)
    #: ``removed`` though still on the service: the draft's model refuses one of the app's own fields (a name with
    #: a newline), so the pull keeps it out of the draft, as the service holds it (the preview's note says which)
    kept: bool = False

    def origins(self) -> list[Origin]:
        """Whose change each difference of this app is: the app's own (new or removed), each field, each
        resource added or removed."""
        if self.status != "changed":
            return [self.origin]
        return [*(c.origin for c in self.changes), *(self.origin_of(title) for title in (*self.added, *self.removed))]

    def origin_of(self, title: str) -> Origin:
        """Whose change adding or removing the resource ``title`` is (``remote`` unless the draft made it)."""
        return self.resource_origins.get(title, "remote")


@dataclass(slots=True)
class PullPreview:
    apps: list[AppPull] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unchanged: int = 0  #: apps the pull leaves as they are

    @property
    def empty(self) -> bool:
        return not self.edits

    def counts(self) -> dict[Origin, int]:
        """How many differences are whose: ``{"remote": n, "local": n, "conflict": n}``."""
        out: dict[Origin, int] = {"remote": 0, "local": 0, "conflict": 0}
        for app in self.apps:
            for origin in app.origins():
                out[origin] += 1
        return out

    @property
    def lost(self) -> int:
        """The user's unpushed edits the pull would discard (``local`` and ``conflict``): what ``y`` asks about."""
        counts = self.counts()
        return counts["local"] + counts["conflict"]

    def lost_text(self) -> str:
        """"3 of your unpushed edits would be lost (1 of them changed on the service too)", or "" for none."""
        lost = self.lost
        if not lost:
            return ""
        counts = self.counts()
        both = f" ({counts['conflict']} of them changed on the service too)" if counts["conflict"] else ""
        return f"{lost} of your unpushed edit(s) would be lost{both}."

    def summary(self) -> str:
        new = sum(a.status == "new" for a in self.apps)
        gone = sum(a.status == "removed" for a in self.apps)
        changed = [a for a in self.apps if a.status == "changed"]
        fields = sum(len(a.changes) for a in changed)
        if self.empty:
            return f"The draft already holds what the service has ({self.unchanged} app(s)); nothing to pull."
        text = (f"Pull changes {len(changed)} app(s) ({fields} field(s)), adds {new} and removes {gone}; "
                f"{self.unchanged} unchanged.")
        lost = self.lost_text()
        return f"{text} {lost}" if lost else text


def match_apps(old_apps: Sequence[App], canonicals: Sequence[Mapping[str, Any]], notes: list[str]) -> dict[str, App]:
    """remote id -> old draft app: by id, else (an app without id, i.e. not created from this draft yet) by name.

    A match by name adopts the remote app, whose values then replace the draft's. That is only right when the
    draft's app is that app: the name must be unique on the service and the region the same (the API cannot move
    an app). Otherwise both are kept, with a note: pull never silently changes a local value.
    """
    remote_ids = {c["id"] for c in canonicals}
    matched = {a.id: a for a in old_apps if a.id in remote_ids}
    by_name: dict[str, list[Mapping[str, Any]]] = {}
    for c in canonicals:
        by_name.setdefault(c["name"], []).append(c)
    for app in old_apps:
        if app.id is not None:
            continue
        same = [c for c in by_name.get(app.name, []) if c["id"] not in matched]
        if not same:
            continue
        if len(same) > 1:
            notes.append(f'app "{app.name}": the service has {len(same)} apps of this name '
                         f"({', '.join(c['id'] for c in same)}); the draft's app (not created yet) was kept as it is "
                         "beside them: set `id:` on it to manage one of them")
            continue
        remote = same[0]
        if remote.get("region") != app.region:
            notes.append(f'app "{app.name}": the draft\'s app (not created yet, region {app.region}) was not matched '
                         f"to the service's app {remote['id']} of the same name (region {remote.get('region')}): "
                         "both are kept; remove one, or set `id:` to manage that app")
            continue
        matched[remote["id"]] = app
        notes.append(f'app "{app.name}": matched by name to the service\'s app {remote["id"]}; the draft now has '
                     "its id and its values (the previous draft is in the .bak file)")
    return matched


def preview_pull(data: Mapping[str, Any], canonicals: Sequence[Mapping[str, Any]],
                 base: Mapping[str, Mapping[str, Any]], *, secret_key: bytes, env: Mapping[str, str],
                 draft: Draft | None = None) -> PullPreview:
    """What pulling ``canonicals`` (every app of the service, ``with_last_pushed`` applied) into the draft ``data``
    (plain data of a valid draft, as an editor holds it) changes. Raises pydantic's ``ValidationError`` when
    ``data`` is not a valid draft: a pull needs to know what the draft means.

    ``draft`` is ``data`` already validated (an editor's session keeps its models,
    :meth:`~tenantdeck.draft.session.validation.ValidationMixin.load_result`): validating 1,000 apps again was
    ~100 ms of F5."""
    if draft is None:
        draft = Draft.model_validate(dict(data))
    old_apps = list(draft.apps)
    presets = dict(draft.presets)
    raw_apps: list[Any] = list(data.get("apps") or [])
    index = {id(app): i for i, app in enumerate(old_apps)}
    preview = PullPreview()
    matched = match_apps(old_apps, canonicals, preview.notes)
    namer = SecretNamer()
    reserve_draft_references(namer, old_apps)
    inserts: list[Edit] = []
    deletes: list[Edit] = []
    removed: list[AppPull] = []
    for canonical in canonicals:
        app_id = str(canonical["id"])
        old = matched.get(app_id)
        conversion = app_from_canonical(canonical, existing=old, base=base.get(app_id), presets=presets, namer=namer)
        preview.notes.extend(conversion.notes)
        if conversion.verbatim and isinstance(canonical, dict):
            canonical[VERBATIM] = conversion.verbatim  # recorded in the base once the draft is saved
        if conversion.app is None:  # kept out of the draft as a whole (its note says why): the draft's copy goes
            if old is not None:
                removed.append(AppPull(old.name, app_id, "removed", kept=True))
                deletes.append(("delete", ("apps", index[id(old)]), None))
            continue
        new_data = conversion.app.model_dump(mode="json", exclude_none=True, exclude_unset=True)
        new_canon = canonical_app_from_draft(draft.model_copy(update={"apps": [conversion.app]}), 0,
                                             secret_key=secret_key, env=env)
        if old is None:
            # an app the base knows that the draft no longer has: the draft deleted it, the pull brings it back
            pulled = AppPull(conversion.app.name, app_id, "new", origin="local" if app_id in base else "remote")
            pulled.added = [title for (kind, rid), raw in raw_resources(new_canon).items() if kind != "app"
                            for title in [resource_title(kind, rid, _leaves(kind, raw))]]
            preview.apps.append(pulled)
            inserts.append(("insert", ("apps",), new_data))
            continue
        i = index[id(old)]
        edits: list[Edit] = []
        _diff_edits(("apps", i), raw_apps[i], new_data, edits)
        if not edits:
            preview.unchanged += 1
            continue
        old_canon = canonical_app_from_draft(draft, i, secret_key=secret_key, env=env)
        pulled = AppPull(conversion.app.name, app_id, "changed")
        _describe(old_canon, new_canon, base.get(app_id), pulled)
        preview.apps.append(pulled)
        preview.edits.extend(edits)
    remote_ids = {str(c["id"]) for c in canonicals}
    preview.apps.extend(removed)
    for app in old_apps:
        if app.id is not None and app.id not in remote_ids:
            preview.apps.append(AppPull(app.name, app.id, "removed"))
            deletes.append(("delete", ("apps", index[id(app)]), None))
    # changes first (their indexes are the old ones), then removals from the end, then new apps appended
    preview.edits.extend(sorted(deletes, key=lambda e: -int(e[1][1])))
    preview.edits.extend(inserts)
    return preview


def _diff_edits(path: tuple[Any, ...], old: Any, new: Any, out: list[Edit]) -> None:
    """The fewest set/delete edits that turn ``old`` into ``new``: mappings key by key, lists of mappings of the
    same length item by item, anything else replaced whole. Keys the draft has and the pull does not are
    removed; so only the changed values' text moves."""
    if old == new and type(old) is type(new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                out.append(("delete", (*path, key), None))
        for key, value in new.items():
            if key in old:
                _diff_edits((*path, key), old[key], value, out)
            else:
                out.append(("set", (*path, key), value))
        return
    if (isinstance(old, list) and isinstance(new, list) and len(old) == len(new)
            and all(isinstance(x, dict) for x in (*old, *new))):
        for n, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff_edits((*path, n), a, b, out)
        return
    out.append(("set", path, new))


def _describe(old: Mapping[str, Any], new: Mapping[str, Any], base: Mapping[str, Any] | None,
              pulled: AppPull) -> None:
    """Field by field, with the catalog's labels; resources added and removed by title; each whose change it is,
    against ``base`` (the app's base snapshot, None when it has none). Secrets as state words."""
    old_res, new_res = raw_resources(old), raw_resources(new)
    base_res = raw_resources(base) if base is not None else None
    for key in dict.fromkeys([*old_res, *new_res]):
        kind, rid = key
        before, after = _leaves(kind, old_res.get(key)), _leaves(kind, new_res.get(key))
        title = resource_title(kind, rid, after, before)
        in_base = base_res is not None and base_res.get(key) is not None
        if before is None and after is not None:
            pulled.added.append(title)
            if base_res is None or in_base:  # no base: cannot tell; in the base: the draft deleted it
                pulled.resource_origins[title] = "conflict" if base_res is None else "local"
            continue
        if after is None and before is not None:
            pulled.removed.append(title)
            if not in_base:  # the draft added it (or, with no base, cannot tell)
                pulled.resource_origins[title] = "conflict" if base_res is None else "local"
            continue
        if before is None or after is None or before == after:
            continue
        defaults = kind_named(kind).defaults
        was = _leaves(kind, base_res.get(key)) if base_res is not None else None
        for path in dict.fromkeys([*before, *after]):
            b, a = before.get(path, ABSENT), after.get(path, ABSENT)
            if b == a or (b is ABSENT and path in defaults and defaults[path] == a):
                continue  # unchanged, or a default the service filled in for a field the draft leaves out
            origin = _origin(kind, path, was, b, a, no_base=base_res is None)
            secret = is_secret(kind, path)
            if secret:
                b, a = secret_word(b), secret_word(a)
            pulled.changes.append(FieldChange(path, label(kind, path), b, a, origin, secret, pulled.name, title))


def _origin(kind: str, path: str, base: Mapping[str, Any] | None, draft: Any, pulled: Any, *,
            no_base: bool) -> Origin:
    """Whose change one field the pull changes is (compare's rule, :func:`classify`): ``draft`` is the draft's
    value, ``pulled`` the one the pull writes, ``base`` the resource's leaves in the base (None: not there).
    No base for the app at all: nothing tells, a ``conflict`` (as compare calls it). A base value left out, as
    a default the service fills in is, counts as that default."""
    if no_base:
        return "conflict"
    was = (base or {}).get(path, ABSENT)
    if was is ABSENT:
        was = kind_named(kind).defaults.get(path, ABSENT) if base is not None else ABSENT
    state = classify(was, draft, pulled)
    return "conflict" if state == "same" else state  # "same" cannot be: draft and pulled differ
