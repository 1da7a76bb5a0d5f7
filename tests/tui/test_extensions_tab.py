"""Pilot flows of the Extensions tab: enable, disable with the dependency warning, stop managing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable, Static

from tenantdeck.models import catalog
from tenantdeck.tui.tabs.extensions_tab import ExtensionsTab
from tests.tui.hooks_fixtures import draft_path, open_tab
from tests.tui.pilot import make_app

__all__ = ["draft_path"]


async def to_row(pilot, tab: ExtensionsTab, ext: str) -> None:  # type: ignore[no-untyped-def]
    tab.query_one(DataTable).move_cursor(row=catalog.EXTENSION_IDS.index(ext))
    await pilot.pause()


def test_enable_an_extension(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "extensions")
            tab = app.screen.query_one(ExtensionsTab)
            await to_row(pilot, tab, "stickers")
            assert "stickers" in app.editor.session.get("apps[0].extensions.disabled")
            await pilot.press("e")
            await pilot.pause()
            assert app.editor.session.get("apps[0].extensions") == {
                "enabled": ["polls", "reactions", "sms-notification", "stickers"], "disabled": []}
            assert str(tab.query_one(DataTable).get_row("stickers")[1]) == "enabled"
            await pilot.press("f2")
            await pilot.pause()
        text = draft_path.read_text(encoding="utf-8")
        assert "      enabled: [polls, reactions, sms-notification, stickers]  # hand comment kept\n" in text
        assert "      disabled: []\n" in text

    asyncio.run(flow())


def test_disabling_a_needed_extension_warns_and_unmanage(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "extensions")
            tab = app.screen.query_one(ExtensionsTab)
            await to_row(pilot, tab, "polls")
            detail = str(tab.query_one("#ext-detail", Static).render())
            assert "Support widget: Enable polls" in detail  # on through the preset
            await pilot.press("d")
            await pilot.pause()
            assert any("needs it" in n.message for n in app._notifications)
            detail = str(tab.query_one("#ext-detail", Static).render())
            assert "error:" in detail and "'polls'" in detail  # the validation problem it causes
            await pilot.press("u")
            await pilot.pause()
            ext = app.editor.session.get("apps[0].extensions")
            assert "polls" not in ext["enabled"] and "polls" not in ext["disabled"]

    asyncio.run(flow())


def test_an_app_without_the_block_gets_one(draft_path: Path) -> None:
    async def flow() -> None:
        app = make_app(draft_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_tab(pilot, "extensions", app_index=1)
            tab = app.screen.query_one(ExtensionsTab)
            assert "Not managed here" in str(tab.query_one("#ext-summary", Static).render())
            await to_row(pilot, tab, "e2ee")
            await pilot.press("d")
            await pilot.pause()
            assert app.editor.session.get("apps[1].extensions") == {"enabled": [], "disabled": ["e2ee"]}

    asyncio.run(flow())
