"""The widget tabs (Style, Sidebar, Main) driven as a user would, with the draft and the saved file checked."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static, TextArea

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.tabs.widget_fields import BoolRow, FieldRow, SequenceList, TextRow, WidgetTab
from tenantdeck.tui.tabs.widget_main import MainTab
from tenantdeck.tui.tabs.widget_sidebar import SidebarTab
from tenantdeck.tui.tabs.widget_style import StyleTab
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tests.tui import widget_fixtures
from tests.tui.pilot import make_app, settle
from tests.tui.widget_fixtures import ACME, GLOBEX, INITECH

pytestmark = pytest.mark.anyio
anyio_backend = widget_fixtures.anyio_backend
draft = widget_fixtures.draft


async def open_tab(app: TenantdeckApp, pilot: Pilot[None], index: int, tab: str) -> None:
    """Wait for validation, open app ``index`` and show ``tab`` (by its digit, as a user would)."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.open_app(index)
    await pilot.pause()
    await pilot.press({"style": "1", "sidebar": "2", "main": "3"}[tab])
    await app.workers.wait_for_complete()
    await pilot.pause()


def row(app: TenantdeckApp, tab: type[WidgetTab], section: str, key: str) -> FieldRow:
    return app.screen.query_one(tab).query_one(f"#{section}-{key}", FieldRow)


def status(r: FieldRow) -> str:
    if isinstance(r, BoolRow):
        return str(r.render())
    return str(r.query_one(".field-status", Static).render())


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


# -- Main ----------------------------------------------------------------------------------------------------------


async def test_toggle_a_main_toggle_and_save_is_a_one_line_diff_with_comments_kept(draft: Path) -> None:
    before = draft.read_text(encoding="utf-8")
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        gifs = row(app, MainTab, "main", "send_gifs")
        gifs.focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].main.send_gifs") is False
        assert "[x]" not in str(gifs.render()).splitlines()[0]
        await pilot.press("f2")
        await pilot.pause()
        assert not app.editor.session.dirty
    after = draft.read_text(encoding="utf-8")
    assert changed_lines(before, after) == ["-          send_gifs: true", "+          send_gifs: false"]
    assert "# everything from presets.support ..." in after
    assert "# Allow GIFs" in after


