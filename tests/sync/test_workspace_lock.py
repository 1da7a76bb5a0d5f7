"""Issue 19 item 3: one workspace lock. Two `tenantdeck push --yes` of one draft at once create each app once.

Real processes (``python -m tenantdeck push``) against a real uvicorn sandbox on 127.0.0.1 with 100 ms latency, so
the two runs overlap; no timing is asserted: the second either waited for the first and found nothing to do, or
gave up with exit code 5 naming the first.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.api.client import ManagementClient
from tenantdeck.models import App
from tenantdeck.sandbox import create_app
from tenantdeck.sync.remote.pull import pull
from tenantdeck.sync.workspace.lock import WorkspaceLocked, hold, read_holder
from tenantdeck.sync.workspace.state import Workspace
from tests import procs
from tests.loopback import serve_on_loopback
from tests.models import factories
from tests.sync.helpers_push import KEY, SECRET, edit_draft

NEW = [f"Locked {i:02d}" for i in range(20)]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, latency_ms=100, seed=True)
    with serve_on_loopback(app) as url:
        yield url


def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    return {**clean, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET}


def names(url: str) -> list[str]:
    async def go() -> list[str]:
        async with ManagementClient(url, KEY, SECRET) as c:
            return [a.name for a in await c.list_apps()]

    return asyncio.run(go())


def pulled_with_new_apps(url: str, draft: Path) -> None:
    async def go() -> None:
        async with ManagementClient(url, KEY, SECRET) as c:
            await pull(c, draft, profile="e2e", base_url=url)

    asyncio.run(go())

    def change(d: Any) -> None:
        d.apps.extend(App.model_validate(factories.app(name, widgets=[], webhooks=[])) for name in NEW)

    edit_draft(draft, change)


HOLDER = textwrap.dedent("""
    import sys
    from tenantdeck.sync.workspace.lock import hold
    from tenantdeck.sync.workspace.state import Workspace
    with hold(Workspace(sys.argv[1]), "test holder"):
        print("held", flush=True)
        sys.stdin.readline()
""")


@pytest.mark.e2e
@pytest.mark.slow
def test_two_pushes_at_once_create_each_app_once(server: str, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    pulled_with_new_apps(server, draft)
    args = ["push", "--yes", "--draft", str(draft), "--base-url", server, "--lock-timeout", "300"]
    first = procs.tenantdeck(*args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    second = procs.tenantdeck(*args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out = [p.communicate(timeout=300) for p in (first, second)]
    finally:
        for p in (first, second):
            if p.poll() is None:
                p.kill()
    codes = [first.returncode, second.returncode]
    errs = [e.decode() for _, e in out]
    live = names(server)
    assert sorted(n for n in live if n.startswith("Locked ")) == NEW, (codes, errs)
    assert exitcodes.OK in codes, errs
    for code, err, other in zip(codes, errs, (second, first), strict=True):
        assert code in (exitcodes.OK, exitcodes.LOCKED), err
        if code == exitcodes.LOCKED:
            assert f"pid {other.pid}" in err and "tenantdeck push" in err
    # whichever waited found the other's work done: nothing left to push
    assert "Traceback" not in "".join(errs)


def test_a_command_that_waits_too_long_exits_5_naming_the_holder(tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps: []\n")
    with procs.running([sys.executable, "-c", HOLDER, str(draft)], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout.readline().strip() == "held"
        run = subprocess.run([sys.executable, "-m", "tenantdeck", "push", "--yes", "--draft", str(draft),
                              "--base-url", "http://127.0.0.1:9", "--lock-timeout", "0.2"],
                             env=env(), capture_output=True, text=True, timeout=60)
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    assert run.returncode == exitcodes.LOCKED, run.stderr
    assert f"pid {holder.pid} (test holder)" in run.stderr
    assert "waited 0.2 s" in run.stderr and "Nothing was changed" in run.stderr
    assert "Traceback" not in run.stderr


def test_in_process_wait_names_the_holder(tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    with procs.running([sys.executable, "-c", HOLDER, str(draft)], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(WorkspaceLocked) as caught, hold(Workspace(draft), "second", timeout=0):
            pass
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    assert caught.value.holder is not None and caught.value.holder.pid == holder.pid
    # let go: the record is gone and the lock is free
    assert read_holder(Workspace(draft)) is None
    with hold(Workspace(draft), "third", timeout=0):
        assert read_holder(Workspace(draft)).pid == os.getpid()  # type: ignore[union-attr]


def test_a_killed_holder_leaves_a_free_lock_and_is_not_reported(tmp_path: Path) -> None:
    """kill -9 while holding: the OS releases the lock; the record it left names a dead pid and is never shown."""
    draft = tmp_path / "tenantdeck.yaml"
    with procs.running([sys.executable, "-c", HOLDER, str(draft)], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout.readline().strip() == "held"
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    workspace = Workspace(draft)
    assert (workspace.root / "lock-holder.json").exists()  # left behind by the killed process
    assert read_holder(workspace) is None
    with hold(workspace, "taker", timeout=0):
        taken = read_holder(workspace)
        assert taken is not None and taken.pid == os.getpid() and taken.command == "taker"


def test_the_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "tenantdeck.yaml")
    with hold(workspace, "outer", timeout=0), hold(workspace, "inner", timeout=0):
        assert read_holder(workspace).command == "outer"  # type: ignore[union-attr]
    assert read_holder(workspace) is None
