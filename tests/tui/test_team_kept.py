"""Issue 34, item 3 of the trial: team members pull kept as the service holds them (an email our model refuses, a
case duplicate) are listed on the Team tab, read-only and escaped, after the draft's own; before, the tab showed
only the draft's members and nothing said others existed. The draft is pulled from the in-process sandbox (the
``local`` profile) holding those members behind its API's back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.tabs.team_tab import TeamTab
from tests.sync.service_states import hold_collaborator
from tests.tui.hooks_fixtures import open_tab
from tests.tui.pilot import make_app, settle

KEPT = "kept as the service holds it (read-only)"
HOSTILE = "eve\x1b]52;c;ZXZpbA==\x07@localhost"


@pytest.fixture
def pulled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    target = local_target()
    sandbox = target.transport.app  # type: ignore[attr-defined]
    acme = next(a for a in sandbox.state.store.list_apps(None, 100, 0)[0] if a["name"] == "Acme Support")
    hold_collaborator(sandbox, acme["id"], "Raj@acme.example", "admin")  # after the seed's raj@acme.example
    hold_collaborator(sandbox, acme["id"], HOSTILE, "moderator")
    path = tmp_path / "tenantdeck.yaml"
    result = pull_target(local_target(), path)
    kept = [n for n in result.notes if "team: kept as the service holds them" in n]
    assert len(kept) == 1 and "Raj@acme.example" in kept[0] and "raj@acme.example" not in kept[0]
    return path


async def acme_team(pilot: Any) -> tuple[TeamTab, DataTable[Any]]:
    """Acme Support's Team tab, opened as a user would: the tab and its table."""
    app = pilot.app
    index = next(i for i, a in enumerate(app.editor.get("apps")) if a["name"] == "Acme Support")
    await open_tab(pilot, "team", app_index=index)
    await settle(pilot)
    tab = app.screen.query_one(TeamTab)
    return tab, tab.query_one(DataTable)


def test_members_kept_verbatim_are_listed_read_only(pulled: Path) -> None:
    async def flow() -> None:
        app = make_app(pulled)
        async with app.run_test(size=(120, 40)) as pilot:
            tab, table = await acme_team(pilot)
            rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            assert rows[0][:2] == ["raj@acme.example", "moderator"]  # the original stays the draft's
            assert ["Raj@acme.example", "admin", KEPT] in rows
            assert ["eve\\x1b]52;c;ZXZpbA==\\x07@localhost", "moderator", KEPT] in rows
            status = str(tab.query_one("#team-status", Static).render())
            assert "2 more kept as the service holds them" in status
            table.move_cursor(row=len(rows) - 1)
            await pilot.pause()
            detail = str(tab.query_one("#team-detail", Static).render())
            assert KEPT in detail and "\x1b" not in detail and "change it in the dashboard" in detail
            assert not tab.check_action("remove", ()) and not tab.check_action("switch", ())
            before = app.editor.session.text
            await pilot.press("d", "r")
            await pilot.pause()
            assert app.editor.session.text == before

    asyncio.run(flow())


def test_at_80_columns_a_kept_row_is_cut_with_an_ellipsis_and_offers_no_edit_key(pulled: Path) -> None:
    """A second trial: the Problems cell read `kept as the service holds it (read-` at 80 columns, and the footer
    went on offering d and r on a kept row, where they do nothing."""
    from tenantdeck.tui.widgets.footer import KeyFooter

    async def flow() -> None:
        app = make_app(pulled)
        async with app.run_test(size=(80, 24)) as pilot:
            _, table = await acme_team(pilot)
            table.focus()
            cells = [str(table.get_row_at(i)[2]) for i in range(table.row_count)]
            kept = [c for c in cells if c.startswith("kept")]
            assert kept and all(c == KEPT or (c.endswith("…") and KEPT.startswith(c[:-1])) for c in kept), cells

            def footer() -> str:
                return app.screen.query_one(KeyFooter).text

            table.move_cursor(row=0)  # the draft's own member
            await settle(pilot)
            assert "Remove" in footer(), footer()
            table.move_cursor(row=table.row_count - 1)  # a kept one
            await settle(pilot)
            assert "Remove" not in footer(), footer()

    asyncio.run(flow())
