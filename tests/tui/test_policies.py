"""Fleet policies in the editor (issue 26): the Apps list's badges follow the edits, the Policies screen lists the
rules and the rules file's problems at their lines, Enter drills down and jumps to the field with the focus in it,
``f`` writes the obvious fixes as one undo step, and a rules file changed on disk is read again."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from tenantdeck.tui.screens.policies_screen import CHECK_LEAST
from tests.tui.pilot import make_app, settle
from tests.tui.policies_fixtures import POLICIES
from tests.tui.safety_fixtures import prepare


def synchronous(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async pilot test to its end (as the other TUI tests do with ``asyncio.run``)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def _badges(app: Any) -> dict[str, str]:
    """App name -> the Policy cell of its row on the Apps list."""
    from tenantdeck.tui.screens.apps_screen import POLICY_COLUMN, AppsScreen

    screen = next(s for s in app.screen_stack if isinstance(s, AppsScreen))
    table = screen.query_one(DataTable)
    if POLICY_COLUMN not in table.columns:
        return {}
    return {str(table.get_cell(key, table.ordered_columns[1].key)): str(table.get_cell(key, POLICY_COLUMN))
            for key in table.rows}


def _cells(table: DataTable[Any]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


@synchronous
async def test_badges_follow_edits_and_undo(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert _badges(app) == {"Acme EU": "✗1", "Acme US": "", "Globex": "✗1 !1", "Initech": "", "Umbrella": "",
                                "Hooli": "✗1"}
        assert app.editor.set("apps[1].widgets[0].main.send_gifs", True).ok
        await settle(pilot)
        assert _badges(app)["Acme US"] == "✗1"
        assert app.editor.set("apps[2].widgets[0].style.primary_color", "#000000").ok
        await settle(pilot)
        assert _badges(app)["Globex"] == "✗1"
        await pilot.press("ctrl+z", "ctrl+z")
        await settle(pilot)
        assert _badges(app)["Acme US"] == "" and _badges(app)["Globex"] == "✗1 !1"


@synchronous
async def test_badges_catch_up_after_editing_in_the_app_screen(tmp_path: Path) -> None:
    """Edits made while the App screen covers the list are evaluated when the list is back (only those apps)."""
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.open_app(0, "main")
        await settle(pilot)
        assert app.editor.set("apps[0].widgets[0].main.send_gifs", False).ok
        await settle(pilot)
        fleet = app.editor.policies
        assert fleet.stale  # noted, not evaluated while the list is hidden
        await pilot.press("escape")
        await settle(pilot)
        assert _badges(app)["Acme EU"] == ""
        assert not fleet.stale


async def open_policies(pilot: Any) -> None:
    """The Policies screen, opened from the Apps list once the draft is validated."""
    await settle(pilot)
    await pilot.press("P")
    await settle(pilot)


@synchronous
async def test_policies_screen_lists_rules_and_located_problems(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_policies(pilot)
        screen = app.screen
        assert type(screen).__name__ == "PoliciesScreen"
        rules = _cells(screen.query_one("#rules", DataTable))
        assert [r[0] for r in rules] == ["no-gifs", "brand-colour", "our-hook-host", "one-webhook", "team-admins"]
        assert rules[0][1:4] == ["error", "…main.send_gifs equals false", "2 of 6"]
        assert rules[3][2] == "size(app.webhooks) <= 1"
        assert rules[1][3] == "1 of 6" and rules[2][3] == "1 of 6" and rules[3][3] == "0 of 6"
        # the rules file's message, bracket and all, is shown as written, never read as markup
        # (cut with "…" to the 100 columns, issue 37 item 7; the detail line under the list has it whole)
        message = "the primary colour is one of the brand's [not markup]"
        assert rules[1][4].endswith("…") and message.startswith(rules[1][4][:-1])
        problems = _cells(screen.query_one("#problems", DataTable))
        assert problems[0][0] == "line 23" and "sms-provider" in problems[0][1] and "does not compile" in problems[0][1]
        # a rule that raises on every app is said once, at its line, with how many more apps
        assert problems[1][0] == "line 20" and "team-admins" in problems[1][1] and problems[1][1].endswith("…")
        assert "(and 5 more apps)" in screen._problems[1].text  # whole in the detail line, cut with "…" above
        assert len(problems) == 2


@synchronous
async def test_drill_down_and_jump_to_the_field(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_policies(pilot)
        await pilot.press("enter")  # no-gifs
        await settle(pilot)
        assert type(app.screen).__name__ == "PolicyAppsScreen"
        rows = _cells(app.screen.query_one(DataTable))
        assert [r[:3] for r in rows] == [["Acme EU", "widgets[0].main.send_gifs", "true"],
                                         ["Globex", "widgets[0].main.send_gifs", "true"]]
        await pilot.press("down", "enter")  # Globex
        await settle(pilot)
        from tenantdeck.tui.screens.app_screen import AppScreen

        screen = app.screen
        assert isinstance(screen, AppScreen) and screen.app_index == 2
        assert screen.query_one("#tabs").active == "main"  # type: ignore[attr-defined]
        assert app.focused is not None and app.focused.id == "main-send_gifs"
        await pilot.press("space")  # the focused toggle: the fix is one key away
        await settle(pilot)
        assert app.editor.get("apps[2].widgets[0].main.send_gifs") is False
        await pilot.press("escape")  # back to the drill-down, which follows the edit
        await settle(pilot)
        assert type(app.screen).__name__ == "PolicyAppsScreen"
        assert [r[0] for r in _cells(app.screen.query_one(DataTable))] == ["Acme EU"]


@synchronous
async def test_jump_to_a_webhook(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_policies(pilot)
        await pilot.press("down", "down", "enter")  # our-hook-host
        await settle(pilot)
        assert [r[:2] for r in _cells(app.screen.query_one(DataTable))] == [["Hooli", "webhooks[0].webhookURL"]]
        await pilot.press("enter")
        await settle(pilot)
        from tenantdeck.tui.screens.app_screen import AppScreen

        under = app.screen_stack[-2]
        assert isinstance(under, AppScreen) and under.app_index == 5
        assert under.query_one("#tabs").active == "webhooks"  # type: ignore[attr-defined]
        # the webhook's form opens on the URL, focused: what is typed next replaces the value at fault
        assert type(app.screen).__name__ == "WebhookForm"
        assert app.focused is not None and "webhookURL" in str(app.focused.id)


@synchronous
async def test_fix_is_one_undo_step(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_policies(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert type(app.screen).__name__ == "FixConfirmScreen"
        listed = str(app.screen.query_one("#edits").render())
        assert 'app "Acme EU": widgets[0].main.send_gifs: set to false (policy no-gifs)' in listed
        assert "primary_color: set to '#03A9F4' (policy brand-colour)" in listed
        await pilot.press("n")  # cancelled: nothing written
        await settle(pilot)
        assert app.editor.get("apps[0].widgets[0].main.send_gifs") is True and not app.editor.session.dirty
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        session = app.editor.session
        assert session.get("apps[0].widgets[0].main.send_gifs") is False
        assert session.get("apps[2].widgets[0].main.send_gifs") is False
        assert session.get("apps[2].widgets[0].style.primary_color") == "#03A9F4"
        rules = _cells(app.screen.query_one("#rules", DataTable))
        assert rules[0][3] == "0 of 6" and rules[1][3] == "0 of 6"
        assert rules[2][3] == "1 of 6"  # a matches rule has no obvious fix: left as it was
        await pilot.press("ctrl+z")  # one undo step takes all three back
        await settle(pilot)
        assert session.get("apps[0].widgets[0].main.send_gifs") is True
        assert session.get("apps[2].widgets[0].main.send_gifs") is True
        assert session.get("apps[2].widgets[0].style.primary_color") == "#FF5722"
        assert not session.can_undo
        assert _cells(app.screen.query_one("#rules", DataTable))[0][3] == "2 of 6"
        await pilot.press("escape")
        await settle(pilot)
        assert _badges(app)["Acme EU"] == "✗1"


CONTAINS_RULE = """\
format: 1
policies:
  - name: profanity-on
    select: {names: ["Hooli"]}
    check: {field: extensions.enabled, contains: profanity-filter}
    message: Hooli keeps the profanity filter on
