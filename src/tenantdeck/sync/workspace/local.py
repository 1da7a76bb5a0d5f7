"""The local side of diff, plan and push: load the draft and its workspace (base snapshot, in-sync cache), compare
with a live side (or offline, with the base), plan.

Reading the live side is :mod:`tenantdeck.sync.remote.fetch`'s job. The offline path (``diff --offline``) imports
neither httpx nor the client: it must cost about what ``validate`` costs on the same draft.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tenantdeck.problems import Problem
from tenantdeck.sync.compare import Comparison, compare_all
from tenantdeck.sync.plan import Plan, build_plan
from tenantdeck.sync.types import app_key_for

if TYPE_CHECKING:
    from tenantdeck.draft import LoadResult
    from tenantdeck.draft.session import DraftSession
    from tenantdeck.models import Draft
    from tenantdeck.sync.settle import Choice, Settled
    from tenantdeck.sync.types import Conflict
    from tenantdeck.sync.workspace.offline import AppStates
    from tenantdeck.sync.workspace.state import Workspace


class DraftInvalid(Exception):
    """The draft has errors; ``problems`` are located and ready to print."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{sum(p.is_error for p in problems)} error(s) in the draft")
        self.problems = problems


@dataclass(slots=True)
class Local:
    """The draft, its canonical apps, and the workspace's base snapshot."""

    path: Path
    result: LoadResult
    workspace: Workspace
    secret_key: bytes
    env: Mapping[str, str]
    apps: list[dict[str, Any]] = field(default_factory=list)
    base: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: offline only: app ids the in-sync cache vouches for (not canonicalised, base not loaded), id -> name
    in_sync: dict[str, str] = field(default_factory=dict)
    #: offline only: app id -> digest of what its canonical form is computed from (see :mod:`.insync`)
    digests: dict[str, str] = field(default_factory=dict)
    #: which side wins where an app has no base (``--prefer``); None: a difference is a conflict
    prefer: str | None = None
    #: per app id, overriding ``prefer`` (an app ``--adopt-existing`` just adopted: the draft is pushed to it)
    prefer_apps: dict[str, str] = field(default_factory=dict)
    #: conflicts of apps with no base settled for the draft (``--take-mine KEY``, by :attr:`Conflict.key`)
    take_mine: frozenset[str] = frozenset()
    #: the target of the draft's targets file this is the draft as seen from (:mod:`tenantdeck.draft.target_overrides`):
    #: its ids and overrides applied, its own workspace; None: the draft's own account
    view: str | None = None
    #: how to load this side again after the tool wrote ids or settled conflicts (promotion builds it from the
    #: source account's state, not from the file); None: :func:`load_local` with the same view
    rebuild: Callable[[Mapping[str, str]], Local] | None = None

    @property
    def draft(self) -> Draft:
        assert self.result.draft is not None
        return self.result.draft

    @property
    def text(self) -> str:
        return self.result.doc.text or ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.result.problems if not p.is_error]

    def app_ids(self) -> set[str]:
        """Every app id the draft or the base knows: the apps to read from the service."""
        return {a["id"] for a in self.apps if a.get("id")} | set(self.base)


def load_local(
    path: str | os.PathLike[str], env: Mapping[str, str] | None = None, *, reuse_in_sync: bool = False,
    text: str | None = None, key: bytes | None = None, profile: str | None = None,
    loaded: LoadResult | None = None, reuse: AppStates | None = None,
) -> Local:
    """Load and validate the draft (raises :class:`DraftInvalid`), then canonicalise it and read the base.

    ``reuse_in_sync`` (offline diff/plan only) skips the apps the in-sync cache vouches for: they are listed in
    ``Local.in_sync`` instead of ``Local.apps`` and their base files are not read.
    ``text``: the draft as an editor holds it (unsaved edits included); the file at ``path`` is then not read, and
    ``path`` only names the draft and its workspace.
    ``loaded``: that text as an editor's session already validated it (``DraftSession.load_result``), used instead
    of parsing and validating it again; ignored when the draft is loaded as a target sees it (``profile`` below).
    ``key``: the target's fingerprint key, the workspace's if it has none yet (see ``Workspace.secret_key``).
    ``profile``: the target's profile; when the draft's targets file has a section for it, the draft is loaded as
    that target sees it (its ids and overrides, its own workspace: :func:`load_view`).
    ``reuse``: the editor's change states of the session ``loaded`` comes from; each app's canonical parts they
    kept are reused where made from the same models, key and environment (:meth:`AppStates.parts_made_with`), and
    the parts made here are handed back to them for the next plan (:meth:`AppStates.keep_parts`).
    """
    from tenantdeck.draft.target_overrides import TargetOverridesInvalid, has_section

    try:
        if has_section(path, profile):
            assert profile is not None
            return load_view(path, profile, env, text=text, key=key)
    except TargetOverridesInvalid as exc:
        raise DraftInvalid(exc.problems) from None
    from tenantdeck.draft import load_draft
    from tenantdeck.draft.load import load_text
    from tenantdeck.sync.kinds import canonical_app_from_draft
    from tenantdeck.sync.workspace.state import Workspace, check_workspace

    env = os.environ if env is None else env
    if loaded is not None:
        result = loaded
    else:
        result = load_draft(path) if text is None else load_text(text, file=os.fspath(path))
    if not result.ok:
        raise DraftInvalid(result.problems)
    workspace = Workspace(path)
    check_workspace(workspace)  # a file, a dangling link or an unreadable directory: one WorkspaceError
    key = workspace.secret_key(key)
    if workspace.lock_path.exists() and not workspace.lock_as_written():
        reuse_in_sync = False  # the committed base changed under the cache (a git pull, a merge)
    draft = result.draft
    assert draft is not None
    digests: dict[str, str] = {}
    hits: set[str] = set()
    if reuse_in_sync and isinstance(result.doc.data, dict):
        from tenantdeck.sync.workspace.insync import InSyncCache, app_digest, preset_digests

        data = result.doc.data
        presets = preset_digests(data.get("presets") or {})
        for app, app_data in zip(draft.apps, data.get("apps") or [], strict=False):
            if app.id and isinstance(app_data, dict):
                digests[app.id] = app_digest(app_data, presets, env, key, Path(path).parent)
        hits = InSyncCache(workspace).hits(digests)
    keeping = reuse if loaded is not None else None  # the states whose parts are reused and kept, if any
    kept = keeping.parts_made_with(draft.presets, key, env) if keeping is not None else {}
    apps = [
        canonical_app_from_draft(draft, i, secret_key=key, env=env,
                                 parts=kept.setdefault(i, {}) if keeping is not None else None)
        for i, app in enumerate(draft.apps)
        if app.id not in hits
    ]
    if keeping is not None:
        keeping.keep_parts(draft.presets, key, env, kept)  # the next plan of these models makes only what changed
    in_sync = {app.id: app.name for app in draft.apps if app.id in hits}
    return Local(Path(path), result, workspace, key, env, apps, workspace.load_base(skip=hits), in_sync, digests)


