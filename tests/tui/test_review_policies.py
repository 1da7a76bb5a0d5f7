"""Fleet policies in the editor's review (issue 33 item 7): the violations a push would leave are listed before `p`,
a refused push names the editor's way through (never the CLI's flags), and `v` lets a rule through with a reason
that the history records as `push --allow-violation RULE --reason TEXT` does. Against the in-process sandbox."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import settle
from tests.tui.review_fixtures import acme_toggle, pulled_draft


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return pulled_draft(tmp_path, monkeypatch)


def _rules(draft: Path, value: bool) -> None:
    """One error rule on Acme Support's GIFs toggle, which the draft then breaks, and a warning it breaks too."""
    draft.with_name("tenantdeck.policies.yaml").write_text(f"""\
format: 1
policies:
  - name: acme-gifs
    select: {{names: ["Acme Support"]}}
    check: {{field: "widgets[*].main.send_gifs", equals: {json.dumps(value)}}}
    message: Acme keeps GIFs as agreed
  - name: acme-gifs-note
    select: {{names: ["Acme Support"]}}
    check: {{field: "widgets[*].main.send_gifs", equals: {json.dumps(value)}}}
    severity: warning
    message: a warning on the same toggle
""", encoding="utf-8")


def _text(screen: ReviewScreen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def test_the_review_lists_violations_before_push_and_allows_a_rule_with_a_reason(draft: Path) -> None:
    asyncio.run(_review(draft))


async def _review(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        path = acme_toggle(app)
        before = app.editor.get(path)
        _rules(draft, before)
        assert app.editor.set(path, not before).ok
        await pilot.press("f2")
        await settle(pilot, 5)
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None and not screen.online
        # before p, from the base snapshot: the rule the push would break, and the editor's way through
        policy = _text(screen, "#policy")
        assert "Push refused: it would break acme-gifs (1 app)" in policy and "v: allow a rule" in policy
        assert "Policy warnings: acme-gifs-note (1 app)" in policy
        assert "--" not in policy
        await pilot.press("P")  # the rules and the apps breaking them, one key away
        await settle(pilot)
        assert type(app.screen).__name__ == "PoliciesScreen"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen

        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        status = _text(screen, "#status")
        assert status.startswith("Not pushed: the push would leave 1 violation(s) of acme-gifs"), status
        assert "press v to allow a rule with a reason" in status
        assert "--allow-violation" not in status and "--reason" not in status and "tenantdeck policy" not in status

        await pilot.press("v")
        await settle(pilot)
        modal = app.screen
        assert type(modal).__name__ == "AllowViolationScreen"
        await pilot.press("enter")  # no reason yet: refused in the dialog, as the CLI refuses --allow-violation alone
        await settle(pilot)
        assert app.screen is modal and "a reason is required" in str(modal.query_one("#error").render())
        await pilot.press(*"pilot tenant", "enter")
        await settle(pilot)
        assert app.screen is screen and screen.allowance is not None
        assert screen.allowance.rules == ("acme-gifs",) and screen.allowance.reason == "pilot tenant"
        assert "Allowed (pilot tenant): acme-gifs (1 app)" in _text(screen, "#policy")

        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        assert "Push complete: 1 applied" in _text(screen, "#result")

    history = CliRunner().invoke(cli, ["history", "--draft", str(draft), "--format", "json"])
    record = json.loads(history.stdout)["pushes"][-1]
    assert record["violation_reason"] == "pilot tenant"
    assert [v["rule"] for v in record["allowed_violations"]] == ["acme-gifs"]


def test_allowing_with_no_rule_ticked_says_how_to_tick_one_instead_of_closing() -> None:
    """Found by a newcomer: with two rules nothing is ticked; Enter after a reason closed the dialog doing nothing,
    and the next push was refused again with no hint why."""
    from textual.app import App

    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.view import GateRule
    from tenantdeck.tui.screens.allow_violation import AllowViolationScreen

    got: list[Allowance | None] = []
    rules = [GateRule("one", "error", 1), GateRule("two", "error", 2)]

    async def scenario() -> None:
        app: App[None] = App()
        async with app.run_test(size=(80, 24)) as pilot:
            modal = AllowViolationScreen(rules, None, lambda names, why: Allowance(tuple(names), why.strip()))
            await app.push_screen(modal, got.append)
            await pilot.pause()
            modal.query_one("#reason").focus()
            await pilot.press(*"pilot", "enter")
            await pilot.pause()
            assert app.screen is modal and "no rule is ticked" in str(modal.query_one("#error").render())
            modal.query_one("#rules").focus()
            await pilot.press("space")
            modal.query_one("#reason").focus()
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert got == [Allowance(("one",), "pilot")]


def test_a_policy_row_names_a_renamed_app_as_the_other_rows_do(draft: Path) -> None:
    """Trial H: with an app renamed in the draft, the review named it by the new name in its own rows and by the
    service's old one in its policy row (the rules judge the service's app, which keeps its name)."""
    from importlib.resources import files

    draft.with_name("tenantdeck.policies.yaml").write_text(
        files("tenantdeck").joinpath("data/demo.policies.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    asyncio.run(_renamed(draft))


async def _renamed(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        index = next(i for i, a in enumerate(app.editor.get("apps")) if a["name"] == "Initech Field Chat")
        assert app.editor.set(f"apps[{index}].name", "Initech Renamed").ok
        await pilot.press("f2")
        await settle(pilot, 5)
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None
        named = {(row.app, row.text.split(":")[0]) for row in screen._rows.values() if row.app}
        assert ("Initech Renamed", "policy profanity-filter-on (warning)") in named, named
        assert not any(app_name == "Initech Field Chat" for app_name, _ in named), named
