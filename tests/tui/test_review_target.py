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
        assert screen.sub_title == "profile: production (targets file)"
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

    assert snap_compare(make_app(draft), terminal_size=size, run_before=run_before)
