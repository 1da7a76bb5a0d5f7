"""At 80x24 the footer shows every key it lists, on every screen and tab (nothing cut off at the right edge)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Footer

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import TABS
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import prepare


def overflow(app: TenantdeckApp) -> tuple[str, int, int]:
    """The footer's keys as text, the width they need and the width the footer has."""
    footer = app.screen.query_one(Footer)
    keys = [child for child in footer.children if child.display]
    needed = sum(child.outer_size.width for child in keys)
    text = "  ".join(str(getattr(child, "description", "")) for child in keys)
    return text, needed, footer.size.width


def test_the_footer_fits_80_columns_on_every_screen_and_tab(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))
    seen: dict[str, tuple[str, int, int]] = {}

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            seen["apps"] = overflow(app)
            await pilot.press("enter")
            await settle(pilot)
            for i, tab in enumerate(TABS, 1):
                await pilot.press(str(i))
                await settle(pilot)
                seen[tab[0]] = overflow(app)
            for key, name in (("f8", "problems"), ("f6", "review"), ("f7", "history")):
                await pilot.press("escape")
                await settle(pilot)
                await pilot.press(key)
                await settle(pilot)
                seen[name] = overflow(app)

    asyncio.run(main())
    assert {"apps", "main", "webhooks", "problems", "review", "history"} <= set(seen)
    too_wide = {name: f"{text} ({needed} > {width})" for name, (text, needed, width) in seen.items()
                if needed > width}
    assert not too_wide