"""


@synchronous
async def test_a_contains_fix_adds_to_a_flow_list(tmp_path: Path) -> None:
    """A trial's `f` `y` on a `contains` rule wrote `enabled: profanity-filter` over `enabled: [push-notification]`
    (the list lost, the draft invalid) while `tenantdeck policy fix` added to it: the editor now writes the
    CLI's edits."""
    draft = prepare(tmp_path, POLICIES)
    text = draft.read_text(encoding="utf-8")
    block = "    enabled:\n    - polls\n    - reactions\n    - stickers\n    - widget\n"
    assert block in text
    draft.write_text(text.replace(block, "    enabled: [polls, reactions, stickers, widget]\n"), encoding="utf-8")
    draft.with_name(f"{POLICIES}.policies.yaml").write_text(CONTAINS_RULE, encoding="utf-8")
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_policies(pilot)
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        hooli = next(i for i, a in enumerate(app.editor.get("apps")) if a["name"] == "Hooli")
        want = ["polls", "reactions", "stickers", "widget", "profanity-filter"]
        assert app.editor.get(f"apps[{hooli}].extensions.enabled") == want
        assert not [p for p in app.editor.session.problems if p.is_error]


@synchronous
async def test_rules_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    draft = prepare(tmp_path, POLICIES)
    app = make_app(draft)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert _badges(app)["Hooli"] == "✗1"
        rules = draft.with_name(f"{POLICIES}.policies.yaml")
        rules.write_text("format: 1\npolicies:\n  - name: gifs-on\n    check: {field: \"widgets[*].main.send_gifs\", "
                         "equals: true}\n    severity: warning\n    message: GIFs on\n", encoding="utf-8")
        app.safety.check_disk()
        await settle(pilot)
        assert _badges(app) == {"Acme EU": "", "Acme US": "!1", "Globex": "", "Initech": "!1", "Umbrella": "!1",
                                "Hooli": ""}
        rules.unlink()
        app.safety.check_disk()
        await settle(pilot)
        assert _badges(app) == {}  # no rules: no Policy column


