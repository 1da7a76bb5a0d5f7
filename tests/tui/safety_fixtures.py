"""Fixtures of the safety engineer's tests, shared with ``scripts/screenshots.py``: the fixture drafts, an isolated
config, a recovery file with fixed provenance, and the "scenes" (how to reach each screen) both take pictures of.

Deterministic: no clocks (the safety timers are off; tests call ``checkpoint``/``check_disk``), no sleeps.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tenantdeck.draft import recovery
from tenantdeck.tui.app import TenantdeckApp
from tests.tui.pilot import settle

DRAFTS = Path(__file__).parent / "drafts"
DEMO = "safety-demo"  # the sandbox's seeded account, pulled (3 apps, a widget, webhooks, SMS)
PROBLEMS = "safety-problems"  # the same with a bad colour and an unknown region


def prepare(tmp: Path, draft: str = DEMO) -> Path:
    """A copy of a fixture draft in ``tmp`` (tests never write into the repository)."""
    target = tmp / f"{draft}.yaml"
    shutil.copyfile(DRAFTS / f"{draft}.yaml", target)
    rules = DRAFTS / f"{draft}.policies.yaml"  # its fleet policies, when the fixture has some
    if rules.exists():
        shutil.copyfile(rules, tmp / rules.name)
    return target


def env(tmp: Path) -> dict[str, str]:
    return {"TENANTDECK_CONFIG_DIR": str(tmp / "config"), "TENANTDECK_DATA_DIR": str(tmp / "data")}


def recovered_edit(text: str) -> str:
    """What the "earlier session" had typed: Globex renamed and moved to the US."""
    return text.replace("name: Globex Community", "name: Globex Support").replace("region: eu", "region: us")


def leave_recovery(draft: Path) -> Path:
    """A recovery file as a crashed session leaves it, with fixed time, process and host (for pictures)."""
    base = draft.read_text()
    path = recovery.recovery_path(draft)
    recovery.write(path, recovery.render(draft, recovered_edit(base), base, written="2026-11-20 17:42:09",
                                         pid=4242, host="build-host"))
    return path


def open_tab(tab: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def scene(pilot: Pilot[None]) -> None:
        await settle(pilot)
        pilot.app.open_app(0, tab)  # type: ignore[attr-defined]
        await settle(pilot)

    return scene


def press(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def scene(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)

    return scene


def scenes() -> dict[str, tuple[str, bool, Callable[[Pilot[None]], Awaitable[None]]]]:
    """name -> (draft, leave a recovery file first, how to get there). The App tabs come from ``TABS``, so new
    tabs are pictured by re-running the script."""
    from tenantdeck.tui.screens.app_screen import TABS

    found: dict[str, tuple[str, bool, Callable[[Pilot[None]], Awaitable[None]]]] = {
        "apps": (DEMO, False, settle),
    }
    for tab_id, _title, _module, _cls in TABS:
        found[f"app-{tab_id}"] = (DEMO, False, open_tab(tab_id))
    found["problems"] = (PROBLEMS, False, press("f8"))
    found["help"] = (DEMO, False, press("f1"))
    found["review"] = (DEMO, False, press("delete", "y", "f6"))  # an app removed: the plan (offline) shows it
    found["history"] = (DEMO, False, press("f7"))
    found["palette"] = (DEMO, False, press("ctrl+p", *"globex"))
    found["restore"] = (DEMO, True, settle)
    found["quit-confirm"] = (DEMO, False, press("delete", "y", "ctrl+q"))
    from tests.tui import ext_settings_fixtures, fleet_fixtures, policies_fixtures

    found.update(fleet_fixtures.scenes())
    found.update(policies_fixtures.scenes())
    found.update(ext_settings_fixtures.scenes())
    return found


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test module that imports this runs every test with its own config, data and cache (:func:`env`)."""
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NO_COLOR", raising=False)


def run(app: TenantdeckApp, body: Callable[..., Awaitable[None]], size: tuple[int, int] = (80, 24)) -> None:
    """``body(pilot)`` on ``app`` once it has settled, notifications on."""
    async def main() -> None:
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            await body(pilot)

    asyncio.run(main())


def notices(app: TenantdeckApp) -> str:
    return "\n".join(n.message for n in app._notifications)
