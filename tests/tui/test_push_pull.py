"""Pull, partial pushes, retries, cancel and resume, settling every conflict, switching profile and every kind of
network failure, in the editor, against the in-process sandbox (the `local` profile in a temp data dir) or a real
failing endpoint on 127.0.0.1. Nothing of ours is mocked."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.pull_screen import PullScreen
from tenantdeck.tui.screens.push_summary import PushSummaryScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import settle
from tests.tui.review_fixtures import acme_toggle, open_pull
from tests.yamltext import has_id

BATCH = 12


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    for var in ("TENANTDECK_BASE_URL", "TENANTDECK_SANDBOX_FAIL_RATE", "TENANTDECK_SANDBOX_RNG_SEED",
                "TENANTDECK_SANDBOX_LATENCY_MS", "TENANTDECK_SANDBOX_RETRY_AFTER"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


@pytest.fixture
def pulled(isolated: Path) -> Path:
    path = isolated / "tenantdeck.yaml"
    pull_target(local_target(), path)
    return path


@pytest.fixture
def batch(isolated: Path) -> Path:
    """A draft of new apps only: each is one create, and the plan needs no reads beyond the app list."""
    path = isolated / "tenantdeck.yaml"
    apps = "".join(f"  - name: Batch {n:02d}\n    region: us\n" for n in range(BATCH))
    path.write_text(f"format: 1\napps:\n{apps}", encoding="utf-8")
    return path


def sandbox_names() -> Counter[str]:
    async def names() -> Counter[str]:
        async with local_target().client() as c:
            return Counter(a.name for a in await c.list_apps())

    return asyncio.run(names())


async def in_thread(fn: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, fn)


async def open_review(app: TenantdeckApp, pilot: Any, **options: Any) -> ReviewScreen:
    await settle(pilot, 5)
    await pilot.press("f6")
    await settle(pilot, 5)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    screen.request_options = options
    return screen


# -- push: partial failure, retry, cancel and resume -----------------------------------------------------------


def test_a_partial_push_is_summarised_and_retried_to_completion_without_duplicates(
        batch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENANTDECK_SANDBOX_FAIL_RATE", "0.3")
    monkeypatch.setenv("TENANTDECK_SANDBOX_RNG_SEED", "11")
    monkeypatch.setenv("TENANTDECK_SANDBOX_RETRY_AFTER", "0")
    asyncio.run(_partial_then_retry(batch))
    names = sandbox_names()
    assert {n: names[n] for n in names if n.startswith("Batch")} == {f"Batch {n:02d}": 1 for n in range(BATCH)}


async def _partial_then_retry(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(app, pilot, concurrency=1, max_retries=0, retry_base_delay=0.0)
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        result = screen.last_result
        assert result is not None
        counts = result.counts()
        assert counts["applied"] and counts["failed"], counts  # partial: the seed makes it so on every run
        summary = app.screen
        assert isinstance(summary, PushSummaryScreen)
        table = summary.query_one("DataTable")
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        failed = [r for r in rows if r[0] == "FAILED"]
        assert len(failed) == counts["failed"] and all("Hint:" in r[3] for r in failed), failed
        assert "f retries the" in str(summary.query_one("#hint").render())
        applied_first = {r.op.app_name for r in result.results if r.status == "applied"}
        rounds = 0
        while not screen.last_result.complete:
            rounds += 1
            assert rounds <= 10, screen.last_result.summary()
            await pilot.press("f")  # from the summary, then from the review
            await settle(pilot, 5)
            retried = {r.op.app_name for r in screen.last_result.results}
            assert not retried & applied_first  # only what was not applied is sent again
            applied_first |= {r.op.app_name for r in screen.last_result.results if r.status == "applied"}
        assert "Push complete" in str(screen.query_one("#result").render())
        if isinstance(app.screen, PushSummaryScreen):
            await pilot.press("escape")
        await settle(pilot, 5)
        assert screen.plan is not None and screen.plan.operations == []
        assert all(a.get("id") for a in app.editor.get("apps"))


def test_a_cancelled_push_resumes_with_no_duplicates(batch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENANTDECK_SANDBOX_LATENCY_MS", "30")
    applied = asyncio.run(_cancel_then_resume(batch))
    assert 0 < applied < BATCH
    names = sandbox_names()
    assert {n: names[n] for n in names if n.startswith("Batch")} == {f"Batch {n:02d}": 1 for n in range(BATCH)}


async def _cancel_then_resume(draft: Path) -> int:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(app, pilot, concurrency=1)
        seen: list[str] = []

        def clock() -> float:
            """The progress line's clock, read at every push event (in the push's thread): it presses c once
            three creates landed."""
            progress = screen.progress
            if progress is not None and progress.done >= 3 and not seen:
                seen.append(progress.line())
                app.call_from_thread(app.simulate_key, "c")  # the key, as a user presses it mid-push
            return 0.0

        screen.clock = clock  # type: ignore[method-assign]
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        assert seen and "3/12 done" in seen[0]
        first = screen.last_result
        assert first is not None and first.interrupted
        applied = first.counts()["applied"]
        assert "Push interrupted" in str(screen.query_one("#result").render())
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        second = screen.last_result
        assert second is not None and second.complete
        assert second.counts()["applied"] + applied >= BATCH  # an in-flight create is adopted, not sent again
        return applied


# -- conflicts: all of them one way --------------------------------------------------------------------------------


def test_every_conflict_is_settled_one_way_from_the_palette_command(pulled: Path) -> None:
    asyncio.run(_settle_all(pulled))


async def _settle_all(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        apps = app.editor.get("apps")
        i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
        app_id = apps[i]["id"]
        prefix = f"apps[{i}].widgets[0].style"

        async def remote() -> None:
            async with local_target().client() as c:
                (widget,) = await c.list_widgets(app_id)
                style = {**widget.settings["style"], "primary_color": "#222222", "background_color": "#FEDCBA"}
                await c.update_widget(app_id, widget.widget_id, {**widget.settings, "style": style})

        await in_thread(lambda: asyncio.run(remote()))
        assert app.editor.set_many([(f"{prefix}.primary_color", "#111111"),
                                    (f"{prefix}.background_color", "#ABCDEF")]).ok
        screen = await open_review(app, pilot)
        await pilot.press("r")
        await settle(pilot, 5)
        assert screen.plan is not None and len(screen.plan.conflicts) == 2
        from tenantdeck.tui.commands import TenantdeckCommands

        provider = TenantdeckCommands(app.screen)
        commands = {text: run for text, _help, run in provider.sync_commands()}
        assert "Keep mine (all 2 conflicts)" in commands and "Take theirs (all 2 conflicts)" in commands
        commands["Take theirs (all 2 conflicts)"]()
        await settle(pilot, 5)
        assert (app.editor.get(f"{prefix}.primary_color"), app.editor.get(f"{prefix}.background_color")) == (
            "#222222", "#FEDCBA")
        assert screen.plan.conflicts == [] and screen.plan.operations == []
        await pilot.press("ctrl+z")  # one undo step takes both back
        await settle(pilot, 5)
        assert app.editor.get(f"{prefix}.primary_color") == "#111111"
        assert len(screen.plan.conflicts) == 2
        commands = {text: run for text, _help, run in provider.sync_commands()}
        commands["Keep mine (all 2 conflicts)"]()
        await settle(pilot, 5)
        assert screen.plan.conflicts == []
        (op,) = screen.plan.operations
        assert sorted((c.path, c.after) for c in op.changes) == [("style.background_color", "#ABCDEF"),
                                                                 ("style.primary_color", "#111111")]


# -- pull --------------------------------------------------------------------------------------------------------


def test_pull_shows_what_it_changes_and_writes_only_on_y_as_one_undoable_edit(pulled: Path) -> None:
    asyncio.run(_pull(pulled))


async def _pull(draft: Path) -> None:
    text = "# our notes about this account\n" + draft.read_text(encoding="utf-8")
    draft.write_text(text, encoding="utf-8")
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        apps = app.editor.get("apps")
        i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
        path = f"apps[{i}].widgets[0].main.send_gifs"
        before = app.editor.get(path)

        async def remote() -> None:
            async with local_target().client() as c:
                (widget,) = await c.list_widgets(apps[i]["id"])
                main = {**widget.settings["main"], "send_gifs": not before}
                await c.update_widget(apps[i]["id"], widget.widget_id, {**widget.settings, "main": main})
                await c.create_app("Made Elsewhere", "in")

        await in_thread(lambda: asyncio.run(remote()))
        await pilot.press("f5")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, PullScreen) and screen.result is not None
        table = screen.query_one("DataTable")
        rows = [" ".join(str(c) for c in table.get_row_at(n)) for n in range(table.row_count)]
        gifs = next(n for n, r in enumerate(rows)
                    if f"Allow GIFs (main.send_gifs): {str(before).lower()} -> {str(not before).lower()}" in r)
        assert 'widget "Support widget"' in rows[gifs - 1], rows  # the row above names what the field belongs to
        assert any("Made Elsewhere" in r and "added to the draft" in r for r in rows), rows
        assert app.editor.get(path) is before and not app.editor.session.dirty  # shown, not written
        await pilot.press("y")
        await settle(pilot, 5)
        assert not isinstance(app.screen, PullScreen)
        assert app.editor.get(path) is (not before)
        assert app.editor.get("apps")[-1]["name"] == "Made Elsewhere"
        assert app.editor.session.text.startswith("# our notes about this account\n")
        assert draft.read_text(encoding="utf-8") == text  # nothing saved until F2
        await pilot.press("ctrl+z")
        await settle(pilot, 5)
        assert app.editor.session.text == text  # the whole pull was one edit
        await pilot.press("ctrl+y", "f2")
        await settle(pilot, 5)
        key = f"apps[{len(app.editor.get('apps')) - 1}]"
        assert app.editor.app_states[f"apps[{i}]"] == "in sync" and app.editor.app_states[key] == "in sync"
        await pilot.press("f5")
        await settle(pilot, 5)
        assert app.screen.result is not None and app.screen.result.preview.empty


# -- profiles ---------------------------------------------------------------------------------------------------


def test_the_demo_sandbox_has_one_name_in_the_header_and_the_status(pulled: Path, isolated: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`edit --demo`'s header says "profile: demo sandbox"; the pull's status line said "profile local" below it."""
    from tenantdeck.tui.profile import DEMO_SANDBOX_ENV

    monkeypatch.setenv(DEMO_SANDBOX_ENV, str(isolated / "data"))

    async def flow() -> None:
        app = TenantdeckApp(pulled)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_pull(pilot)
            status = str(app.screen.query_one("#status").render())
            assert app.screen.sub_title == "profile: demo sandbox"
            assert "profile demo sandbox" in status and "local" not in status, status

    asyncio.run(flow())


