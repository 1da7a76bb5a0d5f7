"""Two admins, two clones, one account: neither push loses the other's update.

Real processes against a real loopback sandbox with 400 ms of latency per request (the issue's reproduction): clone
A changes the widget's primary colour, clone B changes one of its Main toggles, both push, B starting 0.3 s after A.
Before the fix both printed "Push complete" and A's colour was gone (B's whole-object PUT was built from a read taken
before A wrote).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tenantdeck import exitcodes
from tenantdeck.api.client import ManagementClient
from tenantdeck.sandbox import create_app
from tenantdeck.sync.events import PushEvent
from tenantdeck.sync.remote.engine import PushRefused, PushRequest, prepare_push, push
from tenantdeck.sync.remote.push import PushResult
from tenantdeck.sync.workspace.history import read_history
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import Target
from tests import procs
from tests.loopback import serve_on_loopback
from tests.sync.helpers_push import BASE_URL, call, make_sandbox, run_pull
from tests.sync.helpers_push import KEY as KEY_IP
from tests.sync.helpers_push import SECRET as SECRET_IP

KEY, SECRET = "two-key", "two-secret"


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[str]:
    with serve_on_loopback(create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, seed=True,
                                      latency_ms=400)) as url:
        yield url


def env() -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    return {**base, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "NO_COLOR": "1",
            "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "x", "TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD": "x",
            "TENANTDECK_ACME_SUPPORT_AUDIT_PASSWORD": "x", "TENANTDECK_GLOBEX_COMMUNITY_LIFECYCLE_PASSWORD": "x"}


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tenantdeck", *args, "--base-url", url], env=env(),
                          capture_output=True, text=True, timeout=300)


def live_widget(url: str) -> dict[str, object]:
    async def go() -> dict[str, object]:
        async with ManagementClient(url, KEY, SECRET) as c:
            acme = next(a for a in await c.list_apps() if a.name == "Acme Support")
            [widget] = await c.list_widgets(acme.id)
            return widget.settings

    return asyncio.run(go())


def clone(url: str, where: Path) -> Path:
    where.mkdir()
    draft = where / "tenantdeck.yaml"
    out = cli(url, "pull", "--draft", str(draft))
    assert out.returncode == 0, out.stderr
    return draft


def edit(draft: Path, old: str, new: str) -> None:
    text = draft.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    draft.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.e2e
@pytest.mark.slow
def test_two_clones_pushing_at_once_keep_both_updates(slow_server: str, tmp_path: Path) -> None:
    a = clone(slow_server, tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a.parent, b)
    b = b / "tenantdeck.yaml"
    edit(a, "primary_color: '#03A9F4'", "primary_color: '#ABCDEF'")
    edit(b, "send_gifs: false", "send_gifs: true")

    push = ["push", "--yes", "--base-url", slow_server]
    first = procs.tenantdeck(*push, "--draft", str(a), env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        time.sleep(0.3)
        second = subprocess.run([sys.executable, "-m", "tenantdeck", *push, "--draft", str(b)], env=env(),
                                capture_output=True, text=True, timeout=300)
        first_err = first.communicate(timeout=300)[1]
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate(timeout=10)

    settings = live_widget(slow_server)
    assert settings["style"]["primary_color"] == "#ABCDEF", (first_err, second.stderr)  # type: ignore[index]
    assert settings["main"]["send_gifs"] is True, (first_err, second.stderr)  # type: ignore[index]
    assert first.returncode == 0 and second.returncode == 0, (first_err, second.stderr)
    for draft in (a, b):
        assert cli(slow_server, "diff", "--draft", str(draft)).returncode in (0, 2)


# -- the same races, placed exactly: in process, with a transport that lets another writer in at a chosen moment --


class Interleaved(httpx.AsyncBaseTransport):
    """The sandbox's ASGI transport, with ``after_put`` run right after each widget PUT of ours is answered (another
    admin's write landing inside our window)."""

    def __init__(self, inner: httpx.AsyncBaseTransport,
                 after_put: Callable[[], Awaitable[None]] | None = None) -> None:
        self.inner = inner
        self.after_put = after_put
        self.puts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "PUT" and request.url.path.endswith("/extensions/widget/v2/settings"):
            self.puts += 1
            await response.aread()
            if self.after_put is not None:
                await self.after_put()
        return response


