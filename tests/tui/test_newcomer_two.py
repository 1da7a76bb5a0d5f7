"""Issue 37, "the editor in a newcomer's hands, round two": each item through the real app (Pilot, the in-process
sandbox of the `local` profile in a temp data dir), at 80x24 where the item is about what fits."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.review_screen import ReviewScreen
from tests.tui.pilot import settle


@pytest.fixture
def pulled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sandbox account pulled into a draft (the autouse fixture gives the sandbox its own data dir)."""
    for var in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE", "TENANTDECK_SANDBOX_FAIL_RATE",
                "TENANTDECK_SANDBOX_LATENCY_MS"):
        monkeypatch.delenv(var, raising=False)
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)
    return path


async def _recolour_on_service(app_id: str, colour: str) -> None:
    """A dashboard change: the app's widget gets another primary colour on the service."""
    async with local_target().client() as c:
        (widget,) = await c.list_widgets(app_id)
        style = {**widget.settings["style"], "primary_color": colour}
        await c.update_widget(app_id, widget.widget_id, {**widget.settings, "style": style})


# -- 1. after a pull, the review reflects the new base at once ----------------------------------------------------


@pytest.mark.parametrize("review_open", [True, False], ids=["review-left-open", "review-opened-after"])
def test_after_a_saved_pull_the_review_has_nothing_to_push(pulled: Path, review_open: bool) -> None:
    asyncio.run(_review_after_pull(pulled, review_open))


async def _review_after_pull(draft: Path, review_open: bool) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        apps = app.editor.get("apps")
        acme = next(a for a in apps if a["name"] == "Acme Support")
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: asyncio.run(_recolour_on_service(acme["id"], "#12AB34")))
        if review_open:  # F5 from the review: the pull returns to it, and F2 saves under it
            await pilot.press("f6")
            await settle(pilot, 5)
        await pilot.press("f5")
        await settle(pilot, 5)
        await pilot.press("y")
        await settle(pilot, 5)
        await pilot.press("f2", "f6") if not review_open else await pilot.press("f2")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.plan is not None
        assert not screen.plan.operations, [c.path for s in screen.plan.operations for c in s.changes]
        assert "0 to update" in str(screen.query_one("#status").render())


# -- 2. F8 and validate: one count, one source --------------------------------------------------------------------

POLICIES = """\
format: 1
policies:
  - name: https-webhooks
    check: {field: "webhooks[*].webhookURL", matches: "^https://"}
    message: no webhook points at plain http://
  - name: gifs-off
    severity: warning
    check: {field: "widgets[*].main.send_gifs", equals: false}
    message: no GIFs
"""


