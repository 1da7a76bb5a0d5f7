"""Who hears of a draft change, and how often: every widget with an ``on_draft_changed`` declares
:class:`~tenantdeck.tui.messages.DraftListener` (the app posts only to those), and a save is told once."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import tenantdeck.tui
from tenantdeck.draft.session import Change, ChangeKind
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import prepare


def test_every_handler_of_draft_changes_declares_the_listener() -> None:
    """A widget with the handler but not the declaration would silently hear nothing."""
    handlers = []
    for info in pkgutil.walk_packages(tenantdeck.tui.__path__, "tenantdeck.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and "on_draft_changed" in vars(cls):
                handlers.append(cls)
                assert issubclass(cls, DraftListener), f"{cls.__qualname__} handles DraftChanged undeclared"
    assert len(handlers) >= 10  # the screens and tabs that follow the draft


def test_a_listener_without_the_handler_is_refused_when_declared() -> None:
    with pytest.raises(TypeError, match="on_draft_changed"):
        type("Deaf", (DraftListener,), {})

    class Hears(DraftListener):
        def on_draft_changed(self, message: DraftChanged) -> None:
            pass


def test_one_save_is_one_broadcast(tmp_path: Path) -> None:
    """The session tells its listeners of the save; the app used to post a second DraftChanged of its own."""
    app = make_app(prepare(tmp_path))
    kinds: list[ChangeKind] = []

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            broadcast = app._broadcast

            def counting(change: Change) -> None:
                kinds.append(change.kind)
                broadcast(change)

            app._broadcast = counting  # type: ignore[method-assign]
            assert app.editor.set("apps[1].region", "in").ok
            await pilot.press("f2")
            await pilot.pause()
            assert not app.editor.session.dirty

    asyncio.run(main())
    assert kinds == [ChangeKind.SET, ChangeKind.SAVE]
