"""A push's progress on stderr: the figures of :class:`tenantdeck.sync.progress.PushProgress`, drawn.

The numbers (done of total, counts, rate, ETA, what is running, the service's pace) are computed once, in
:mod:`tenantdeck.sync.progress`, from the engine's :class:`~tenantdeck.sync.events.PushEvent` stream, and the TUI's
review screen shows the same ones; this module only draws them. On a terminal, a ``rich`` progress bar (``rich``
comes with Textual: no extra dependency) with the line beside it; elsewhere (CI logs, pipes, tests) the same line at
most every few seconds, so a 1,000-app push leaves a readable log rather than 1,000 lines.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tenantdeck.sync.events import PushEvent
from tenantdeck.sync.progress import Clock, PushProgress
from tenantdeck.textsafe import shown


class ProgressReporter:
    """Feed it every event (:meth:`handle`); call :meth:`finish` once the push is over."""

    def __init__(self, total: int, *, stream: TextIO | None = None, interval: float | None = None,
                 label: str = "push", clock: Clock = time.monotonic) -> None:
        self.progress = PushProgress(total=total, clock=clock)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else 5.0
        self.label = label
        self._clock = clock
        self._last: float | None = None
        self._bar: Any = None
        self._task: Any = None
        if self.tty and total:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn

            console = Console(file=self.stream)
            # app names are data: the line is never read as markup (nor printed raw: it passes shown())
            # the line says done/total, rate, ETA and what runs (PushProgress.line): the bar adds only the bar
            self._bar = Progress(TextColumn(label, markup=False), BarColumn(bar_width=24),
                                 TextColumn("{task.fields[line]}", markup=False), console=console, transient=False)
            self._task = self._bar.add_task(label, total=total, line="")
            self._bar.start()

    def line(self) -> str:
        """``push: 12/40 done · 3.2 ops/s · ETA 9s · running: Acme: update widget``: the TUI's line, labelled."""
        return f"{self.label}: {self.progress.line()}"

    def handle(self, event: PushEvent) -> None:
        self.progress.feed(event)
        if event.kind == "started" and self._bar is not None:
            self._bar.update(self._task, line=shown(self.progress.line(width=1)))
        elif event.kind in ("applied", "failed", "not_attempted"):
            self._update(final=self.progress.done >= self.progress.total)
        elif event.kind == "retry_scheduled":
            self._print(f"{self.label}: retry in {event.delay:.1f}s" + (f": {event.op.resource}" if event.op else ""))
        elif event.kind == "stopped":
            self._print(f"{self.label}: {event.message}")

    def _update(self, *, final: bool) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.progress.done, line=shown(self.progress.line(width=1)))
            return
        now = self._clock()
        if final or self._last is None or now - self._last >= self.interval:
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
            self._bar.update(self._task, line=shown(self.progress.line()))
            self._bar.stop()
