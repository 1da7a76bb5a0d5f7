"""Fault injection: deterministic 429/503 mix with Retry-After, and non-blocking latency."""

from __future__ import annotations

import asyncio
import time

import pytest
from sandbox_helpers import MakeApp, assert_error, client_for

pytestmark = pytest.mark.anyio


async def _statuses(make_app: MakeApp, n: int, **kw: object) -> list[tuple[int, str | None]]:
    async with client_for(make_app(**kw)) as c:
        out = []
        for _ in range(n):
            r = await c.get("/apps")
            out.append((r.status_code, r.headers.get("retry-after")))
            if r.status_code == 429:
                assert_error(r, 429, "ERR_TOO_MANY_REQUESTS")
            elif r.status_code == 503:
                assert_error(r, 503, "ERR_SERVICE_UNAVAILABLE")
        return out


async def test_same_seed_same_failures(make_app: MakeApp) -> None:
    first = await _statuses(make_app, 60, fail_rate=0.5, rng_seed=1234)
    second = await _statuses(make_app, 60, fail_rate=0.5, rng_seed=1234)
    assert first == second
    codes = {status for status, _ in first}
    assert codes == {200, 429, 503}
    assert all(ra == "1" for status, ra in first if status == 429)
    assert all(ra is None for status, ra in first if status != 429)


async def test_retry_after_is_configurable_and_rates_are_honoured(make_app: MakeApp) -> None:
    statuses = await _statuses(make_app, 30, fail_rate=1.0, rng_seed=5, retry_after=0)
    assert all(status in (429, 503) for status, _ in statuses)
    assert all(ra == "0" for status, ra in statuses if status == 429)
    assert {s for s, _ in await _statuses(make_app, 30, fail_rate=0.0)} == {200}


async def test_failures_happen_before_any_work(make_app: MakeApp) -> None:
    app = make_app(fail_rate=1.0, rng_seed=3)
    async with client_for(app) as c:
        r = await c.post("/apps", json={"name": "never", "region": "us", "version": "3"})
        assert r.status_code in (429, 503)
    assert app.state.store.list_apps(None, 10, 0) == ([], 0)
    assert app.state.faults.injected_429 + app.state.faults.injected_503 == 1


async def test_openapi_is_exempt(make_app: MakeApp) -> None:
    async with client_for(make_app(fail_rate=1.0), auth=False) as c:
        assert (await c.get("/openapi.json")).status_code == 200


async def test_latency_does_not_block_the_loop(make_app: MakeApp) -> None:
    """25 requests at once take about one request's latency, not 25 of them: the delay is an ``await``, not a
    blocking sleep. Compared with one request timed in the same run (a loaded machine slows both), with a wide
    margin: the latency (200 ms) dwarfs the per-request work, and a blocking sleep would take 25 times as long.
    Half of that, not a quarter: under a profiler on a loaded machine the overlapped 25 took 7x one request."""
    async with client_for(make_app(latency_ms=200)) as c:
        started = time.perf_counter()
        assert (await c.get("/apps")).status_code == 200
        single = time.perf_counter() - started
        assert single >= 0.2
        started = time.perf_counter()
        results = await asyncio.gather(*(c.get("/apps") for _ in range(25)))
        elapsed = time.perf_counter() - started
    assert all(r.status_code == 200 for r in results)
    assert elapsed < single * 25 / 2, (elapsed, single)  # overlapped: far below 25 sequential delays


def test_bad_knobs_are_refused(make_app: MakeApp) -> None:
    with pytest.raises(ValueError):
        make_app(fail_rate=1.5)
    with pytest.raises(ValueError):
        make_app(latency_ms=-1)
    with pytest.raises(ValueError):
        make_app(key="")
