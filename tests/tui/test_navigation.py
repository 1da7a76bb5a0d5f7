"""The app satisfies the small protocol screens use instead of importing it, and navigation opens each screen."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

from tenantdeck.tui import navigation
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.host import EditorHost
from tests.tui.pilot import make_app, painted, settle
from tests.tui.safety_fixtures import prepare


def test_the_app_has_every_member_of_the_host_protocol() -> None:
    members = [name for name in dir(EditorHost) if not name.startswith("_")]
    members += list(EditorHost.__annotations__)
    assert {"editor", "open_app", "action_save"} <= set(members)
    app = TenantdeckApp.__new__(TenantdeckApp)  # no Textual setup needed to read the class's members
    for name in members:
        if name in EditorHost.__annotations__:
            continue  # attributes are set in __init__; checked below on a running app
        assert callable(getattr(app, name, None)), f"TenantdeckApp lacks {name}"
        wanted = inspect.signature(getattr(EditorHost, name)).parameters
        have = inspect.signature(getattr(TenantdeckApp, name)).parameters
        assert list(wanted) == list(have), f"{name}: {list(have)} != {list(wanted)}"


@pytest.mark.parametrize("name", ["help", "problems", "review", "pull", "history", "events", "bulk_edit",
                                  "presets"])
def test_show_opens_the_screen_once(name: str, tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            for field in EditorHost.__annotations__:
                assert hasattr(app, field), field
            navigation.show(app, name)
            await settle(pilot)
            assert len(app.screen_stack) == 2, app.screen_stack
            if name != "help":  # help describes what is under it: F1 there is help on help
                navigation.show(app, name)
                await settle(pilot)
                assert len(app.screen_stack) == 2, app.screen_stack  # already on top: not opened twice

    asyncio.run(main())


#: what each screen the F-keys and the palette open names itself in the title bar (after the draft's name)
TITLES = {"problems": "Problems", "history": "History", "events": "Events", "bulk_edit": "Bulk edit",
          "policies": "Fleet policies"}


def test_each_screen_names_itself_in_the_title_bar(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            for name, title in TITLES.items():
                navigation.show(app, name)
                await settle(pilot)
                top = painted(pilot).splitlines()[0]
                assert top.strip().endswith(f".yaml — {title}"), (name, top)
                app.pop_screen()
                await settle(pilot)

    asyncio.run(main())
