"""Latency and failure injection, so clients can be exercised against a slow, flaky service on a laptop.

Every API request first waits ``latency_ms`` (``asyncio.sleep``: never blocks the loop, so 1,000 concurrent
requests with 50 ms latency take ~50 ms, not 50 s), then, with probability ``fail_rate``, fails *before any work
is done* with either 429 (with ``Retry-After``) or 503, half and half. Decisions come from a
``random.Random(rng_seed)`` drawn in arrival order, so a sequential test sees the same failures on every run.
The API description (``/openapi.json``, ``/docs``) is exempt.

``rate_limit`` (requests per minute) enforces a quota the way a rate-limited service does, so clients' adaptive
concurrency can be tested: a token bucket of that many requests, refilled evenly over the minute; a request with
no token left is answered 429 with ``Retry-After`` (whole seconds until the next token), and every answer says
``X-Rate-Limit`` and ``X-Rate-Limit-Remaining``.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tenantdeck.sandbox import errors
from tenantdeck.sandbox.auth import OPEN_PATHS


@dataclass
class FaultConfig:
    """Knobs of :class:`FaultInjectionMiddleware`; also keeps counts so tests can see what was injected."""

    latency_ms: float = 0.0
    fail_rate: float = 0.0
    retry_after: int = 1
    rng: random.Random = field(default_factory=random.Random)
    injected_429: int = 0
    injected_503: int = 0
    rate_limit: int | None = None  #: requests per minute (None: no quota)
    limited_429: int = 0  #: requests refused because the quota was used up
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(default=0.0, init=False)
    _last: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.fail_rate <= 1.0:
            raise ValueError(f"fail_rate must be between 0 and 1, not {self.fail_rate}")
        if self.latency_ms < 0:
            raise ValueError(f"latency_ms must not be negative, not {self.latency_ms}")
        if self.retry_after < 0:
            raise ValueError(f"retry_after must not be negative, not {self.retry_after}")
        if self.rate_limit is not None and self.rate_limit < 1:
            raise ValueError(f"rate_limit must be at least 1 request per minute, not {self.rate_limit}")
        self._tokens = float(self.rate_limit or 0)

    def take(self) -> tuple[bool, int, int]:
        """One request against the quota: (allowed, tokens left, seconds until the next token)."""
        assert self.rate_limit is not None
        now = self.clock()
        per_second = self.rate_limit / 60.0
        if self._last is not None:
            self._tokens = min(float(self.rate_limit), self._tokens + (now - self._last) * per_second)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True, int(self._tokens), 0
        return False, 0, max(1, math.ceil((1.0 - self._tokens) / per_second))

    def draw(self) -> int | None:
        """The status to fail this request with, or None to serve it."""
        if self.fail_rate <= 0.0 or self.rng.random() >= self.fail_rate:
            return None
        return 429 if self.rng.random() < 0.5 else 503


class FaultInjectionMiddleware:
    """Outermost middleware: sleep, then maybe fail (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, config: FaultConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        config = self.config
        status = config.draw()
        if config.latency_ms > 0:
            await asyncio.sleep(config.latency_ms / 1000.0)
        if config.rate_limit is not None:
            allowed, left, wait = config.take()
            quota = [(b"x-rate-limit", str(config.rate_limit).encode()),
                     (b"x-rate-limit-remaining", str(left).encode())]
            if not allowed:
                config.limited_429 += 1
                response = errors.error_response(
                    429, errors.TOO_MANY_REQUESTS,
                    f"Rate limit of {config.rate_limit} requests per minute exceeded; retry in {wait} s.",
                    headers={"Retry-After": str(wait), "X-Rate-Limit": str(config.rate_limit),
                             "X-Rate-Limit-Remaining": "0"},
                )
                await response(scope, receive, send)
                return

            outer = send

            async def send_with_quota(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [*message.get("headers", []), *quota]}
                await outer(message)

            send = send_with_quota
        if status == 429:
            config.injected_429 += 1
            response = errors.error_response(
                429,
                errors.TOO_MANY_REQUESTS,
                "Rate limit exceeded (injected by the sandbox).",
                headers={"Retry-After": str(config.retry_after)},
            )
        elif status == 503:
            config.injected_503 += 1
            response = errors.error_response(
                503, errors.SERVICE_UNAVAILABLE, "Service temporarily unavailable (injected by the sandbox)."
            )
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)
