"""The fleet policies of the open draft (``<draft stem>.policies.yaml``): each rule and how many apps break it,
then the apps breaking one rule, with a jump to the field; ``f`` writes the obvious fixes as one undo step.

What is shown comes from :class:`tenantdeck.policies.view.FleetPolicies` (no Textual there); names, values and
messages are the draft's and the rules file's, shown as ``Text`` through :func:`tenantdeck.textsafe.shown`, never
read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from tenantdeck.policies.view import CHECK_WIDTH
from tenantdeck.textsafe import fitted, shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener, PoliciesRead
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.policies.fix import FixPlan
    from tenantdeck.policies.view import FleetPolicies

#: how many edits the fix confirmation lists before "and N more"
SHOWN_EDITS = 200
#: the fewest cells the Message column is left before the Check column gives way, and the fewest the Check keeps
MESSAGE_LEAST, CHECK_LEAST = 22, 16


def _text(value: object) -> Text:
    return Text(shown(str(value)))


class _PoliciesBase(UsesEditor, DraftListener, Screen[None]):
    """What both lists share: the verdict kept up to date with the draft and the rules file."""

    @property
    def fleet(self) -> FleetPolicies:
        return self.editor.policies

    def _refreshed(self) -> None:
        """Bring the verdict up to date, unless the Apps list's worker is evaluating a big draft (then it posts
        :class:`PoliciesRead` when done, and this shows what it has meanwhile)."""
        fleet = self.fleet
        if fleet.busy.acquire(blocking=False):
            try:
                fleet.refresh(self.editor.session.data)
            finally:
                fleet.busy.release()

    def on_draft_changed(self, message: DraftChanged) -> None:
        """Follow the edits; behind a full screen (the App screen opened by a jump) only once it is back: every
        key press there is an edit, and the list may hold thousands of apps."""
        if message.change.kind in ("save", "validate"):
            return
        if self.app.screen is not self and not isinstance(self.app.screen, ModalScreen):
            self._stale_rows = True
            return
        self.refresh_rows()

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale_rows", False):
            self._stale_rows = False
            self.refresh_rows()

    def on_policies_read(self, message: PoliciesRead) -> None:
        self.refresh_rows()

    def refresh_rows(self) -> None:
        raise NotImplementedError

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``f`` is offered only when there is something it would write (the footer asks once per draft version)."""
        if action != "fix":
            return True
        version = self.editor.session.version
        cached = getattr(self, "_fixable", None)
        if cached is None or cached[0] != version:
            try:
                fixable = bool(self.fleet.plan_fixes(self.editor.session.data).edits)
            except Exception:  # a rules file that cannot be read: the summary says why; f then says so too
                fixable = True
            self._fixable = cached = (version, fixable)
        return cached[1]

    def action_fix(self) -> None:
        """Plan ``policy fix`` on the draft as it is now, list the edits, write them as one undo step on yes."""
        plan = self.fleet.plan_fixes(self.editor.session.data)
        if not plan.edits:
            left = len(plan.left)
            self.notify("Nothing to fix: " + (f"{left} violation(s) have no obvious fix (matches, count and cel "
                                              "checks, or a rule without `fix:`)." if left else "every app complies."),
                        title="Fleet policies")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._apply(plan)

        self.app.push_screen(FixConfirmScreen(plan), answered)

    def _apply(self, plan: FixPlan) -> None:
        from tenantdeck.policies.fix import fix_edits

        edits = fix_edits(plan)
        outcome = self.editor.apply(edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not fixed", severity="error")
            return
        self.notify(f"Wrote {len(edits)} fix(es) as one edit (ctrl+z undoes them all).", title="Fleet policies")


class PoliciesScreen(_PoliciesBase):
    """Enter lists the apps breaking the highlighted rule; ``f`` fixes what has an obvious fix."""

    HELP = """\
## Fleet policies

The rules in the policies file beside the draft (`<draft>.policies.yaml`, see docs/policies.md) and how many of
the apps each rule is about break it, evaluated on the draft as you edit it (a push is refused while an `error`
rule is broken). Problems of the rules file itself (a rule that does not compile, or that could not be evaluated
on an app) are listed below the rules, at their line; the other rules still run.

- `Enter`: the apps breaking the rule, each with a jump to its field
- `f`: fix: write the obvious fixes (`equals`, `one_of`, `forbidden`, `same`, a rule's `fix:` value) into the
  draft as one edit, after a confirmation listing them; `ctrl+z` takes it back
- `Tab`: between the rules and the file's problems
- `Escape`: back
"""
    DEFAULT_CSS = """
    PoliciesScreen #summary { padding: 0 1; height: auto; }
    PoliciesScreen #rules { height: 1fr; }
    PoliciesScreen #problems { height: auto; max-height: 7; border-top: solid $warning; }
    PoliciesScreen #detail { height: auto; max-height: 5; border-top: solid $primary; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="policies.back"),
        Binding("f", "fix", "Fix", id="policies.fix"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("", id="summary", markup=False)
        yield RowTable(id="rules", cursor_type="row", zebra_stripes=True)
        yield RowTable(id="problems", cursor_type="row")
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#rules", DataTable).add_columns("Rule", "Severity", "Check", "Apps", "Message")
        self.query_one("#problems", DataTable).add_columns("Where", "Problem in the rules file")
        self.sub_title = "Fleet policies"
        self.refresh_rows()
        self.query_one("#rules", DataTable).focus()

    def refresh_rows(self) -> None:
        self._refreshed()
        fleet = self.fleet
        rules = self.query_one("#rules", DataTable)
        current = rules.cursor_row if rules.row_count else 0
        rules.clear()
        self._rules = fleet.rule_rows()
        if (check_width := self._check_width()) < CHECK_WIDTH:
            self._rules = fleet.rule_rows(check_width)
        room = self._message_room()
        broken = self.editor.unreadable()  # no verdict ("0 of 0", "every app complies") on a draft not read
        for r in self._rules:
            rules.add_row(_text(r.name), r.severity, _text(r.check_cell), "-" if broken else r.apps_text,
                          Text(fitted(shown(r.message), room)), key=r.name)  # whole in the detail line
        if self._rules:
            rules.move_cursor(row=min(current, len(self._rules) - 1))
        problems = self.query_one("#problems", DataTable)
        problems.clear()
        self._problems = fleet.problem_rows()
        from tenantdeck.tui.widgets.columns import last_column_room

        room = last_column_room(self.size.width or self.app.size.width,
                                [["Where", *(shown(p.location) for p in self._problems)]])
        for i, p in enumerate(self._problems):
            problems.add_row(_text(p.location), Text(fitted(shown(p.text), room)), key=str(i))
        problems.display = bool(self._problems)
        self.query_one("#summary", Static).update(shown(broken or fleet.summary()))
        self._show_detail()

    def _check_width(self) -> int:
        """The Check column's cells: its usual width, less what the Message column needs to say something (at 80
        columns the message had 7 cells, "no webh…"), never under :data:`CHECK_LEAST`."""
        both = self._room_beside([""])  # the Check and Message columns together, the Check counted empty
        return max(CHECK_LEAST, min(CHECK_WIDTH, both - MESSAGE_LEAST))

    def _message_room(self) -> int:
        """The cells the Message column has at this width, beside the rule, severity, check and apps columns."""
        return self._room_beside(["Check", *(shown(r.check_cell) for r in self._rules)])

    def _room_beside(self, check: list[str]) -> int:
        from tenantdeck.tui.widgets.columns import last_column_room

        columns = [["Rule", *(shown(r.name) for r in self._rules)], ["Severity", *(r.severity for r in self._rules)],
                   check, ["Apps", *(r.apps_text for r in self._rules)]]
        return last_column_room(self.size.width or self.app.size.width, columns)

    def _show_detail(self) -> None:
        """The highlighted rule's or problem's text in full (the table cuts it at 80 columns)."""
        detail = self.query_one("#detail", Static)
        focused = self.focused
        if focused is self.query_one("#problems", DataTable) and self._problems:
            row = self._problems[min(focused.cursor_row, len(self._problems) - 1)]  # type: ignore[union-attr]
            detail.update(shown(f"{row.where}: {row.text}"))
            return
        table = self.query_one("#rules", DataTable)
        if not self._rules:
            detail.update("")
            return
        r = self._rules[min(table.cursor_row, len(self._rules) - 1)]
        # each line shown on its own: the check and the message are the rules file's, and cannot add a line
        detail.update(Text(shown(f"{r.name} ({r.severity}): {r.check}") + "\n"
                           + shown(f"{r.message} · {r.apps_text} apps break it")))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def on_descendant_focus(self) -> None:
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "problems":
            row = self._problems[int(event.row_key.value or 0)]
            self.notify(f"{row.where}: fix it in the rules file; it is read again when it changes on disk.",
                        title="Rules file")
            return
        name = event.row_key.value
        if name is not None:
            self.app.push_screen(PolicyAppsScreen(name))


class PolicyAppsScreen(_PoliciesBase):
    """The apps breaking one rule; Enter opens the app on the tab holding the field, with the focus in it."""

    HELP = """\
