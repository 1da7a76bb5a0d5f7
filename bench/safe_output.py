"""Benchmark: what the terminal guard (tui/safe_output.py) costs per frame.

``bench/tui_latency.py`` runs headless, where Textual never turns the screen into terminal output, so it cannot see
the guard. This renders real frames instead: the editor at 100x30 on a 1,000-app draft, on app 498's Widget / Main
tab (the screen tui_latency edits), takes the compositor's full update (every line of the screen) and times turning
it into terminal text, each strip's render cache emptied first (a full repaint: every line new), with Textual's own
``Strip.render`` and with the guard, interleaved round by round. Also the same on a screen full of hostile strings
(every cell of the Apps list a name to clean), the guard's slow path.

    .venv/bin/python bench/safe_output.py [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
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

SIZE = (100, 30)


def time_frames(app: Any, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds per full frame with Textual's render and with the guard, ``rounds`` of each, interleaved."""
    from tenantdeck.tui import safe_output

    update = app.screen._compositor.render_update(full=True)
    strips = [strip for line in update.strips for strip in line]
    console = app.console
    plain: list[float] = []
    guarded: list[float] = []
    for _ in range(rounds):
        for render, out in ((safe_output._textual_render, plain), (safe_output._render, guarded)):
            for strip in strips:
                strip._render_cache = None
            start = time.perf_counter()
            for strip in strips:
                render(strip, console)
            out.append(time.perf_counter() - start)
    return plain, guarded


async def measure(path: Path, rounds: int, index: int | None) -> tuple[list[float], list[float]]:
    from tenantdeck.tui.app import TenantdeckApp

    app = TenantdeckApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if index is not None:
            app.open_app(index)
            await pilot.pause()
            await pilot.press("3")
            await app.workers.wait_for_complete()
        await pilot.pause()
        return time_frames(app, rounds)


def hostile_draft(apps: int) -> str:
    from tenantdeck.draft.emit import scalar

    name = "osc\x1b]52;c;U1RURVNU\x1b\\ \x1b[2J\u202egnp.exe\u2066x\u2069"
    rows = "".join(f"  - name: {scalar(f'{name} {n}')}\n    region: eu\n" for n in range(apps))
    return f"format: 1\napps:\n{rows}"


def report(label: str, plain: list[float], guarded: list[float]) -> None:
    p, g = statistics.median(plain), statistics.median(guarded)
    print(f"  {label}: Textual {p * 1e6:.0f} us/frame, guarded {g * 1e6:.0f} us/frame, "
          f"+{(g - p) * 1e6:.0f} us ({g / p:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=201)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["TENANTDECK_CONFIG_DIR"] = str(tmp / "config")
        os.environ["TENANTDECK_DATA_DIR"] = str(tmp / "data")
        big, evil = tmp / "big.yaml", tmp / "evil.yaml"
        big.write_text(build_mixed_draft_text(1000), encoding="utf-8")
        evil.write_text(hostile_draft(60), encoding="utf-8")
        main_tab = asyncio.run(measure(big, args.rounds, 498))
        apps_list = asyncio.run(measure(evil, args.rounds, None))
    print(f"safe_output {SIZE[0]}x{SIZE[1]}, {args.rounds} full frames each, median")
    report("Widget / Main tab, 1,000-app draft (nothing to clean)", *main_tab)
    report("Apps list of 60 hostile names (shown escaped, so nothing left to clean)", *apps_list)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
