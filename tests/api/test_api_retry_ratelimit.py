"""Backoff arithmetic, Retry-After parsing and the token bucket, with fake clocks (no real waiting)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from tenantdeck.api.ratelimit import Limiter, TokenBucket
from tenantdeck.api.retry import RetryPolicy, is_retryable_status, parse_retry_after

pytestmark = pytest.mark.anyio


def test_full_jitter_backoff_bounds() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0, rng=random.Random(1))
    for n, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)]:
        samples = [policy.backoff(n) for _ in range(200)]
        assert all(0 <= s <= ceiling for s in samples)
        assert max(samples) > ceiling * 0.8  # really spread over the range, not a constant


def test_retry_after_wins_but_is_capped() -> None:
    policy = RetryPolicy(max_retry_after=60)
    assert policy.delay(1, 5.0) == 5.0
    assert policy.delay(1, 3600.0) == 60


@pytest.mark.parametrize(
    ("header", "expected"),
    [("12", 12.0), ("0", 0.0), ("1.5", 1.5), ("-3", 0.0), ("Wed, 01 Jan 2025 00:00:30 GMT", 30.0),
     ("Tue, 31 Dec 2024 23:00:00 GMT", 0.0), ("soon", None), ("", None), (None, None)],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == expected


def test_retryable_statuses() -> None:
    assert all(is_retryable_status(s) for s in (429, 500, 502, 503, 504))
    assert not any(is_retryable_status(s) for s in (400, 401, 403, 404, 409, 422, 501, 505))


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_token_bucket_spaces_requests_at_the_rate() -> None:
    fake = FakeTime()
    bucket = TokenBucket(4.0, clock=fake.clock, sleep=fake.sleep)
    for _ in range(9):
        await bucket.acquire()
    assert fake.now == pytest.approx(2.0)  # first one free, then 8 at 4/s


async def test_token_bucket_refills_while_idle_but_not_beyond_burst() -> None:
    fake = FakeTime()
    bucket = TokenBucket(1.0, burst=2, clock=fake.clock, sleep=fake.sleep)
    await bucket.acquire()
    await bucket.acquire()
    fake.now += 100  # idle for a long time: only `burst` tokens accumulate
    for _ in range(3):
        await bucket.acquire()
    assert fake.now == pytest.approx(101.0)


async def test_limiter_validates() -> None:
    with pytest.raises(ValueError):
        Limiter(max_rps=None, concurrency=0)
    with pytest.raises(ValueError):
        TokenBucket(0)


# -- adaptive concurrency (issue 24) -------------------------------------------------------------------------------


def test_a_throttled_answer_halves_the_slots_once_per_round() -> None:
    limiter = Limiter(max_rps=None, concurrency=16)
    for _ in range(16):
        limiter.observe(0.05, throttled=False)
    limiter.observe(0.05, throttled=True)
    assert limiter.limit == 8 and limiter.throttled == 1
    for _ in range(5):  # the rest of the same burst of 429s: one signal, not five halvings
        limiter.observe(0.05, throttled=True)
    assert limiter.limit == 8
    for _ in range(3):  # a round (8 answers) after the cut: the next 429 halves again
        limiter.observe(0.05, throttled=True)
    assert limiter.limit == 4
    for _ in range(100):
        limiter.observe(0.05, throttled=True)
    assert limiter.limit >= 1


def test_slots_grow_back_while_latency_holds_and_not_while_it_rises() -> None:
    limiter = Limiter(max_rps=None, concurrency=8, max_concurrency=10)
    limiter.observe(0.05, throttled=False)
    limiter.limit = 2
    for _ in range(2):
        limiter.observe(0.05, throttled=False)
    assert limiter.limit == 3
    for _ in range(50):  # twice as slow as the fastest seen: the service is saturating, hold
        limiter.observe(0.10, throttled=False)
    assert limiter.limit == 3
    for _ in range(200):
        limiter.observe(0.05, throttled=False)
    assert limiter.limit == 10  # never beyond the ceiling


@pytest.mark.parametrize(("start", "ceiling"), [(1, 1), (2, 4), (16, 32), (40, 64), (100, 100)])
def test_the_default_ceiling_is_twice_the_start_at_most_64_and_one_stays_one(start: int, ceiling: int) -> None:
    from tenantdeck.api.ratelimit import default_ceiling

    assert default_ceiling(start) == ceiling


def test_the_limit_grows_above_its_start_while_latency_holds_then_stops_at_the_ceiling() -> None:
    limiter = Limiter(max_rps=None, concurrency=16, max_concurrency=32)
    for _ in range(100):
        limiter.observe(0.05, throttled=False)
    assert 16 < limiter.limit < 32  # one slot per round of `limit` fast answers
    for _ in range(2000):
        limiter.observe(0.05, throttled=False)
    assert limiter.limit == limiter.peak == 32


def test_degrading_latency_shrinks_the_grown_slots_back_to_the_start_and_no_further() -> None:
    limiter = Limiter(max_rps=None, concurrency=16, max_concurrency=32)
    for _ in range(2000):
        limiter.observe(0.05, throttled=False)
    assert limiter.limit == 32
    limiter.observe(0.20, throttled=False)  # a slow answer alone (one in a round) changes nothing
    for _ in range(40):
        limiter.observe(0.05, throttled=False)
    assert limiter.limit == 32
    seen = [limiter.limit]
    for _ in range(40):  # rounds in which most answers are 4x slower than the fastest: the service saturates
        for _ in range(limiter.limit):
            limiter.observe(0.20, throttled=False)
        seen.append(limiter.limit)
    assert seen == sorted(seen, reverse=True) and seen[1] < 32  # down at each slow round, never up
    assert limiter.limit == 16  # back where it started: latency alone never goes below the start
    assert limiter.throttled == 0


def test_a_429_still_halves_below_the_start() -> None:
    limiter = Limiter(max_rps=None, concurrency=16, max_concurrency=32)
    for _ in range(2000):
        limiter.observe(0.05, throttled=False)
    limiter.observe(0.05, throttled=True)
    assert limiter.limit == 16
    for _ in range(16):
        limiter.observe(0.05, throttled=True)
    assert limiter.limit == 8
    for _ in range(20):  # slow rounds below the start: latency does not cut further, only 429s do
        for _ in range(limiter.limit):
            limiter.observe(0.20, throttled=False)
    assert limiter.limit == 8


def test_the_published_quota_is_kept() -> None:
    limiter = Limiter(max_rps=None, concurrency=4)
    assert limiter.remaining is None
    limiter.observe(0.01, throttled=False, remaining=41)
    assert limiter.remaining == 41
    limiter.observe(0.01, throttled=False)
    assert limiter.remaining == 41


async def test_no_more_requests_in_flight_than_the_slots() -> None:
    import asyncio

    limiter = Limiter(max_rps=None, concurrency=3)
    limiter.limit = 2
    inside = peak = 0

    async def one() -> None:
        nonlocal inside, peak
        async with limiter:
            inside += 1
            peak = max(peak, inside)
            await asyncio.sleep(0.001)
            inside -= 1

    await asyncio.gather(*(one() for _ in range(20)))
    assert peak == 2 and inside == 0
