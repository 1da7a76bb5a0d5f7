"""docs/tutorial.md, key by key, through the real app at 80x24 on the demo account (what `make run` opens): each
step's keys are pressed exactly as the tutorial says, and what the tutorial says the screen shows is checked.

If this test fails, the tutorial is wrong: fix the tutorial and this test together.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tenantdeck.sync.workspace.history import read_history
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.history_screen import HistoryScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tenantdeck.tui.tabs.webhook_form import WebhookForm
from tests.tui.pilot import settle

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


def tutorial_keys() -> list[str]:
    """Every key the tutorial tells the reader to press and every text it says to type, in order (its `Keys:`
    lines)."""
    keys: list[str] = []
    for line in TUTORIAL.read_text(encoding="utf-8").split("\n## 5.")[0].splitlines():  # part two: its own test
        if line.startswith("Keys: "):
            keys += re.findall(r"`([^`]+)`", line)
    return keys


#: key names the tutorial uses; anything else in a `Keys:` line is text to type
KEY_NAMES = frozenset({"enter", "space", "escape", "tab", "f2", "f6", "f7", "ctrl+q"})


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(*([key] if key in KEY_NAMES or len(key) == 1 else list(key)))
        await settle(pilot)


def screen_text(app: TenantdeckApp) -> str:
    return "\n".join(" ".join(str(c) for c in table.get_row(row)) for table in app.screen.query("DataTable")
                     for row in table.rows)


@pytest.mark.slow
def test_the_tutorial_is_what_the_app_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tenantdeck.cli.edit_cmd import _demo_draft

    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    draft = _demo_draft()
    original = draft.read_text(encoding="utf-8")
    assert tutorial_keys() == ["enter", "3", "space", "f2", "f6", "p", "y", "escape", "7", "a", "alerts", "tab",
                               "Alerts", "tab", "https://alerts.example/hook", "f2", "f2", "f6", "p", "y", "f7",
                               "escape", "ctrl+q"]

    async def go() -> None:
        app = TenantdeckApp(draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert "Acme Support" in screen_text(app) and "in sync" in screen_text(app)
            # 1. an app, its Main toggles, one flipped, saved
            await press(pilot, "enter")
            assert isinstance(app.screen, AppScreen)
            await press(pilot, "3")
            assert str(app.screen.query_one("TabbedContent").active) == "main"
            polls = "apps[0].widgets[0].main.allow_creating_polls"
            before = app.editor.get(polls)
            await press(pilot, "space")
            assert app.editor.get(polls) is (not before) and app.title.endswith("*")
            await press(pilot, "f2")
            saved = draft.read_text(encoding="utf-8")
            changed = [(a, b) for a, b in zip(original.splitlines(), saved.splitlines(), strict=True) if a != b]
            assert len(changed) == 1 and "allow_creating_polls" in changed[0][1]  # a one-line diff
            # 2. review and push it
            await press(pilot, "f6")
            assert isinstance(app.screen, ReviewScreen) and app.screen.plan is not None
            assert "Enable polls (main.allow_creating_polls)" in screen_text(app)
            # the fleet policies' verdict on the account after this push, before p
            assert "Policy warnings: profanity-filter-on (1 app)." in str(app.screen.query_one("#policy").render())
            await press(pilot, "p", "y")
            assert app.screen.last_result is not None and app.screen.last_result.complete  # type: ignore[attr-defined]
            # 3. a webhook
            await press(pilot, "escape", "7", "a")
            assert isinstance(app.screen, WebhookForm)
            await press(pilot, "alerts", "tab", "Alerts", "tab", "https://alerts.example/hook")
            await press(pilot, "f2")
            assert isinstance(app.screen, AppScreen) and "alerts" in screen_text(app)
            await press(pilot, "f2")
            assert "id: alerts" in draft.read_text(encoding="utf-8")
            await press(pilot, "f6")
            assert 'create webhook "Alerts" (alerts)' in screen_text(app)
            await press(pilot, "p", "y")
            assert app.screen.last_result is not None and app.screen.last_result.complete  # type: ignore[attr-defined]
            # 4. what was pushed, by whom
            await press(pilot, "f7")
            assert isinstance(app.screen, HistoryScreen)
            assert len(read_history(Workspace(draft).history_path)) == 2
            await press(pilot, "escape")
            await pilot.press("ctrl+q")

    asyncio.run(go())