@synchronous
async def test_no_rules_file(tmp_path: Path) -> None:
    """A draft without policies: empty badges, and the screen says where rules go."""
    draft = prepare(tmp_path, POLICIES)
    draft.with_name(f"{POLICIES}.policies.yaml").unlink()
    app = make_app(draft)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert _badges(app) == {}  # no Policy column
        await pilot.press("P")
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "No rules" in summary and f"{POLICIES}.policies.yaml" in summary
        await pilot.press("f")
        await settle(pilot)
        assert type(app.screen).__name__ == "PoliciesScreen"  # nothing to confirm


@synchronous
async def test_palette_opens_the_policies_and_tab_shows_a_problem_located(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path, POLICIES))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"Policies")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "PoliciesScreen"
        await pilot.press("tab")  # into the rules file's problems: the detail says where, file:line:column
        await settle(pilot)
        detail = str(app.screen.query_one("#detail").render())
        assert detail.startswith(f"{POLICIES}.policies.yaml:23:18: rule sms-provider: the CEL expression does not "
                                 "compile")


def test_a_big_draft_is_evaluated_in_a_worker(tmp_path: Path, monkeypatch: Any) -> None:
    """At POLICIES_IN_BACKGROUND apps (lowered here to 1) the full evaluation runs off the UI thread; edits after it
    are evaluated app by app as usual."""
    import threading

    from tenantdeck.policies.view import FleetPolicies
    from tenantdeck.tui.screens import apps_screen

    monkeypatch.setattr(apps_screen, "POLICIES_IN_BACKGROUND", 1)
    threads: list[tuple[bool, bool]] = []
    refresh = FleetPolicies.refresh

    def spy(self: FleetPolicies, data: Any) -> set[int]:
        threads.append((self.needs_full, threading.current_thread() is threading.main_thread()))
        return refresh(self, data)

    monkeypatch.setattr(FleetPolicies, "refresh", spy)

    async def run() -> None:
        app = make_app(prepare(tmp_path, POLICIES))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert _badges(app)["Globex"] == "✗1 !1"
            assert threads[0] == (True, False)  # the full evaluation: in a worker thread
            assert app.editor.set("apps[1].widgets[0].main.send_gifs", True).ok
            await settle(pilot)
            assert _badges(app)["Acme US"] == "✗1"
            assert threads[-1] == (False, True)  # one app, on the UI thread

    asyncio.run(run())


