"""The review and push screen against the in-process sandbox (the `local` profile in a temp data dir)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import painted, settle
from tests.tui.review_fixtures import acme_toggle, pulled_draft


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return pulled_draft(tmp_path, monkeypatch)


def test_review_shows_a_toggle_change_with_its_label_and_push_brings_the_app_in_sync(draft: Path) -> None:
    asyncio.run(_review_and_push(draft))


async def _review_and_push(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        path = acme_toggle(app)
        before = app.editor.get(path)
        assert app.editor.set(path, not before).ok
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None
        (op,) = screen.plan.operations
        assert op.kind == "update_widget" and [c.label for c in op.changes] == ["Allow GIFs"]
        table_text = " ".join(str(cell) for row in screen.query_one("DataTable").rows
                              for cell in screen.query_one("DataTable").get_row(row))
        assert "Allow GIFs (main.send_gifs)" in table_text

        await pilot.press("p")  # unsaved: refused with a notice, nothing pushed
        await settle(pilot, 5)
        assert screen._push_worker is None
        await pilot.press("f2")
        await settle(pilot, 5)
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 5)
        assert "Push complete: 1 applied" in str(screen.query_one("#result").render())
        assert screen.plan is not None and screen.plan.operations == []
        assert str(screen.query_one("#detail").render()) == "", "the pushed row is not shown as still to do"
        assert app.editor.app_states[path.split(".")[0]] == "in sync"

        await pilot.press("f7")  # the history lists the push, and the operation it applied
        await settle(pilot, 5)
        pushes = app.screen.query_one("#pushes")
        assert pushes.row_count == 1 and "complete" in [str(c) for c in pushes.get_row_at(0)]
        await pilot.press("enter")
        await settle(pilot, 5)
        events = [str(pushes_row[0]) for pushes_row in
                  (app.screen.query_one("#operations").get_row_at(i)
                   for i in range(app.screen.query_one("#operations").row_count))]
        assert events == ["applied"]  # the push's recorded outcome per operation


def test_refresh_shows_a_remote_change_as_drift(draft: Path) -> None:
    asyncio.run(_refresh(draft))


async def _refresh(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        path = acme_toggle(app)
        app_id = app.editor.get(path.split(".")[0])["id"]

        async def remote_flip() -> None:
            async with local_target().client() as c:
                (widget,) = await c.list_widgets(app_id)
                main = widget.settings["main"]
                await c.update_widget(app_id, widget.widget_id,
                                      {**widget.settings, "main": {**main, "send_gifs": not main["send_gifs"]}})

        await asyncio.get_running_loop().run_in_executor(None, lambda: asyncio.run(remote_flip()))
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None and not screen.plan.drift
        await pilot.press("r")
        await settle(pilot, 5)
        assert screen.online and [d.path for d in screen.plan.drift] == ["main.send_gifs"]
        assert screen.plan.operations == []


def test_a_conflict_is_settled_both_ways_in_the_review_screen(draft: Path) -> None:
    asyncio.run(_settle_both_ways(draft))


async def _settle_both_ways(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        prefix = acme_toggle(app).split(".main.")[0]
        app_id = app.editor.get(prefix.split(".")[0])["id"]

        async def remote(style: dict[str, str]) -> None:
            async with local_target().client() as c:
                (widget,) = await c.list_widgets(app_id)
                await c.update_widget(app_id, widget.widget_id,
                                      {**widget.settings, "style": {**widget.settings["style"], **style}})

        await asyncio.get_running_loop().run_in_executor(
            None, lambda: asyncio.run(remote({"primary_color": "#222222", "background_color": "#FEDCBA"})))
        assert app.editor.set_many([(f"{prefix}.style.primary_color", "#111111"),
                                    (f"{prefix}.style.background_color", "#ABCDEF")]).ok
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("r")
        await settle(pilot, 5)
        assert screen.plan is not None and len(screen.plan.conflicts) == 2
        table = screen.query_one("DataTable")

        async def settle_row(field: str, key: str) -> None:
            row = next(k for k, ref in screen._rows.items() if ref.conflict is not None and ref.conflict.path == field)
            table.move_cursor(row=table.get_row_index(row))
            await pilot.press(key)
            await settle(pilot, 5)

        await settle_row("style.primary_color", "t")
        assert app.editor.get(f"{prefix}.style.primary_color") == "#222222"
        assert [c.path for c in screen.plan.conflicts] == ["style.background_color"]
        await settle_row("style.background_color", "m")
        assert screen.plan.conflicts == []
        (op,) = screen.plan.operations
        assert [(c.path, c.after) for c in op.changes] == [("style.background_color", "#ABCDEF")]


def test_an_unfinished_push_is_offered_to_be_finished_at_the_next_start(draft: Path) -> None:
    from tenantdeck.sync.workspace.journal import Journal, unfinished_push
    from tenantdeck.sync.workspace.state import Workspace

    journal_dir = Workspace(draft).journal_dir
    assert unfinished_push(journal_dir) is None
    journal = Journal.new(journal_dir, "abc123", beside=draft.parent)
    journal.write("start", plan_hash="abc123", operations=3, counts={})
    journal.write("done", op="x", kind="update_widget", app_id="a", app_name="Acme Support", rid="w")
    journal.close()  # no "end": the process died mid-push
    line = unfinished_push(journal_dir)
    assert line is not None and "stopped before it finished (1 operation(s) recorded as applied)" in line

    async def start() -> list[str]:
        app = TenantdeckApp(draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, 5)
            return [n.message for n in app._notifications]

    messages = asyncio.run(start())
    assert any("stopped before it finished" in m and "F6 then p" in m for m in messages), messages


def test_review_names_each_step_once_and_folds_a_new_widgets_defaults(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20 item 9: no "create app app", no "update widget widget", and a new widget's defaults the draft did
    not set (Custom JS "v2" among them) are one line, as in the CLI's plan."""
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    assert CliRunner().invoke(cli, ["init", str(path)]).exit_code == 0  # the sample: new apps, preset widgets

    async def go() -> list[str]:
        app = TenantdeckApp(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, 5)
            await pilot.press("f6")
            await settle(pilot, 5)
            table = app.screen.query_one("DataTable")
            return [" ".join(str(cell) for cell in table.get_row(row)) for row in table.rows]

    rows = asyncio.run(go())
    text = "\n".join(rows)
    assert "create app" in text and "create app app" not in text and "widget widget" not in text
    assert "create widget" in text
    assert "custom_js" not in text and "at their defaults)" in text


