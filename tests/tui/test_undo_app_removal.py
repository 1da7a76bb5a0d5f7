"""Undoing an app's removal from the Apps list (trial J16): the app comes back whole, not only in the draft's data.

The removal and its undo go through the real keys on a draft pulled from the in-process sandbox; afterwards the
Change column, the review's plan (F6, and `r` on it) and the Problems screen (F8) must read the draft as they did
before the removal, not as "unknown" and "The draft has errors" while F8 says there are none."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import make_app, settle
from tests.tui.review_fixtures import pulled_draft

NAME = "Initech Field Chat"


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return pulled_draft(tmp_path, monkeypatch)


def apps_rows(screen: Any) -> dict[str, list[str]]:
    table = screen.query_one("#apps", DataTable)
    rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
    return {row[1]: row for row in rows}


@pytest.mark.parametrize("save", [False, True], ids=["unsaved", "saved-between"])
def test_undoing_an_app_removal_restores_its_change_state_and_the_review(draft: Path, save: bool) -> None:
    asyncio.run(_remove_and_undo(draft, save))


async def _remove_and_undo(draft: Path, save: bool) -> None:
    app = make_app(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        apps = app.screen
        assert isinstance(apps, AppsScreen)
        before = apps_rows(apps)
        assert before[NAME][6] == "in sync"
        assert list(before).index(NAME) == 2  # the trial's keys: Down Down reaches it

        await pilot.press("down", "down", "delete")
        await settle(pilot)
        await pilot.press("y")  # Remove
        await settle(pilot, 5)
        assert NAME not in apps_rows(apps)
        if save:
            await pilot.press("f2")
            await settle(pilot, 5)
        await pilot.press("ctrl+z")
        await settle(pilot, 5)

        after = apps_rows(apps)
        assert after[NAME] == before[NAME], "the Change column reads the restored app as it did before"
        assert list(after) == list(before)

        await pilot.press("f6")
        await settle(pilot, 5)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        status = str(review.query_one("#status").render())
        assert "has errors" not in status, status
        assert review.plan is not None and review.plan.operations == []
        review.plan = None
        await pilot.press("r")  # planned again: the same
        await settle(pilot, 5)
        status = str(review.query_one("#status").render())
        assert "has errors" not in status, status
        assert review.plan is not None and review.plan.operations == []

        await pilot.press("f8")
        await settle(pilot, 5)
        problems = app.screen
        assert isinstance(problems, ProblemsScreen)
        assert str(problems.query_one("#summary").render()).startswith("No problems")
        assert app.editor.session.load_result().draft is not None  # what the plan reads: the whole draft
