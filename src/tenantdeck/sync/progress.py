"""Live progress of a push on stderr: done/total, rate and ETA.

On a terminal one line is redrawn in place; otherwise (CI logs, tests) a line is printed at most every few
seconds, so a 1,000-app push leaves a readable log rather than 1,000 lines.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, *, stream: TextIO | None = None, interval: float | None = None,
                 label: str = "push") -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (0.2 if self.tty else 5.0)
        self.label = label
        self.done = 0
        #: by status, the same words the summary uses: progress and summary must count the same things
        self.counts = {"applied": 0, "failed": 0, "not_attempted": 0}
        self.started = time.monotonic()
        self._last = 0.0

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 and left else ("0s" if not left else "?")
        c = self.counts
        parts = [f"{c['applied']} applied"]
        if c["failed"]:
            parts.append(f"{c['failed']} failed")
        if c["not_attempted"]:
            parts.append(f"{c['not_attempted']} not attempted")
        return (f"{self.label}: {self.done}/{self.total} operations ({', '.join(parts)}), {rate:.1f}/s, "
                f"ETA {eta}")

    def step(self, status: str = "applied") -> None:
        """One operation finished with ``status`` (applied, failed or not_attempted)."""
        self.done += 1
        self.counts[status] = self.counts.get(status, 0) + 1
        now = time.monotonic()
        if now - self._last >= self.interval or self.done == self.total:
            self._last = now
            self._emit()

    def _emit(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()