#: cel checks for the jump tests: a violation of one names no field, so the jump follows the expression
CEL_RULES = """\
format: 1
policies:
  - name: gifs-off-cel
    check: {cel: "app.widgets.all(w, w.main.send_gifs == false)"}
    message: GIFs stay off
  - name: no-webhooks-cel
    select: {names: ["Hooli"]}
    check: {cel: "size(app.webhooks) == 0"}
    message: Hooli sends no webhooks
  - name: sms-cel
    select: {names: ["Hooli"]}
    check: {cel: "has(app.sms) && app.sms.messageDelay >= 0"}
    message: Hooli has SMS
  - name: profanity-cel
    select: {names: ["Hooli"]}
    check: {cel: "has(app.extensions) && 'profanity-filter' in app.extensions.enabled"}
    message: Hooli keeps the profanity filter on
"""


async def _jump_from_rule(pilot: Any, app: Any, rule_row: int) -> Any:
    """Enter on rule ``rule_row`` of the Policies screen, then Enter on its first violating app: the App screen."""
    await open_policies(pilot)
    await pilot.press(*["down"] * rule_row, "enter")
    await settle(pilot)
    assert type(app.screen).__name__ == "PolicyAppsScreen"
    await pilot.press("enter")
    await settle(pilot)
    from tenantdeck.tui.screens.app_screen import AppScreen

    screen = next(s for s in reversed(app.screen_stack) if isinstance(s, AppScreen))
    return screen


@synchronous
async def test_a_cel_violation_opens_the_tab_of_the_first_field_it_reads(tmp_path: Path) -> None:
    """Issue 33 item 7: Enter on an app breaking a cel check opened the Style tab ("this app has no widget"); it
    opens the tab of the first field the expression reads, focused on that field's row."""
    draft = prepare(tmp_path, POLICIES)
    draft.with_name(f"{POLICIES}.policies.yaml").write_text(CEL_RULES, encoding="utf-8")
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _jump_from_rule(pilot, app, 0)  # gifs-off-cel: Acme EU first
        assert screen.app_index == 0
        assert screen.query_one("#tabs").active == "main"
        assert app.focused is not None and app.focused.id == "main-send_gifs"


