"""Review what a push would change, refresh it against the live service, and push it, without leaving the editor.

The plan is the engine's (:mod:`tenantdeck.sync.remote.engine`: ``plan_draft`` on the editor's unsaved text, then
``prepare_push`` / ``push`` for the real thing); this screen only renders it. Network work runs in workers, so
the screen never freezes; every failure (unreachable, 401, 429 after retries, timeout, malformed answer) becomes
a notification with the typed error's hint.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar, Static
from textual.worker import Worker

from tenantdeck.sync.render import step_label
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftListener
from tenantdeck.tui.profile import profile_label
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.notices import problem_text
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.view import PolicyGate
    from tenantdeck.problems import Problem
    from tenantdeck.sync.events import PushEvent
    from tenantdeck.sync.plan import Plan
    from tenantdeck.sync.progress import PushProgress
    from tenantdeck.sync.remote.push import PushResult
    from tenantdeck.sync.review import ReviewRow, Where
    from tenantdeck.sync.types import Conflict

#: how many operations the result area under the status lists after a push (``s`` lists every one)
RESULT_LINES = 4


def applied_lines(result: PushResult, limit: int = RESULT_LINES) -> str:
    """What a push did, one line per operation (its outcome, app and step, labelled as the plan labels it), so the
    review says which settings went out, not only how many: the first ``limit``, failures first, then a count."""
    from tenantdeck.sync.workspace.history import OUTCOME

    order = {"failed": 0, "not_attempted": 1, "applied": 2}
    ranked = sorted(result.results, key=lambda r: order.get(r.status, 3))  # stable: plan order within each
    lines = [shown(f"  {OUTCOME.get(r.status, r.status):<13} {r.op.app_name}: {step_label(r.op, app_named=True)}")
             for r in ranked[:limit]]
    if len(ranked) > limit:
        lines.append(f"  and {len(ranked) - limit} more (s lists them all)")
    return "\n".join(lines)


class PushProgressed(Message):
    """Posted by the push thread: operations done of total and the progress line to show."""

    def __init__(self, done: int, total: int, line: str) -> None:
        super().__init__()
        self.done, self.total, self.line = done, total, line


class ReviewScreen(UsesEditor, DraftListener, RefitOnResize, Screen[None]):
    """``r`` reads the live service, ``p`` pushes, ``d`` turns deletes on or off, ``c`` cancels a running push."""

    HELP = """\
## Review and push

What a push would change, grouped by app, each field with its label: `+` create, `~` update, `-` delete.
The list opens from the base snapshot (no network); `r` reads the live service and adds **drift** (changed on
the service, kept) and **conflicts** (both sides changed a field differently: settle them in the draft).

- `r`: refresh against the service
- `p`: push (asks first; the draft must be saved; with no operation planned it says so, asking nothing). It is
  greyed out while a value of the draft is one the push refuses (a REFUSED row; `p` then says which, and `Enter`
  on the row goes to it) or a variable the push needs is unset: the line under the status names each `${VAR}` and
  where the draft uses it (set it in the shell that runs the editor, then start it again)
- `d`: include deletions of what is gone from the draft
- fleet policies (`<draft>.policies.yaml`): the line under the status names each rule the account would break after
  the push; while an `error` rule is broken the push is refused. `v` lets error rules through this push with a
  reason (the history records both, as `push --allow-violation RULE --reason TEXT` does); `P` lists the rules and
  the apps breaking them
- `a`: review against the next profile (staging, production, ...): the plan is made again against it
- `c`: cancel a running push (the journal keeps what was applied; pushing again finishes the job)
- `f`: after a push that did not finish, retry only its failed and not attempted operations (no duplicates: the
  plan is made again from what the journal and the base recorded)
- `s`: the last push's summary: applied, failed (the service's reason and a hint), not attempted
- on a conflict: `t` takes the service's value into the draft (an edit you can undo), `m` keeps yours (the push
  sends it over the live one); the palette (ctrl+p) settles all of them one way
- `Enter`: go to the field in the editor (on a REFUSED row, the field holding the value to fix)