def _acme_widget(sandbox: Any) -> tuple[str, str, dict[str, Any]]:
    apps = call(sandbox, "list_apps")
    acme = next(a for a in apps if a.name == "Acme Support")
    [widget] = call(sandbox, "list_widgets", acme.id)
    return acme.id, widget.widget_id, widget.settings


def _set_widget(sandbox: Any, change: Callable[[dict[str, Any]], None]) -> None:
    """Another admin's whole-object write: read, change one field, PUT it all back."""
    app_id, wid, settings = _acme_widget(sandbox)
    change(settings)
    call(sandbox, "update_widget", app_id, wid, settings)


def _pushed(sandbox: Any, transport: httpx.AsyncBaseTransport, draft: Path,
            between: Callable[[], None] | None = None) -> tuple[PushResult, list[PushEvent], int]:
    """Prepare the push (the plan's read of the service), let ``between`` write, then push; returns the result,
    its events and the exit code push_flow would give."""
    target = Target("test", BASE_URL, KEY_IP, SECRET_IP, transport)
    events: list[PushEvent] = []

    async def go() -> PushResult:
        prepared = await prepare_push(target, PushRequest(draft_path=draft, retry_base_delay=0.001), {})
        assert not isinstance(prepared, PushRefused), prepared
        if between is not None:
            await asyncio.to_thread(between)
        return await push(prepared, target, events.append)

    result = asyncio.run(go())
    code = exitcodes.OK if result.complete and not result.lost_updates else (
        exitcodes.LOST_UPDATE if result.complete else exitcodes.PARTIAL)
    return result, events, code


@pytest.fixture
def acme(tmp_path: Path) -> tuple[Any, Path]:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    edit(draft, "primary_color: '#03A9F4'", "primary_color: '#ABCDEF'")
    return sandbox, draft


def test_a_field_changed_after_the_plan_read_is_kept_by_the_widget_write(acme: tuple[Any, Path]) -> None:
    """The plan's read is older than the write: the body is rebuilt on a read taken right before the PUT."""
    sandbox, draft = acme
    flip = lambda s: s["main"].__setitem__("send_gifs", True)  # noqa: E731
    result, _, code = _pushed(sandbox, httpx.ASGITransport(app=sandbox), draft, lambda: _set_widget(sandbox, flip))
    settings = _acme_widget(sandbox)[2]
    assert settings["style"]["primary_color"] == "#ABCDEF"
    assert settings["main"]["send_gifs"] is True  # the other admin's change, not written back to false
    assert code == exitcodes.OK and not result.lost_updates


def test_a_change_of_ours_overwritten_inside_the_window_is_laid_again(acme: tuple[Any, Path]) -> None:
    """Another admin's stale whole-object write lands right after ours (built from a read before ours): our read
    back sees our colour gone, lays it again on the fresh value, and both changes stand."""
    sandbox, draft = acme
    _, _, stale = _acme_widget(sandbox)
    stale["main"]["send_gifs"] = True
    inner = httpx.ASGITransport(app=sandbox)
    fired: list[int] = []

    async def other_admin() -> None:
        if fired:
            return
        fired.append(1)
        app_id, wid, _ = await asyncio.to_thread(_acme_widget, sandbox)
        async with ManagementClient(BASE_URL, KEY_IP, SECRET_IP, transport=inner) as c:
            await c.update_widget(app_id, wid, stale)

    transport = Interleaved(inner, other_admin)
    result, events, code = _pushed(sandbox, transport, draft)
    settings = _acme_widget(sandbox)[2]
    assert settings["style"]["primary_color"] == "#ABCDEF" and settings["main"]["send_gifs"] is True
    assert transport.puts == 2 and [e.kind for e in events].count("reapplied") == 1
    assert code == exitcodes.OK and not result.lost_updates