async def test_a_digit_leaves_the_main_tab_for_a_tab_that_starts_with_a_text_field(draft: Path) -> None:
    """"1" on the Main tab, a toggle focused, shows Style (its first field takes text, so the tab bar gets the
    focus); the focus used to stay on the hidden toggle and TabbedContent switched straight back to Main."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        row(app, MainTab, "main", "send_gifs").focus()
        await pilot.press("1")
        await pilot.pause()
        await pilot.pause()
        tabs = app.screen.query_one("TabbedContent")
        assert tabs.active == "style"  # type: ignore[attr-defined]
        assert type(app.focused).__name__ == "ContentTabs"
        await pilot.press("3")
        await pilot.pause()
        await pilot.pause()
        assert tabs.active == "main"  # type: ignore[attr-defined]


async def test_flipping_a_toggle_repaints_only_its_row(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        painted: list[str] = []
        tab = app.screen.query_one(MainTab)
        for r in tab.query(BoolRow):
            r.show = (lambda key: lambda state: painted.append(key))(r.key)  # type: ignore[method-assign]
        row(app, MainTab, "main", "send_voice_notes").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].main.send_voice_notes") is True
        assert painted == ["send_voice_notes"]


async def test_space_on_an_inherited_toggle_writes_an_override_with_its_source(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        r = row(app, MainTab, "main", "send_files")
        assert "preset" in str(r.render()) and "override" not in str(r.render())
        r.focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].main.send_files") is False
        assert app.editor.get("presets.support.main.send_files") is True
        assert "override (preset: on)" in str(r.render())


async def test_enable_extension_key_adds_it_to_the_apps_extensions(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        r = row(app, MainTab, "main", "enable_message_translation")
        assert "not enabled" in str(r.render())
        r.focus()
        await pilot.press("e")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].extensions.enabled") == [
            "polls", "reactions", "stickers", "profanity-filter", "message-translation"]
        assert "needs message-translation: enabled" in str(r.render())
        await pilot.press("ctrl+z")  # one undo step
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].extensions.enabled") == ["polls", "reactions", "stickers",
                                                                      "profanity-filter"]


async def test_the_footer_offers_e_only_where_it_enables_an_extension(draft: Path) -> None:
    """A docs-only trial (F33): on "Enable polls", whose extension is on, the footer offered "e Enable ext" and ``e``
    only said it was enabled already. Listed on a toggle whose extension is off, gone once ``e`` enabled it, back
    after ctrl+z."""
    from tenantdeck.tui.widgets.footer import KeyFooter

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")

        async def footer() -> str:
            await settle(pilot)
            return app.screen.query_one(KeyFooter).text

        polls = row(app, MainTab, "main", "allow_creating_polls")
        assert "needs polls: enabled" in str(polls.render())
        polls.focus()
        assert "Enable ext" not in await footer()
        row(app, MainTab, "main", "enable_message_translation").focus()
        assert "e Enable ext" in await footer()
        await pilot.press("e")
        assert "Enable ext" not in await footer()
        await pilot.press("ctrl+z")
        assert "e Enable ext" in await footer()


async def test_enable_extension_creates_the_block_and_takes_it_out_of_disabled(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        app.editor.set(f"apps[{ACME}].extensions.disabled", ["whiteboard"])
        await open_tab(app, pilot, INITECH, "main")
        r = row(app, MainTab, "main", "enable_collaborative_whiteboard")
        assert "extensions not managed here" in str(r.render())
        r.focus()
        await pilot.press("e")
        await pilot.pause()
        assert app.editor.get(f"apps[{INITECH}].extensions") == {"enabled": ["whiteboard"]}
        await pilot.press("escape")
        await pilot.pause()
        await open_tab(app, pilot, ACME, "main")
        row(app, MainTab, "main", "enable_collaborative_whiteboard").focus()
        await pilot.press("e")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].extensions") == {
            "enabled": ["polls", "reactions", "stickers", "profanity-filter", "whiteboard"], "disabled": []}


async def test_main_rows_show_label_description_default_required_and_extension(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        text = str(row(app, MainTab, "main", "show_stickers").render())
        assert "Show stickers" in text and "default on" in text
        assert "Needs the stickers extension enabled first" in text
        assert "needs stickers: enabled" in text
        assert "Enable polls *" in str(row(app, MainTab, "main", "allow_creating_polls").render())
        topics = [str(s.render()) for s in app.screen.query_one(MainTab).query(".topic")]
        assert topics == ["Messaging", "Groups", "Calls", "Media", "Moderation", "Notifications"]


# -- Style ---------------------------------------------------------------------------------------------------------


async def type_into(pilot: Pilot[None], box: Input, text: str) -> None:
    box.focus()
    await pilot.pause()
    box.value = ""
    await pilot.press(*text)
    await pilot.pause()


async def test_override_a_preset_value_and_reset_it(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        original = app.editor.session.text
        primary = row(app, StyleTab, "style", "primary_color")
        assert isinstance(primary, TextRow)
        assert primary.input.value == "#03A9F4"
        await type_into(pilot, primary.input, "#123456")
        assert app.editor.get(f"apps[{ACME}].widgets[0].style", None) is None  # not per keystroke
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style") == {"primary_color": "#123456"}
        assert app.editor.get("presets.support.style.primary_color") == "#03A9F4"
        assert "override" in str(primary.query_one(".marker", Static).render())
        assert "preset value: #03A9F4" in status(primary)
        await pilot.press("ctrl+r")  # r types into the field; ctrl+r resets from there too
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style", None) is None
        assert app.editor.session.text == original
        assert primary.input.value == "#03A9F4"
        assert "preset" in str(primary.query_one(".marker", Static).render())


async def test_bad_colour_shows_the_inline_error(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        fg = row(app, StyleTab, "style", "foreground_color")
        assert isinstance(fg, TextRow)
        await type_into(pilot, fg.input, "#12")
        assert "must be a colour written #RGB or #RRGGBB, not '#12'" in status(fg)  # as you type
        assert "not written yet" in status(fg)
        await pilot.press("4", "5", "6", "7", "enter")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.foreground_color") == "#124567"
        assert "✗" not in status(fg)
        await type_into(pilot, fg.input, "#12345")
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.foreground_color") == "#12345"  # never dropped
        problems = app.editor.problems_at(f"apps[{ACME}].widgets[0].style.foreground_color")
        assert [p.message for p in problems] == ["must be a colour written #RGB or #RRGGBB, not '#12345'"]
        assert "✗ must be a colour written #RGB or #RRGGBB, not '#12345'" in status(fg)
        assert "not written yet" not in status(fg)


async def test_custom_css_is_written_when_leaving_the_text_area_as_one_undo_step(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        area = row(app, StyleTab, "style", "custom_css").query_one(TextArea)
        area.focus()
        await pilot.pause()
        await pilot.press(*".a{}")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.custom_css", None) is None
        await pilot.press("escape")  # leaves the text area: written
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.custom_css") == ".a{}"
        assert not area.has_focus
        row(app, StyleTab, "style", "override_system_background_colors").focus()  # ctrl+z in a text area is its own
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style", None) is None
        assert area.text == ""


async def test_f2_in_a_text_field_writes_it_before_saving(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        icon = row(app, StyleTab, "style", "docked_layout_icon_open")
        assert isinstance(icon, TextRow)
        await type_into(pilot, icon.input, "https://x.example/i.svg")
        await pilot.press("f2")
        await pilot.pause()
    assert "docked_layout_icon_open: https://x.example/i.svg" in draft.read_text(encoding="utf-8")


async def test_a_value_wider_than_its_box_ends_in_an_ellipsis_until_focused(draft: Path) -> None:
    """A trial saw `https://widget-js.cometchat.io/v` cut with no mark at 80 columns: unfocused, the box ends in
    "…"; focused, it scrolls to the cursor as an input does, and what it holds is the whole value."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        icon = row(app, StyleTab, "style", "docked_layout_icon_open")
        assert isinstance(icon, TextRow) and len(icon.input.value) > icon.input.size.width
        line = icon.input.render_line(0).text.rstrip()
        assert line.endswith("…") and icon.input.value.startswith(line[:-1]), line
        icon.input.focus()
        await pilot.pause()
        assert "…" not in icon.input.render_line(0).text
        assert icon.input.value.startswith("https://widget-js.cometchat.io/v2/")


