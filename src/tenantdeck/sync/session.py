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


def load_local(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Local:
    """Load and validate the draft (raises :class:`DraftInvalid`), then canonicalise it and read the base."""
    from tenantdeck.draft import load_draft
    from tenantdeck.sync.canonical import canonical_app_from_draft
    from tenantdeck.sync.state import Workspace

    env = os.environ if env is None else env
    result = load_draft(path)
    if not result.ok:
        raise DraftInvalid(result.problems)
    workspace = Workspace(path)
    key = workspace.secret_key()
    assert result.draft is not None
    apps = [canonical_app_from_draft(result.draft, i, secret_key=key, env=env) for i in range(len(result.draft.apps))]
    return Local(Path(path), result, workspace, key, env, apps, workspace.load_base())


def compare_local(local: Local, live: Mapping[str, Mapping[str, Any]] | None) -> Comparison:
    return compare_all(local.apps, local.base, live)


def plan_local(local: Local, comparison: Comparison, *, allow_delete: bool = False, profile: str | None = None,
               base_url: str | None = None) -> Plan:
    plan = build_plan(comparison, local.draft, allow_delete=allow_delete, draft_path=str(local.path.resolve()),
                      profile=profile, base_url=base_url)
    plan.draft_sha256 = local.sha256
    return plan


async def list_known_apps(client: ManagementClient, ids: set[str]) -> dict[str, RemoteApp]:
    """The service's apps among ``ids`` (one paged list call; an id missing from the answer is gone)."""
    if not ids:
        return {}
    return {app.id: app for app in await client.list_apps() if app.id in ids}


async def fetch_live(client: ManagementClient, ids: set[str], *, secret_key: bytes,
                     concurrency: int = 16) -> dict[str, dict[str, Any]]:
    """Canonical live state of the apps among ``ids`` that exist on the service."""
    from tenantdeck.sync.canonical import canonical_app_from_remote
    from tenantdeck.sync.fetch import fetch_remote_apps

    known = await list_known_apps(client, ids)
    out: dict[str, dict[str, Any]] = {}

    def keep(bundle: Any) -> None:
        out[bundle.app.id] = canonical_app_from_remote(bundle, secret_key=secret_key)

    await fetch_remote_apps(client, list(known.values()), concurrency, on_done=keep)
    return out


async def fetch_live_for_push(client: ManagementClient, local: Local, *,
                              concurrency: int = 16) -> dict[str, dict[str, Any]]:
    """Like :func:`fetch_live`, but reads only what a push can act on.

    A push never touches a resource that neither the draft nor the base names (remote-only things are kept), so
    SMS settings and webhooks are read only for apps where the draft or the base has some, and extensions only where
    the draft manages them. On a 1,000-app account with one widget each that halves the reads before the first
    write. ``diff`` keeps reading everything, to report remote-only additions as drift.
    """
    import asyncio

    from tenantdeck.sync.canonical import canonical_app_from_remote
    from tenantdeck.sync.fetch import RemoteAppBundle

    known = await list_known_apps(client, local.app_ids())
    drafts = {a["id"]: a for a in local.apps if a.get("id")}
    gate = asyncio.Semaphore(max(1, concurrency))
    out: dict[str, dict[str, Any]] = {}

    async def one(app_id: str) -> None:
        d, b = drafts.get(app_id) or {}, local.base.get(app_id) or {}
        want_sms = d.get("sms") is not None or b.get("sms") is not None
        want_hooks = bool(d.get("webhooks") or b.get("webhooks"))
        want_ext = d.get("extensions") is not None
        async with gate:
            app = known[app_id]

            async def none() -> Any:
                return None

            ext, widgets, sms, hooks = await asyncio.gather(
                client.list_extensions(app_id) if want_ext else none(),
                client.list_widgets(app_id),
                client.get_sms(app_id) if want_sms else none(),
                client.list_webhooks(app_id) if want_hooks else none(),
            )
            hooks = [dict(h) for h in hooks or []]
            triggers = await asyncio.gather(*(client.list_triggers(app_id, str(h["id"])) for h in hooks))
            for hook, ids in zip(hooks, triggers, strict=True):
                hook["triggers"] = ids
        bundle = RemoteAppBundle(app=app, extensions=ext, widgets=widgets, sms=sms, webhooks=hooks)
        out[app_id] = canonical_app_from_remote(bundle, secret_key=local.secret_key)

    await asyncio.gather(*(one(app_id) for app_id in known))
    return out