@pytest.mark.parametrize("key", ["f6", "f8"])
def test_the_review_table_fits_the_terminal_again_after_a_resize(draft: Path, key: str) -> None:
    """A row is cut to the width the screen has now, whatever it had when the review (F6) or the problems list (F8)
    opened: widened, the demo's policy warning shows whole; narrowed again, it ends in ``…`` at the edge, as when
    it opened at 80 columns."""
    from tenantdeck.cli.edit_cmd import _demo_policies

    _demo_policies(draft)  # one warning row whose message does not fit 80 columns
    message = "every app keeps the profanity filter on"
    marker = "Initech Field C…" if key == "f6" else "warning"

    def row(pilot: Any) -> str:  # the table's row (the detail line below says it whole)
        (line,) = [line for line in painted(pilot).splitlines()[:-3] if marker in line and "profanity" in line]
        return line.rstrip()

    async def go() -> None:
        app = TenantdeckApp(draft)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, 5)
            await pilot.press(key)
            await settle(pilot, 5)
            if key == "f6":
                assert isinstance(app.screen, ReviewScreen) and app.screen.plan is not None
            else:
                assert isinstance(app.screen, ProblemsScreen)
            narrow, before = row(pilot), painted(pilot)
            assert narrow.endswith("…") and message not in narrow, narrow
            await pilot.resize_terminal(100, 30)
            await settle(pilot)
            assert message in row(pilot), row(pilot)
            await pilot.resize_terminal(80, 24)
            await settle(pilot)
            assert row(pilot) == narrow
            await pilot.press("right", "right", "right")  # nothing to scroll to: no column wider than the screen
            await settle(pilot)
            assert painted(pilot) == before

    asyncio.run(go())


