"""The editor's way to the browser preview (issue 39): ``v`` on an App screen and the palette start it, the URL is
copied (OSC 52) and said, and the page follows the editor's unsaved edits. The page itself: tests/preview/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tenantdeck.tui import browser_preview
from tenantdeck.tui.commands import TenantdeckCommands
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import prepare
from tests.tui.test_safety import notices, run

pytestmark = pytest.mark.e2e


def entries(app: Any) -> dict[str, Any]:
    return {text: command for text, _help, command in TenantdeckCommands(app.screen).contextual()}


def test_v_on_an_app_serves_its_widget_and_the_page_follows_unsaved_edits(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))

    async def body(pilot: Any) -> None:
        assert "Browser preview" not in entries(app), "offered on an App screen only"
        app.open_app(0)
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        server = browser_preview.server_of(app)
        try:
            assert server is not None and server.running
            assert app.clipboard == server.url
            assert server.url in notices(app) and "OSC 52" in notices(app)
            async with httpx.AsyncClient(timeout=30) as client:
                first = (await client.get(server.url)).text
                assert "Acme Support" in first and "rgb(0, 128, 0)" not in first
                app.editor.set("apps[0].widgets[0].style.primary_color", "#008000")
                assert "rgb(0, 128, 0)" in (await client.get(server.url)).text, "the unsaved edit, not the file"
            assert not server.allow_network
            entries(app)["Browser preview: images from the network"]()
            assert server.allow_network and browser_preview.server_of(app) is server, "one server per session"
        finally:
            browser_preview.stop_preview(app)
        assert not server.running

    run(app, body)
