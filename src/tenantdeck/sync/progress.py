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
        self.failed = 0
        self.started = time.monotonic()
        self._last = 0.0

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 and left else ("0s" if not left else "?")
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{self.label}: {self.done}/{self.total} operations{failed}, {rate:.1f}/s, ETA {eta}"

    def step(self, *, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
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