def test_a_refused_draft_value_is_a_refused_row_without_take_keys_or_push(draft: Path) -> None:
    """A trial: a webhook name the draft sets over the 50 characters showed as CONFLICT with t/m and p offered."""
    asyncio.run(_refused_row(draft))


async def _refused_row(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, 5)
        prefix = acme_toggle(app).split(".widgets")[0]
        assert app.editor.set_many([(f"{prefix}.webhooks[0].name", "L" * 60)]).ok
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("r")
        await settle(pilot, 5)
        assert screen.plan is not None and [c.invalid for c in screen.plan.conflicts] == [True]
        assert all(ref.conflict is None for ref in screen._rows.values())
        text = painted(pilot)
        assert "REFUSED" in text and "CONFLICT" not in text
        assert not screen.check_action("settle", ()) and screen.check_action("push", ()) is None


def test_p_on_a_refused_value_says_why_and_enter_on_its_row_goes_to_it(draft: Path) -> None:
    """Trial F, F5: with a refused value (a 60-character webhook name) ``p`` is greyed out and said nothing, and
    Enter on the REFUSED row did nothing. ``p`` names the value and the fix; Enter opens the webhook's form on the
    name, and its F2 fixes the draft (the row goes)."""
    asyncio.run(_refused_says_and_leads(draft))


async def _refused_says_and_leads(draft: Path) -> None:
    from textual.widgets import Input

    from tenantdeck.tui.screens.app_screen import AppScreen
    from tenantdeck.tui.tabs.webhook_form import WebhookForm

    app = TenantdeckApp(draft)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, 5)
        prefix = acme_toggle(app).split(".widgets")[0]
        assert app.editor.set_many([(f"{prefix}.webhooks[0].name", "L" * 60)]).ok
        await pilot.press("f2", "f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.plan is not None and len(screen.plan.refused) == 1
        app.clear_notifications()
        await pilot.press("p")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any("L" * 60 in m and "at most 50 may be sent" in m and "Enter on its REFUSED row" in m
                   for m in said), said
        assert app.screen is screen  # no confirmation: nothing was pushed
        keys = list(screen._rows)
        row = next(k for k, r in screen._rows.items() if r.refused is not None)
        screen.query_one("DataTable").move_cursor(row=keys.index(row))
        await pilot.press("enter")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WebhookForm), app.screen_stack
        name = form.query_one("#wf-name", Input)
        assert name.has_focus and name.value == "L" * 60
        name.value = "Short name"
        await pilot.pause()
        await pilot.press("f2")  # the form's
        await settle(pilot)
        assert isinstance(app.screen, AppScreen)
        assert app.editor.get(f"{prefix}.webhooks[0].name") == "Short name"
        # Escape goes back to the review, and the footer says so (it said "esc Apps": trial F, F26)
        assert [a.binding.description for a in app.screen.active_bindings.values()
                if a.binding.id == "app.back"] == ["Back"]
        await pilot.press("escape")  # the App screen: back to the review, planned again
        await settle(pilot, 5)
        assert app.screen is screen
        assert screen.plan is not None and not screen.plan.refused
        assert not any(r.refused for r in screen._rows.values())


def test_p_with_nothing_to_push_says_so_without_asking(draft: Path) -> None:
    """Trial H: F6 on a draft with no operation to push, then ``p``, asked "Push the draft to the service?" and only
    after yes said "Nothing to push". The plan says there is nothing (``Plan.has_changes``): ``p`` says so, and
    asks nothing."""
    asyncio.run(_nothing_to_push(draft))


async def _nothing_to_push(draft: Path) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        await pilot.press("f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None and not screen.plan.operations
        app.clear_notifications()
        await pilot.press("p")
        await settle(pilot)
        assert app.screen is screen, app.screen_stack  # no confirmation
        said = [str(n.message) for n in app._notifications]
        assert said == ["Nothing to push: the plan has no operation."], said
        assert screen._push_worker is None