While a push runs, the line above the list shows operations done of total, the rate, the time left and the
operations running; when it ends, each operation it sent with its outcome (`s` lists them all, with reasons).
The header names the profile the review plans against, with `(target)` when that profile is one of the draft's
targets (`<draft>.targets.yaml`: its own ids, values and base). `a` switches the review to the next configured
profile (also in the palette, ctrl+p); the key shows when profiles.yaml names more than one.
"""
    BINDINGS = [
        Binding("escape", "back", "Back", id="review.back"),
        Binding("r", "refresh", "Refresh", id="review.refresh"),
        Binding("p", "push", "Push", id="review.push"),
        # the same key while Push is greyed out: Textual runs no action of a greyed key (it tries the key's next
        # binding), and the key said nothing (trial F, F5); this one says why (``action_push``'s checks)
        Binding("p", "push_off", show=False),
        Binding("c", "cancel_push", "Cancel push", id="review.cancel"),
        Binding("t", "settle('theirs')", "Theirs", id="review.take_theirs"),
        Binding("m", "settle('mine')", "Mine", id="review.take_mine"),
        Binding("f", "retry", "Retry", id="review.retry"),
        Binding("s", "summary", "Summary", show=False, id="review.summary"),
        Binding("d", "toggle_deletes", "Deletes", id="review.deletes"),
        Binding("a", "switch_target", "Target", id="review.target"),
        Binding("v", "allow", "Allow rule", id="review.allow"),
        Binding("P", "policies", "Policies", show=False, id="review.policies"),
    ]
    #: a key typed ahead of the plan that needs it (``r t``: take the service's value of a conflict the refresh
    #: finds) waits for it instead of being dropped (tui/key_order.py)
    KEYS_WAIT_FOR: ClassVar[dict[str, str]] = {"plan": "planning"}
    #: the clock of the progress line's rate and ETA (a snapshot test fixes it)
    clock: Callable[[], float] = staticmethod(time.monotonic)
    DEFAULT_CSS = """
    ReviewScreen #status { height: auto; padding: 0 1; }
    ReviewScreen #needs { height: auto; padding: 0 1; color: $warning; display: none; }
    ReviewScreen #needs.-shown { display: block; }
    ReviewScreen #policy { height: auto; max-height: 4; padding: 0 1; color: $warning; display: none; }
    ReviewScreen #policy.-shown { display: block; }
    ReviewScreen #result { height: auto; max-height: 7; padding: 0 1; color: $text-muted; }
    ReviewScreen #progress-row { height: auto; display: none; padding: 0 1; }
    ReviewScreen #progress-row.-running { display: block; }
    ReviewScreen #running { width: 1fr; height: 1; padding-left: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    ReviewScreen DataTable { height: 1fr; }
    ReviewScreen #detail { height: auto; max-height: 6; padding: 0 1; border-top: solid $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.plan: Plan | None = None
        self.online = False
        self.allow_delete = False
        self._rows: dict[str, ReviewRow] = {}  #: the shown rows by table key (the engine's review model)
        self._push_worker: Any = None
        self._push_loop: asyncio.AbstractEventLoop | None = None
        self._cancel_requested = False
        self._push_task: asyncio.Task[Any] | None = None
        #: extra PushRequest fields (concurrency, max_retries, retry_base_delay): tests and benchmarks
        self.request_options: dict[str, Any] = {}
        self.last_result: PushResult | None = None
        #: the draft's text when the last push's line was shown: a later edit or pull makes that line history (the
        #: text, not ``version``: a validation bumps that without changing the draft)
        self._result_text: str | None = None
        self.progress: PushProgress | None = None
        #: the ``${VAR}``s the shown plan sends and the environment does not set (the engine's
        #: ``missing_secrets``), placed at FILE:LINE: while there are any, push is greyed out
        self.missing: list[Problem] = []
        #: the profiles ``a`` cycles through (read once: the footer asks on every refresh)
        self.targets: list[str] = []
        #: the error rules the user lets through the next push, and why (``v``); None: none
        self.allowance: Allowance | None = None
        #: what the fleet policies say of the shown plan (:func:`tenantdeck.policies.view.policy_gate`)
        self.gate: PolicyGate | None = None

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("Planning from the base snapshot ...", id="status", markup=False)
        yield Static("", id="needs", markup=False)
        yield Static("", id="policy", markup=False)
        yield Static("", id="result", markup=False)
        with Horizontal(id="progress-row"):
            yield ProgressBar(id="progress", show_eta=False)
            yield Static("", id="running", markup=False)
        yield RowTable(id="plan", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        from tenantdeck.targets import profile_names

        try:
            self.targets = profile_names()
        except Exception:  # a broken profiles.yaml: the palette says where when asked
            self.targets = []
        self.show_target()
        self.query_one(DataTable).add_columns(*self.COLUMNS)
        self.make_plan(online=False)

    def show_target(self) -> None:
        """The header names the profile this review is against, and the targets file when it is one of its
        targets (the draft with that account's ids and values, compared with that account's own base)."""
        from tenantdeck.draft.target_overrides import has_section, targets_path
        from tenantdeck.tui.profile import profile_subtitle

        title = profile_subtitle(self.editor.profile)
        try:
            if has_section(self.editor.path, self.editor.profile):
                title += " (target)"
        except Exception:  # a broken targets file: planning says where
            title += f" ({targets_path(self.editor.path).name} has errors)"
        self.sub_title = title

    def follow_profile(self) -> None:
        """The profile changed (``a``, or the palette): name it, and plan again against it unless pushing."""
        self.show_target()
        if not self.pushing:
            self.make_plan(online=self.online)

    def action_switch_target(self) -> None:
        """Review against the next configured profile (the palette's switch, one key away)."""
        from tenantdeck.tui.profile import current_profile, switch_to

        if len(self.targets) < 2 or self.pushing:
            return
        current = current_profile(self.editor.profile)
        following = self.targets[(self.targets.index(current) + 1) % len(self.targets)] \
            if current in self.targets else self.targets[0]
        switch_to(self.app, self.editor, following)

    def client_options(self) -> dict[str, Any]:
        """The client settings of :attr:`request_options` (retries), for the reads a refresh makes."""
        return {k: v for k, v in self.request_options.items() if k in ("max_retries", "retry_base_delay")}

    @property
    def pushing(self) -> bool:
        return self._push_worker is not None and not self._push_worker.is_finished

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing right now are left out of the footer (it must fit 80 columns)."""
        if action == "cancel_push":
            return self.pushing
        if action == "settle":
            return bool(self.plan and self.plan.settleable)  # a refused value: no t/m
        if action == "retry":
            return self.last_result is not None and not self.last_result.complete and not self.pushing
        if action == "summary":
            return self.last_result is not None
        if action == "switch_target":
            return len(self.targets) > 1 and not self.pushing
        if action == "push" and self.plan and self.plan.refused and not self.pushing:
            return None  # a refused draft value (REFUSED row): the push would be refused; fix the draft first
        if action == "push" and self.missing and not self.pushing:
            return None  # shown greyed with the reason beside it (#needs), not refused after the confirmation
        if action == "push_off":
            return self.check_action("push", ()) is None
        if action == "allow":
            gate = self.gate
            return bool(self.allowance or (gate and gate.pushes and gate.errors)) and not self.pushing
        return True

    # -- planning ------------------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def make_plan(self, online: bool) -> None:
        from tenantdeck.policies.gate import gate_for
        from tenantdeck.sync.remote.engine import PushRefused, plan_draft

        target = None
        if self.editor.unreadable():  # no plan, and no "Plan: 0", for a draft that was not read
            self.app.call_from_thread(self._show_unreadable)
            return
        try:
            if online:
                from tenantdeck.sync.workspace.binding import resolve_for_draft

                target = resolve_for_draft(self.editor.path, self.editor.profile)
            # the session's validated models and problems, not its text parsed and validated again (~575 ms of
            # an 860 ms plan at 1,000 apps); the text of that same moment
            loaded = self.editor.session.load_result()
            text = loaded.doc.text if loaded is not None else self.editor.session.text
            result = asyncio.run(plan_draft(self.editor.path, os.environ, text=text, loaded=loaded,
                                            reuse=self.editor.kept_states(), target=target,
                                            allow_delete=self.allow_delete,
                                            client_options=self.client_options(), profile=self.editor.profile,
                                            gate=gate_for(self.editor.path)))
        except Exception as exc:  # ApiError, ProfileError, OSError: one notification each
            self.app.call_from_thread(self.notify, problem_text(exc), title="Could not plan", severity="error",
                                      markup=False)
            return
        if isinstance(result, PushRefused):
            if result.kind == "wrong_target":  # another account than the draft's: say which, plainly
                self.app.call_from_thread(self._show_status, f"Not compared: {result.lines[0]}")
                return
            first = result.problems[0].render() if result.problems else result.summary
            self.app.call_from_thread(self._show_status, f"The draft has errors (F8): {first}")
            return
        where = f"profile {profile_label(target.name)}" if target else ""
        self.app.call_from_thread(self.show_plan, result, online, where)

    def _show_status(self, text: str) -> None:
        self.query_one("#status", Static).update(shown(text))  # quotes problems and the service's words

    def _show_unreadable(self) -> None:
        """The draft cannot be read (Editor.unreadable): the last plan's rows go, the status says why."""
        self._rows = {}
        self.query_one(DataTable).clear()
        self.query_one("#detail", Static).update("")
        self._show_status(self.editor.unreadable() or "The draft changed; plan again (r).")

    def show_plan(self, plan: Plan, online: bool, where: str) -> None:
        """Render the engine's review rows (:func:`tenantdeck.sync.review.review_rows`): the same symbols, labels
        and lines the CLI prints."""
        from tenantdeck.sync.review import review_rows, review_status

        if self.editor.unreadable():  # the draft broke while this plan was made
            self._show_unreadable()
            return

        self.plan, self.online = plan, online
        table = self.query_one(DataTable)
        # the row under the cursor says itself again (RowHighlighted) if the new plan has one; an empty plan would
        # leave the last plan's row there, as if it were still to do
        self.query_one("#detail", Static).update("")
        self._rows = {row.key: row for row in review_rows(plan)}
        self._fill_rows(table)
        status = review_status(plan, online=online, where=where, allow_delete=self.allow_delete)
        if self.editor.session.dirty:
            status += " The draft has unsaved edits (F2 saves; a push needs them saved)."
        self._show_status(status)
        self._show_missing(plan)
        self._show_policies(plan)
        self.refresh_bindings()

    #: the table's columns: the app, the step's symbol, what it does
    COLUMNS = ("App", "", "What")

    def refresh_rows(self) -> None:
        """The shown plan's rows cut again to the screen's width (it was resized), the cursor on the same row."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        self._fill_rows(table)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))

    def _fill_rows(self, table: RowTable) -> None:
        """The rows cut to the screen's width with ``…``, a changed field's new value kept whole (the row in full
        is the detail line's): :func:`tenantdeck.sync.review.fitted_cells`. The columns are made again too: a
        column only ever widens, so rows cut for a narrower screen ran past its edge with no ``…``."""
        from tenantdeck.sync.review import fitted_cells

        table.clear(columns=True)
        table.add_columns(*self.COLUMNS)
        rows = list(self._rows.values())
        width = self.size.width or self.app.size.width
        if len(rows) >= table.size.height:  # a vertical scrollbar (the header takes a line)
            width -= table.styles.scrollbar_size_vertical
        # data, each cell already shown(); added at once, measured and its scrollbar shown in the frame that shows them
        table.append_rows(([Text(cell) for cell in cells], row.key)
                          for row, cells in zip(rows, fitted_cells(rows, width), strict=True))

    def _show_policies(self, plan: Plan) -> None:
        """The rules the account would break after this push, before ``p`` (the engine's pre-push evaluation, in
        the plan's notes), with the editor's way through: each line its own, escaped."""
        from tenantdeck.policies.view import policy_gate

        self.gate = gate = policy_gate(plan.notes, self.allowance, pushes=bool(plan.operations))
        lines = gate.lines()
        panel = self.query_one("#policy", Static)
        panel.set_class(bool(lines), "-shown")
        panel.update(Text("\n".join(shown(line) for line in lines)))

    def action_allow(self) -> None:
        """Tick the error rules this push may break and say why (checked and recorded as the CLI's
        ``--allow-violation RULE --reason TEXT``)."""
        from tenantdeck.policies.checks import allowance, policies_for
        from tenantdeck.tui.screens.allow_violation import AllowViolationScreen

        gate = self.gate
        if self.pushing or gate is None or not (gate.errors or self.allowance):
            self.notify("No error rule would be broken by this push.", markup=False)
            return
        policies = policies_for(self.editor.path)  # the rules the push reads

        def answered(chosen: Allowance | None) -> None:
            if chosen is None:
                return
            self.allowance = chosen or None
            self.make_plan(online=self.online)  # the status and the gate say it (a refusal shown goes)

        self.app.push_screen(AllowViolationScreen(gate.errors, self.allowance,
                                                  lambda rules, reason: allowance(policies, rules, reason)), answered)

    def action_policies(self) -> None:
        self.host.action_policies()

    #: how many unset variables the line under the status names one by one (the rest are counted)
    MISSING_SHOWN = 3

    def _show_missing(self, plan: Plan) -> None:
        """Name each ``${VAR}`` the plan would send and the environment does not set, where the draft uses it
        (FILE:LINE and key path, never a value). Which ones: the engine's :func:`missing_secrets`, the check a push
        makes before its first write; this screen only places them in the editor's text and greys out ``p``."""
        from tenantdeck.sync.remote.engine import missing_secrets

        session = self.editor.session
        name = os.path.basename(str(session.file))  # the header names the draft; its full path would wrap
        self.missing = [p.located(name, session.line_of(p.path), 0) if p.path else p
                        for p in missing_secrets(plan, os.environ)]
        needs = self.query_one("#needs", Static)
        needs.set_class(bool(self.missing), "-shown")
        if not self.missing:
            needs.update("")
            return
        lines = ["Push is off until these variables are set (export them, restart the editor):"]
        for p in self.missing[:self.MISSING_SHOWN]:
            lines.append(f"  ${{{p.extra.get('variable', '?')}}}  {p.file}:{p.line}  {p.key_path}")
        if len(self.missing) > self.MISSING_SHOWN:
            lines.append(f"  and {len(self.missing) - self.MISSING_SHOWN} more")
        needs.update(Text("\n".join(shown(line) for line in lines)))  # each line its own: data cannot add one

    def on_draft_changed(self, message: Any) -> None:
        """Plan again, the same way as shown (a live plan stays live: settling a conflict edits the draft)."""
        if self._push_worker is None or self._push_worker.is_finished:
            self._forget_result_if_stale()
            self.make_plan(online=self.online)

    def _forget_result_if_stale(self) -> None:
        """A pull or an edit after a push: its "Push complete" line (and ``f``'s retry of what it did not apply)
        described an earlier draft, and stayed above the new plan as if it were this one's. The plan shown is made
        again from the draft as it is now, so it alone says what is left to push."""
        if self._result_text is not None and self.editor.session.text != self._result_text:
            self._result_text = None
            self.last_result = None
            self.query_one("#result", Static).update("")
            self.refresh_bindings()

    def on_base_advanced(self, message: Any) -> None:
        """A saved pull moved the base snapshot after this plan was made: plan again (the pulled values are not
        edits to push back)."""
        self.on_draft_changed(message)

    # -- jumping -------------------------------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The row under the cursor in full, wrapped (a table cell is cut at 80 columns); a conflict side by
        side: base, draft (mine) and live (theirs)."""
        from tenantdeck.sync.review import conflict_detail

        detail = self.query_one("#detail", Static)
        if event.row_key is None or event.row_key.value is None:  # the list was just cleared
            detail.update("")
            return
        row = self._rows.get(str(event.row_key.value))
        if row is None:  # the row went away with a new plan
            return
        if row.conflict is not None:
            detail.update(shown(conflict_detail(row.conflict), newlines=True))
            return
        detail.update(shown("  ".join(cell.strip() for cell in (row.app, row.symbol, row.text) if cell.strip())))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from tenantdeck.sync.review import where

        row = self._rows.get(str(event.row_key.value))
        if row is not None and row.refused is not None:
            self._go_to_refused(row.refused)
            return
        target = where(row) if row is not None else None
        if target is None:
            return
        index = self._index_of(target, gone=" (a delete)")
        if index is not None:
            self.host.open_app(index, target.tab)

    def _index_of(self, target: Where, *, gone: str = "") -> int | None:
        """The draft's index of the app ``target`` names; None, said (with ``gone`` saying why), when it has none."""
        apps = self.editor.get("apps", []) or []
        index = next((i for i, a in enumerate(apps) if target.is_app(a)), None)
        if index is None:
            self.notify(f"app {target.app_name!r} is not in the draft{gone}.", markup=False)
        return index

    def _go_to_refused(self, refused: Conflict) -> None:
        """Enter on a REFUSED row: the field holding the value, with the focus in it (a webhook's name opens its
        form there), as Enter on the same value's warning does in Problems (F8); the app alone when no warning
        names it."""
        from tenantdeck.draft.app_tabs import tab_of_draft_path
        from tenantdeck.sync.review import Where, refused_problem

        index = self._index_of(Where(refused.app_id, refused.app, ""))
        if index is None:
            return
        problem = refused_problem(refused, index, self.editor.session.problems)
        target = tab_of_draft_path(problem.path) if problem is not None else None
        if problem is None or target is None:
            self.host.open_app(index)
            self.notify(shown(f"{refused.resource}: {refused.message}"), title="Fix it in the draft", timeout=15,
                        markup=False)
            return
        self.host.open_app(index, target[1], problem.key_path)

    # -- actions -------------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def conflict_under_cursor(self) -> Conflict | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        row = self._rows.get(str(key))
        return row.conflict if row is not None and row.settleable else None

    def action_settle(self, way: Literal["mine", "theirs"], everything: bool = False) -> None:
        """Settle the conflict under the cursor (or all of them): theirs edits the draft (one undoable step), mine
        records the live value in the base so the draft's value is pushed over it."""
        if everything:
            conflicts = [c for c in (self.plan.conflicts if self.plan else []) if c.kind]
            if not conflicts:
                self.notify("No conflict to settle (r reads the service and shows them).", markup=False)
                return
        else:
            conflict = self.conflict_under_cursor()
            if conflict is None:
                self.notify("Put the cursor on a conflict first (r shows them).", markup=False)
                return
            conflicts = [conflict]
        self.settle(way, conflicts)

    def settle(self, way: Literal["mine", "theirs"], conflicts: list[Conflict]) -> None:
        """Settle as the engine settles (:func:`tenantdeck.sync.workspace.local.settle_open`); say what it did."""
        from tenantdeck.sync.workspace.local import settle_open

        try:
            settled = settle_open(self.editor.session, self.editor.path, way, conflicts)
        except Exception as exc:  # a refused edit (read-only draft, literal secret), a locked or unreadable base
            self.notify(problem_text(exc), title="Not settled", severity="error", markup=False)
            return
        for line in settled.refused:
            self.notify(line, title="Not settled", severity="warning", markup=False)
        for line in settled.done:
            self.notify(line, markup=False)
        self.make_plan(online=True)

    def action_refresh(self) -> None:
        self._show_status("Reading the service ...")
        self.make_plan(online=True)

    def action_toggle_deletes(self) -> None:
        self.allow_delete = not self.allow_delete
        self.make_plan(online=self.online)

    def action_push_off(self) -> None:
        """``p`` while Push is greyed out: why (a refused value, an unset variable)."""
        self.action_push()

    def action_push(self) -> None:
        from tenantdeck.sync.review import nothing_to_push
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        if self.pushing:
            self.notify("A push is running (c cancels it).", markup=False)
            return
        if self.editor.session.read_only or not self.editor.session.validated:
            self.notify("The draft is not checked yet, or cannot be read (F8).", severity="warning", markup=False)
            return
        if self.plan is not None and self.plan.refused:  # the key is greyed out: p comes here through push_off
            from tenantdeck.sync.review import refused_text

            self.notify(refused_text(self.plan), title="Not pushed: a value the push refuses", severity="warning",
                        timeout=15, markup=False)
            return
        if self.editor.session.dirty:
            self.notify("Save the draft first (F2): a push sends the saved draft and writes new ids into it.",
                        severity="warning", markup=False)
            return
        if self.missing:  # the palette runs the action even while the key is greyed out
            self.notify(str(self.query_one("#needs", Static).render()), title="Not pushed", severity="warning",
                        markup=False)
            return
        if self.plan is not None and (nothing := nothing_to_push(self.plan)):  # not asked, then told (trial H)
            self.notify(nothing, markup=False)
            return
        count = len(self.plan.operations) if self.plan else 0
        question = (f"Push the draft to the service{' (deletes included)' if self.allow_delete else ''}? The plan is "
                    f"read again first; {count} operation(s) were planned.")
        if self.gate is not None and self.gate.refused:
            question += " The fleet policies would refuse it as planned (v allows a rule with a reason)."
        elif self.allowance:
            question += f" Allowed to break: {', '.join(self.allowance.rules)} ({self.allowance.reason})."
        self.app.push_screen(ConfirmScreen(question, yes="Push"), lambda yes: self._start_push() if yes else None)

    def _start_push(self, only: frozenset[tuple[str, str, str]] | None = None) -> None:
        self._cancel_requested = False
        self.query_one("#progress-row").add_class("-running")
        self._push_worker = self.run_push(only)
        self.refresh_bindings()

    def action_retry(self) -> None:
        """Push again, only what the last push did not apply: a plan made afresh from the journal and base, cut
        to those operations (:func:`tenantdeck.sync.remote.engine.retry_scope`)."""
        from tenantdeck.sync.remote.engine import unfinished_ops

        if self.pushing:
            self.notify("A push is running (c cancels it).", markup=False)
            return
        if self.last_result is None or self.last_result.complete:
            self.notify("Nothing to retry: the last push finished." if self.last_result else "No push to retry yet.",
                        markup=False)
            return
        if self.editor.session.dirty:
            self.notify("Save the draft first (F2): a retry sends the saved draft.", severity="warning", markup=False)
            return
        self._start_push(unfinished_ops(self.last_result))

    def action_summary(self) -> None:
        if self.last_result is None:
            self.notify("No push yet in this session (F7 lists earlier ones).", markup=False)
            return
        self.show_summary(self.last_result)

    def show_summary(self, result: PushResult) -> None:
        from tenantdeck.tui.screens.push_summary import PushSummaryScreen

        def answered(choice: str | None) -> None:
            if choice == "retry":
                self.action_retry()

        self.app.push_screen(PushSummaryScreen(result), answered)

    def action_cancel_push(self) -> None:
        if self.pushing:
            self._cancel_requested = True
            if self._push_loop is not None and self._push_task is not None:
                self._push_loop.call_soon_threadsafe(self._push_task.cancel)
            self._show_status("Cancelling: operations in flight finish and are journalled; push again to resume.")

    @work(thread=True, exclusive=True, group="push", exit_on_error=False)
    def run_push(self, only: frozenset[tuple[str, str, str]] | None = None) -> None:
        """The push runs in its own thread and event loop: reading the draft, planning, the journal's fsyncs and
        (for the ``local`` profile) the in-process sandbox never hold up a key press. Progress comes back as
        messages, at most one per :attr:`PROGRESS_EVERY` seconds; the result when it ends."""
        from tenantdeck.sync.remote.push import PushResult
        from tenantdeck.sync.workspace.lock import hold
        from tenantdeck.sync.workspace.state import Workspace

        result = PushResult()
        ui = self.app.call_from_thread

        async def main() -> bool:
            self._push_loop, self._push_task = asyncio.get_running_loop(), asyncio.current_task()
            if self._cancel_requested:  # c pressed before the thread got here
                raise asyncio.CancelledError
            # plan and apply under the workspace lock, as `tenantdeck push` does: no second push plans meanwhile
            with hold(Workspace(self.editor.path), "tenantdeck edit (pushing)"):
                return await self._push(only, result)

        try:
            pushed = asyncio.run(main())
        except asyncio.CancelledError:
            ui(self._finish, result)
        except Exception as exc:  # the typed ApiError family, ProfileError, OSError
            # the reason stays on the status line (the notice goes after a few seconds); _show_status escapes it
            ui(self._show_status, f"Not pushed: {problem_text(exc, hint=False).rstrip('.')}. p tries again.")
            ui(self.notify, problem_text(exc), title="Push failed", severity="error", markup=False)
        else:
            if pushed:
                ui(self._finish, result)
        finally:
            self._push_loop = self._push_task = None
            ui(self.query_one("#progress-row").remove_class, "-running")

    #: seconds between two progress repaints while pushing (the push thread never waits for the screen)
    PROGRESS_EVERY = 0.05

    async def _push(self, only: frozenset[tuple[str, str, str]] | None, result: PushResult) -> bool:
        """Prepare and run the push (in the push thread); False when nothing was pushed (refused, in sync)."""
        from tenantdeck.sync.progress import PushProgress
        from tenantdeck.sync.remote.engine import PushRefused, PushRequest, prepare_push, push
        from tenantdeck.sync.workspace.binding import resolve_for_draft

        ui = self.app.call_from_thread
        target = resolve_for_draft(self.editor.path, self.editor.profile)
        ui(self._show_status, f"Reading the service (profile {profile_label(target.name)}) ...")
        from tenantdeck.policies.checks import policies_for
        from tenantdeck.policies.gate import push_gate

        policies = policies_for(self.editor.path)  # the push refuses what breaks an error rule, as on the CLI
        allow = self.allowance
        request = PushRequest(draft_path=self.editor.path, allow_delete=self.allow_delete, only=only,
                              id_writer=self.write_ids, gate=push_gate(policies),
                              allow_violations=allow.rules if allow else (),
                              violation_reason=allow.reason if allow else "", **self.request_options)
        prepared = await prepare_push(target, request, os.environ)
        if isinstance(prepared, PushRefused):
            from tenantdeck.policies.view import refusal_text

            detail = "; ".join([p.render() for p in prepared.problems[:3]] + prepared.lines[:3])
            # a policy refusal keeps the plan shown (its notes say which rules); another shows the push's plan
            if prepared.plan is not None and prepared.kind not in ("policies", "policy_violations"):
                ui(self.show_plan, prepared.plan, True, f"profile {profile_label(target.name)}")
            ui(self._show_status, refusal_text(prepared.kind, prepared.rules, prepared.summary)
               + (f" ({detail})" if detail else ""))
            return False
        total = len(prepared.plan.operations)
        for notice in prepared.notices:
            ui(self.notify, notice, timeout=10, markup=False)
        if not total:
            ui(self._show_status, "Nothing to push: the service matches the draft.")
            return False
        self.progress = progress = PushProgress(total, self.clock)
        what = "Retrying" if only is not None else "Pushing"
        ui(self._show_status, f"{what} {total} operation(s) to profile {profile_label(target.name)} (c cancels) ...")
        self.post_message(PushProgressed(0, total, progress.line()))
        last = [0.0]

        def on_event(event: PushEvent) -> None:
            progress.feed(event)
            now = time.monotonic()
            if event.kind != "started" and (now - last[0] >= self.PROGRESS_EVERY or progress.done == total):
                last[0] = now
                self.post_message(PushProgressed(progress.done, total, progress.line()))  # thread-safe, no wait

        await push(prepared, target, on_event, result=result)
        return True

    def write_ids(self, text: str, edits: list[tuple[str, str]]) -> str | None:
        """(push thread) The ids the service assigned, written as one edit of the open draft and saved, so its
        undo history keeps them and nothing reloads it from disk. Only when the session still holds ``text``, the
        saved draft the ids were placed in: with edits made since, the push writes the file itself (the editor then
        offers to reload it, as for any change on disk)."""

        def apply() -> str | None:
            session = self.editor.session
            if session.dirty or session.text != text or not self.editor.set_many(edits).ok:
                return None
            session.save(backup=False)
            return session.text

        try:
            return self.app.call_from_thread(apply)  # the session belongs to the UI thread
        except RuntimeError:  # the app is leaving: the file it is
            return None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The keys follow the push worker's end: ``_finish`` runs on this loop while the worker has not returned
        yet, so the footer it refreshed could go on offering ``c Cancel push`` after the push (seen in a picture
        taken on a loaded machine)."""
        if event.worker is self._push_worker and event.worker.is_finished:
            self.refresh_bindings()

    def on_push_progressed(self, message: PushProgressed) -> None:
        self.query_one("#progress", ProgressBar).update(total=message.total, progress=message.done)
        # one row beside the bar, a space after its percentage; what does not fit is cut with "…" (#running CSS)
        self.query_one("#running", Static).update(shown(message.line))

    def _finish(self, result: PushResult) -> None:
        """The push's headline stays on screen (the plan below is made again from the new base); a push that did
        not finish opens its summary, with f to retry what was not applied."""
        from tenantdeck.tui.screens.push_summary import headline

        self.query_one("#progress-row").remove_class("-running")
        self.last_result = result
        if result.results:
            self.allowance = None  # let through for the push it was given for (as a CLI flag is), not the next
        left = sum(1 for r in result.results if r.status != "applied")
        tail = f" f retries the {left} not applied, s shows the summary." if left else ""
        self.query_one("#result", Static).update(Text(shown(headline(result) + tail) + "\n" + applied_lines(result)))
        self.refresh_bindings()
        if not result.complete and result.results and not result.interrupted:
            self.show_summary(result)
        session = self.editor.session
        if not session.dirty and session.changed_on_disk():
            session.reload()  # the push wrote the new ids into the draft
        self._result_text = session.text
        self.host.validate_in_background()
        self.make_plan(online=False)