@synchronous
async def test_a_cel_violation_about_webhooks_or_sms_opens_that_tab(tmp_path: Path) -> None:
    draft = prepare(tmp_path, POLICIES)
    draft.with_name(f"{POLICIES}.policies.yaml").write_text(CEL_RULES, encoding="utf-8")
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _jump_from_rule(pilot, app, 1)  # no-webhooks-cel: Hooli
        assert screen.app_index == 5 and screen.query_one("#tabs").active == "webhooks"
        await pilot.press("escape")  # the App screen, back to the drill-down
        await settle(pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        screen = await _jump_from_rule(pilot, app, 2)  # sms-cel: Hooli has no SMS
        assert screen.app_index == 5 and screen.query_one("#tabs").active == "sms"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        screen = await _jump_from_rule(pilot, app, 3)  # profanity-cel: on that row, not the first
        assert screen.app_index == 5 and screen.query_one("#tabs").active == "extensions"
        table = screen.query_one("#extensions").query_one("DataTable")
        assert app.focused is table and table.cursor_row > 0
        row = table.get_row_at(table.cursor_row)
        assert str(row[0]).startswith("Profanity filter"), row


HOSTILE_CHECKS = """\
format: 1
policies:
  - name: long-cel
    check:
      cel: >-
        app.name != '[b]not markup[/b]' &&
        app.webhooks.all(w, w.enabled || w.webhookURL.startsWith('https://hooks.example.com/'))
    message: a long expression, over two lines of the file
  - name: escaped
    check: {field: "webhooks[*].webhookURL", matches: "\\e"}
    severity: warning
    message: a control character in the pattern
"""


@synchronous
async def test_the_policies_screen_shows_each_rules_check(tmp_path: Path) -> None:
    """Issue 33 item 7: the Policies screen showed only a check's kind (``cel``); it shows the check itself, escaped,
    cut to fit 80 columns, and the focused rule's in full under the list."""
    draft = prepare(tmp_path, POLICIES)
    draft.with_name(f"{POLICIES}.policies.yaml").write_text(HOSTILE_CHECKS, encoding="utf-8")
    app = make_app(draft)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_policies(pilot)
        screen = app.screen
        rules = _cells(screen.query_one("#rules", DataTable))
        long_cel = "app.name != '[b]not markup[/b]' && app.webhooks.all(w, w.enabled || w.webhookURL.startsWith(" \
                   "'https://hooks.example.com/'))"
        assert rules[0][2].endswith("…") and long_cel.startswith(rules[0][2][:-1])
        full, cell = "webhooks[*].webhookURL matches \\x1b", rules[1][2]
        assert (cell.endswith("…") and full.startswith(cell[:-1])) or (cell.startswith("…") and full.endswith(cell[1:]))
        # at 80 columns the Check gives way so the Message says something (it had 7 cells: "no webh…")
        assert all(len(row[2]) >= CHECK_LEAST and len(row[4]) >= 15 for row in rules), rules
        assert "\x1b" not in "".join(rules[1]) and "\x1b" not in str(screen.query_one("#detail").render())
        detail = str(screen.query_one("#detail").render())
        assert detail.splitlines()[0] == f"long-cel (error): {long_cel}"[:len(detail.splitlines()[0])]
        assert "[b]not markup[/b]" in detail and long_cel.replace(" ", "") in detail.replace(" ", "").replace("\n", "")
        await pilot.press("down")
        await settle(pilot)
        detail = str(screen.query_one("#detail").render())
        assert detail.startswith("escaped (warning): webhooks[*].webhookURL matches \\x1b\n")


@synchronous
async def test_no_verdict_on_a_draft_that_cannot_be_read(tmp_path: Path) -> None:
    """The draft broken on disk and reloaded: the Policies screen said "every app complies" over "0 of 0" and the
    review "Plan: 0 to create"; both now say the draft cannot be read (Editor.unreadable), with no counts."""
    draft = prepare(tmp_path, POLICIES)
    app = make_app(draft)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.safety.check_disk()
        draft.write_text(draft.read_text() + "apps: [\n")
        app.safety.check_disk()
        await settle(pilot)
        assert app.editor.session.read_only
        await pilot.press("P")
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "cannot be read as a draft" in summary and "complies" not in summary, summary
        assert all(r[3] == "-" for r in _cells(app.screen.query_one("#rules", DataTable)))
        await pilot.press("escape", "f6")
        await settle(pilot)
        assert type(app.screen).__name__ == "ReviewScreen"
        status = str(app.screen.query_one("#status").render())
        assert "cannot be read as a draft" in status and "Plan" not in status, status
        assert app.screen.query_one(DataTable).row_count == 0
