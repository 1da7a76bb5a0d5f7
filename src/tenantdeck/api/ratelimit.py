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


class Limiter:
    """Async context manager around one HTTP attempt: waits for a concurrency slot, then for a token."""

    def __init__(self, *, max_rps: float | None, concurrency: int, clock: Clock = time.monotonic,
                 sleep: Sleep = asyncio.sleep) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.max_rps = max_rps
        self.concurrency = concurrency
        self._semaphore = asyncio.Semaphore(concurrency)
        self._bucket = TokenBucket(max_rps, clock=clock, sleep=sleep) if max_rps else None

    async def __aenter__(self) -> None:
        await self._semaphore.acquire()
        try:
            if self._bucket is not None:
                await self._bucket.acquire()
        except BaseException:
            self._semaphore.release()
            raise

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._semaphore.release()
