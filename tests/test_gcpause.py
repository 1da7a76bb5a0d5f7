"""The collector paused around bulk operations comes back as it was, however pauses nest or overlap in threads."""

from __future__ import annotations

import gc
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
