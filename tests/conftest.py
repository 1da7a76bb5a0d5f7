"""Suite-wide settings.

Hypothesis explores randomly on developers' machines (that is how it found ``5e-324`` and ``\\x85`` breaking a
save/load round trip, and a page number overflowing SQLite). In CI (``CI`` set) it runs derandomized with no
example database, so a run is reproducible and a green CI cannot turn red on a newly drawn example.

``TENANTDECK_HYPOTHESIS=long`` (a nightly job, or before a release) explores ten times as far: 1,000 examples for
every property that does not choose its own count (the ones that do keep theirs; the service-state invariant has
``TENANTDECK_INVARIANT_EXAMPLES``). The default stays hypothesis's 100: the properties are about 1% of the suite's
time (docs/benchmarks.md, "The suite"), so fewer examples would buy little and check less.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests import textual_harness

# caches (parse cache, theme verdicts) of tests that do not choose their own: never the user's ~/.cache, and gone
# when the process ends (a run left one folder per worker in the temp folder)
if "TENANTDECK_CACHE_DIR" not in os.environ:
    os.environ["TENANTDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tenantdeck-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TENANTDECK_CACHE_DIR"], ignore_errors=True)

# what every editor a test starts would redo or wait for in vain: tests/textual_harness.py
textual_harness.install()


settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile("long" if os.environ.get("TENANTDECK_HYPOTHESIS") == "long" else "ci" if os.environ.get("CI")
                      else "dev")


def pytest_configure(config: pytest.Config) -> None:
    """Before xdist starts its workers, write pytest's cache of rewritten test modules, in parallel, once.

    Every worker collects the whole suite, and pytest rewrites the asserts of each test module it imports (~8 s of
    CPU for this suite) unless its cache (``__pycache__/*-pytest-*.pyc``) is fresh. In a fresh clone it is not, and
    the workers start together, so each of the 4 rewrote every module: 32 s of CPU before the first test on a
    2-core machine. Rewritten here once, across the cores, the workers read the cache. Where pytest's internals
    differ from what this expects, it does nothing and the workers rewrite as before (only slower).
    """
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # an xdist worker, or a run without workers
    if sys.dont_write_bytecode or config.getoption("assertmode") != "rewrite":
        return  # pytest would not read (or write) the cache either
    try:
        import multiprocessing

        from _pytest.assertion import rewrite
        stale = [path for path in _test_modules(Path(__file__).parent)
                 if rewrite._read_pyc(path, _cached(path, rewrite)) is None]
        context = multiprocessing.get_context("fork")
    except (ImportError, AttributeError, ValueError):
        return
    if len(stale) < 8:
        return  # not worth the processes
    with context.Pool(os.cpu_count() or 1) as pool:
        for _ in pool.imap_unordered(_rewrite, sorted(stale, key=lambda p: -p.stat().st_size)):
            pass


def _test_modules(root: Path) -> list[Path]:
    return [path for path in root.rglob("*.py")
            if "__pycache__" not in path.parts and (path.name.startswith("test_") or path.name == "conftest.py")]


def _cached(path: Path, rewrite: object) -> Path:
    """Where pytest keeps ``path`` rewritten (``AssertionRewritingHook.exec_module``'s name for it)."""
    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)  # type: ignore[attr-defined]


def _rewrite(path: Path) -> None:
    """Rewrite one module as pytest's import hook does (no assertion-pass hook: this suite sets none) and write its
    cache atomically, as the hook does (a worker reading it sees the old file or the whole new one)."""
    from _pytest.assertion import rewrite

    stat, code = rewrite._rewrite_test(path, None)  # type: ignore[arg-type]
    target = _cached(path, rewrite)
    target.parent.mkdir(exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}")
    with open(partial, "wb") as out:
        rewrite._write_pyc_fp(out, stat, code)
    os.replace(partial, target)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (every module, test function, parametrization and schema) out of the garbage
    collector's full passes (``gc.freeze``): it lives as long as the worker, yet each of the run's several hundred full
    collections walked it again, 90,000 objects of each pass's ~140,000 between two Textual tests. The editor then
    leaves the collector to the suite (``tenantdeck.gcpause.keep_long_lived``). Garbage is collected first, so none
    of it is frozen."""
    import gc

    gc.collect()
    gc.freeze()


#: tests between two collections that walk the frozen objects too (:func:`pytest_runtest_protocol`)
REVIEW_FROZEN_EVERY = 200
_tests_run = 0


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After each test (its teardown included): collect its garbage, then freeze what survived (``gc.freeze``).

    A Textual test leaves its closed editor behind as cyclic garbage (every widget points to its parent and its app),
    which only a full collection frees. Left to Python's thresholds, those full collections came inside the next
    tests and walked every object made since the worker's collection: 63 of them in five TUI files in one process,
    ~5 s of their ~43 s of CPU. Collected here, each pass walks one test's objects, since those of the tests before
    are frozen. Five TUI files in one process: 7-10% less user CPU in three alternated runs (36.9/33.0/36.6 s
    against 41.2/35.8/39.1 s), the same peak memory (133 MB). The whole suite as ``make test`` runs it, alternated
    twice: 435 and 441 s of CPU against 457 and 484 s, 244 and 247 s of wall time against 249 and 264 s, peak
    memory of the largest worker 330-349 MB against 337-364 MB.

    A frozen object that becomes cyclic garbage later (a module-scoped fixture torn down) is never collected while
    frozen, so every :data:`REVIEW_FROZEN_EVERY` tests the collection walks everything (``gc.unfreeze`` first), as
    the one after collection did. Each such walk costs ~235 ms (350,000 objects) and finds little: every 50 tests,
    52 walks in a run, 12.6 s of CPU, a median of 150 objects freed (52,000 at most), the largest worker's peak
    362 MB; every 200 tests, 12 walks, 3.0 s, peak 354 MB."""
    import gc

    global _tests_run
    yield
    _tests_run += 1
    if _tests_run % REVIEW_FROZEN_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (more than ~8 s of wall time) run first, in pytest-randomly's order among themselves,
    then the rest in theirs.

    xdist hands tests out in this order, a few to each worker in turn, so the long ones start on different workers at
    the beginning instead of wherever the shuffle put them: the hostile-strings walk (~60 s) drawn last kept one
    worker busy 17 s after the others had finished (a fresh-clone run at 4 min 20 s). Every worker sorts the same
    shuffled list the same way, as xdist requires.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Move everything alive at the end of the run out of the garbage collector's reach (``gc.freeze``).

    After the last hook, pytest collects garbage five times over (to report exceptions raised in finalizers), then
    the interpreter once more as it exits: each a full pass over a worker's whole heap (every module, model and
    cache a worker built in four minutes). Measured from a fresh clone, the last worker's last test to the end of the
    run took 9 s; with this, 0.5 s. Objects left alive then are not finalized one by one at exit, which changes
    nothing a test checks (every test's own fixtures have been torn down before this hook).
    """
    import gc

    gc.freeze()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The order's seed at the end of every run, ``-q`` or not: pytest-randomly says it only in the header, which
    the quiet mode this project runs in (``addopts = -q``) leaves out, and a failing order is replayed with it."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int) and config.pluginmanager.hasplugin("randomly"):
        terminalreporter.write_line(f"Test order: pytest-randomly seed {seed}; --randomly-seed={seed} replays it")
