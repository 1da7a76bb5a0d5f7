"""Fleet edits in the TUI: a bulk edit of 500 apps is one undo step and the change states follow; a trigger added
to a webhook on a selection; a preset edit says how many apps it reaches and changes only those that do not
override it; Enter on an app of the Presets screen opens it. Real drafts, real sessions, no mocks."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Input, Select, Static

from tenantdeck.draft import widget_view
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.screens.bulk_edit import TRIGGER, BulkEditScreen
from tenantdeck.tui.screens.presets_screen import PresetsScreen, PresetValueScreen
from tests.tui.fleet_fixtures import DRAFTS, FLEET, big_fleet, write_base
from tests.tui.pilot import settle


def fleet(tmp_path: Path) -> Path:
    target = tmp_path / f"{FLEET}.yaml"
    shutil.copyfile(DRAFTS / f"{FLEET}.yaml", target)
    return target


def effective(app: TenantdeckApp, index: int, section: str, key: str) -> Any:
    widget = app.editor.get(("apps", index, "widgets", 0))
    preset = app.editor.get(("presets", widget["extends"])) if widget.get("extends") else None
    return widget_view.resolve(widget, preset, section, key).value


def test_bulk_edit_of_500_apps_is_one_undo_step_and_the_states_follow(tmp_path: Path) -> None:
    draft = big_fleet(tmp_path / "big.yaml", 500)
    write_base(draft)
    asyncio.run(_bulk_500(draft))


async def _bulk_500(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert set(app.editor.app_states.values()) == {"in sync"} and len(app.editor.app_states) == 500
        original = app.editor.session.text
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BulkEditScreen)
        screen.query_one("#target", Input).focus()
        await pilot.press(*"allow", "space", "g", "i", "f", "s", "tab", "o", "n")
        screen.recompute()  # what the 0.12 s debounce timer calls (settle waits for workers, not timers)
        await settle(pilot)
        summary = str(screen.query_one("#summary", Static).render())
        assert "500 apps selected. Allow GIFs (main.send_gifs) = on: 500 apps will change, 0 already so." in summary
        await pilot.press("f5")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen)
        assert all(app.editor.get(("apps", i, "widgets", 0, "main", "send_gifs")) is True for i in range(500))
        assert len(app.editor.session._undo) == 1  # one step
        assert set(app.editor.app_states.values()) == {"modified"}
        table = app.screen.query_one(DataTable)
        assert table.get_row("499")[-1] == "modified"

        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.editor.session.text == original
        assert all(app.editor.get(("apps", i, "widgets", 0, "main", "send_gifs")) is False for i in range(500))
        assert not app.editor.session.can_undo
        assert set(app.editor.app_states.values()) == {"in sync"}
        assert table.get_row("0")[-1] == "in sync"


def test_bulk_add_trigger_to_marked_apps(tmp_path: Path) -> None:
    asyncio.run(_bulk_trigger(fleet(tmp_path)))


async def _bulk_trigger(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "space")  # Acme EU, Acme US, Globex
        assert app.screen.marked == {0, 1, 2}  # type: ignore[attr-defined]
        assert "3 marked" in app.screen.sub_title
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BulkEditScreen)
        screen.query_one("#kind", Select).value = TRIGGER
        await settle(pilot)
        screen.query_one("#target", Input).value = "events"
        screen.query_one("#value", Input).value = "group_creatd"  # a typo: said, nothing applied
        await settle(pilot)
        screen.recompute()
        assert "not a known trigger id" in str(screen.query_one("#summary", Static).render())
        await pilot.press("f5")
        assert app.screen is screen and not app.editor.session.dirty
        screen.query_one("#value", Input).value = "group_created"
        screen.recompute()
        # the marked apps: 0 and 2 lack it, 1 has it
        assert "2 apps will change, 1 already so." in str(screen.query_one("#summary", Static).render())
        await pilot.press("f5")
        await settle(pilot)
        triggers = [app.editor.get(("apps", i, "webhooks", 0, "triggers")) for i in range(6)]
        assert triggers[0] == ["message_sent", "group_created"] and triggers[2] == ["message_sent", "group_created"]
        assert triggers[1] == ["message_sent", "group_created"]
        assert triggers[4] == ["message_sent"]  # not marked: untouched
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.editor.get(("apps", 0, "webhooks", 0, "triggers")) == ["message_sent"]


def test_a_preset_edit_says_its_reach_and_changes_only_apps_that_do_not_override(tmp_path: Path) -> None:
    asyncio.run(_preset_edit(fleet(tmp_path)))


async def _preset_edit(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = {i: effective(app, i, "style", "primary_color") for i in range(4)}
        own = app.editor.get(("apps", 4, "widgets", 0))
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PresetsScreen)
        presets = screen.query_one("#presets", DataTable)
        assert [str(c) for c in presets.get_row("support")] == ["support", "4"]
        await pilot.press("enter")  # into the fields
        fields = screen.query_one("#fields", DataTable)
        assert app.focused is fields
        fields.move_cursor(row=fields.get_row_index("style.primary_color"))
        assert [str(c) for c in fields.get_row("style.primary_color")[1:]] == ["#03A9F4", "1"]
        await pilot.press("enter")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PresetValueScreen)
        reach = str(modal.query_one("#reach", Static).render())
        assert "4 widgets in 4 apps extend preset 'support'; 1 of them overrides this value, so an edit changes 3" \
            in reach
        await pilot.press("ctrl+u", *"red", "enter")  # not a colour: said, not saved
        assert app.screen is modal and "red" not in str(app.editor.get(("presets", "support", "style")))
        await pilot.press("ctrl+u", "#", *"112233", "enter")
        await settle(pilot)
        assert app.screen is screen
        assert app.editor.get(("presets", "support", "style", "primary_color")) == "#112233"
        after = {i: effective(app, i, "style", "primary_color") for i in range(4)}
        assert after[2] == before[2] == "#FF5722"  # overrides it: unchanged
        assert all(after[i] == "#112233" != before[i] for i in (0, 1, 3))
        assert app.editor.get(("apps", 4, "widgets", 0)) == own  # extends nothing: untouched
        assert str(fields.get_row("style.primary_color")[1]) == "#112233"

        await pilot.press("tab")
        apps = screen.query_one("#apps-of", DataTable)
        assert app.focused is apps
        apps.move_cursor(row=2)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == 2


def test_palette_offers_bulk_edit_and_presets(tmp_path: Path) -> None:
    asyncio.run(_palette(fleet(tmp_path)))


async def _palette(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        from tenantdeck.tui.commands import TenantdeckCommands

        provider = TenantdeckCommands(app.screen)
        offered = {text: command for text, _help, command in provider.contextual()}
        offered["Presets"]()
        await settle(pilot)
        assert isinstance(app.screen, PresetsScreen)
        await pilot.press("escape")
        offered["Bulk edit"]()
        await settle(pilot)
        assert isinstance(app.screen, BulkEditScreen)
        await pilot.press("f1")
        await settle(pilot)
        text = app.screen.text  # type: ignore[attr-defined]
        assert "## Bulk edit" in text and "`f5` | Apply" in text


def test_marks_follow_their_apps_when_the_apps_list_changes(tmp_path: Path) -> None:
    """A mark stays on the app it marked, wherever the app moves (an app removed above it, the list reordered as
    a save from another editor may); a mark whose app is gone is dropped and said. Every row draws its ✓ from the
    marks as they are then: a reorder showed ✓ on apps never marked, the title counting others (trial I)."""
    asyncio.run(_marks_follow_apps(fleet(tmp_path)))


def _ticks(screen: Any) -> set[int]:
    from textual.widgets import DataTable

    table = screen.query_one(DataTable)
    return {int(key.value) for key in table.rows if str(table.get_row(key)[0]) == "✓"}


async def _marks_follow_apps(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        names = [a["name"] for a in app.editor.get("apps")]
        await pilot.press("down", "space", "space")  # apps 1 and 2
        assert screen.marked == {1, 2} == _ticks(screen)  # type: ignore[attr-defined]
        assert app.editor.insert("apps", {"name": "Zeta", "region": "us"}).ok  # appended: indexes 1, 2 unchanged
        await settle(pilot)
        assert screen.marked == {1, 2} == _ticks(screen)  # type: ignore[attr-defined]
        assert app.editor.delete("apps[0]").ok  # every later app moves up one index, its mark with it
        await settle(pilot)
        assert screen.marked == {0, 1} == _ticks(screen)  # type: ignore[attr-defined]
        assert [app.editor.get(f"apps[{i}].name") for i in (0, 1)] == names[1:3]
        apps = app.editor.get("apps")
        assert app.editor.set("apps", [apps[2], apps[1], apps[0], *apps[3:]]).ok  # reordered
        await settle(pilot)
        assert screen.marked == {1, 2} == _ticks(screen)  # type: ignore[attr-defined]
        assert [app.editor.get(f"apps[{i}].name") for i in (2, 1)] == names[1:3]
        assert not any("mark(s) cleared" in n.message for n in app._notifications)
        assert app.editor.delete("apps[1]").ok  # a marked app removed: its mark goes, and that is said
        await settle(pilot)
        assert screen.marked == {1} == _ticks(screen)  # type: ignore[attr-defined]
        assert app.editor.get("apps[1].name") == names[1]
        assert any("1 mark(s) cleared" in n.message for n in app._notifications)


def test_only_marked_reads_unticked_in_text_when_nothing_is_marked(tmp_path: Path) -> None:
    """A user trial saw "only marked (0)" ticked beside "6 apps selected": the box was off and disabled, but
    Textual draws its X in both states, told apart by colour only. Now the X is drawn only when ticked."""
    asyncio.run(_only_marked(fleet(tmp_path)))


async def _only_marked(draft: Path) -> None:
    from textual.widgets import Checkbox

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BulkEditScreen)
        box = screen.query_one("#marked", Checkbox)
        assert not box.value and box.disabled
        assert box.render().plain.startswith("▐ ▌ only marked (0)")
        screen.recompute()
        assert str(screen.query_one("#summary", Static).render()).startswith("6 apps selected.")
        await pilot.press("escape", "space", "b")  # one app marked: the box ticked, the selection that app
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BulkEditScreen)
        box = screen.query_one("#marked", Checkbox)
        assert box.value and not box.disabled
        assert box.render().plain.startswith("▐X▌ only marked (1)")
        screen.recompute()
        assert str(screen.query_one("#summary", Static).render()).startswith("1 app selected.")
        box.value = False  # unticked by the user: the X goes, the selection is every app again
        screen.recompute()
        assert box.render().plain.startswith("▐ ▌ only marked (1)")
        assert str(screen.query_one("#summary", Static).render()).startswith("6 apps selected.")


def test_the_presets_screen_shown_again_shows_what_a_new_one_shows(tmp_path: Path) -> None:
    """The Presets screen is kept for the session (``PresetsScreen.for_app``, issue 36): opened again after its
    cursors and scroll moved and the draft changed, it is the same screen, and it shows, cell by cell, what a new
    screen shows on the same draft (first preset, tables at their top, focus in the presets), also where a preset
    with a long name was shown before and is gone (a table's column kept the width of the longest cell it had
    shown, and the list of presets lost its Apps column: trial I)."""
    draft = big_fleet(tmp_path / "big.yaml", 120)
    kept = asyncio.run(_presets_again(draft, before=True))
    new = asyncio.run(_presets_again(draft, before=False))
    assert kept[1:] == new[1:]
    for y, (a, b) in enumerate(zip(kept[0], new[0], strict=True)):
        assert a == b, f"line {y}: {''.join(c for c, _ in a)!r} / {''.join(c for c, _ in b)!r}"


async def _presets_again(draft: Path, before: bool) -> tuple[Any, ...]:
    from tests.tui.pilot import painted_cells

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = None
        long_name = ("presets", "a-very-long-preset-identifier-" * 2)
        assert app.editor.set(long_name, {"style": {"primary_color": "#010203"}}).ok
        await settle(pilot)
        if before:
            await pilot.press("p")
            await settle(pilot)
            first = app.screen
            await pilot.press("enter", "down", "down", "down", "tab", "end", "up")  # a field, then the apps' end
            await settle(pilot)
            assert app.screen.query_one("#apps-of", DataTable).scroll_y > 0
            await pilot.press("escape")
            await settle(pilot)
        assert app.editor.delete(long_name).ok
        outcome = app.editor.set(("presets", "support", "style", "primary_color"), "#112233")
        assert outcome.ok
        app.editor.set(("apps", 3, "widgets", 0, "style"), {"primary_color": "#445566"})
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PresetsScreen) and (first is None or screen is first)
        tables = [screen.query_one(f"#{t}", DataTable) for t in ("presets", "fields", "apps-of")]
        return (painted_cells(pilot), screen.preset, app.focused.id if app.focused else None,
                [(t.cursor_coordinate, t.scroll_offset, t.row_count) for t in tables])


def test_a_preset_name_is_shown_as_text_in_bulk_edit(tmp_path: Path) -> None:
    """A preset's name is data: "[/]" or "[b]" in it was read as markup by the preset select (Textual's Static)."""
    draft = fleet(tmp_path)
    text = draft.read_text(encoding="utf-8")
    draft.write_text(text.replace("presets:\n  support:\n", "presets:\n  '[b]x[/]':\n    name: Odd\n  support:\n", 1),
                     encoding="utf-8")
    asyncio.run(_odd_preset(draft))


async def _odd_preset(draft: Path) -> None:
    from tests.tui.pilot import painted

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "[b]x[/]" in app.editor.session.data["presets"]
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BulkEditScreen)
        screen.query_one("#preset", Select).focus()
        await pilot.press("enter", "down", "enter")  # the first preset: the odd one
        await settle(pilot)
        assert screen.query_one("#preset", Select).value == "[b]x[/]"
        assert "extends [b]x[/]" in painted(pilot)