def test_f8_counts_what_validate_counts(tmp_path: Path) -> None:
    """A draft whose own problems are one warning (a YAML 1.1 boolean) while its policies break an error rule and
    its targets file names a region that does not exist: F8 says validate's count and lists its lines."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli

    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps:\n  - name: Acme\n    region: us\n    webhooks:\n      - id: h\n"
                     "        name: H\n        webhookURL: https://h.example/a\n        enabled: yes\n"
                     "        triggers: [message_sent]\n", encoding="utf-8")
    (tmp_path / "tenantdeck.policies.yaml").write_text(POLICIES.replace("^https://", "^https://never"),
                                                       encoding="utf-8")
    (tmp_path / "tenantdeck.targets.yaml").write_text(
        "format: 1\ntargets:\n  production:\n    apps:\n      Acme:\n        region: mars\n", encoding="utf-8")
    run = CliRunner().invoke(cli, ["validate", str(draft)])
    said = run.stderr.strip().rsplit("(", 1)[1].rstrip(")")
    assert said == "2 errors, 1 warning", run.stderr
    asyncio.run(_f8_count(draft, said, len(run.stdout.splitlines())))


async def _f8_count(draft: Path, said: str, lines: int) -> None:
    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        await pilot.press("f8")
        await settle(pilot, 5)
        assert str(app.screen.query_one("#summary").render()).startswith(said)
        assert app.screen.query_one("DataTable").row_count == lines


# -- 3. a test event starts the editor's receiver it is sent to --------------------------------------------------


def test_a_test_event_to_the_editors_receiver_starts_it_without_f3(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tui.events_fixtures import DRAFT, LOCAL_HOOK, PASSWORD, USER
    from tests.tui.safety_fixtures import env, prepare

    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("EVENTS_DEMO_HOOK_PW", PASSWORD)
    asyncio.run(_test_event_without_f3(prepare(tmp_path, DRAFT), LOCAL_HOOK, USER, PASSWORD))


async def _test_event_without_f3(draft: Path, hook: str, user: str, password: str) -> None:
    from tenantdeck.tui.event_lab import EventLab
    from tenantdeck.tui.tabs.send_test_event import SendTestEvent
    from tests.tui.pilot import make_app
    from tests.tui.test_events import arrived, open_webhook

    with socket.socket() as sock:  # a port nobody holds: the receiver's configured one
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = make_app(draft)
    lab = EventLab(port, basic_auth=(user, password))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.event_lab = lab
        await settle(pilot)
        assert app.editor.set(f"{hook}.webhookURL", f"http://127.0.0.1:{port}/hooks").ok
        await open_webhook(pilot, 2)
        assert not lab.running  # F3 was never opened
        await pilot.press("t")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, SendTestEvent)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert modal.error is None and modal.result is not None and modal.result.ok, modal.error
        said = "\n".join(n.message for n in app._notifications)
        assert f"Started the editor's receiver on http://127.0.0.1:{port}" in said
        await arrived(pilot, lab, 1)


# -- 6. the new-webhook form at 80x24 ----------------------------------------------------------------------------


def test_the_new_webhook_forms_triggers_are_on_screen_and_space_in_the_filter_toggles(tmp_path: Path) -> None:
    from tests.tui.hooks_fixtures import DRAFT

    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(DRAFT, encoding="utf-8")
    asyncio.run(_webhook_form(draft))


async def _webhook_form(draft: Path) -> None:
    from textual.widgets import Input

    from tenantdeck.tui.tabs.webhook_form import TriggerList, WebhookForm
    from tests.tui.hooks_fixtures import open_tab, type_text
    from tests.tui.pilot import make_app

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_tab(pilot, "webhooks")
        await pilot.press("a")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WebhookForm)
        box = form.query_one(TriggerList)
        head = form.query_one("#wf-triggers-head")
        screen = form.region
        # the heading, the filter and at least three triggers are inside the screen, none scrolled to
        assert head.region.y >= 0 and screen.contains_region(head.region), head.region
        visible = box.region.intersection(box.parent.region)  # type: ignore[union-attr]
        assert visible.height >= 3 and screen.contains_region(visible), (box.region, box.parent.region)
        assert box.parent.scroll_y == 0  # type: ignore[union-attr]
        assert "Space toggles" in str(head.render())
        form.query_one("#wf-filter", Input).focus()
        await type_text(pilot, "group_cr")
        await pilot.press("space")  # the heading says Space toggles: so it does, in the filter too
        await pilot.pause()
        assert form.chosen == ["group_created"]
        assert form.query_one("#wf-filter", Input).value == "group_cr"  # no space typed into the filter
        await pilot.press("space")
        await pilot.pause()
        assert form.chosen == []


# -- 7. cuts at 80 columns end in an ellipsis, never lose the new value -------------------------------------------

LONG_NAME = "Orders from the web shop and the mobile app"  # fits a row whole, the old name beside it does not


def _row_fits(table: object, pilot_width: int) -> None:
    """The table draws within the screen: nothing is cut at its right edge by the terminal."""
    assert table.virtual_size.width <= pilot_width, (table.virtual_size, pilot_width)  # type: ignore[attr-defined]


def test_review_and_pull_rows_keep_the_new_value_at_80_columns(pulled: Path) -> None:
    asyncio.run(_rows_at_80(pulled))


async def _rows_at_80(draft: Path) -> None:
    from tenantdeck.tui.screens.pull_screen import PullScreen

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        apps = app.editor.get("apps")
        i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
        assert app.editor.set(f"apps[{i}].widgets[0].style.primary_color", "#12AB34").ok
        assert app.editor.set(f"apps[{i}].webhooks[0].name", LONG_NAME).ok
        await pilot.press("f2", "f6")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        table = screen.query_one("DataTable")
        texts = [str(table.get_row_at(n)[2]) for n in range(table.row_count)]
        colour = next(t for t in texts if "primary_color" in t or "Primary colour" in t)
        assert colour.endswith('"#03A9F4" -> "#12AB34"'), texts  # the path gave way, marked: "(…)"
        name = next(t for t in texts if LONG_NAME[:10] in t and "->" in t)
        assert name.endswith(f'"{LONG_NAME}"') and "…" in name, name  # the old name is cut, the new one whole
        _row_fits(table, 80)
        table.move_cursor(row=texts.index(name))
        await pilot.pause()
        assert "Order events" in str(screen.query_one("#detail").render())  # the whole row under the table
        # the same change seen from the other side: pushed, then made back on the service and pulled
        await pilot.press("escape")
        await settle(pilot, 5)

        async def remote() -> None:
            async with local_target().client() as c:
                await c.update_webhook(apps[i]["id"], apps[i]["webhooks"][0]["id"], {"name": "Shop orders"})

        await asyncio.get_running_loop().run_in_executor(None, lambda: asyncio.run(remote()))
        await pilot.press("f5")
        await settle(pilot, 5)
        pull = app.screen
        assert isinstance(pull, PullScreen)
        table = pull.query_one("DataTable")
        texts = [str(table.get_row_at(n)[-1]) for n in range(table.row_count)]
        row = next(t for t in texts if "Name" in t and "->" in t)
        assert row.endswith('"Shop orders"') and "…" in row, texts
        _row_fits(table, 80)


def test_a_settings_row_too_long_for_80_columns_ends_in_an_ellipsis(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's list-valued app setting is cut in its row with ``…`` (not by the terminal's edge), whole below."""
    from tenantdeck.cli.edit_cmd import _demo_draft

    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    asyncio.run(_settings_row(_demo_draft()))