def test_a_change_overwritten_every_time_is_reported_as_a_lost_update(acme: tuple[Any, Path], tmp_path: Path) -> None:
    sandbox, draft = acme
    _, _, stale = _acme_widget(sandbox)
    stale["main"]["send_gifs"] = True
    inner = httpx.ASGITransport(app=sandbox)

    async def other_admin() -> None:
        app_id, wid, _ = await asyncio.to_thread(_acme_widget, sandbox)
        async with ManagementClient(BASE_URL, KEY_IP, SECRET_IP, transport=inner) as c:
            await c.update_widget(app_id, wid, stale)

    result, events, code = _pushed(sandbox, Interleaved(inner, other_admin), draft)
    assert code == exitcodes.LOST_UPDATE
    [ours] = [lost for lost in result.lost_updates if lost.ours]
    assert ours.path == "style.primary_color" and ours.expected == "#ABCDEF" and ours.now == "#03A9F4"
    assert "Primary colour (style.primary_color): this push set '#ABCDEF', the service now holds '#03A9F4'" in \
        ours.text()
    assert any(e.kind == "lost_update" for e in events)
    [record] = read_history(Workspace(draft).history_path)
    assert {"app": "Acme Support", "path": "style.primary_color", "ours": True}.items() <= \
        record["lost_updates"][0].items()


def test_the_same_field_changed_after_the_plan_is_a_conflict_not_an_overwrite(acme: tuple[Any, Path]) -> None:
    sandbox, draft = acme
    recolour = lambda s: s["style"].__setitem__("primary_color", "#123456")  # noqa: E731
    result, _, code = _pushed(sandbox, httpx.ASGITransport(app=sandbox), draft,
                              lambda: _set_widget(sandbox, recolour))
    assert _acme_widget(sandbox)[2]["style"]["primary_color"] == "#123456"
    assert code == exitcodes.PARTIAL
    [failed] = result.of("failed")
    assert "changed on the service since the plan was made: Primary colour (style.primary_color)" in failed.reason


async def _repoint_orders(c: ManagementClient, app_id: str) -> None:
    await c.update_webhook(app_id, "orders", {"webhookURL": "https://moved.example/orders"})


async def _move_sms_website(c: ManagementClient, app_id: str) -> None:
    settings = dict(await c.get_sms(app_id) or {})
    settings["websiteURL"] = "https://moved.example"
    await c.update_sms(app_id, settings)


async def _orders(c: ManagementClient, app_id: str) -> dict[str, Any]:
    return await c.get_webhook(app_id, "orders") or {}


async def _sms(c: ManagementClient, app_id: str) -> dict[str, Any]:
    return await c.get_sms(app_id) or {}


@pytest.mark.parametrize(("ours", "theirs", "read", "expected"), [
    # a webhook: the draft renames it; meanwhile another admin re-points it
    (("name: Order events", "name: Orders v2"), _repoint_orders, _orders,
     {"name": "Orders v2", "webhookURL": "https://moved.example/orders"}),
    # SMS: the draft changes the delay; meanwhile another admin changes the website
    (("messageDelay: 60", "messageDelay: 90"), _move_sms_website, _sms,
     {"messageDelay": 90, "websiteURL": "https://moved.example"}),
], ids=["webhook", "sms"])
def test_every_whole_object_kind_keeps_a_field_changed_after_the_plan_read(
        tmp_path: Path, ours: tuple[str, str], theirs: Any, read: Any, expected: dict[str, Any]) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    edit(draft, *ours)
    app_id = _acme_widget(sandbox)[0]

    async def with_client(fn: Any) -> Any:
        async with ManagementClient(BASE_URL, KEY_IP, SECRET_IP, transport=httpx.ASGITransport(app=sandbox)) as c:
            return await fn(c, app_id)

    result, _, code = _pushed(sandbox, httpx.ASGITransport(app=sandbox), draft,
                              lambda: asyncio.run(with_client(theirs)))
    assert code == exitcodes.OK, result.summary()
    now = asyncio.run(with_client(read))
    assert {k: now.get(k) for k in expected} == expected
