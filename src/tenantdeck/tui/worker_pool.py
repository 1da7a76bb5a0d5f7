"""The thread pool the app's thread workers run in: each job in a context of its own.

Textual runs a thread worker with ``loop.run_in_executor`` and sets ``active_worker`` in the pool thread's own
context, which the thread keeps after the job. So each of the loop's pool threads held on to the last
:class:`~textual.worker.Worker` it ran, and through it the screen that started it, with every widget, line cache
and strip of that screen: a closed review, problems or App screen (all nine tabs composed) stayed alive, one per
pool thread (F6 then Escape, three times: three review screens alive after a full collection; none with this pool).
Every full collection walks what is alive: in ``bench/tui_navigation.py`` at 1,000 apps they grew from 17 to 350 ms
over three rounds while this and the help screen's hold were in place (issue 36). ``asyncio.to_thread`` runs a job
in a copy of the caller's context for the same reason.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class OwnContextPool(ThreadPoolExecutor):
    """A :class:`ThreadPoolExecutor` whose every job runs in a new, empty context (what a new thread starts with),
    so nothing a job sets in its context outlives the job."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(contextvars.Context().run, fn, *args, **kwargs)


#: the loops whose default executor is already an :class:`OwnContextPool`
_installed: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def install(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop``'s default executor (the one Textual's thread workers use) an :class:`OwnContextPool`, once per
    loop (a test runs several apps in one loop)."""
    if loop not in _installed:
        loop.set_default_executor(OwnContextPool(thread_name_prefix="tenantdeck-worker"))
        _installed.add(loop)
