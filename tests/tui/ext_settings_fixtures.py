"""Fixtures of the extension settings form: a draft whose first app manages the settings of four extensions (a
profanity list, data masks with a custom one, FCM push with its private key as a reference, a Giphy key) and whose
second manages none, and helpers that open the form from the Extensions tab as a user does (row, then Enter).

The secrets' variables are set or unset per test (``monkeypatch``); the value of a set one is a marker that a test
asserts never reaches the screen."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tenantdeck.models import catalog
from tests.tui.hooks_fixtures import open_tab
from tests.tui.pilot import no_blink, settle

#: also the screenshots' draft (``scripts/screenshots.py`` through :func:`scenes`)
DRAFT = (Path(__file__).parent / "drafts" / "extension-settings.yaml").read_text(encoding="utf-8")

#: the value of the one secret variable that is set: it must never be on a screen
SECRET_VALUE = "sk-live-DO-NOT-SHOW-0f9e8d"
SET_VAR = "TENANTDECK_ACME_SUPPORT_FCM_PRIVATE_KEY"
UNSET_VAR = "TENANTDECK_ACME_SUPPORT_GIPHY_API_KEY"


@pytest.fixture
def ext_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The draft in ``tmp_path``; the FCM key's variable set (to :data:`SECRET_VALUE`), Giphy's not."""
    monkeypatch.setenv(SET_VAR, SECRET_VALUE)
    monkeypatch.delenv(UNSET_VAR, raising=False)
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(DRAFT, encoding="utf-8")
    return path


def scenes() -> dict[str, tuple[str, bool, Callable[[Pilot[None]], Awaitable[None]]]]:
    """The screenshots of the form (``scripts/screenshots.py``, through ``safety_fixtures.scenes``): name ->
    (draft, leave a recovery file first, how to get there)."""

    def shot(ext: str, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
        async def scene(pilot: Pilot[None]) -> None:
            await settle(pilot)
            await open_form(pilot, ext)
            for key in keys:
                await pilot.press(key)
                await settle(pilot)

        return scene

    return {
        "extension-settings-profanity": ("extension-settings", False, shot("profanity-filter", "down")),
        "extension-settings-push": ("extension-settings", False, shot("push-notification", *("down",) * 5)),
        "extension-settings-masking": ("extension-settings", False, shot("data-masking", "down", "down")),
    }


async def open_form(pilot: Pilot[None], ext: str, app_index: int = 0) -> None:
    """The Extensions tab of app ``app_index``, the cursor on ``ext``, Enter: its settings form."""
    await open_tab(pilot, "extensions", app_index)
    table = pilot.app.screen.query_one("#extensions").query_one(DataTable)
    table.move_cursor(row=catalog.EXTENSION_IDS.index(ext))
    table.focus()
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)
    no_blink(pilot)
    await pilot.pause()
