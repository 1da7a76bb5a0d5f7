"""The cyclic garbage collector paused around a bulk operation (foundation layer).

A bulk edit of one toggle on 5,000 apps leaves some 140,000 new container objects behind (each app's new models,
the undo step, the change states' canonical parts), none of them in a reference cycle. With the collector running
they set off about 180 young collections, and every edit or two a full one that walks every object the session
holds (830,000 at 5,000 apps with every kind: 0.48 s of a bulk edit's 1.9 s). Paused, they are walked once, by
the first young collection after the operation, and the full ones come at the pace of ordinary use again. Nothing
is kept from the collector: objects freed by their reference count are freed as ever, and a cycle made meanwhile
is collected later.

Pauses nest and may overlap across threads (the editor's change states are computed in a worker): the collector
is enabled again when the last one ends, and only if it was enabled when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection inside the block (reference counting frees as ever)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