def load_view(path: str | os.PathLike[str], profile: str, env: Mapping[str, str] | None = None, *,
              text: str | None = None, key: bytes | None = None, data: Mapping[str, Any] | None = None,
              keep_ids: bool = False) -> Local:
    """The draft as target ``profile`` sees it (:func:`tenantdeck.draft.target_overrides.load_effective`), with that
    target's workspace: its own base, binding, journal and history. ``data``/``keep_ids``: see ``load_effective``
    (promotion loads the source account's state this way). Raises :class:`DraftInvalid`."""
    from tenantdeck.draft.target_overrides import TargetOverridesInvalid, has_section, load_effective
    from tenantdeck.sync.kinds import canonical_app_from_draft
    from tenantdeck.sync.workspace.state import Workspace, check_workspace

    env = os.environ if env is None else env
    try:
        result = load_effective(path, profile, text=text, data=data, keep_ids=keep_ids)
        own = has_section(path, profile)
    except TargetOverridesInvalid as exc:
        raise DraftInvalid(exc.problems) from None
    if not result.ok:
        raise DraftInvalid(result.problems)
    view = profile if own else None
    workspace = Workspace(path, view)
    check_workspace(workspace)
    key = workspace.secret_key(key)
    draft = result.draft
    assert draft is not None
    apps = [canonical_app_from_draft(draft, i, secret_key=key, env=env) for i in range(len(draft.apps))]
    return Local(Path(path), result, workspace, key, env, apps, workspace.load_base(), view=view)


def reload_local(local: Local, env: Mapping[str, str]) -> Local:
    """``local`` loaded again (after the tool wrote ids, or settled conflicts), from the same view."""
    if local.rebuild is not None:
        return local.rebuild(env)
    if local.view is not None:
        return load_view(local.path, local.view, env, key=local.secret_key)
    return load_local(local.path, env)


def compare_local(local: Local, live: Mapping[str, Mapping[str, Any]] | None) -> Comparison:
    """Compare, then (when digests were taken) remember which apps have no local change."""
    comparison = compare_all(local.apps, local.base, live, in_sync=local.in_sync, prefer=local.prefer,
                             prefer_apps=local.prefer_apps, take_mine=local.take_mine)
    if local.digests:
        from tenantdeck.sync.workspace.insync import InSyncCache

        clean = {a.app_id: local.digests[a.app_id] for a in comparison.apps
                 if a.app_id in local.digests and a.app_id not in local.in_sync and _no_local_change(a)}
        stale = [app_id for app_id in local.digests if app_id not in clean and app_id not in local.in_sync]
        InSyncCache(local.workspace).record(clean, forget=stale)
    return comparison


def _no_local_change(app: Any) -> bool:
    """The draft matches the base: nothing to push, whatever the live side did."""
    if app.status not in ("in_sync", "drift") or app.draft is None or app.base is None:
        return False
    return all(leaf.state in ("same", "remote") for res in app.resources for leaf in res.leaves)


def plan_local(local: Local, comparison: Comparison, *, allow_delete: bool = False, profile: str | None = None,
               base_url: str | None = None) -> Plan:
    plan = build_plan(comparison, local.draft, allow_delete=allow_delete, draft_path=str(local.path.resolve()),
                      profile=profile, base_url=base_url)
    plan.draft_sha256 = local.sha256
    return plan


