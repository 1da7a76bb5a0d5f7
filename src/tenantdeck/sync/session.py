"""What diff, plan and push share: load the draft and its workspace, read the live service, compare, plan.

The offline path (``diff --offline``) imports neither httpx nor the client: it must cost about what ``validate``
costs on the same draft.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.problems import Problem
from tenantdeck.sync.compare import Comparison, compare_all
from tenantdeck.sync.plan import Plan, build_plan

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.api.models import RemoteApp
    from tenantdeck.draft import LoadResult
    from tenantdeck.models import Draft
    from tenantdeck.sync.state import Workspace


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
    text: str | None = None,
) -> Local:
    """Load and validate the draft (raises :class:`DraftInvalid`), then canonicalise it and read the base.

    ``reuse_in_sync`` (offline diff/plan only) skips the apps the in-sync cache vouches for: they are listed in
    ``Local.in_sync`` instead of ``Local.apps`` and their base files are not read.
    ``text``: the draft as an editor holds it (unsaved edits included); the file at ``path`` is then not read, and
    ``path`` only names the draft and its workspace.
    """
    from tenantdeck.draft import load_draft
    from tenantdeck.draft.load import load_text
    from tenantdeck.sync.canonical import canonical_app_from_draft
    from tenantdeck.sync.state import Workspace

    env = os.environ if env is None else env
    result = load_draft(path) if text is None else load_text(text, file=os.fspath(path))
    if not result.ok:
        raise DraftInvalid(result.problems)
    workspace = Workspace(path)
    key = workspace.secret_key()
    draft = result.draft
    assert draft is not None
    digests: dict[str, str] = {}
    hits: set[str] = set()
    if reuse_in_sync and isinstance(result.doc.data, dict):
        from tenantdeck.sync.insync import InSyncCache, app_digest, preset_digests

        data = result.doc.data
        presets = preset_digests(data.get("presets") or {})
        for app, app_data in zip(draft.apps, data.get("apps") or [], strict=False):
            if app.id and isinstance(app_data, dict):
                digests[app.id] = app_digest(app_data, presets, env, key)
        hits = InSyncCache(workspace).hits(digests)
    apps = [
        canonical_app_from_draft(draft, i, secret_key=key, env=env)
        for i, app in enumerate(draft.apps)
        if app.id not in hits
    ]
    in_sync = {app.id: app.name for app in draft.apps if app.id in hits}
    return Local(Path(path), result, workspace, key, env, apps, workspace.load_base(skip=hits), in_sync, digests)


def compare_local(local: Local, live: Mapping[str, Mapping[str, Any]] | None) -> Comparison:
    """Compare, then (when digests were taken) remember which apps have no local change."""
    comparison = compare_all(local.apps, local.base, live, in_sync=local.in_sync)
    if local.digests:
        from tenantdeck.sync.insync import InSyncCache

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


async def list_known_apps(client: ManagementClient, ids: set[str],
                          listing: list[RemoteApp] | None = None) -> dict[str, RemoteApp]:
    """The service's apps among ``ids`` (one paged list call, or ``listing`` when the caller already made it; an
    id missing from the answer is gone)."""
    if not ids:
        return {}
    if listing is None:
        listing = await client.list_apps()
    return {app.id: app for app in listing if app.id in ids}


async def fetch_live(client: ManagementClient, ids: set[str], *, secret_key: bytes,
                     concurrency: int = 16, listing: list[RemoteApp] | None = None) -> dict[str, dict[str, Any]]:
    """Canonical live state of the apps among ``ids`` that exist on the service."""
    from tenantdeck.sync.canonical import canonical_app_from_remote
    from tenantdeck.sync.fetch import fetch_remote_apps

    known = await list_known_apps(client, ids, listing)
    out: dict[str, dict[str, Any]] = {}

    def keep(bundle: Any) -> None:
        out[bundle.app.id] = canonical_app_from_remote(bundle, secret_key=secret_key)

    await fetch_remote_apps(client, list(known.values()), concurrency, on_done=keep)
    return out


async def fetch_live_for_push(client: ManagementClient, local: Local, *, concurrency: int = 16,
                              listing: list[RemoteApp] | None = None) -> dict[str, dict[str, Any]]:
    """Like :func:`fetch_live`, but reads only what this push can act on.

    A push applies local changes (base -> draft) and refuses conflicts, which need a local change too. A section of
    an app (extensions, widgets, SMS, webhooks) whose draft equals its base therefore yields no operation and no
    conflict whatever the live side says, so it is not read: its live value is taken from the base, which makes it
    compare as in sync. An app with no local change at all costs no request beyond the one paged app list.
    On a 1,000-app account where one toggle changed, that is one widget read per app instead of four or five.
    ``diff`` keeps reading everything, to report remote drift.
    """
    import asyncio
    import copy

    from tenantdeck.sync.canonical import canonical_app_from_remote
    from tenantdeck.sync.fetch import RemoteAppBundle

    known = await list_known_apps(client, local.app_ids(), listing)
    drafts = {a["id"]: a for a in local.apps if a.get("id")}
    gate = asyncio.Semaphore(max(1, concurrency))
    out: dict[str, dict[str, Any]] = {}

    async def none() -> Any:
        return None

    async def one(app_id: str) -> None:
        d, b = drafts.get(app_id), local.base.get(app_id)
        changed = _locally_changed_sections(d, b)
        if b is not None and not changed:
            out[app_id] = copy.deepcopy(b)
            return
        d = d or {}
        want_ext = "extensions" in changed and d.get("extensions") is not None
        async with gate:
            app = known[app_id]
            ext, widgets, sms, hooks = await asyncio.gather(
                client.list_extensions(app_id) if want_ext else none(),
                client.list_widgets(app_id) if "widgets" in changed else none(),
                client.get_sms(app_id) if "sms" in changed else none(),
                client.list_webhooks(app_id) if "webhooks" in changed else none(),
            )
            hooks = [dict(h) for h in hooks or []]
            triggers = await asyncio.gather(*(client.list_triggers(app_id, str(h["id"])) for h in hooks))
            for hook, ids in zip(hooks, triggers, strict=True):
                hook["triggers"] = ids
        bundle = RemoteAppBundle(app=app, extensions=ext, widgets=widgets or [], sms=sms, webhooks=hooks)
        live = canonical_app_from_remote(bundle, secret_key=local.secret_key)
        if b is not None:
            for section in _SECTIONS:
                if section not in changed or (section == "extensions" and not want_ext):
                    live[section] = copy.deepcopy(b.get(section))
        out[app_id] = live

    await asyncio.gather(*(one(app_id) for app_id in known))
    return out


_SECTIONS = ("extensions", "widgets", "sms", "webhooks")
#: resource kind of the comparison -> the canonical section that holds it
_SECTION_OF = {"extensions": "extensions", "widget": "widgets", "sms": "sms", "webhook": "webhooks",
               "triggers": "webhooks"}


def _locally_changed_sections(draft: dict[str, Any] | None, base: dict[str, Any] | None) -> set[str]:
    """Sections of one app with a local change (base -> draft), by the comparison's own rules.

    Raw equality would not do: the base records what the service reports (every known extension, fields it does
    not return as unknown), which the draft's canonical form never matches. Offline, live is the base, so
    every non-"in sync" resource is a local change.
    """
    from tenantdeck.sync.compare import compare_app

    if base is None or draft is None:
        return set(_SECTIONS)
    diff = compare_app(draft, base, base, offline=True)
    return {_SECTION_OF[r.kind] for r in diff.resources if r.status != "in_sync" and r.kind in _SECTION_OF}
