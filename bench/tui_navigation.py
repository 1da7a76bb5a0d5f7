"""Benchmark: every navigation key of the editor, key to first screen update and key to settled, 10 and 1,000 apps.

In process, with Textual's Pilot (``app.run_test``, headless, 80x24), on the bench-shape drafts of
``bench/tui_startup.py`` (a third of the apps fully written out, the rest extending a preset), against the
``local`` profile's in-process sandbox in a temporary data directory. Two figures per key (issue 36):

- **first**: from just before the key is handed to Textual to the return of the first ``App._display`` call after it
  (the compositor has rendered a changed frame; a terminal would be written to here);
- **settled**: to the last ``App._display`` before the app's workers have finished and its message queue is drained
  (the screen stops changing): the worker wait and ``pilot.pause()`` are repeated until a round paints nothing new.

Each round opens a different app (so a tab's first showing is what is timed, not a tab already composed), shows
every tab ``2``-``9`` then ``1``, F1 and back, the palette and back, a palette jump to another app, Escape back to
the apps; then from the Apps screen F3, F5, F6, F7, F8, P, p (presets), b (bulk edit), each followed by Escape.
The figure is the median of the rounds (``--rounds``, 5). A bare Textual app's frame (a ``Static`` replaced on a
key, same pilot, same size) is measured in the same run: the ratio to it is what compares across loaded machines.

    .venv/bin/python bench/tui_navigation.py [--apps 10 1000] [--rounds 5] [--only app help f5 f6 b ...]

``--only`` runs part of a round: ``app`` (opening an app, its tabs, F1 and the palette there, the jump, Escape
back), ``help`` (F1 on the Apps screen) and the keys of the screens opened from the Apps screen (``f3 f5 f6 f7 f8
P p b``); the figures of the other keys are then left out.

The full (generation 2) garbage collections made during each size's run are counted and timed: one landing inside
a key's interval is part of that key's figure.

Targets (issue 36): first frame <= 50 ms; settled <= 150 ms at 10 apps, <= 200 ms at 1,000. Exit 1 when one is
missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import ROOT
from tui_startup import build_mixed_draft_text

sys.path.insert(0, str(ROOT / "src"))

SIZE = (80, 24)
FIRST_TARGET = 0.050
SETTLED_TARGET = {10: 0.150, 1000: 0.200}
TABS = ("style", "sidebar", "main", "preview", "extensions", "sms", "webhooks", "team", "settings")
#: the screens opened from the Apps screen, by their key, and the name printed
SCREEN_KEYS = (("f3", "F3 events"), ("f5", "F5 pull"), ("f6", "F6 review"), ("f7", "F7 history"),
               ("f8", "F8 problems"), ("P", "P policies"), ("p", "p presets"), ("b", "b bulk edit"))


class Frames:
    """Timestamps of the frames an app writes (``App._display`` calls with something to show)."""

    def __init__(self, app: Any) -> None:
        from textual.app import App

        self.times: list[float] = []
        real = App._display

        def display(screen: Any, renderable: Any) -> None:
            real(app, screen, renderable)
            if renderable is not None:
                self.times.append(time.perf_counter())

        app._display = display


async def settle(pilot: Any) -> None:
    """Workers done and the queue drained, until a round paints nothing new."""
    from textual.worker import WorkerCancelled

    frames: Frames = pilot.app._bench_frames
    for _ in range(50):
        before = len(frames.times)
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        if len(frames.times) == before:
            return


async def timed(pilot: Any, act: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """(first, settled) seconds of ``act`` (a key press), as in the module docstring."""
    frames: Frames = pilot.app._bench_frames
    await settle(pilot)
    frames.times.clear()
    start = time.perf_counter()
    await act()
    while not frames.times:
        await asyncio.sleep(0)
    await settle(pilot)
    return frames.times[0] - start, frames.times[-1] - start


def _press(pilot: Any, *keys: str) -> Callable[[], Awaitable[Any]]:
    return lambda: pilot.press(*keys)


async def _select_row(pilot: Any, index: int) -> None:
    from textual.widgets import DataTable

    table = pilot.app.screen.query_one(DataTable)
    table.focus()
    table.move_cursor(row=index)
    await settle(pilot)


async def one_round(pilot: Any, index: int, other: str, out: dict[str, list[tuple[float, float]]],
                    only: set[str] | None = None) -> None:
    """One round of every transition (see the module docstring), on app ``index``; ``other`` is another app's name
    for the palette jump; ``only``: the parts to run (``--only``), None for all."""
    from tenantdeck.tui.screens.app_screen import AppScreen
    from tenantdeck.tui.screens.apps_screen import AppsScreen

    def record(name: str, figures: tuple[float, float]) -> None:
        out.setdefault(name, []).append(figures)

    await _select_row(pilot, index)
    if only is None or "app" in only:
        record("Enter: open an app", await timed(pilot, _press(pilot, "enter")))
        assert isinstance(pilot.app.screen, AppScreen), pilot.app.screen
        for digit in (*range(2, 10), 1):
            record(f"{digit}: tab {TABS[digit - 1]}", await timed(pilot, _press(pilot, str(digit))))
        record("F1 help (App screen)", await timed(pilot, _press(pilot, "f1")))
        record("Escape: close help", await timed(pilot, _press(pilot, "escape")))
        record("ctrl+p palette", await timed(pilot, _press(pilot, "ctrl+p")))
        await pilot.press(*other)
        await settle(pilot)
        record("palette jump (Enter on an app)", await timed(pilot, _press(pilot, "enter")))
        assert isinstance(pilot.app.screen, AppScreen), pilot.app.screen
        record("Escape: back to the apps", await timed(pilot, _press(pilot, "escape")))
        assert isinstance(pilot.app.screen, AppsScreen), pilot.app.screen
    if only is None or "help" in only:
        record("F1 help (Apps screen)", await timed(pilot, _press(pilot, "f1")))
        await pilot.press("escape")
        await settle(pilot)
    for key, name in SCREEN_KEYS:
        if only is not None and key not in only:
            continue
        record(name, await timed(pilot, _press(pilot, key)))
        record(f"Escape from {name.split()[0]}", await timed(pilot, _press(pilot, "escape")))
        while not isinstance(pilot.app.screen, AppsScreen):  # a screen that took Escape for itself
            await pilot.press("escape")
            await settle(pilot)


async def measure(path: Path, apps: int, rounds: int,
                  only: set[str] | None = None) -> dict[str, list[tuple[float, float]]]:
    from tenantdeck.tui.app import TenantdeckApp
    from tenantdeck.tui.safety import SafetyNet

    SafetyNet.TIMERS = False
    out: dict[str, list[tuple[float, float]]] = {}
    app = TenantdeckApp(path)
    app._bench_frames = Frames(app)  # type: ignore[attr-defined]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for r in range(rounds):
            index = (apps // 2 + r) if apps > 10 else r + 1
            other = f"Tenant {(index + 3) % apps:05d}"
            await one_round(pilot, index, other, out, only)
    return out


async def bare(rounds: int) -> list[tuple[float, float]]:
    """A bare Textual app: a key replaces a Static's text; the floor of any key's frame on this machine."""
    from textual.app import App
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> Any:
            yield Static("Hello", id="s")

        def on_key(self) -> None:
            self.query_one(Static).update(f"{time.perf_counter()}")

    app = Bare()
    app._bench_frames = Frames(app)  # type: ignore[attr-defined]
    out = []
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(rounds * 4):
            out.append(await timed(pilot, _press(pilot, "x")))
    return out


class FullCollections:
    """Durations of the garbage collector's full (generation 2) collections while installed: each one stops the
    app, and one landing inside a key's interval is part of that key's figure."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.durations.append(time.perf_counter() - self._start)

    def line(self) -> str:
        d = self.durations
        return (f"{len(d)} full collections, {sum(d) * 1000:.0f} ms in all, the longest "
                f"{max(d, default=0) * 1000:.0f} ms")


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:6.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--apps", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=["app", "help", *(key for key, _ in SCREEN_KEYS)],
                        help="run these parts of a round only (see the module docstring)")
    args = parser.parse_args()
    results: dict[int, dict[str, list[tuple[float, float]]]] = {}
    collections: dict[int, FullCollections] = {}
    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["TENANTDECK_CONFIG_DIR"] = str(tmp / "config")
        os.environ["TENANTDECK_DATA_DIR"] = str(tmp / "data")
        os.environ["TENANTDECK_CACHE_DIR"] = str(tmp / "data" / "cache")
        floor = asyncio.run(bare(args.rounds))
        for n in args.apps:
            folder = tmp / f"d{n}"
            folder.mkdir()
            path = folder / "tenantdeck.yaml"
            path.write_text(build_mixed_draft_text(n), encoding="utf-8")
            collections[n] = FullCollections()
            gc.callbacks.append(collections[n])
            try:
                results[n] = asyncio.run(measure(path, n, args.rounds, set(args.only) if args.only else None))
            finally:
                gc.callbacks.remove(collections[n])
    base = statistics.median(f for f, _ in floor)
    print(f"tui_navigation {dt.date.today()} {platform.machine()} Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {args.rounds} rounds, {SIZE[0]}x{SIZE[1]} headless, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    print(f"  bare Textual app, a key's frame: first {base * 1000:.1f} ms (the ratios below are over it)")
    missed = []
    header = "  {:<34}".format("key") + "".join(f"| {n} apps: first / settled (ms), first x bare " for n in args.apps)
    print(header)
    for name in results[args.apps[0]]:
        cells = []
        for n in args.apps:
            runs = results[n].get(name, [])
            if not runs:
                cells.append("| -")
                continue
            first, settled = [f for f, _ in runs], [s for _, s in runs]
            target = SETTLED_TARGET.get(n, SETTLED_TARGET[1000])
            ok = statistics.median(first) <= FIRST_TARGET and statistics.median(settled) <= target
            if not ok:
                missed.append(f"{name} at {n}")
            cells.append(f"| {_ms(first)} / {_ms(settled)} {'ok ' if ok else 'OVER'} "
                         f"({statistics.median(first) / base:5.1f}x)")
        print(f"  {name:<34}" + " ".join(cells))
    print(f"  targets: first <= {FIRST_TARGET * 1000:.0f} ms; settled <= "
          + ", ".join(f"{v * 1000:.0f} ms at {k} apps" for k, v in SETTLED_TARGET.items()))
    for n in args.apps:
        print(f"  {n} apps: {collections[n].line()} during the run")
    print(f"  missed: {len(missed)}" + (f" ({'; '.join(missed)})" if missed else ""))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
