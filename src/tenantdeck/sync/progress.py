"""A push's progress as numbers a renderer shows: operations done of total, rate, ETA and what is running.

Fed the engine's :class:`~tenantdeck.sync.events.PushEvent` values; the clock is injected, so a snapshot test (or a
benchmark) sees the same figures on every run. Pure: no Textual, no I/O.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tenantdeck.sync.events import Pace, PushEvent

Clock = Callable[[], float]


@dataclass(slots=True)
class PushProgress:
    """``total`` operations; ``clock`` (seconds, monotonic) times the rate from the first finished operation."""

    total: int = 0
    clock: Clock = time.monotonic
    done: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    #: operation key -> "app: what", in the order they started (several apps run at once)
    running: dict[str, str] = field(default_factory=dict)
    started_at: float | None = None
    last_at: float | None = None
    pace: Pace | None = None  #: the service's pace at the last event (throttling, quota)

    def feed(self, event: PushEvent) -> None:
        """Take one event; ``started`` adds to the running operations, a result removes it and counts."""
        now = self.clock()
        if self.started_at is None:
            self.started_at = now
        if event.total:
            self.total = event.total
        if event.pace is not None:
            self.pace = event.pace
        if event.kind == "started" and event.op is not None:
            self.running[event.op.key] = f"{event.op.app_name}: {event.op.kind.replace('_', ' ')}"
        elif event.kind in ("applied", "failed", "not_attempted"):
            if event.op is not None:
                self.running.pop(event.op.key, None)
            self.done = event.done
            self.counts = dict(event.counts)
            self.last_at = now

    @property
    def rate(self) -> float | None:
        """Operations per second so far, or None before any time has passed (a frozen clock: snapshots)."""
        if self.started_at is None or self.last_at is None or self.last_at <= self.started_at or not self.done:
            return None
        return self.done / (self.last_at - self.started_at)

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or None while it is unknown."""
        rate = self.rate
        if rate is None or rate <= 0:
            return None
        return max(0, self.total - self.done) / rate

    def line(self, width: int = 3) -> str:
        """``12/40 done · 3.2 ops/s · ETA 9s · running: Acme: update widget, +2 more``."""
        parts = [f"{self.done}/{self.total} done"]
        failed = self.counts.get("failed", 0)
        if failed:
            parts.append(f"{failed} failed")
        rate, eta = self.rate, self.eta
        parts.append(f"{rate:.1f} ops/s" if rate is not None else "rate —")
        parts.append(f"ETA {_duration(eta)}" if eta is not None else "ETA —")
        if self.pace is not None and self.pace.text():
            parts.append(self.pace.text())
        names = list(self.running.values())
        if names:
            more = f", +{len(names) - width} more" if len(names) > width else ""
            parts.append("running: " + ", ".join(names[:width]) + more)
        return " · ".join(parts)


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes}m{rest:02d}s"
