"""At 80x24 nothing a user needs is cut without a way to read it (issue 20, item 11): the problems list shows the
highlighted problem in full below the table."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tenantdeck.tui.problems_screen import ProblemsScreen
from tests.tui.safety_fixtures import env, make_app, settle

LONG_KEY_DRAFT = """\
format: 1
presets:
  support:
    name: Support
    style:
      primary_color: not-a-colour-at-all
apps:
  - name: Acme
    region: eu
    widgets:
      - extends: support
"""


def test_the_problems_list_shows_the_highlighted_problem_whole_at_80x24(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(LONG_KEY_DRAFT, encoding="utf-8")
    app = make_app(draft)

    async def go() -> tuple[str, str]:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f8")
            await settle(pilot)
            assert isinstance(app.screen, ProblemsScreen)
            problem = next(p for p in app.screen._problems if p.key_path.endswith("primary_color"))
            table = app.screen.query_one("DataTable")
            table.move_cursor(row=app.screen._problems.index(problem))
            await settle(pilot)
            return problem.message, str(app.screen.query_one("#detail").render())

    message, detail = asyncio.run(go())
    assert len(message) > 40  # longer than what the Problem column shows at 80 columns
    assert message in detail and "presets.support.style.primary_color" in detail