# -- Sidebar -------------------------------------------------------------------------------------------------------


async def test_reorder_the_navigation_sequence(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "sidebar")
        listing = app.screen.query_one(SidebarTab).query_one(SequenceList)
        listing.focus()
        listing.highlighted = 1
        await pilot.press("d")
        await pilot.pause()
        path = f"apps[{ACME}].widgets[0].sidebar.sidebar_navigation_sequence"
        assert app.editor.get(path) == ["chats", "groups", "users", "calls", "settings"]
        assert listing.highlighted == 2
        await pilot.press("shift+down", "shift+down", "shift+down")  # the last press cannot move: nothing changes
        await pilot.pause()
        assert app.editor.get(path) == ["chats", "groups", "calls", "settings", "users"]
        await pilot.press("home", "u")  # the first cannot move up
        await pilot.pause()
        assert app.editor.get(path) == ["chats", "groups", "calls", "settings", "users"]
        assert app.editor.get("presets.support.sidebar.sidebar_navigation_sequence") == [
            "chats", "users", "groups", "calls", "settings"]


async def test_a_held_listing_value_is_shown_kept_and_warned_about(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, INITECH, "sidebar")
        listing = row(app, SidebarTab, "sidebar", "user_listing")
        from textual.widgets import Select

        select = listing.query_one(Select)
        assert select.value == "everyone"
        assert "'everyone' is not one of all_users, friends, none" in status(listing)
        await pilot.pause()
        assert not app.editor.session.dirty
        assert app.editor.get(f"apps[{INITECH}].widgets[0].sidebar.user_listing") == "everyone"
        select.value = "friends"
        await pilot.pause()
        assert app.editor.get(f"apps[{INITECH}].widgets[0].sidebar.user_listing") == "friends"
        assert "not one of" not in status(listing)


async def test_sidebar_toggle_in_a_widget_without_preset(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, INITECH, "sidebar")
        calls = row(app, SidebarTab, "sidebar", "calls")
        calls.focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.editor.get(f"apps[{INITECH}].widgets[0].sidebar.calls") is False
        await pilot.press("r")  # nothing to reset to: said, nothing changed
        await pilot.pause()
        assert app.editor.get(f"apps[{INITECH}].widgets[0].sidebar.calls") is False


# -- Presets and widgets -------------------------------------------------------------------------------------------


async def test_edit_the_preset_itself_after_a_confirm_that_counts(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "main")
        row(app, MainTab, "main", "send_gifs").focus()
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 widget in 1 app extends preset 'support'; 1 of them overrides this value" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        tab = app.screen.query_one(MainTab)
        assert tab.preset_mode == "support"
        assert "Editing preset 'support'" in str(tab.query_one("#banner", Static).render())
        r = row(app, MainTab, "main", "send_files")
        r.focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.editor.get("presets.support.main.send_files") is False
        assert "send_files" not in (app.editor.get(f"apps[{ACME}].widgets[0].main") or {})
        await pilot.press("p")  # back to the app's widget
        await pilot.pause()
        assert tab.preset_mode is None
        assert "preset" in str(r.render())


