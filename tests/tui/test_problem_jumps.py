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


def _demo_rules(draft: Path) -> None:
    """The demo's fleet policies beside ``draft``: Globex has no profanity filter (a cel rule's warning; Acme, with
    an error of the draft, is not judged)."""
    from importlib.resources import files

    draft.with_name("tenantdeck.policies.yaml").write_text(
        files("tenantdeck").joinpath("data/demo.policies.yaml").read_text(encoding="utf-8"), encoding="utf-8")


def test_a_policy_problem_lands_where_the_policies_screen_lands(long_name: Path) -> None:
    """Trial H: F8, Enter on `apps[1] policy profanity-filter-on` (a cel rule: it names no field) opened the app
    on its first tab (Style), while Enter on the same violation from the Policies screen lands on Extensions, on
    the profanity filter's row: both now ask the one rule (FleetPolicies: the rule's cel source says the field)."""
    _demo_rules(long_name)

    async def flow() -> None:
        app = make_app(long_name)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            violation = next(v for v in app.editor.policies.evaluation.violations
                             if v.rule == "profanity-filter-on" and v.app_index == 1)
            from_policies = app.editor.policies.jump_target(violation)
            assert from_policies.tab == "extensions"
            await _problem(pilot, "apps[1]")
            screen = app.screen
            assert isinstance(screen, AppScreen) and screen.app_index == 1, app.screen_stack
            assert screen.query_one("#tabs").active == from_policies.tab
            pane = screen.query_one(f"#{from_policies.tab}")
            assert app.focused is not None and pane in app.focused.ancestors, app.focused

    asyncio.run(flow())


def test_a_problem_of_a_field_no_tab_shows_is_said_not_opened(long_name: Path) -> None:
    """Trial H: F8, Enter on an `apps[1].name` warning opened the app on its Style tab, which has no name field
    (no tab has: the name heads the App screen). The Problems screen says so and points at `e`."""

    async def flow() -> None:
        app = make_app(long_name)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.editor.set("apps[1].name", "Globex \x1b").ok  # a control character: a warning
            await settle(pilot)
            app.clear_notifications()
            await _problem(pilot, "apps[1].name")
            assert isinstance(app.screen, ProblemsScreen), app.screen_stack
            said = [str(n.message) for n in app._notifications]
            assert any("apps[1].name is on no tab of the App screen" in m and "`e`" in m for m in said), said

    asyncio.run(flow())
