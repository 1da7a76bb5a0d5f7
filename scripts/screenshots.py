"""Write SVG screenshots of every screen at 100x32 into ``screenshots/`` (``make screenshots``).

The same fixture drafts and scenes as the snapshot tests (``tests/tui/safety_fixtures.py``); the App screen's tabs
are enumerated from ``tenantdeck.tui.screens.app_screen.TABS``, so re-running the script pictures new or finished tabs.
Config and data directories are temporary: your own theme or keymap never shows up in the pictures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.tui import push_fixtures  # noqa: E402
from tests.tui.events_fixtures import scenes as events_scenes  # noqa: E402
from tests.tui.pilot import make_app  # noqa: E402
from tests.tui.safety_fixtures import env, leave_recovery, prepare  # noqa: E402
from tests.tui.safety_fixtures import scenes as safety_scenes  # noqa: E402


def scenes() -> dict[str, Any]:
    """Every scene: the safety fixtures' and the Events screen's (``tests/tui/events_fixtures.py``)."""
    return {**safety_scenes(), **events_scenes()}


async def shoot(name: str, out: Path, size: tuple[int, int]) -> Path:
    # beside the draft, as a user runs it: the title names the draft, not a temp path
    with tempfile.TemporaryDirectory(prefix="tenantdeck-shot-") as tmp, contextlib.chdir(tmp):
        os.environ.update(env(Path(tmp)))
        for var in push_fixtures.FAULTS:
            os.environ.pop(var, None)
        if name in push_fixtures.scenes():  # scenes that read the sandbox: their own draft and faults
            scene = push_fixtures.scenes()[name]
            os.environ.update(scene.env)
            draft, run_before = await asyncio.to_thread(scene.setup, Path(tmp)), scene.run_before
        else:
            draft_name, with_recovery, run_before = scenes()[name]
            draft = prepare(Path(tmp), draft_name)
            if with_recovery:
                leave_recovery(draft)
        app = make_app(draft)
        async with app.run_test(size=size) as pilot:
            await run_before(pilot)
            target = out / f"{name}.svg"
            target.write_text(app.export_screenshot(title=f"tenantdeck: {name}"), encoding="utf-8")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--size", default="100x32", help="WIDTHxHEIGHT (default 100x32)")
    parser.add_argument("names", nargs="*", help="only these scenes (default: all)")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    os.environ.pop("NO_COLOR", None)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or [*scenes(), *push_fixtures.scenes()]:
        print(asyncio.run(shoot(name, args.out, (width, height))).relative_to(ROOT))


if __name__ == "__main__":
    main()