## Apps breaking a rule

Each app that breaks the rule: where (the field inside the app) and what it holds. The list follows your edits.

- `Enter`: open the app on the tab holding the field, with the focus in it (`Escape` there comes back here)
- `f`: fix every rule's obvious violations (as on the Policies screen), one undo step
- `Escape`: back to the rules
"""
    DEFAULT_CSS = """
    PolicyAppsScreen #summary { padding: 0 1; height: auto; }
    PolicyAppsScreen DataTable { height: 1fr; }
    PolicyAppsScreen #detail { height: auto; max-height: 4; border-top: solid $primary; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="policy_apps.back"),
        Binding("f", "fix", "Fix", id="policy_apps.fix"),
    ]

    def __init__(self, rule: str) -> None:
        super().__init__()
        self.rule = rule

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("", id="summary", markup=False)
        yield RowTable(id="violations", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("App", "Where", "Found", "Message")
        self.sub_title = f"Policy {shown(self.rule)}"
        self.refresh_rows()
        self.query_one(DataTable).focus()

    def refresh_rows(self) -> None:
        self._refreshed()
        table = self.query_one(DataTable)
        current = table.cursor_row if table.row_count else 0
        table.clear()
        self._rows = self.fleet.violation_rows(self.rule)
        for i, row in enumerate(self._rows):
            v = row.violation
            table.add_row(_text(v.app_name), _text(row.where), _text(row.found or "-"), _text(v.message), key=str(i))
        if self._rows:
            table.move_cursor(row=min(current, len(self._rows) - 1))
        rule = next((r for r in self.fleet.rule_rows() if r.name == self.rule), None)
        if broken := self.editor.unreadable():  # no verdict on a draft that was not read
            text, rule = broken, None
        elif rule is None:
            text = f"No rule {self.rule} in {self.fleet.path.name} now."
        else:
            text = (f"{rule.name} ({rule.severity}): {rule.violating} of {rule.selected} apps break it"
                    + ("" if rule.violating else " · every app complies"))
            text = shown(text) + "\n" + shown(f"check: {rule.check}")
        self.query_one("#summary", Static).update(Text(shown(text) if rule is None else text))
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#detail", Static)
        if not self._rows:
            detail.update("")
            return
        row = self._rows[min(self.query_one(DataTable).cursor_row, len(self._rows) - 1)]
        v = row.violation
        found = f" ({v.said})" if row.found else ""
        detail.update(shown(f"{v.app_name}: {row.where}: {v.message}{found}"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        row = self._rows[int(event.row_key.value or 0)]
        target = self.fleet.jump_target(row.violation)
        self.host.open_app(target.app_index, target.tab, target.key_path if target.tab else None)


class FixConfirmScreen(ModalScreen[bool]):
    """The edits ``f`` would write, listed; ``y`` writes them (one undo step), ``n`` or Escape does not."""

    DEFAULT_CSS = """
    FixConfirmScreen { align: center middle; }
    FixConfirmScreen > Vertical { width: 76; max-width: 100%; height: auto; max-height: 90%; padding: 0 1;
                                  border: thick $warning; background: $surface; }
    FixConfirmScreen VerticalScroll { height: auto; max-height: 14; }
    FixConfirmScreen #question { padding-top: 1; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Write the fixes", id="policy_fix.yes"),
        Binding("n,escape", "answer(False)", "Cancel", id="policy_fix.no"),
    ]

    def __init__(self, plan: FixPlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        edits = self.plan.edits
        lines = [shown(e.text()) for e in edits[:SHOWN_EDITS]]
        if len(edits) > SHOWN_EDITS:
            lines.append(f"... and {len(edits) - SHOWN_EDITS} more")
        left = len(self.plan.left)
        with Vertical():
            yield Static(f"Write {len(edits)} fix(es) into the draft as one edit?", markup=False)
            with VerticalScroll():
                yield Static(Text("\n".join(lines)), id="edits")
            yield Static(("" if not left else f"{left} violation(s) have no obvious fix and stay. ")
                         + "y writes (ctrl+z undoes), n or Escape cancels.", id="question", markup=False)
        yield KeyFooter()

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
