"""Client-side limits: at most ``max_rps`` requests per second and ``concurrency`` requests in flight.

The management API publishes no rate limit (facts §6), so we protect it (and ourselves from 429 storms) with a
token bucket and a semaphore shared by every call of one client instance. The bucket holds at most ``burst``
tokens (1 by default, which spaces requests evenly), and waiting callers are served in arrival order because
the bucket's lock is held while sleeping.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from types import TracebackType

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` stored; :meth:`acquire` takes one, waiting if needed."""

    def __init__(
        self, rate: float, *, burst: float = 1.0, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self.burst = max(1.0, burst)
        self._tokens = self.burst
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                self._refill()
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await self._sleep((1.0 - self._tokens) / self.rate)


#: how far the adaptive limit may grow when the caller names no ceiling: this many times where it started ...
GROWTH = 2
#: ... and never beyond this many requests in flight (one client on one machine: past it the client's own CPU, not
#: the service, sets the pace)
CAP = 64


def default_ceiling(concurrency: int) -> int:
    """The most requests in flight a limiter that starts at ``concurrency`` grows to: :data:`GROWTH` times the start,
    at most :data:`CAP` (never below the start). A start of 1 asks for one request at a time (operations in plan
    order, a log that reads in order) and never grows."""
    if concurrency <= 1:
        return 1
    return max(concurrency, min(concurrency * GROWTH, CAP))


class Limiter:
    """Async context manager around one HTTP attempt: waits for a concurrency slot, then for a token.

    The number of slots adapts (additive increase, multiplicative decrease, as TCP does), in rounds of ``limit``
    answers. ``concurrency`` is where it starts and ``max_concurrency`` the most it grows to (callers pass
    :func:`default_ceiling` for the documented default).

    * Growth: after ``limit`` answers in a row that were not throttled and whose latency stayed within
      ``LATENCY_SLACK`` of the fastest seen, one slot is added.
    * Latency: a round in which more than half the answers were slower than that says the service (or this
      machine, whose event loop delays every answer it has not yet read) is saturating: the slots grown above the
      start shrink by a quarter (at least one), never below where the limit started or already is.
    * Throttling: a 429 (or any answer with ``Retry-After``) halves the slots at once, below the start if need be,
      at most once per round so a burst of 429s from one window counts once.

    A service that publishes its quota (``X-Rate-Limit-Remaining``) has it kept in :attr:`remaining` for progress
    displays. Never fewer than one slot.
    """

    LATENCY_SLACK = 1.5  #: an answer this much slower than the fastest seen says the service is saturating

    def __init__(self, *, max_rps: float | None, concurrency: int, max_concurrency: int | None = None,
                 clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.max_rps = max_rps
        self.concurrency = concurrency  #: where the adaptive limit started
        self.max_concurrency = max(concurrency, max_concurrency or concurrency)
        self.limit = concurrency  #: slots now
        self.peak = concurrency  #: the most slots it reached
        self.remaining: int | None = None  #: the service's ``X-Rate-Limit-Remaining``, when it sends one
        self.throttled = 0  #: answers that said slow down (429 / Retry-After)
        self._in_flight = 0
        self._cond = asyncio.Condition()
        self._good = 0
        self._since_cut = 0
        self._round = 0  #: answers in the current latency round
        self._slow = 0  #: of which slower than the slack allows
        self._fastest: float | None = None
        self._bucket = TokenBucket(max_rps, clock=clock, sleep=sleep) if max_rps else None

    @property
    def in_flight(self) -> int:
        """Requests holding a slot now."""
        return self._in_flight

    async def __aenter__(self) -> None:
        async with self._cond:
            try:
                await self._cond.wait_for(lambda: self._in_flight < self.limit)
            except asyncio.CancelledError:
                self._cond.notify(1)  # a wake-up meant for this caller goes to the next one, never lost
                raise
            self._in_flight += 1
        try:
            if self._bucket is not None:
                await self._bucket.acquire()
        except BaseException:
            await self._release()
            raise

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._release()

    async def _release(self) -> None:
        """Wake as many waiters as there are free slots (the limit may have grown since), not all of them: a pull
        of 250 apps queues thousands of calls, and waking every one at each answer made the client's CPU grow with
        the square of the account (6,500 waiters, 7,254 answers; three quarters of the pull's CPU)."""
        async with self._cond:
            self._in_flight -= 1
            self._cond.notify(max(0, self.limit - self._in_flight))

    def observe(self, latency: float, *, throttled: bool, remaining: int | None = None) -> None:
        """What one answer says about the service: its latency, whether it asked us to slow down, the quota left."""
        if remaining is not None:
            self.remaining = remaining
        self._since_cut += 1
        if throttled:
            self.throttled += 1
            self._good = 0
            self._round = self._slow = 0
            if self._since_cut >= self.limit:  # one cut per round: a burst of 429s is one signal
                self.limit = max(1, self.limit // 2)
                self._since_cut = 0
            return
        if self._fastest is None or latency < self._fastest:
            self._fastest = latency
        slow = latency > self._fastest * self.LATENCY_SLACK and latency - self._fastest > 0.005
        self._round += 1
        self._slow += slow
        if self._round >= self.limit:
            if self._slow * 2 > self._round:
                floor = min(self.concurrency, self.limit)
                self.limit = max(floor, self.limit - max(1, (self.limit - floor) // 4))
            self._round = self._slow = 0
        if slow:
            self._good = 0  # slower than it can be: no growth
            return
        self._good += 1
        if self._good >= self.limit and self.limit < self.max_concurrency:
            self.limit += 1
            self.peak = max(self.peak, self.limit)
            self._good = 0
