"""The editor's Problems list (F8) shows validate's warning of a comment holding a raw bidi character (trial K, K7),
escaped, and Enter on it says where it is instead of jumping into an app."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from tenantdeck.draft.raw_scalars import COMMENT_CODE
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tests.tui.hooks_fixtures import DRAFT, draft_path
from tests.tui.pilot import make_app, settle

__all__ = ["draft_path"]

RLO = "\u202e"


@pytest.fixture
def draft(draft_path: Path) -> Path:
    """The Webhooks tab's draft (tests/tui/hooks_fixtures.py), its first line a comment holding a raw RLO."""
    draft_path.write_text(f"# reviewed: {RLO}gnp.exe\n" + DRAFT, encoding="utf-8")
    return draft_path


def test_problems_lists_the_comment_warning_escaped(draft: Path) -> None:
    async def flow() -> None:
        app = make_app(draft)
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f8")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ProblemsScreen)
            codes = [p.code for p in screen._problems]
            assert COMMENT_CODE in codes, [p.render() for p in screen._problems]
            row = codes.index(COMMENT_CODE)
            assert (screen._problems[row].line, screen._problems[row].column) == (1, 13)
            screen.query_one(DataTable).move_cursor(row=row)
            await settle(pilot)
            detail = str(screen.query_one("#detail", Static).render())
            assert "line 1: warning: (file): this comment holds U+202E RIGHT-TO-LEFT OVERRIDE" in detail
            assert RLO not in detail
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ProblemsScreen)
            assert any("line 1: not inside an app" in str(n.message) for n in app._notifications)

    asyncio.run(flow())