def test_switching_profile_from_the_palette_plans_against_it(pulled: Path, isolated: Path) -> None:
    (isolated / "config").mkdir(exist_ok=True)
    (isolated / "config" / "profiles.yaml").write_text(
        "profiles:\n  nowhere:\n    base_url: http://127.0.0.1:9\n    timeout: 2\n", encoding="utf-8")
    asyncio.run(_switch(pulled))


async def _switch(draft: Path, monkeypatch: Any = None) -> None:
    import os

    os.environ["TENANTDECK_KEY"], os.environ["TENANTDECK_SECRET"] = "k", "s"
    try:
        app = TenantdeckApp(draft)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_review(app, pilot, max_retries=0)
            assert screen.sub_title == "profile: local"
            from tenantdeck.tui.commands import TenantdeckCommands

            commands = {text: run for text, _help, run in TenantdeckCommands(app.screen).sync_commands()}
            commands["Profile: nowhere"]()
            await settle(pilot, 5)
            assert app.editor.profile == "nowhere" and screen.sub_title == "profile: nowhere"
            app._notifications.clear()
            await pilot.press("r")
            await settle(pilot, 5)
            # the draft was pulled from the sandbox: another account is named, plainly, and never read
            status = str(screen.query_one("#status").render())
            assert "was pulled from the sandbox database" in status and "http://127.0.0.1:9" in status, status
            assert not [n for n in app._notifications if n.severity == "error"]
    finally:
        del os.environ["TENANTDECK_KEY"], os.environ["TENANTDECK_SECRET"]