async def test_declining_the_confirm_keeps_editing_the_widget(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "sidebar")
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert app.screen.query_one(SidebarTab).preset_mode is None


async def test_an_app_without_a_widget_offers_to_add_one(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, GLOBEX, "style")
        tab = app.screen.query_one(StyleTab)
        assert "This app has no widget" in str(tab.query_one("#none", Static).render())
        assert not tab.query_one("#fields").display
        await pilot.pause()
        assert app.focused is tab.query_one("#none")  # switching tabs puts the focus in the tab
        await pilot.press("a")
        await pilot.pause()
        assert app.editor.get(f"apps[{GLOBEX}].widgets") == [{"extends": "support", "name": "Chat widget"}]
        assert tab.query_one("#fields").display
        assert not app.screen.query(MainTab), "a tab is composed when it is first shown"
        await pilot.press("3")
        await pilot.pause()
        main = app.screen.query_one(MainTab)
        assert main.query_one("#fields").display  # the other tabs follow
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.editor.get(f"apps[{GLOBEX}].widgets", None) is None
        assert not main.query_one("#fields").display
        await pilot.press("1")
        await pilot.pause()
        assert not tab.query_one("#fields").display


async def test_next_widget_writes_pending_text_to_the_widget_it_was_typed_for(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        app.editor.insert(f"apps[{ACME}].widgets", {"extends": "support", "name": "Second"})
        await open_tab(app, pilot, ACME, "style")
        bg = row(app, StyleTab, "style", "background_color")
        assert isinstance(bg, TextRow)
        await type_into(pilot, bg.input, "#abc")
        app.screen.action_next_widget()  # type: ignore[attr-defined]
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.background_color") == "#abc"
        assert app.editor.get(f"apps[{ACME}].widgets[1].style", None) is None
        assert bg.input.value == "#FFFFFF"
        assert "Widget 2/2 'Second'" in str(app.screen.query_one(StyleTab).query_one("#banner", Static).render())


async def test_fields_show_their_problems_and_follow_undo(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, INITECH, "sidebar")
        listing = row(app, SidebarTab, "sidebar", "user_listing")
        assert "✗" in status(listing)  # the models' own error, beside the warning
        app.editor.set(f"apps[{INITECH}].widgets[0].sidebar.user_listing", "none")
        await pilot.pause()
        assert "✗" not in status(listing)
        app.editor.undo()
        await pilot.pause()
        assert "✗" in status(listing)


# -- Snapshots -----------------------------------------------------------------------------------------------------

TAB_CLASSES: dict[str, type[WidgetTab]] = {"style": StyleTab, "sidebar": SidebarTab, "main": MainTab}
FIRST_ROW = {"style": "override_system_background_colors", "sidebar": "chats", "main": "send_gifs"}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("tab", ["style", "sidebar", "main"])
def test_snapshot_of_each_tab(draft: Path, snap_compare, tab: str, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, TenantdeckApp)
        await open_tab(app, pilot, ACME, tab)
        row(app, TAB_CLASSES[tab], TAB_CLASSES[tab].SECTION, FIRST_ROW[tab]).focus()
        await pilot.pause()

    assert snap_compare(make_app(draft), terminal_size=size, run_before=run_before)


def test_snapshot_of_an_app_without_a_widget(draft: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, TenantdeckApp)
        await open_tab(app, pilot, GLOBEX, "main")
        await pilot.press("tab")

    assert snap_compare(make_app(draft), terminal_size=(80, 24), run_before=run_before)


async def test_escape_takes_pending_text_back_and_tab_writes_it(draft: Path) -> None:
    """Escape in a field with typing takes the typing back (issue 20: it used to leave the app and write it);
    leaving the field with Tab writes it."""
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(app, pilot, ACME, "style")
        bg = row(app, StyleTab, "style", "background_color")
        assert isinstance(bg, TextRow)
        before = bg.input.value
        await type_into(pilot, bg.input, "#abc")
        await pilot.press("escape")
        await pilot.pause()
        assert bg.input.value == before and bg.input.has_focus
        assert app.editor.get(f"apps[{ACME}].widgets[0].style", None) is None
        await type_into(pilot, bg.input, "#abc")
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.get(f"apps[{ACME}].widgets[0].style.background_color") == "#abc"
