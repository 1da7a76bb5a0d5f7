"""Pilot flows of the Team tab: add, switch role, remove, each one undoable edit; a bad email refused before it is
written; an app whose draft leaves its team to the service starts managing it on ctrl+n."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable

from tenantdeck.tui.tabs.team_tab import TeamTab
from tests.tui.hooks_fixtures import draft_path, open_tab, type_text
from tests.tui.pilot import make_app, settle

__all__ = ["draft_path"]


def team(app: object) -> object:
    return app.editor.get("apps[0].team")  # type: ignore[attr-defined]


def test_add_switch_and_remove_are_edits_of_the_draft(draft_path: Path) -> None:
    text = draft_path.read_text(encoding="utf-8")
    bad = text.replace("moderators: [raj@acme.example]", "moderators: [raj@acme.example, not-an-email]")
    draft_path.write_text(bad, encoding="utf-8")

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "team")
            tab = app.screen.query_one(TeamTab)
            table = tab.query_one(DataTable)
            assert table.row_count == 3 and "1 problem" in str(table.get_row_at(2)[2])
            await pilot.press("a")
            await type_text(pilot, "kim@acme.example")
            await pilot.press("enter")
            await pilot.pause()
            assert team(app) == {"admins": ["zoe@acme.example", "kim@acme.example"],
                                 "moderators": ["raj@acme.example", "not-an-email"]}
            assert table.has_focus and str(table.get_row_at(table.cursor_row)[0]) == "kim@acme.example"
            await pilot.press("r")  # kim becomes a moderator
            await pilot.pause()
            assert team(app)["moderators"][-1] == "kim@acme.example"  # type: ignore[index]
            table.move_cursor(row=2)  # not-an-email
            await pilot.press("d")
            await pilot.pause()
            assert team(app) == {"admins": ["zoe@acme.example"], "moderators": ["raj@acme.example", "kim@acme.example"]}
            assert not app.editor.problems_at("apps[0].team")
            for _ in range(3):
                await pilot.press("ctrl+z")
            await pilot.pause()
            assert team(app) == {"admins": ["zoe@acme.example"],
                                 "moderators": ["raj@acme.example", "not-an-email"]}

    asyncio.run(flow())


def test_a_bad_or_known_email_is_not_written(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "team")
            before = app.editor.session.text
            for typed in ("nobody", "[b]evil[/b]@x.example", "ZOE@acme.example"):
                await pilot.press("m")
                await type_text(pilot, typed)
                await pilot.press("enter")
                await pilot.pause()
                assert app.editor.session.text == before
                await pilot.press("escape")  # closes the email field, back to the table
                await pilot.pause()
            notes = [n.message for n in app._notifications]
            assert any("must be an email address" in n for n in notes)
            assert any("already on the team" in n for n in notes)
            assert isinstance(app.screen.focused, DataTable)

    asyncio.run(flow())


def test_an_unmanaged_team_is_managed_on_ctrl_n(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "team", app_index=1)
            assert app.editor.get("apps[1].team", None) is None
            await pilot.press("a")  # nothing to add to yet
            await pilot.pause()
            assert app.editor.get("apps[1].team", None) is None
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert app.editor.get("apps[1].team") == {}

    asyncio.run(flow())


def test_the_services_owner_is_not_added_and_a_developer_is_a_role_change(draft_path: Path) -> None:
    """Trial J, J11: adding the service's developer (shown above the list) said "added as admin (a push invites
    them)" while the push changed the developer's role. The owner's role is the service's: refused in any letter
    case, nothing written. A developer may be made an admin (issue 34: a role change, planned as one): added, and
    said as the role change it is."""
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            service = [{"email": "ana@acme.example", "role": "developer"},
                       {"email": "own@acme.example", "role": "owner"}]
            app.editor.last_read = lambda app_id: {"service_team": service}  # type: ignore[method-assign]
            await open_tab(pilot, "team")
            before = app.editor.session.text
            await pilot.press("a")
            await type_text(pilot, "OWN@acme.example")
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.session.text == before
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("a")
            await type_text(pilot, "ANA@Acme.Example")
            await pilot.press("enter")
            await settle(pilot)
            assert "ANA@Acme.Example" in (app.editor.get("apps[0].team.admins", None) or []), app.editor.session.text
            notes = [n.message for n in app._notifications]
            assert any("OWN@acme.example is this app's owner on the service" in n for n in notes), notes
            assert any("ANA@Acme.Example added as admin: this app's developer on the service, a push changes their "
                       "role from developer to admin." in n for n in notes), notes

    asyncio.run(flow())
