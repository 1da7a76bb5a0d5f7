"""Live progress of a push on stderr, drawn from the engine's :class:`~tenantdeck.sync.events.PushEvent` stream.

On a terminal, a ``rich`` progress bar (done/total, rate, ETA) with the applied/failed/not-attempted counts and
the operation running now; ``rich`` comes with Textual, so it costs no extra dependency. Elsewhere (CI logs, tests)
a plain line at most every few seconds, so a 1,000-app push leaves a readable log rather than 1,000 lines. Both
print the counts the summary prints, in the same words.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tenantdeck.sync.events import Pace, PushEvent
from tenantdeck.textsafe import shown


def counts_text(counts: dict[str, int] | Any) -> str:
    parts = [f"{counts.get('applied', 0)} applied"]
    if counts.get("failed"):
        parts.append(f"{counts['failed']} failed")
    if counts.get("not_attempted"):
        parts.append(f"{counts['not_attempted']} not attempted")
    return ", ".join(parts)


class ProgressReporter:
    """Feed it every event (:meth:`handle`); call :meth:`finish` once the push is over."""

    def __init__(self, total: int, *, stream: TextIO | None = None, interval: float | None = None,
                 label: str = "push") -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else 5.0
        self.label = label
        self.done = 0
        self.counts: dict[str, int] = {"applied": 0, "failed": 0, "not_attempted": 0}
        self.started = time.monotonic()
        self.pace: Pace | None = None  #: the service's pace at the last event
        self._last = 0.0
        self._bar: Any = None
        self._task: Any = None
        if self.tty and total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(file=self.stream)
            # app names are data: the description is never read as markup (nor printed raw: see handle)
            self._bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                                 TextColumn("{task.fields[counts]}"), console=console, transient=False)
            self._task = self._bar.add_task(label, total=total, rate="", counts="")
            self._bar.start()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 and left else ("0s" if not left else "?")
        pace = self.pace.text() if self.pace is not None else ""
        return (f"{self.label}: {self.done}/{self.total} operations ({counts_text(self.counts)}), {rate:.1f}/s, "
                f"ETA {eta}" + (f", {pace}" if pace else ""))

    def handle(self, event: PushEvent) -> None:
        if event.pace is not None:
            self.pace = event.pace
        if event.kind in ("applied", "failed", "not_attempted"):
            self.done = event.done
            self.counts = dict(event.counts)
            self._update(final=self.done == self.total)
        elif event.kind == "started" and self._bar is not None and event.op is not None:
            self._bar.update(self._task, description=shown(f"{self.label}: {event.op.app_name}: {event.op.kind}"))
        elif event.kind == "retry_scheduled" and self._bar is not None:
            self._print(f"  retry in {event.delay:.1f}s" + (f": {event.op.resource}" if event.op else ""))
        elif event.kind == "stopped":
            self._print(f"{self.label}: {event.message}")

    def _update(self, *, final: bool) -> None:
        if self._bar is not None:
            elapsed = max(time.monotonic() - self.started, 1e-9)
            pace = self.pace.text() if self.pace is not None else ""
            self._bar.update(self._task, completed=self.done, rate=f"{self.done / elapsed:.1f}/s",
                             counts=counts_text(self.counts) + (f" · {pace}" if pace else ""))
            return
        now = time.monotonic()
        if now - self._last >= self.interval or final:
            self._last = now
            self._print(self.line())

    def _print(self, text: str) -> None:
        text = shown(text)  # names a resource or quotes the service: data
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
            return
        self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=self.label)
            self._bar.stop()
