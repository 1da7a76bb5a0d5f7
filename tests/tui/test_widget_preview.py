"""The Preview tab: the picture follows the draft (widget and preset edits, widget switch), ``o`` shows the widget
closed, invalid values are drawn marked, and the screen at 80x24 and 120x40 (snapshots)."""

from __future__ import annotations

import ast
import asyncio
import io
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import TabbedContent, TabPane, Tabs

from tenantdeck.draft.effective_widget import effective_widget
from tenantdeck.draft.preview_scene import build_scene
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.tabs.widget_preview import HATCH, WIDE, Picture, PreviewPicture, PreviewTab
from tests.tui.preview_fixtures import PREVIEW_DRAFT, write_preview_draft

WIDGET = "apps[0].widgets[0]"


def picture_text(app: TenantdeckApp) -> str:
    """What the preview paints, as plain text at the width it has on screen."""
    widget = app.screen.query_one(PreviewPicture)
    console = Console(width=widget.content_region.width, color_system=None, file=io.StringIO())
    console.print(widget.render())
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


async def open_preview(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("4")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def run(path: Path, scenario: Callable[[TenantdeckApp, Pilot[None]], Awaitable[None]],
        size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        app = TenantdeckApp(path)
        async with app.run_test(size=size) as pilot:
            await open_preview(pilot)
            await scenario(app, pilot)

    asyncio.run(main())


# -- painting without a terminal: the feature-to-picture mapping as text ----------------------------------------


def paint(widget: dict[str, object], width: int = 78, *, show_open: bool = True, system: str | None = None) -> str:
    console = Console(width=width, color_system=system, file=io.StringIO(), force_terminal=system is not None)  # type: ignore[arg-type]
    console.print(Picture(build_scene(effective_widget(widget, {})), show_open=show_open))
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("width", [72, 116])
def test_a_toggle_off_removes_its_button_from_the_picture(width: int) -> None:
    on = {"send_gifs": True, "send_voice_notes": True, "enable_voice_calling": True, "enable_video_calling": True}
    assert " GIF " in paint({"main": on}, width)
    assert " GIF " not in paint({"main": {**on, "send_gifs": False}}, width)
    voice = "Voice note" if width >= WIDE else "Mic"
    assert voice in paint({"main": on}, width)
    assert voice not in paint({"main": {**on, "send_voice_notes": False}}, width)

    def header(text: str) -> str:  # the conversation's header line, where the call buttons are
        return next(line for line in text.splitlines() if "Alice" in line).split("│")[1]

    calls = header(paint({"main": {**on, "enable_voice_calling": False, "enable_video_calling": False}}, width))
    assert "all" not in calls.replace("Alice", "") and "Video" not in calls
    both = header(paint({"main": on}, width))
    assert "all " in both.replace("Alice", "") and "Video" in both


def test_marks_on_the_sample_messages() -> None:
    on = paint({"main": {"allow_message_reactions": True, "enable_threaded_replies": True,
                         "show_typing_indicators": True, "show_delivery_read_indicators": True}})
    off = paint({"main": {"allow_message_reactions": False, "enable_threaded_replies": False,
                          "show_typing_indicators": False, "show_delivery_read_indicators": False}})
    for mark in ("♥ 2", "↳", "typing", "✓✓"):
        assert mark in on and mark not in off, mark


def test_sidebar_sections_in_their_order_without_hidden_ones() -> None:
    text = paint({"sidebar": {"sidebar_navigation_sequence": ["users", "groups", "chats", "calls"], "groups": False,
                              "calls": True}})
    lines = [line.split("│")[0] for line in text.splitlines() if "│" in line]
    order = [name for line in lines for name in ("Users", "Groups", "Chats", "Calls") if name in line]
    assert order == ["Users", "Chats", "Calls"]
    assert "hidden sections: groups" in text


def test_the_closed_widget_shows_only_the_launcher_and_its_closed_image() -> None:
    text = paint({"style": {"docked_layout_icon_close": "https://x.example/i/closed.png"}}, show_open=False)
    assert "closed.png" in text and " Send " not in text


def test_invalid_colours_are_hatched_and_noted() -> None:
    text = paint({"style": {"primary_color": "#12", "docked_layout_icon_background": 5}})
    assert f"{HATCH * 2} primary '#12'" in text
    assert "not '#12'" in text and "Docked icon background colour" in text


def test_the_picture_degrades_to_256_colours() -> None:
    # in a fresh interpreter: rich caches each style's escape codes for the first colour system it is rendered in
    code = ("from tests.tui.test_widget_preview import paint; "
            "print(repr(paint({'style': {'primary_color': '#6A1B9A'}}, system=SYSTEM)))")
    cases = (("'256'", r"\x1b\[[0-9;]*38;5;", "38;2;"), ("'truecolor'", r"38;2;106;27;154", None))
    for system, expect, refuse in cases:
        out = subprocess.run([sys.executable, "-c", code.replace("SYSTEM", system)], capture_output=True, text=True,
                             check=True, cwd=Path(__file__).parents[2]).stdout
        text = ast.literal_eval(out)
        assert re.search(expect, text), system
        assert refuse is None or refuse not in text


# -- in the app --------------------------------------------------------------------------------------------------


def test_flipping_send_gifs_updates_the_preview_and_saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        assert isinstance(app.focused, PreviewTab)  # so that its key shows in the footer
        assert " GIF " in picture_text(app)
        outcome = app.editor.set(f"{WIDGET}.main.send_gifs", False)
        assert outcome.ok, outcome.refused
        await pilot.pause()
        assert " GIF " not in picture_text(app)
        assert app.editor.session.get(f"{WIDGET}.main.send_gifs") is False
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert " GIF " in picture_text(app)
        await pilot.press("ctrl+y", "f2")
        await pilot.pause()

    run(path, scenario)
    saved = path.read_text(encoding="utf-8")
    assert "          send_gifs: false\n" in saved
    assert "# a hand comment that a save keeps" in saved
    assert saved.replace("send_gifs: false\n", "send_gifs: true\n", 1).count("\n") == PREVIEW_DRAFT.count("\n")


def test_a_preset_edit_redraws_the_widget_that_extends_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        assert "#FFF8E1" in picture_text(app) and "Users" in picture_text(app)
        app.editor.set_many([("presets.brand.style.background_color", "#101010"),
                             ("presets.brand.sidebar.users", False)])
        await pilot.pause()
        text = picture_text(app)
        assert "#101010" in text and "#FFF8E1" not in text
        assert "hidden sections: users, calls" in text

    run(path, scenario)


def test_bad_values_typed_in_are_drawn_marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        for path_, value in ((f"{WIDGET}.style.primary_color", "#6A1B9"), (f"{WIDGET}.extends", "brnd"),
                             (f"{WIDGET}.sidebar", "oops"), (f"{WIDGET}.main.send_gifs", "maybe")):
            assert app.editor.set(path_, value).ok
            await pilot.pause()
        text = picture_text(app)
        assert "'#6A1B9'" in text and "no preset named 'brnd'" in text and "main.send_gifs" in text
        assert app.is_running

    run(path, scenario)


def test_o_shows_the_widget_closed_and_w_the_next_widget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        assert "launcher_open.svg" in picture_text(app)
        await pilot.press("o")
        await pilot.pause()
        text = picture_text(app)
        assert "launcher_closed.svg" in text and "closed (o: open)" in text and " Send " not in text
        await pilot.press("o")
        assert app.editor.insert("apps[0].widgets", {"extends": "brand", "name": "Second desk"}).ok
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert "Second desk" in picture_text(app)
        assert " Send " in picture_text(app)

    run(path, scenario)


def test_an_edit_made_in_another_tab_shows_when_the_preview_opens(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        await pilot.press("3")
        await pilot.pause()
        preview = app.screen.query_one(PreviewTab)
        assert not preview.is_on_screen
        assert app.editor.set(f"{WIDGET}.main.send_gifs", False).ok
        assert app.editor.set("presets.brand.sidebar.groups", False).ok
        for _ in range(3):  # the change messages reach the hidden preview before the tab is switched
            await pilot.pause()
        await pilot.press("4")
        for _ in range(20):  # the preview redraws once it is shown: wait for that, not for a clock
            await pilot.pause()
            text = picture_text(app)
            if " GIF " not in text and "hidden sections: groups, calls" in text:
                break
        assert " GIF " not in text and "hidden sections: groups, calls" in text

    run(path, scenario)


def test_arrow_keys_keep_moving_along_the_tabs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        tabs = app.screen.query_one(TabbedContent)
        await pilot.press("3")
        app.screen.query(Tabs).first().focus()
        await pilot.press("right")
        await pilot.pause()
        assert tabs.active == "preview" and isinstance(app.focused, PreviewTab)
        await pilot.press("right")
        await pilot.pause()
        assert tabs.active == "extensions" and isinstance(app.focused, Tabs)
        await pilot.press("left")
        await pilot.pause()
        await pilot.press("left")
        await pilot.pause()
        assert tabs.active == "main"

    run(path, scenario)


def test_no_color_keeps_the_picture_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        assert app.no_color
        text = picture_text(app)
        assert "#00695C" in text and " GIF " in text  # every colour is also written as text

    run(path, scenario)


# -- snapshots ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot(size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: object) -> None:
    path = write_preview_draft(tmp_path, monkeypatch)
    assert snap_compare(TenantdeckApp(path), terminal_size=size, run_before=open_preview)  # type: ignore[operator]


def test_snapshot_invalid_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: object) -> None:
    text = PREVIEW_DRAFT.replace("primary_color: '#00695C'", "primary_color: '#00695'\n          "
                                 "docked_layout_icon_background: red")
    path = write_preview_draft(tmp_path, monkeypatch, text)
    assert snap_compare(TenantdeckApp(path), terminal_size=(80, 24), run_before=open_preview)  # type: ignore[operator]



def test_a_late_focus_message_from_another_pane_does_not_switch_tabs(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """TabbedContent activates the pane whose widget got focus, by a message that can arrive after the user switched
    on (a busy Main tab): that late message must not switch back."""
    path = write_preview_draft(tmp_path, monkeypatch)

    async def scenario(app: TenantdeckApp, pilot: Pilot[None]) -> None:
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == "preview" and isinstance(app.focused, PreviewTab)
        main_pane = app.screen.query_one("#main", TabPane)
        main_pane.post_message(TabPane.Focused(main_pane))
        for _ in range(3):
            await pilot.pause()
        assert tabs.active == "preview" and isinstance(app.focused, PreviewTab)

    run(path, scenario)
