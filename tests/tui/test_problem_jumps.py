"""Jumps from the Problems list (F8, Enter) to the field of a problem, through the real app.

Trial F found two faults of that jump: a webhook form it opened dropped its F2 (F6: the form's result went to the
Problems screen, closed by then), and it stacked a second App screen over the open one, so the App footer's
"esc Apps" led back to the first one on its old tab (F26).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tenantdeck.tui.tabs.webhook_form import WebhookForm
from tests.tui.hooks_fixtures import DRAFT
from tests.tui.pilot import make_app, settle

LONG = "N" * 60  #: a webhook name longer than the 50 characters a push may send: a warning in the draft


@pytest.fixture
def long_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Webhooks tab's draft with webhook ``orders`` named with 60 characters (its F6 repro)."""
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("AUDIT_PASSWORD", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(DRAFT.replace("name: Order events", f"name: {LONG}", 1), encoding="utf-8")
    return path


async def _problem(pilot: object, key_path: str) -> None:
    """F8, then the cursor on the problem at ``key_path`` and Enter."""
    app = pilot.app  # type: ignore[attr-defined]
    await pilot.press("f8")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ProblemsScreen)
    paths = [p.key_path for p in screen._problems]
    screen.query_one(DataTable).move_cursor(row=paths.index(key_path))
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]


def test_a_webhook_form_opened_from_problems_saves_its_edit(long_name: Path) -> None:
    """F6: F8, Enter on the webhook name's warning opens the webhook's form; F2 there edits the draft, as the
    same form opened from the Webhooks tab does (before the fix: the form closed, nothing changed, no word)."""

    async def flow() -> None:
        app = make_app(long_name)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await _problem(pilot, "apps[0].webhooks[0].name")
            form = app.screen
            assert isinstance(form, WebhookForm)
            name = form.query_one("#wf-name", Input)
            assert name.has_focus and name.value == LONG
            name.value = "Hook One"
            await pilot.pause()
            await pilot.press("f2")
            await settle(pilot)
            assert isinstance(app.screen, AppScreen)
            assert app.editor.session.get("apps[0].webhooks[0].name") == "Hook One"
            assert app.editor.session.dirty
            assert any("Webhook orders changed" in str(n.message) for n in app._notifications)
            await pilot.press("f2")  # the draft's F2: saved to the file
            await settle(pilot)
        assert "name: Hook One\n" in long_name.read_text(encoding="utf-8")

    asyncio.run(flow())


def test_a_jump_from_problems_reuses_the_open_app_screen(long_name: Path) -> None:
    """F26: Apps, Enter (Acme), 7 (Webhooks), F8, Enter on an SMS problem: Acme on its SMS tab, one App screen;
    Escape ("esc Apps") reaches the apps list."""

    async def flow() -> None:
        app = make_app(long_name)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.editor.set("apps[0].sms.messageDelay", -5).ok  # an error on the SMS tab
            await pilot.press("enter", "7")
            await settle(pilot)
            first = app.screen
            assert isinstance(first, AppScreen) and first.query_one("#tabs").active == "webhooks"
            await _problem(pilot, "apps[0].sms.messageDelay")
            assert app.screen is first, app.screen_stack  # the same screen, not a second one over it
            assert [type(s) for s in app.screen_stack] == [AppsScreen, AppScreen]
            assert first.query_one("#tabs").active == "sms"
            assert getattr(app.focused, "id", "") == "sms-messageDelay", app.focused
            assert [a.binding.description for a in app.screen.active_bindings.values()
                    if a.binding.id == "app.back"] == ["Apps"]  # what Escape leads to (nothing typed yet)
            await pilot.press("escape")  # out of the field: takes back nothing typed
            await settle(pilot)
            if isinstance(app.screen, AppScreen):
                await pilot.press("escape")
                await settle(pilot)
            assert isinstance(app.screen, AppsScreen), app.screen_stack

    asyncio.run(flow())


def test_a_jump_from_problems_to_another_app_replaces_the_open_one(long_name: Path) -> None:
    """From Globex's App screen, F8, Enter on a problem of Acme's: Acme's screen in place of Globex's, so Escape
    reaches the apps list, not Globex."""

    async def flow() -> None:
        app = make_app(long_name)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.open_app(1)
            await settle(pilot)
            assert isinstance(app.screen, AppScreen) and app.screen.app_index == 1
            await _problem(pilot, "apps[0].webhooks[0].name")
            assert isinstance(app.screen, WebhookForm)
            assert [type(s) for s in app.screen_stack] == [AppsScreen, AppScreen, WebhookForm]
            assert app.screen_stack[1].app_index == 0  # type: ignore[attr-defined]
            await pilot.press("escape")  # the form, cancelled
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, AppsScreen), app.screen_stack

    asyncio.run(flow())
