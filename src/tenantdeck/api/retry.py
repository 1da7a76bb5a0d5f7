"""When and how long to wait before trying a request again.

Exponential backoff with *full jitter* (a uniformly random wait between 0 and ``base * 2**n``, capped) spreads
retries of many concurrent calls instead of synchronising them into waves. A ``Retry-After`` header (seconds or
an HTTP date) from a 429/503 wins over the computed backoff, but is capped so a confused server cannot park the
CLI for an hour.

Which failures are retried is decided by the client, because it depends on whether the request could have been
applied (see :mod:`tenantdeck.api.transport`); this module only knows statuses and delays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def is_retryable_status(status: int) -> bool:
    """Rate limiting and transient server-side failures; 501 (not implemented) and 505 will not get better."""
    return status == 429 or (500 <= status < 600 and status not in (501, 505))


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; None if absent/garbled."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN check
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


@dataclass(slots=True)
class RetryPolicy:
    """Backoff parameters shared by all calls of one client."""

    max_retries: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, retry_number: int) -> float:
        """Full jitter: uniform in [0, min(max_delay, base * 2**(n-1))] for the n-th retry (n >= 1)."""
        ceiling = min(self.max_delay, self.base_delay * (2 ** max(0, retry_number - 1)))
        return self.rng.uniform(0.0, ceiling) if ceiling > 0 else 0.0

    def delay(self, retry_number: int, retry_after: float | None) -> float:
        """The wait before the n-th retry: the server's Retry-After (capped) if given, else the backoff."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        return self.backoff(retry_number)
