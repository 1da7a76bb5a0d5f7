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

:func:`keep_long_lived` is the other half: the editor's draft, once read and validated, lives as long as the editor,
yet every full collection walked it again. Opening a tab makes a few thousand widgets' worth of objects, enough to
set off a full collection now and then, which then walked the 1,000 apps too: that is why a tab's first showing
took longer with more apps (issue 36: 0.85 of the sidebar tab's 1.3 s of collection at 1,000 apps on a loaded
machine was the one full collection).

:func:`collect_rarely` and :func:`collect_if_due` are the third: the full collections that remain come when the user
is idle, not inside a key.
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


#: whether the objects frozen now are frozen by :func:`keep_long_lived`, for :func:`let_go_long_lived` to undo
_froze = False
#: whether the process froze objects itself before the first :func:`keep_long_lived` (None: not asked yet)
_host_froze: bool | None = None


def keep_long_lived() -> None:
    """Every object alive now is left out of all later collections (``gc.freeze``): called once the draft has been
    read and validated, so a full collection walks what the screens made since, not the whole draft again. Frozen
    objects are still freed by their reference count; only a reference cycle among them that becomes garbage later
    (none in the draft's data) stays in memory.

    A process that froze objects itself before (a test suite freezes what its collection imported; an embedding
    program) manages the collector: nothing is frozen here, so that :func:`let_go_long_lived` does not unfreeze what
    it froze (``gc.unfreeze`` has no "only mine": the suite's freeze was undone by the first editor that closed).
    That is asked once per process: ``gc.get_freeze_count`` walks every frozen object (27 ms after the suite's
    collection, at every one of its ~500 editors' starts); a host freezes before it starts an editor."""
    global _froze, _host_froze
    with _lock:
        if _host_froze is None:
            _host_froze = not _froze and gc.get_freeze_count() > 0
        if _host_froze:
            return
        gc.freeze()
        _froze = True


def let_go_long_lived() -> None:
    """Undo :func:`keep_long_lived` when the editor closes (``gc.unfreeze``): in a process that goes on (a test
    suite, an embedding program) the editor's screens and draft are then collected like any garbage."""
    global _froze
    with _lock:
        if _froze:
            gc.unfreeze()
            _froze = False


#: young (second-generation) collections before Python starts a full one by itself; its default is 10. With the
#: draft frozen (:func:`keep_long_lived`), Python's other condition (the objects new since the last full collection
#: are a quarter of what it kept) is met by nearly every tab or screen composed: one bench run of the editor at
#: 1,000 apps (``bench/tui_navigation.py``) made 77 full collections of 100-400 ms, 13.4 s in all, each landing
#: inside whatever key came next. At 100 the same run made 8 (3.4 s); the editor makes the rest while nobody
#: types (:func:`collect_if_due`).
RARE_FULL = 100


def collect_rarely() -> tuple[int, int, int]:
    """Full collections only after :data:`RARE_FULL` young ones; returns the thresholds to restore."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], max(before[2], RARE_FULL))
    return before


def restore_thresholds(thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(*thresholds)


def collect_if_due(young: int = 10) -> bool:
    """A full collection now, if Python's default would have made one by now (``young`` second-generation
    collections since the last full one) and no bulk operation has paused the collector: what an editor calls when
    its user is idle, so the pause falls between keys instead of in one. True when it collected."""
    with _lock:
        if _depth or not gc.isenabled() or gc.get_count()[2] < young:
            return False
    gc.collect()
    return True
