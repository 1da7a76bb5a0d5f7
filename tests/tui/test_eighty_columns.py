"""At 80x24 nothing a user needs is cut or missing (issue 20, item 11): the problems list shows the highlighted
problem in full below the table; the New-app dialog can be cancelled with a button as well as Escape."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import env

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


def test_the_new_app_dialog_has_a_cancel_button_and_shows_a_typed_name_as_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Button, Label

    from tenantdeck.tui.screens.new_app import NewAppScreen

    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: eu\n", encoding="utf-8")
    app = make_app(draft)

    async def go() -> tuple[str, bool, list[str]]:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("n")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, NewAppScreen)
            screen.taken = {"[bold]x"}
            await pilot.press(*"[bold]x")
            await settle(pilot)
            error = str(screen.query_one("#error", Label).render())
            screen.query_one("#cancel", Button).press()
            await settle(pilot)
            return error, isinstance(app.screen, NewAppScreen), [a["name"] for a in app.editor.get("apps")]

    error, still_open, names = asyncio.run(go())
    assert "'[bold]x'" in error  # the markup is shown, not applied
    assert not still_open and names == ["Acme"]


def test_help_names_keys_as_keys_lists_only_keys_a_terminal_delivers_and_says_how_to_use_a_field(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tenantdeck.tui.screens.help_screen import HelpScreen

    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: eu\n", encoding="utf-8")
    app = make_app(draft)

    async def go() -> str:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f1")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            text = app.screen.text
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, HelpScreen)
            return text

    text = asyncio.run(go())
    assert "| `/` | Filter |" in text and "slash" not in text and "left_square_bracket" not in text
    assert "super+" not in text and "ctrl+s" not in text and "| `f2` | Save |" in text
    assert "`Enter` writes" in text and "`Escape` puts back" in text and "closes this help" in text


def test_undo_and_redo_say_what_they_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: eu\n", encoding="utf-8")
    app = make_app(draft)

    async def go() -> list[str]:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.editor.set("apps[0].region", "us").ok
            await settle(pilot)
            app.clear_notifications()
            await pilot.press("ctrl+z")
            await settle(pilot)
            await pilot.press("ctrl+y")
            await settle(pilot)
            await pilot.press("ctrl+y")
            await settle(pilot)
            return [n.message for n in app._notifications]

    assert asyncio.run(go()) == ["Undid the edit of apps[0].region", "Redid the edit of apps[0].region",
                                 "Nothing to redo."]


def test_the_title_says_where_the_draft_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20 item 10: the demo's draft lives under the user data directory, and the title said only its name."""
    from tenantdeck.tui.editor import display_path

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert display_path(work / "tenantdeck.yaml") == "tenantdeck.yaml"  # beside you: just its name
    demo = home / ".local" / "share" / "tenantdeck" / "demo" / "tenantdeck.yaml"
    assert display_path(demo) == "~/…/demo/tenantdeck.yaml"  # where, and still room for the app's name
    assert display_path(home / "drafts" / "acme.yaml") == "~/drafts/acme.yaml"
    deep = Path("/srv") / ("x" * 60) / "tenantdeck.yaml"
    assert display_path(deep) == "/…/tenantdeck.yaml"


def test_a_long_app_name_is_cut_so_every_column_of_the_apps_list_stays_in_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trial's 80-character name pushed Region to Policy off an 80-column screen; it is cut with an ellipsis."""
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(LONG_KEY_DRAFT.replace("name: Acme\n", f"name: {'Acme ' * 16}\n"), encoding="utf-8")
    app = make_app(draft)

    async def go() -> tuple[str, int]:
        from textual.widgets import DataTable

        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            table = app.screen.query_one(DataTable)
            width = sum(column.get_render_width(table) for column in table.columns.values())
            return str(table.get_row_at(0)[1]), width

    name, width = asyncio.run(go())
    assert name.endswith("…") and name.startswith("Acme Acme") and len(name) <= 24, name
    assert width <= 78, width  # every column in view, the scrollbar's cells aside


def test_a_problem_of_the_policies_file_leaves_the_problem_column_room_at_80x24(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial J, J7: a problem of ``tenantdeck.policies.yaml`` filled the Line column with the file's whole name (29
    of 80 columns) and left ~9 for every row's problem. The cell says what the file is and the line
    (``policies:4``); the line under the table names the file whole."""
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: eu\n", encoding="utf-8")
    draft.with_name("tenantdeck.policies.yaml").write_text(
        "policies:\n  - name: brand\n    check: {field: \"widgets[*].style.primary_color\", matches: \"^(#\"}\n"
        "    message: the brand's colours\n", encoding="utf-8")
    app = make_app(draft)

    async def go() -> tuple[list[str], str, str]:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f8")
            await settle(pilot)
            assert isinstance(app.screen, ProblemsScreen)
            problems = app.screen._problems
            index = next(i for i, p in enumerate(problems) if p.file.endswith("tenantdeck.policies.yaml"))
            table = app.screen.query_one("DataTable")
            table.move_cursor(row=index)
            await settle(pilot)
            row = [str(cell) for cell in table.get_row_at(index)]
            return row, problems[index].message, str(app.screen.query_one("#detail").render())

    row, message, detail = asyncio.run(go())
    assert row[0] == "policies:3", row
    assert len(row[3]) >= 25 and message.startswith(row[3].rstrip("…")), row
    assert detail.startswith("tenantdeck.policies.yaml:3: error: "), detail
