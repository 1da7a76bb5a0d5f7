"""The sandbox's quota (``--rate-limit N/min``) and the client's adaptive concurrency against it, over HTTP.

The quota is a token bucket on an injected clock, so the test decides when time passes: nothing here waits for a
real minute, and nothing depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from tenantdeck.api.client import ManagementClient
from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, create_app

AUTH = {"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _app(tmp_path: Path, per_minute: int) -> tuple[Any, Clock]:
    app = create_app(tmp_path / "db.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=True,
                     rate_limit=per_minute)
    clock = Clock()
    app.state.faults.clock = clock
    return app, clock


def test_the_quota_is_said_on_every_answer_and_enforced(tmp_path: Path) -> None:
    app, clock = _app(tmp_path, 3)

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox", headers=AUTH) as http:
            return [await http.get("/apps") for _ in range(4)]

    answers = asyncio.run(go())
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a.headers["x-rate-limit-remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert all(a.headers["x-rate-limit"] == "3" for a in answers)
    assert answers[3].headers["retry-after"] == "20"  # 3 per minute: one token every 20 s
    assert answers[3].json()["error"]["code"] == "ERR_TOO_MANY_REQUESTS"
    clock.now += 20

    async def again() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox",
                                     headers=AUTH) as http:
            return await http.get("/apps")

    assert asyncio.run(again()).status_code == 200
    assert app.state.faults.limited_429 == 1


def test_the_client_halves_its_concurrency_on_429_and_finishes_every_read(tmp_path: Path) -> None:
    """A burst of 60 reads at 16 in flight against a quota of 30: the client is told to slow down, halves its
    slots, waits as told (Retry-After, on the test's clock) and reads everything, no error reaching the caller."""
    app, clock = _app(tmp_path, 30)

    async def sleep(seconds: float) -> None:
        clock.now += seconds  # Retry-After is honoured on the sandbox's own clock
        await asyncio.sleep(0)

    async def go() -> tuple[list[Any], Any]:
        client = ManagementClient("http://sandbox", DEFAULT_KEY, DEFAULT_SECRET, transport=httpx.ASGITransport(app=app),
                                  concurrency=16, max_retries=10, sleep=sleep)
        async with client:
            apps = await client.list_apps()
            results = await asyncio.gather(*(client.list_webhooks(apps[i % len(apps)].id) for i in range(60)))
            return results, client.limits

    results, limits = asyncio.run(go())
    assert len(results) == 60
    assert limits.throttled >= 1 and limits.limit < 16
    assert limits.remaining is not None
    assert app.state.faults.limited_429 >= 1


@pytest.mark.parametrize(("given", "ok"), [("600/min", True), ("600", True), ("0/min", False), ("fast", False)])
def test_the_command_line_takes_n_per_minute(given: str, ok: bool, tmp_path: Path) -> None:
    from tenantdeck.cli import cli

    result = CliRunner().invoke(cli, ["sandbox", "--rate-limit", given, "--reset", "--db", str(tmp_path / "x.db")])
    assert (result.exit_code == 0) is ok, result.output
    if not ok:
        assert "write it as N/min" in result.output



def test_the_pace_is_said_in_words_every_progress_shows() -> None:
    """The engine's events carry the client's pace (``Pace``); the TUI's and the CLI's progress show its words."""
    import io

    from tenantdeck.cli.progress import ProgressReporter
    from tenantdeck.sync.events import Pace, PushEvent
    from tenantdeck.sync.progress import PushProgress

    assert Pace(16).text() == ""  # never throttled, no quota published: nothing to say
    assert Pace(4, throttled=3, remaining=41).text() == "throttled 3x, 4 in flight · quota 41 left"
    event = PushEvent("applied", done=1, total=2, counts={"applied": 1}, pace=Pace(8, 1, 0))
    tui = PushProgress()
    tui.feed(event)
    assert "throttled 1x, 8 in flight · quota 0 left" in tui.line()
    cli = ProgressReporter(2, stream=io.StringIO())
    cli.handle(event)
    assert cli.line() == "push: " + tui.line()  # one implementation of the figures, two renderers