def test_palette_refresh_and_push_open_the_review_first(pulled: Path) -> None:
    asyncio.run(_palette_from_apps(pulled))


async def _palette_from_apps(draft: Path) -> None:
    from tenantdeck.tui.commands import TenantdeckCommands

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        path = acme_toggle(app)
        assert app.editor.set(path, not app.editor.get(path)).ok  # something to push (else p asks nothing)
        await pilot.press("f2")
        await settle(pilot, 5)
        commands = {text: run for text, _help, run in TenantdeckCommands(app.screen).sync_commands()}
        assert {"Review changes", "Refresh from the service", "Push", "Pull from the service"} <= set(commands)
        commands["Refresh from the service"]()
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.online and screen.plan is not None
        commands = {text: run for text, _help, run in TenantdeckCommands(app.screen).sync_commands()}
        commands["Push"]()
        await settle(pilot, 5)
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)  # the push still asks first
        await pilot.press("n")
        await settle(pilot, 5)
        assert app.screen is screen and screen.last_result is None


def test_a_push_writes_new_ids_through_the_open_session_and_keeps_its_undo_history(isolated: Path) -> None:
    """The ids a push is assigned land as one edit of the editor's session (saved), not behind its back: the
    session is not reloaded from disk, so the edits made before the push can still be undone."""
    draft = isolated / "tenantdeck.yaml"
    draft.write_text("format: 1\n# our apps\napps:\n  - name: Fresh One\n    region: us\n", encoding="utf-8")

    async def main() -> None:
        app = TenantdeckApp(draft)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, 5)
            assert app.editor.set("apps[0].region", "eu").ok
            app.action_save()
            await settle(pilot, 5)
            session = app.editor.session
            screen = await open_review(app, pilot)
            await pilot.press("p")
            await pilot.pause()
            await pilot.press("y")
            await settle(pilot, 5)
            assert screen.last_result is not None and screen.last_result.complete
            new_id = app.editor.get("apps[0].id")
            assert new_id and app.editor.session is session and not session.dirty
            assert draft.read_text(encoding="utf-8") == session.text and has_id(session.text, new_id)
            assert "# our apps" in session.text
            session.undo()  # the ids' edit
            assert session.get("apps[0].region") == "eu" and not session.get("apps[0].id", None)
            session.undo()  # the region edit made before the push is still there to undo
            assert session.get("apps[0].region") == "us"

    asyncio.run(main())


