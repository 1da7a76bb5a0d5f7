"""Shared helpers of the diff/plan/push tests: an in-process sandbox target, pull, push, and listing what is live."""

from __future__ import annotations

import asyncio
import copy
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from tenantdeck.api.client import ManagementClient
from tenantdeck.cli.push_flow import PushOptions, push_flow
from tenantdeck.draft import load_draft, save_draft
from tenantdeck.models import Draft
from tenantdeck.sandbox import create_app
from tenantdeck.sync.remote.pull import pull
from tenantdeck.targets import Target

KEY, SECRET = "test-key", "test-secret"
BASE_URL = "http://sandbox"


def make_sandbox(db: Path, **kw: Any) -> Any:
    kw.setdefault("seed", True)
    return create_app(db, key=KEY, secret=SECRET, **kw)


def target_for(sandbox: Any) -> Target:
    return Target("test", BASE_URL, KEY, SECRET, httpx.ASGITransport(app=sandbox, raise_app_exceptions=False))


#: the key saved plans are signed with for :func:`target_for`'s target (``Target.plan_key``)
PLAN_KEY = Target("test", BASE_URL, KEY, SECRET).plan_key()


def save_plan(plan: Any, path: Path) -> Path:
    """Write ``plan`` as ``plan -o`` writes it for the sandbox target of :func:`target_for` (signed); returns
    ``path``."""
    from tenantdeck.sync.remote.planfile import saved_text

    path.write_text(saved_text(plan, PLAN_KEY), encoding="utf-8")
    return path


def client_for(sandbox: Any, **kw: Any) -> ManagementClient:
    return ManagementClient(BASE_URL, KEY, SECRET, transport=httpx.ASGITransport(app=sandbox), **kw)


def call(sandbox: Any, method: str, *args: Any, **kw: Any) -> Any:
    async def go() -> Any:
        async with client_for(sandbox) as c:
            return await getattr(c, method)(*args, **kw)

    return asyncio.run(go())


def run_pull(sandbox: Any, draft: Path) -> Any:
    async def go() -> Any:
        async with client_for(sandbox) as c:
            return await pull(c, draft, profile="test", base_url=BASE_URL)

    return asyncio.run(go())


def run_push(sandbox: Any, draft: Path | None, env: Mapping[str, str], **kw: Any) -> tuple[int, str]:
    """Push with ``--yes``; returns (exit code, stderr text)."""
    err = io.StringIO()
    kw.setdefault("yes", True)
    kw.setdefault("retry_base_delay", 0.001)
    opts = PushOptions(draft_path=draft, **kw)
    code = asyncio.run(push_flow(target_for(sandbox), opts, env=env, err=err))
    return code, err.getvalue()


def edit_draft(path: Path, change: Any) -> None:
    """Load, let ``change(draft)`` mutate the model, save with comments kept."""
    result = load_draft(path)
    assert result.draft is not None, [p.render() for p in result.problems]
    change(result.draft)
    save_draft(path, result.draft, original_text=result.doc.text)


def loaded(path: Path) -> Draft:
    result = load_draft(path)
    assert result.ok, [p.render() for p in result.problems]
    assert result.draft is not None
    return result.draft


def app_named(draft: Draft, name: str) -> Any:
    return next(a for a in draft.apps if a.name == name)


def live_summary(sandbox: Any) -> dict[str, Any]:
    """Everything countable on the service: apps by name, widgets and webhooks per app (with triggers)."""

    async def go() -> dict[str, Any]:
        async with client_for(sandbox) as c:
            apps = await c.list_apps()
            out: dict[str, Any] = {"app_names": sorted(a.name for a in apps), "apps": {}}
            for a in apps:
                widgets = await c.list_widgets(a.id)
                hooks = await c.list_webhooks(a.id)
                out["apps"][a.name] = {
                    "id": a.id,
                    "widgets": sorted(w.settings.get("name") for w in widgets),
                    "widget_settings": {w.widget_id: w.settings for w in widgets},
                    "webhooks": sorted(str(h["id"]) for h in hooks),
                    "triggers": {str(h["id"]): sorted(await c.list_triggers(a.id, str(h["id"]))) for h in hooks},
                }
            return out

    return asyncio.run(go())


def live_plan(sandbox: Any, draft: Path, env: Mapping[str, str]) -> Any:
    """The plan a push would make now: the draft against the sandbox's live state (every read a diff makes)."""
    from tenantdeck.sync.remote.fetch import fetch_live, managed_extensions
    from tenantdeck.sync.workspace.local import compare_local, load_local, plan_local

    local = load_local(draft, env)

    async def go() -> Any:
        async with client_for(sandbox) as c:
            return await fetch_live(c, local.app_ids(), secret_key=local.secret_key,
                                    wanted_extensions=managed_extensions(local))

    return plan_local(local, compare_local(local, asyncio.run(go())))


def forged(doc: dict[str, Any], field: str = "background_color") -> dict[str, Any]:
    """Trial L, L1's edit of a saved plan: a change the draft does not hold (``style.FIELD`` of the first step's
    widget, to black), shown and sent alike, so the file agrees with itself; its hash and signature left as they
    were (the caller makes them again, as a forger would)."""
    doc = copy.deepcopy(doc)
    op = doc["operations"][0]
    change = dict(op["changes"][0])
    change.update(path=f"style.{field}", label=field.replace("_", " ").capitalize(), after="#000000",
                  before=op["payload"]["settings"]["style"][field])
    op["changes"].append(change)
    op["payload"]["settings"]["style"][field] = "#000000"
    return doc
