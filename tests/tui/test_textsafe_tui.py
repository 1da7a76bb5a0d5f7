"""Issue 19, item 8 in the editor: an app, a delivery or a notice carrying terminal escapes and markup is drawn
escaped and literal. Checked on what the screen really paints (the compositor's strips), not on widget state."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tenantdeck.textsafe import fitted
from tenantdeck.tui.event_lab import EventLab
from tenantdeck.tui.screens.apps_screen import NAME_WIDTH
from tenantdeck.tui.screens.events_screen import EventsScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.test_textsafe import EVIL, EVIL_SHOWN, assert_safe
from tests.tui.pilot import make_app, painted, settle
from tests.tui.safety_fixtures import env

#: the same name as tests/test_textsafe.EVIL, written the way a YAML draft holds it
DRAFT = 'format: 1\napps:\n  - name: "Evil\\e]52;c;ZXZpbA==\\a\\e[2J\\u202e[bold]x"\n    region: eu\n'


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    path = tmp_path / "evil.yaml"
    path.write_text(DRAFT)
    return path


def test_apps_and_review_screens_draw_a_hostile_name_escaped_with_its_markup_literal(draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await settle(pilot)
            screen = painted(pilot)
            assert_safe(screen)
            # cut to the Name column with an ellipsis (the review below shows it whole), escaped, never applied
            assert fitted(EVIL_SHOWN, NAME_WIDTH) in screen, screen
            await pilot.press("f6")
            for _ in range(50):
                await settle(pilot)
                if isinstance(app.screen, ReviewScreen) and app.screen.plan is not None:
                    break
            assert isinstance(app.screen, ReviewScreen) and app.screen.plan is not None
            review = painted(pilot)  # the plan: create app "<the name>"
            assert_safe(review)
            assert EVIL_SHOWN in review, review
            app.notify(f"App {EVIL!s} added", title=EVIL)
            await pilot.pause()
            noticed = painted(pilot)
            assert_safe(noticed)
            assert "App Evil\\x1b]52" in noticed and "[bold]x added" in noticed, noticed

    asyncio.run(flow())


def test_events_table_and_payload_tree_draw_a_hostile_delivery_escaped(draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        lab = EventLab(0)  # a free loopback port
        async with app.run_test(size=(120, 32), notifications=True) as pilot:
            app.event_lab = lab
            await settle(pilot)
            await pilot.press("f3")
            await pilot.pause()
            assert isinstance(app.screen, EventsScreen) and lab.running
            body = {"trigger": f"[bold]{EVIL}", f"key{EVIL}": f"value{EVIL}", "data": {"n": "\u2066x"}}
            async with httpx.AsyncClient(base_url=lab.receiver.url) as client:
                answer = await client.post("/hooks/%1B%5B2J%E2%80%AE[b]x", json=body)
                assert answer.status_code == 200
            for _ in range(400):
                if lab.receiver.deliveries:
                    break
                await asyncio.sleep(0.005)
            await pilot.pause()
            app.screen.refresh_rows()  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.pause()
            screen = painted(pilot)
            assert_safe(screen)
            assert "/hooks/\\x1b[2J\\u202e[b]x" in screen, screen
            assert f"key{EVIL_SHOWN}" in screen and "[bold]Evil\\x1b]52" in screen, screen
        assert not lab.running

    asyncio.run(flow())
