"""The collector paused around bulk operations comes back as it was, however pauses nest or overlap in threads."""

from __future__ import annotations

import gc
import json
import threading

from tenantdeck.gcpause import paused_gc


def test_nested_and_overlapping_pauses_enable_the_collector_once_at_the_end() -> None:
    assert gc.isenabled()
    inside = threading.Event()
    leave = threading.Event()

    def worker() -> None:
        with paused_gc():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=worker)
    with paused_gc():
        thread.start()
        assert inside.wait(10)
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the worker's pause still runs
    leave.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled_and_an_error_ends_the_pause() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    try:
        with paused_gc():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.isenabled()


def test_full_collections_are_put_off_and_made_when_due() -> None:
    """The editor's idle collection (tenantdeck.gcpause.collect_if_due): made only when Python's default would have
    made one by now, never inside a paused bulk operation, and the thresholds come back as they were."""
    from tenantdeck.gcpause import RARE_FULL, collect_if_due, collect_rarely, restore_thresholds

    before = gc.get_threshold()
    kept = collect_rarely()
    try:
        assert kept == before and gc.get_threshold()[2] == max(before[2], RARE_FULL)
        gc.collect()
        assert not collect_if_due()  # nothing young since
        young = before[0] * (before[1] + 1) * 12  # allocations enough for a dozen second-generation collections
        junk: list[object] = []
        for _ in range(young):
            junk.append([])
        assert gc.get_count()[2] >= 10
        with paused_gc():
            assert not collect_if_due()
        assert collect_if_due()
        assert gc.get_count()[2] == 0
    finally:
        restore_thresholds(kept)
    assert gc.get_threshold() == before


def test_a_host_s_freeze_is_left_to_the_host_and_asked_about_once() -> None:
    """In a fresh interpreter each: a host that froze objects keeps its freeze through any number of editors, and
    the frozen objects are counted once (``gc.get_freeze_count`` walks them all: 27 ms at every editor's start in
    the suite); a process that froze nothing has the editor's freeze undone as the editor closes."""
    import subprocess
    import sys

    code = """
import gc, json, sys
from tenantdeck import gcpause
asked = []
count = gc.get_freeze_count
gc.get_freeze_count = lambda: asked.append(1) or count()
if sys.argv[1] == "host":
    gc.freeze()
before = count()
for _ in range(3):  # three editors, one after the other
    gcpause.keep_long_lived()
    during = count()
    gcpause.let_go_long_lived()
print(json.dumps([before > 0, during > 0, count() == before, len(asked)]))
"""
    def run(who: str) -> list[object]:
        done = subprocess.run([sys.executable, "-c", code, who], capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    assert run("host") == [True, True, True, 1]
    assert run("none") == [False, True, True, 1]
