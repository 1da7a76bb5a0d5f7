"""Benchmark: key press to re-validated, re-rendered screen in the editor, with a 1,000-app draft.

In process, with Textual's Pilot (``app.run_test``, headless, 100x30): app 500 of the draft is opened on its
Widget / Main tab, the ``send_gifs`` toggle is focused, and each round presses ``space`` on it. What is timed: from
just before the key is handed to Textual (``pilot.press``) to the first screen update written after the edit is in
the draft, i.e. the return of the first ``App._display`` call (the compositor has rendered the changed lines; a
real terminal would be written to here) once the session's version has moved. By then the edit has been spliced
into the text and the app re-validated (``DraftSession.set`` re-checks the edited app before it returns), and the
row shows the new value and its problems. Then, separately, ``F2`` after the toggle: press to the first screen
update once the draft is no longer dirty (the atomic save with fsync is inside). Between rounds the benchmark waits
for the workers (the Apps list's change states) and the screen to settle, so rounds do not overlap.

Baseline in the same run: the same press on a 10-app draft (what the editor costs regardless of the draft's size).

    .venv/bin/python bench/tui_latency.py [--apps 1000] [--rounds R]

Target (issue 10): toggle <= 16 ms at 1,000 apps (median). Exit 1 when missed.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import ROOT
from tui_startup import build_mixed_draft_text

sys.path.insert(0, str(ROOT / "src"))

TARGET = 0.016
SIZE = (100, 30)


async def measure(path: Path, index: int, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds of each toggle press and each save press, as described in the module docstring."""
    from textual.app import App

    from tenantdeck.tui.app import TenantdeckApp
    from tenantdeck.tui.tabs.widget_fields import FieldRow
    from tenantdeck.tui.tabs.widget_main import MainTab

    app = TenantdeckApp(path)
    shown: list[tuple[float, int, bool]] = []
    real_display = App._display

    def display(screen: Any, renderable: Any) -> None:
        real_display(app, screen, renderable)
        if renderable is not None:
            shown.append((time.perf_counter(), app.editor.session.version, app.editor.session.dirty))

    app._display = display  # type: ignore[method-assign]
    toggles: list[float] = []
    saves: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.open_app(index)
        await pilot.pause()
        await pilot.press("3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.screen.query_one(MainTab).query_one("#main-send_gifs", FieldRow).focus()
        await pilot.pause()
        key = f"apps[{index}].widgets[0].main.send_gifs"
        for _ in range(rounds):
            before = app.editor.session.version
            value = app.editor.get(key)
            shown.clear()
            start = time.perf_counter()
            await pilot.press("space")
            while not any(v != before for _, v, _ in shown):
                await asyncio.sleep(0)
            toggles.append(next(t for t, v, _ in shown if v != before) - start)
            assert app.editor.get(key) is (not value), "the toggle did not flip"
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown.clear()
            start = time.perf_counter()
            await pilot.press("f2")
            while not any(not dirty for _, _, dirty in shown):
                await asyncio.sleep(0)
            saves.append(next(t for t, _, dirty in shown if not dirty) - start)
            await app.workers.wait_for_complete()
            await pilot.pause()
    return toggles, saves


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["TENANTDECK_CONFIG_DIR"] = str(tmp / "config")
        os.environ["TENANTDECK_DATA_DIR"] = str(tmp / "data")
        small, big = tmp / "small.yaml", tmp / "big.yaml"
        small.write_text(build_mixed_draft_text(10), encoding="utf-8")
        big.write_text(build_mixed_draft_text(args.apps), encoding="utf-8")
        # app 6 / the middle app: a fully written-out widget (every third app), so the toggle is a plain set
        base_toggle, base_save = asyncio.run(measure(small, 6, args.rounds))
        toggle, save = asyncio.run(measure(big, (args.apps // 2) // 3 * 3, args.rounds))
    med, base = statistics.median(toggle), statistics.median(base_toggle)
    print(f"tui_latency {dt.date.today()} {platform.machine()} Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {args.rounds} rounds, {SIZE[0]}x{SIZE[1]} headless")
    print(f"  toggle (space on Main / send_gifs) -> re-validated, re-rendered: {args.apps} apps median "
          f"{med * 1000:.1f} ms (min {min(toggle) * 1000:.1f}, max {max(toggle) * 1000:.1f}); 10 apps "
          f"{base * 1000:.1f} ms; ratio {med / base:.2f}x; target {TARGET * 1000:.0f} ms: "
          f"{'ok' if med <= TARGET else 'MISSED'}")
    print(f"  save (F2) after it -> clean title on screen: {args.apps} apps median "
          f"{statistics.median(save) * 1000:.1f} ms (min {min(save) * 1000:.1f}); 10 apps "
          f"{statistics.median(base_save) * 1000:.1f} ms")
    sys.exit(0 if med <= TARGET else 1)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