def settle_conflicts(local: Local, conflicts: Sequence[Conflict], choice: Choice,
                     env: Mapping[str, str]) -> tuple[Local, Settled]:
    """Apply ``choice`` to ``conflicts`` of ``local`` (a :class:`Local`): the draft file is
    edited for those taken (one splice save), the base for those kept. Returns the reloaded local and what was done.
    """
    from tenantdeck.draft.session import DraftSession
    from tenantdeck.sync.settle import Settled, split, take_theirs

    mine, theirs, unknown = split(conflicts, choice)
    settled = Settled(refused=[f"{key}: no conflict has this name (diff lists them)" for key in unknown])
    if theirs and local.view is not None:  # a target's own value: into its section of the targets file
        take_theirs_in_section(local, theirs, settled)
        theirs = []
    elif theirs and local.rebuild is not None:
        settled.refused += [f"{c.key}: the draft's own account has no section in the targets file to keep its own "
                            "value in; keep the promoted value (--take-mine), or change it in the source account"
                            for c in theirs]
        theirs = []
    if theirs:
        session = DraftSession.open(local.path)
        take_theirs(session, theirs, settled)
        if settled.draft_changed:
            session.save()
    # an app with no base here yet (a first promotion, a fresh clone): no live value to record, so the comparison
    # itself is told these conflicts are the draft's to send (the hint named --take-mine, and it did nothing)
    unbased = [c for c in mine if not c.secret and (c.app_id or "") not in local.base]
    if unbased:
        mine = [c for c in mine if c not in unbased]
        settled.done += [f"{c.key}: keeping the draft's value (no base here yet: the push sends it)"
                         for c in unbased]
    if mine:
        keep_mine_in_base(local.workspace, local.base, mine, settled)
    taken = local.take_mine | {c.key for c in unbased}
    if choice.mine_all:  # all of an app with no base: the draft wins everywhere, write-only fields included
        taken |= {f"{app_key_for(c.app_id, c.app)}/*" for c in unbased}  # the key compare_app looks for
    if settled.draft_changed or settled.base_changed:
        local = reload_local(local, env)
    local.take_mine = taken
    return local, settled


def take_theirs_in_section(local: Local, conflicts: Sequence[Conflict], settled: Settled) -> None:
    """``--take-theirs`` on a target (``push --profile T``, ``promote S T``): the live values are written in T's
    section of the targets file, not in the draft every target shares, so later pushes and promotions keep them."""
    from tenantdeck.draft.target_overrides import write_values
    from tenantdeck.sync.settle import section_values

    assert local.view is not None
    values = section_values(conflicts, local.result.doc.data, settled)
    if values and write_values(local.path, local.view, values):
        settled.draft_changed = True


def keep_mine_in_base(workspace: Workspace, base: dict[str, dict[str, Any]], conflicts: Sequence[Conflict],
                      settled: Settled) -> None:
    """Keep the draft's value of ``conflicts``: the base records each live value as seen (so the draft's becomes a
    local change the push sends), and every app's base it touched is written. The caller holds the lock."""
    from tenantdeck.sync.settle import keep_mine

    for app_id in keep_mine(base, conflicts, settled):
        workspace.write_base_app(app_id, base[app_id])


def settle_open(session: DraftSession, path: Path, way: Literal["mine", "theirs"], conflicts: Sequence[Conflict],
                *, lock_timeout: float = 2.0) -> Settled:
    """The editor's settling, the same acts as :func:`settle_conflicts` on a draft it has open: *theirs* is an edit
    of that session (one undoable step, saved with the rest); *mine* writes the base, under the workspace lock.

    Raises what a refused edit raises (a read-only draft, a literal secret), ``WorkspaceLocked``,
    ``WorkspaceError`` or ``OSError``: nothing was settled then."""
    from tenantdeck.sync.settle import Settled, take_theirs
    from tenantdeck.sync.workspace.lock import hold
    from tenantdeck.sync.workspace.state import Workspace

    settled = Settled()
    if way == "theirs":
        take_theirs(session, conflicts, settled)
        return settled
    workspace = Workspace(path)
    with hold(workspace, "tenantdeck edit (settling conflicts)", timeout=lock_timeout):
        keep_mine_in_base(workspace, workspace.load_base(), conflicts, settled)
    return settled


class TargetIds:
    """:class:`tenantdeck.sync.remote.push.DraftIds` for a target of the targets file: ids the push was assigned go
    into that file's section (:func:`tenantdeck.draft.target_overrides.write_ids`), never into the draft, whose ids are
    its own account's."""

    def __init__(self, path: Path, profile: str) -> None:
        self.path = path
        self.profile = profile
        self.saves = 0

    def write(self, *, app_ids: Mapping[str, str] | None = None,
              widget_ids: Mapping[tuple[str, str], str] | None = None) -> bool:
        from tenantdeck.draft.target_overrides import write_ids

        changed = write_ids(self.path, self.profile, app_ids=app_ids, widget_ids=widget_ids)
        self.saves += changed
        return changed
