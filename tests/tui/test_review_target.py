"""The review names the profile it is against and `a` switches it among the configured profiles (issue 25,
item 6): a target of the draft's targets file is planned with its own ids, values and base."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import env

SIZES = [(80, 24), (120, 40)]


def setup(tmp: Path) -> Path:
    """The sandbox account pulled (the draft's own account: `local`), production named in profiles.yaml and in
    the draft's targets file with no ids yet (every app would be created there)."""
    draft = tmp / "tenantdeck.yaml"
    pull_target(local_target(), draft)
    config = tmp / "config"
    config.mkdir(exist_ok=True)
    (config / "profiles.yaml").write_text("profiles:\n  production: {base_url: 'http://127.0.0.1:9'}\n")
    (tmp / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    return draft


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    for var in ("NO_COLOR", "TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    return setup(tmp_path)


def test_a_switches_the_review_between_the_draft_and_its_target(draft: Path) -> None:
    asyncio.run(_switch(draft))


async def _switch(draft: Path) -> None:
    app = make_app(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None
        assert screen.sub_title == "profile: local"
        assert screen.plan.operations == []  # the draft as pulled: nothing to push to its own account
        await pilot.press("a")
        await settle(pilot, 5)
        assert screen.sub_title == "profile: production (target)"
        kinds = {op.kind for op in screen.plan.operations}
        assert "create_app" in kinds  # production has none of the draft's apps yet
        assert screen.plan.operations and all(op.app_id is None for op in screen.plan.operations
                                              if op.kind == "create_app")
        await pilot.press("a")
        await settle(pilot, 5)
        assert screen.sub_title == "profile: local" and screen.plan.operations == []


def test_without_a_second_profile_the_key_is_not_offered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)

    async def go() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, 5)
            await pilot.press("f6")
            await settle(pilot, 5)
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            assert screen.check_action("switch_target", ()) is False
            await pilot.press("a")
            await settle(pilot, 5)
            assert screen.sub_title == "profile: local"

    asyncio.run(go())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review_switched_to_a_target(size: tuple[int, int], snap_compare, tmp_path: Path,  # type: ignore[no-untyped-def]
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    for var in ("NO_COLOR", "TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    draft = setup(tmp_path)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot, 5)
        await pilot.press("f6")
        await settle(pilot, 5)
        await pilot.press("a")
        await settle(pilot, 5)
        pilot.app.clear_notifications()  # the switch's toast times out: a picture must not depend on load
        await settle(pilot, 5)
        # the table sizes its columns to new rows on its next idle, which needs a message to it: moving the cursor
        # (as a user's first key would) sends one, whatever the load
        # (again on each wait: under load the rows can land after the first move); a fresh-clone `make test` beside
        # another suite once needed more than the 5 s this waited before
        table = pilot.app.screen.query_one("DataTable")
        for _ in range(400):
            table.move_cursor(row=0)
            await settle(pilot)
            if table.ordered_columns[0].content_width >= len("Acme Support"):
                break
            await pilot.pause(0.05)
        assert table.ordered_columns[0].content_width >= len("Acme Support"), "the review's table was not sized"
        await pilot.pause()

    assert snap_compare(make_app(draft), terminal_size=size, run_before=run_before)


def test_push_from_the_review_to_a_target_records_its_ids_in_the_targets_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The draft's own account is the in-process sandbox; production is a sandbox served on loopback. Switched to
    production with `a`, the review pushes there: the apps are created, their ids go into the targets file, the
    draft (open in the editor) is untouched."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli
    from tests.loopback import Sandbox
    from tests.sync.test_promote import draft_text

    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    for var in ("NO_COLOR", "TENANTDECK_BASE_URL", "TENANTDECK_PROFILE", "TENANTDECK_KEY", "TENANTDECK_SECRET"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AUDIT_PASSWORD", "pw1")
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    pushed = CliRunner().invoke(cli, ["push", "--draft", str(draft), "--profile", "local", "--yes"])
    assert pushed.exit_code == 0, pushed.stderr
    production = Sandbox(tmp_path / "production.sqlite3")
    values = production.values
    try:
        monkeypatch.setenv("P_KEY", values["TENANTDECK_KEY"])
        monkeypatch.setenv("P_SECRET", values["TENANTDECK_SECRET"])
        config = tmp_path / "config"
        config.mkdir(exist_ok=True)
        (config / "profiles.yaml").write_text(
            f"profiles:\n  production: {{base_url: '{values['TENANTDECK_BASE_URL']}', key_env: P_KEY, "
            "secret_env: P_SECRET}\n")
        targets = tmp_path / "tenantdeck.targets.yaml"
        targets.write_text("format: 1\ntargets:\n  production: {}\n")
        before = draft.read_text()

        async def go() -> None:
            app = make_app(draft)
            async with app.run_test(size=(120, 40)) as pilot:
                await settle(pilot, 5)
                await pilot.press("f6")
                await settle(pilot, 5)
                await pilot.press("a")
                await settle(pilot, 5)
                screen = app.screen
                assert isinstance(screen, ReviewScreen) and screen.plan is not None
                assert any(op.kind == "create_app" for op in screen.plan.operations)
                await pilot.press("p")
                await pilot.pause()
                await pilot.press("y")
                await settle(pilot, 8)
                assert "Push complete" in str(screen.query_one("#result").render())
                assert app.editor.session.text == before

        asyncio.run(go())
        assert draft.read_text() == before
        assert "id: " in targets.read_text()
        assert (tmp_path / "tenantdeck.production.lock.json").is_file()
    finally:
        production.stop()