def test_a_pull_after_a_push_clears_the_push_line(pulled: Path) -> None:
    """The review kept "Push complete" above the plan after a pull changed the draft (found in a trial): the line
    spoke of an earlier draft as if of this one. A push's own id write-back must not clear it."""

    async def flow() -> None:
        app = TenantdeckApp(pulled)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, 5)
            i = next(n for n, a in enumerate(app.editor.get("apps")) if a["name"] == "Acme Support")
            path = f"apps[{i}].widgets[0].main.send_gifs"
            assert app.editor.set(path, not app.editor.get(path)).ok
            app.editor.set("apps", [*app.editor.get("apps"), {"name": "Made Here", "region": "eu"}])
            app.editor.session.save()
            screen = await open_review(app, pilot, max_retries=0)
            await pilot.press("p")
            await settle(pilot, 5)
            await pilot.press("y")
            await settle(pilot, 10)
            result = screen.query_one("#result")
            assert "Push complete" in str(result.render()), str(result.render())  # ids written back: still shown

            async def remote() -> None:
                async with local_target().client() as c:
                    await c.create_app("Made Elsewhere", "in")

            await in_thread(lambda: asyncio.run(remote()))
            await open_pull(pilot)
            await pilot.press("y")
            await settle(pilot, 5)
            assert app.screen is screen
            assert app.editor.get("apps")[-1]["name"] == "Made Elsewhere"
            assert "Push complete" not in str(result.render()) and screen.last_result is None

    asyncio.run(flow())


def test_a_failed_push_keeps_its_reason_on_the_status_line_in_the_editors_words(
        batch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line said "see the notice" and the notice was gone 5 s later: the status keeps the one-line
    reason itself (escaped), and the hint of a 429 names the profile's max_rps, not --max-rps (no such flag here)."""
    monkeypatch.setenv("TENANTDECK_SANDBOX_FAIL_RATE", "0.97")
    monkeypatch.setenv("TENANTDECK_SANDBOX_RNG_SEED", "4")  # the first failure a 429 (seed 1: a 503)
    monkeypatch.setenv("TENANTDECK_SANDBOX_RETRY_AFTER", "0")

    async def body() -> None:
        app = TenantdeckApp(batch)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            screen = await open_review(app, pilot, max_retries=0, retry_base_delay=0.0)
            await pilot.press("p")
            await pilot.pause()
            await pilot.press("y")
            await settle(pilot, 5)
            status = str(screen.query_one("#status").render())
            assert status.startswith("Not pushed: ") and "HTTP 429" in status and "see the notice" not in status, \
                status
            said = "\n".join(n.message for n in app._notifications)
            assert "HTTP 429" in said and "--max-rps" not in said and "max_rps" in said, said

    asyncio.run(body())


def test_the_push_progress_line_fits_80_columns_with_a_space_after_the_percentage(batch: Path) -> None:
    """At 80 columns the bar's ``0%`` ran into ``0/2 done`` and the ``running:`` part wrapped to a second row: a
    space between them, and the line cut with "…" on its one row."""
    from tenantdeck.tui.screens.review_screen import PushProgressed
    from tests.tui.pilot import painted

    async def body() -> None:
        app = TenantdeckApp(batch)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_review(app, pilot)
            screen.query_one("#progress-row").add_class("-running")
            line = "0/2 done · rate — · ETA — · running: Acme: update webhook, Globex: update widget"
            screen.post_message(PushProgressed(0, 2, line))
            await settle(pilot)
            rows = painted(pilot).splitlines()
            at = next(i for i, row in enumerate(rows) if "0/2 done" in row)
            assert "0% 0/2 done" in rows[at] and rows[at].rstrip().endswith("…"), rows[at]
            assert "webhook" not in rows[at + 1] and "widget" not in rows[at + 1], rows[at + 1]

    asyncio.run(body())
