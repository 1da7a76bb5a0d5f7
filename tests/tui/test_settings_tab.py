"""Pilot flows of the Settings tab: a boolean flipped with Space or Enter (one undoable edit), a list value shown
but never changed, a key no longer managed, an unmanaged app's settings managed on ctrl+n."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable

from tenantdeck.tui.tabs.settings_tab import SettingsTab
from tests.tui.hooks_fixtures import draft_path, open_tab
from tests.tui.pilot import make_app

__all__ = ["draft_path"]

def test_space_flips_a_boolean_and_a_list_is_left_alone(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)  # Acme has two settings, one of them a list
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "settings")
            tab = app.screen.query_one(SettingsTab)
            table = tab.query_one(DataTable)
            table.focus()
            await pilot.pause()
            assert table.row_count == 2 and "(service's)" in str(table.get_row_at(1)[1])
            await pilot.press("space")
            await pilot.pause()
            assert app.editor.get(("apps", 0, "settings", "core.conversations.updateOnReplies")) is True
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.get(("apps", 0, "settings", "core.conversations.updateOnReplies")) is False
            text = app.editor.session.text
            table.move_cursor(row=1)
            await pilot.press("space")  # a list: the service's
            await pilot.pause()
            assert app.editor.session.text == text
            await pilot.press("d")
            await pilot.pause()
            assert "core.notifications.push.advanced.included" not in app.editor.get("apps[0].settings")
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert app.editor.session.text == text

    asyncio.run(flow())


def test_enter_flips_a_setting_as_it_flips_a_main_toggle_and_the_readme_says_so(draft_path: Path) -> None:
    """Trial H: Enter on a Settings row flipped the setting while the footer named Space and the README said Space
    flips. Enter flips a boolean in every form of the editor (a Main toggle, an extension's switch): the Settings
    tab keeps it, and the README names both keys (the footer lists one key per action, F1 the tab's both)."""
    from textual.widgets import Input

    from tenantdeck.tui.tabs.widget_fields import BoolRow

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "main")
            row = app.screen.query_one("#main").query(BoolRow).first()
            row.focus()
            await pilot.pause()
            text = app.editor.session.text
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.session.text != text and not isinstance(app.focused, Input)  # a Main toggle: flipped
            await pilot.press("9")
            await pilot.pause()
            tab = app.screen.query_one(SettingsTab)
            tab.query_one(DataTable).focus()
            await pilot.pause()
            before = app.editor.get(("apps", 0, "settings", "core.conversations.updateOnReplies"))
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.get(("apps", 0, "settings", "core.conversations.updateOnReplies")) is (not before)
            assert "`Space` or `Enter`" in SettingsTab.HELP

    asyncio.run(flow())
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert "The Settings tab (`9`) flips a boolean with `Space` or `Enter`" in readme


def test_an_unmanaged_app_manages_its_settings_on_ctrl_n(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "settings", app_index=1)
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert app.editor.get("apps[1].settings") == {}

    asyncio.run(flow())


def test_end_and_home_move_the_cursor_in_every_row_list(draft_path: Path) -> None:
    """A trial: `End` did nothing on the Settings list (Textual binds it to the last column), so the next Space
    flipped the first setting, which was then pushed. Every row list is a RowTable: End and Home go to the last
    and first row (the Extensions list had it; the others did not)."""
    import re

    import tenantdeck.tui

    root = Path(tenantdeck.tui.__file__).parent
    plain = [f"{p.relative_to(root)}:{n}" for p in root.rglob("*.py")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bDataTable\(id=", line) and 'cursor_type="row"' in line]
    assert not plain, plain

    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "settings")
            table = app.screen.query_one(SettingsTab).query_one(DataTable)
            table.focus()
            await pilot.press("end")
            await pilot.pause()
            assert table.cursor_row == table.row_count - 1 > 0
            await pilot.press("home")
            await pilot.pause()
            assert table.cursor_row == 0

    asyncio.run(flow())
