"""What a push reports while it runs: one :class:`PushEvent` per step, for the CLI's progress and the TUI's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tenantdeck.api.errors import ApiError
    from tenantdeck.sync.types import Step

@dataclass(frozen=True, slots=True)
class Pace:
    """How fast the service lets a push go, from the client's adaptive limits: ``limit`` requests in flight now,
    ``throttled`` answers that said slow down (429 / Retry-After), the quota ``remaining`` when it publishes one."""

    limit: int
    throttled: int = 0
    remaining: int | None = None

    def text(self) -> str:
        """``throttled 3x, 4 in flight · quota 41 left``, or "" when there is nothing to say (never throttled, no
        published quota): the words every renderer shows."""
        parts = [f"throttled {self.throttled}x, {self.limit} in flight"] if self.throttled else []
        if self.remaining is not None:
            parts.append(f"quota {self.remaining} left")
        return " · ".join(parts)


EventKind = Literal["started", "applied", "failed", "not_attempted", "id_assigned", "retry_scheduled",
                    "interrupted", "stopped", "warning", "reapplied", "lost_update"]


@dataclass(frozen=True, slots=True)
class PushEvent:
    """One thing that happened during a push. ``done``/``total`` and ``counts`` let a renderer draw progress
    without keeping its own tally (so progress and summary always count the same things)."""

    kind: EventKind
    op: Step | None = None
    message: str = ""
    error: ApiError | None = None
    earlier: bool = False  #: ``applied`` by an earlier run of the same saved plan
    app_id: str | None = None  #: ``id_assigned``: the new app's id
    widget_id: str | None = None  #: ``id_assigned``: the new widget's id
    delay: float = 0.0  #: ``retry_scheduled``: seconds until the retry
    done: int = 0
    total: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    pace: Pace | None = None  #: the service's pace when the event was made (set by the push executor)


OnEvent = Callable[[PushEvent], None]
