"""The limiter wakes only the callers it can let in: a queue of N calls costs O(N) wake-ups, not O(N^2).

Counted, not timed: every return from the condition's ``wait`` is one wake-up of one queued call.
"""

from __future__ import annotations

import asyncio

import pytest

from tenantdeck.api.ratelimit import Limiter

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _run_queue(limiter: Limiter, calls: int, monkeypatch: pytest.MonkeyPatch) -> int:
    wakeups = 0
    real_wait = asyncio.Condition.wait

    async def counting_wait(self: asyncio.Condition) -> bool:
        nonlocal wakeups
        result = await real_wait(self)
        wakeups += 1
        return result

    monkeypatch.setattr(asyncio.Condition, "wait", counting_wait)

    async def one() -> None:
        async with limiter:
            await asyncio.sleep(0)

    await asyncio.gather(*(one() for _ in range(calls)))
    return wakeups


async def test_a_queue_of_calls_wakes_each_caller_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 400
    limiter = Limiter(max_rps=None, concurrency=4)
    wakeups = await _run_queue(limiter, calls, monkeypatch)
    assert wakeups <= 3 * calls, f"{wakeups} wake-ups for {calls} queued calls"  # all at each answer: 19,800
    assert limiter.in_flight == 0


async def test_a_cancelled_waiter_passes_its_wake_up_on() -> None:
    limiter = Limiter(max_rps=None, concurrency=1)
    entered: list[str] = []

    async def call(name: str, hold: asyncio.Event | None = None) -> None:
        async with limiter:
            entered.append(name)
            if hold is not None:
                await hold.wait()

    release = asyncio.Event()
    first = asyncio.create_task(call("first", release))
    await asyncio.sleep(0)
    second = asyncio.create_task(call("second"))
    third = asyncio.create_task(call("third"))
    await asyncio.sleep(0)
    release.set()  # the slot frees: "second" is woken ...
    await asyncio.sleep(0)
    second.cancel()  # ... and cancelled before it runs: "third" must still get in
    await asyncio.wait_for(asyncio.gather(first, third), timeout=10)
    assert entered == ["first", "third"] and limiter.in_flight == 0