async def _settings_row(draft: Path) -> None:
    from tenantdeck.tui.tabs.settings_tab import SettingsTab

    app = TenantdeckApp(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter", "9")
        await settle(pilot)
        tab = app.screen.query_one(SettingsTab)
        table = tab.query_one("DataTable")
        key = "core.notifications.push.advanced.included"
        whole = str(app.editor.get("apps[0].settings")[key])
        row = table.get_row_index(key)
        value = str(table.get_row_at(row)[1])
        assert value.endswith("…") and len(value) < 40, value
        _row_fits(table, 80)
        table.move_cursor(row=row)
        await settle(pilot)
        detail = str(tab.query_one("#settings-detail").render())
        assert "providers.multiple" in detail, (whole, detail)  # whole in the line under the list


# -- 8. wording and small things ------------------------------------------------------------------------------------


def _demo_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from tests.tui.safety_fixtures import env, prepare

    for key, value in env(tmp_path).items():
        monkeypatch.setenv(key, value)
    return prepare(tmp_path)


def _footer(app: TenantdeckApp) -> str:
    from tenantdeck.tui.widgets.footer import KeyFooter

    return app.screen.query_one(KeyFooter).text


def test_small_things(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """F1 counts the tabs from the tab table; the demo is named as the demo's sandbox; Home goes to the first row
    of the extensions; a settings form's title carries the unsaved `*`; the Apps footer says `?` for the keys
    that do not fit, and F1 lists them."""
    draft = _demo_draft(tmp_path, monkeypatch)
    monkeypatch.setenv("TENANTDECK_DEMO_SANDBOX", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    asyncio.run(_small_things(draft))


async def _small_things(draft: Path) -> None:
    from tenantdeck.tui.screens.app_screen import TABS
    from tenantdeck.tui.screens.help_screen import HelpScreen
    from tests.tui.hooks_fixtures import open_tab
    from tests.tui.pilot import make_app

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = _footer(app)
        assert "? More keys" in footer, footer
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        for key in ("`P`", "`p`", "`f3`", "`f5`", "`f7`"):
            assert f"| {key} |" in app.screen.text, key
        await pilot.press("escape")
        await pilot.press("f6")
        await settle(pilot)
        assert app.screen.sub_title == "profile: demo sandbox"
        await pilot.press("escape")
        await open_tab(pilot, "extensions")
        await pilot.press("f1")
        await settle(pilot)
        assert f"`1`-`{len(TABS)}` or `[` / `]`" in app.screen.text and len(TABS) == 9  # type: ignore[attr-defined]
        await pilot.press("escape")
        table = app.screen.query_one("#extensions").query_one("DataTable")
        table.focus()
        await pilot.press("down", "down")
        assert table.cursor_row == 2
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home", "enter")  # the first extension's settings form
        await settle(pilot)
        form = app.screen
        assert type(form).__name__ == "ExtensionSettingsForm" and not form.title.endswith("*")
        assert app.editor.set("apps[0].region", "in").ok  # an unsaved edit
        await settle(pilot)
        assert form.title.endswith(" *"), form.title
        await pilot.press("f2")
        await settle(pilot)
        assert not form.title.endswith("*"), form.title


def test_a_refused_save_offers_dont_save_which_saves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    draft = _demo_draft(tmp_path, monkeypatch)
    asyncio.run(_refused_save(draft))


async def _refused_save(draft: Path) -> None:
    from tenantdeck.tui.widgets.confirm import ConfirmScreen
    from tests.tui.pilot import make_app

    app = make_app(draft)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert app.editor.set("apps[0].region", "in").ok
        on_disk = draft.read_text(encoding="utf-8") + "# someone else\n"
        draft.write_text(on_disk, encoding="utf-8")
        app.safety._declined = None
        await pilot.press("f2")
        await settle(pilot)
        modal = app.screen
        if isinstance(modal, ConfirmScreen) and "changed on disk" in modal.question:  # asked first: keep mine
            await pilot.press("n")
            await pilot.press("f2")
            await settle(pilot)
            modal = app.screen
        assert isinstance(modal, ConfirmScreen) and modal.no_label == "Don't save", modal
        await pilot.press("n")
        await settle(pilot)
        assert draft.read_text(encoding="utf-8") == on_disk and app.editor.session.dirty


def test_f_fix_is_offered_only_when_something_can_be_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    draft = _demo_draft(tmp_path, monkeypatch)
    draft.with_name(f"{draft.stem}.policies.yaml").write_text(
        "format: 1\npolicies:\n  - name: two-hooks\n    check: {cel: \"size(app.webhooks) >= 9\"}\n"
        "    message: many webhooks\n", encoding="utf-8")
    asyncio.run(_no_fix(draft))


async def _no_fix(draft: Path) -> None:
    from tests.tui.pilot import make_app

    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        assert type(app.screen).__name__ == "PoliciesScreen"
        assert "Fix" not in _footer(app), _footer(app)  # a cel rule has no obvious fix


def test_the_readme_says_where_the_cli_is_after_make_run() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## What `make run` shows"):][:1500]
    assert ".venv/bin/tenantdeck" in section


# -- docs/tutorial.md part two, key by key ------------------------------------------------------------------------


def part_two_keys() -> list[str]:
    import re

    text = (Path(__file__).parents[2] / "docs" / "tutorial.md").read_text(encoding="utf-8")
    part = text.split("\n## 5.")[1].split("\n## Next")[0]
    return [k for line in part.splitlines() if line.startswith("Keys: ") for k in re.findall(r"`([^`]+)`", line)]


PART_TWO_KEYS = frozenset({"enter", "space", "escape", "tab", "f2", "f6", "pagedown", "down", "ctrl+z", "ctrl+y"})


@pytest.mark.slow
def test_the_tutorials_second_part_is_what_the_app_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Extension settings, team, app settings, review and push, then the policies loop: each key as the tutorial
    says, what it says checked, and each save changing only what was pointed at."""
    from tenantdeck.cli.edit_cmd import _demo_draft

    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    asyncio.run(_part_two(_demo_draft(), part_two_keys()))


async def _part_two(draft: Path, keys: list[str]) -> None:
    steps = iter(keys)
    app = TenantdeckApp(draft)

    async def press(count: int) -> None:
        for _ in range(count):
            key = next(steps)
            await pilot.press(*([key] if key in PART_TWO_KEYS or len(key) == 1 else list(key)))
            await settle(pilot)

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(2 + 10)  # enter 5, then to the profanity filter's form
        assert type(app.screen).__name__ == "ExtensionSettingsForm" and "Profanity filter" in app.screen.title
        await press(4)  # down a heck enter
        acme = "apps[0]"
        assert app.editor.get(f"{acme}.extension_settings.profanity-filter.badwords") == ["darn", "heck"]
        assert app.screen.title.endswith("*")
        await press(3 + 3)  # f2 escape 8, a zoe enter
        assert "zoe@acme.example" in app.editor.get(f"{acme}.team.admins")
        await press(6)  # 9, four downs, space
        assert app.editor.get(f"{acme}.settings")["core.conversations.updateOnReplies"] is True
        await press(2)  # f2 f6
        assert isinstance(app.screen, ReviewScreen) and app.screen.plan is not None
        assert len(app.screen.plan.operations) == 3
        await press(2)  # p y
        assert app.screen.last_result is not None and app.screen.last_result.complete
        await press(3)  # escape escape P
        assert type(app.screen).__name__ == "PoliciesScreen"
        assert "Fix" not in _footer(app)
        await press(3 + 1)  # down down enter, enter
        assert type(app.screen).__name__ == "AppScreen"
        table = app.screen.query_one("#extensions").query_one("DataTable")
        assert str(table.get_row_at(table.cursor_row)[0]).startswith("Profanity filter")  # the rule's extension
        await press(1)  # e
        assert "profanity-filter" in app.editor.get("apps[2].extensions.enabled")
        await press(2)  # escape escape
        assert "every app complies" in str(app.screen.query_one("#summary").render())
        await press(2)  # ctrl+z ctrl+y
        await press(4)  # f2 f6 p y
        assert app.screen.last_result is not None and app.screen.last_result.complete
        assert next(steps, None) is None  # every key of part two pressed
