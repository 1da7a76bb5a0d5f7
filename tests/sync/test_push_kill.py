"""`tenantdeck push` killed with SIGKILL mid-way, then run again: it converges with no duplicates.

A real uvicorn sandbox on 127.0.0.1 (ephemeral port, 20 ms latency so there is time to kill), the push as a
subprocess (``python -m tenantdeck push --yes``), killed once its journal holds N lines.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.api.client import ManagementClient
from tenantdeck.models import App, WidgetSettings
from tenantdeck.sandbox import create_app
from tenantdeck.sync.remote.fetch import fetch_live
from tenantdeck.sync.remote.pull import pull
from tenantdeck.sync.workspace.local import compare_local, load_local, plan_local
from tenantdeck.sync.workspace.state import Workspace
from tests import procs
from tests.loopback import serve_on_loopback
from tests.models import factories
from tests.sync.helpers_push import KEY, SECRET, edit_draft

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "KillTokenQq11", "TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD":
           "KillHookPw22", "NEW_HOOK_PW": "KillNewHook33"}
NEW_APPS = ("Kill A", "Kill B", "Kill C", "Kill D")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, latency_ms=20, seed=True)
    with serve_on_loopback(app) as url:
        yield url


def client(url: str) -> ManagementClient:
    return ManagementClient(url, KEY, SECRET)


def prepare(url: str, draft: Path) -> None:
    async def go() -> None:
        async with client(url) as c:
            await pull(c, draft, profile="e2e", base_url=url)

    asyncio.run(go())

    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        for name in NEW_APPS:
            d.apps.append(App.model_validate(factories.app(
                name, webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}"), factories.webhook("two")])))
        for app in d.apps[:3]:
            for w in app.widgets:
                w.main.send_gifs = True
            for h in app.webhooks:
                h.retryOnFailure = not h.retryOnFailure

    edit_draft(draft, change)


def push_cmd(url: str, draft: Path) -> list[str]:
    return [sys.executable, "-m", "tenantdeck", "push", "--yes", "--draft", str(draft), "--base-url", url,
            "--concurrency", "2"]


def push_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    return {**env, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "HOOK_PASSWORD": "HookPw44", **SECRETS}


def journal_lines(journal_dir: Path) -> int:
    if not journal_dir.is_dir():
        return 0
    return sum(p.read_bytes().count(b"\n") for p in journal_dir.glob("*.jsonl"))


def live_state(url: str) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with client(url) as c:
            apps = await c.list_apps()
            out: dict[str, Any] = {"names": [a.name for a in apps], "apps": {}}
            for a in apps:
                widgets = [w.settings.get("name") for w in await c.list_widgets(a.id)]
                hooks = [str(h["id"]) for h in await c.list_webhooks(a.id)]
                out["apps"][a.name] = {"widgets": widgets, "webhooks": hooks}
            return out

    return asyncio.run(go())


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [2, 7, 14])
def test_push_killed_then_rerun_converges_without_duplicates(server: str, tmp_path: Path, kill_after: int) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    prepare(server, draft)
    journal_dir = Workspace(draft).journal_dir

    proc = procs.start(push_cmd(server, draft), env=push_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while journal_lines(journal_dir) < kill_after and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, f"push ended before the kill point: {proc.communicate()[1].decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    rerun = subprocess.run(push_cmd(server, draft), env=push_env(), capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()[-3000:]

    live = live_state(server)
    for name in NEW_APPS:
        assert live["names"].count(name) == 1, (name, live["names"])
        assert live["apps"][name]["widgets"] == [f"{name} support"]
        assert sorted(live["apps"][name]["webhooks"]) == ["fresh", "two"]
    for app in live["apps"].values():
        assert len(app["widgets"]) == len(set(app["widgets"]))
        assert len(app["webhooks"]) == len(set(app["webhooks"]))

    local = load_local(draft, push_env())
    assert all(a["id"] for a in local.apps), "every created app id is in the draft"

    async def fetch() -> Any:
        async with client(server) as c:
            return await fetch_live(c, local.app_ids(), secret_key=local.secret_key)

    plan = plan_local(local, compare_local(local, asyncio.run(fetch())))
    assert plan.operations == [] and plan.conflicts == [], [op.key for op in plan.operations]
    text = "\n".join(p.read_text() for p in tmp_path.rglob("*.jsonl")) + rerun.stderr.decode()
    for value in SECRETS.values():
        assert value not in text


@pytest.mark.e2e
@pytest.mark.slow
def test_a_push_killed_mid_batch_leaves_the_lock_file_behind_and_the_base_still_whole(server: str,
                                                                                        tmp_path: Path) -> None:
    """The lock file is rewritten once, when a push ends (Workspace.lock_deferred): a push killed inside that batch
    leaves it as the pull wrote it, while every applied operation's base is in the local cache. The base read
    afterwards is the cache's (not the stale lock file's), and the next push writes the lock file whole."""
    from tenantdeck.sync.workspace import lockfile

    draft = tmp_path / "tenantdeck.yaml"
    prepare(server, draft)
    workspace = Workspace(draft)
    lock_before = workspace.lock_path.read_bytes()

    proc = procs.start(push_cmd(server, draft), env=push_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while journal_lines(workspace.journal_dir) < 9 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, f"push ended before the kill point: {proc.communicate()[1].decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)

    assert workspace.lock_path.read_bytes() == lock_before, "inside the batch the lock file is not rewritten"
    cache = {app_id: app for app_id, (app, _key) in Workspace(draft)._load_cache((), "").items()}
    stale = lockfile.read(workspace.lock_path)["apps"]  # type: ignore[index]
    ahead = {app_id for app_id, app in cache.items() if stale.get(app_id, {}).get("app") != app}
    assert ahead, "the kill landed after an operation's base was written (the window under test)"
    base = Workspace(draft).load_base()
    assert {app_id: base[app_id] for app_id in ahead} == {app_id: cache[app_id] for app_id in ahead}

    rerun = subprocess.run(push_cmd(server, draft), env=push_env(), capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode()[-3000:]
    written = {app_id: e["app"] for app_id, e in lockfile.read(workspace.lock_path)["apps"].items()}  # type: ignore[index]
    assert written == Workspace(draft).load_base(), "the lock file is whole again"
    assert not Workspace(draft)._lock_behind()
