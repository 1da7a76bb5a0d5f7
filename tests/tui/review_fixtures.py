"""What the review screen's tests share: a draft pulled from the in-process sandbox (the `local` profile in a temp
data dir) and the path of Acme Support's GIFs toggle, the field they change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp


def pulled_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo account pulled into ``tmp_path/tenantdeck.yaml``, with the data and config dirs in ``tmp_path``."""
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)
    return path


def acme_toggle(app: TenantdeckApp) -> str:
    apps = app.editor.get("apps")
    index = next(i for i, a in enumerate(apps) if a["name"] == "Acme Support")
    return f"apps[{index}].widgets[0].main.send_gifs"


async def set_gifs_on_the_service(app_id: str, value: bool) -> None:
    """Another admin sets Acme's GIFs toggle to ``value`` on the service (the in-process sandbox), on a loop of its
    own in another thread, while the running editor's loop waits for it."""
    import asyncio

    async def change() -> None:
        async with local_target().client() as client:
            (widget,) = await client.list_widgets(app_id)
            main = {**widget.settings["main"], "send_gifs": value}
            await client.update_widget(app_id, widget.widget_id, {**widget.settings, "main": main})

    await asyncio.get_running_loop().run_in_executor(None, lambda: asyncio.run(change()))


async def open_pull(pilot: Any) -> Any:
    """F5 once the app has settled, as a user presses it: the Pull screen, its reading of the service done."""
    from tenantdeck.tui.screens.pull_screen import PullScreen
    from tests.tui.pilot import settle

    await settle(pilot, 5)
    await pilot.press("f5")
    await settle(pilot, 5)
    screen = pilot.app.screen
    assert isinstance(screen, PullScreen) and screen.result is not None
    return screen
