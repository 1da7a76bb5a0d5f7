"""Review what a push would change, refresh it against the live service, and push it, without leaving the editor.

The plan is the engine's (:mod:`tenantdeck.sync.remote.engine`: ``plan_draft`` on the editor's unsaved text, then
``prepare_push`` / ``push`` for the real thing); this screen only renders it. Network work runs in workers, so
the screen never freezes; every failure (unreachable, 401, 429 after retries, timeout, malformed answer) becomes
a notification with the typed error's hint.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Header, ProgressBar, Static

from tenantdeck.tui.footer import KeyFooter

if TYPE_CHECKING:
    from tenantdeck.sync.events import PushEvent
    from tenantdeck.sync.plan import Plan
    from tenantdeck.tui.editor import Editor

#: resource kind of an operation -> the App tab that edits it
_TAB_OF = {"extensions": "extensions", "widget": "main", "sms": "sms", "webhook": "webhooks", "triggers": "webhooks"}


def _problem_text(exc: BaseException) -> str:
    """One line for a notification: the typed error's message and hint, never a traceback."""
    hint = getattr(exc, "hint", "")
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{text}" + (f" ({hint})" if hint and hint not in text else "")


class ReviewScreen(Screen[None]):
    """``r`` reads the live service, ``p`` pushes, ``d`` turns deletes on or off, ``c`` cancels a running push."""

    HELP = """\
## Review and push

What a push would change, grouped by app, each field with its label: `+` create, `~` update, `-` delete.
The list opens from the base snapshot (no network); `r` reads the live service and adds **drift** (changed on
the service, kept) and **conflicts** (both sides changed a field differently: settle them in the draft).

- `r`: refresh against the service
- `p`: push (asks first; the draft must be saved)
- `d`: include deletions of what is gone from the draft
- `c`: cancel a running push (the journal keeps what was applied; pushing again finishes the job)
- on a conflict: `t` takes the service's value into the draft (an edit you can undo), `m` keeps yours (the push
  sends it over the live one)
- `Enter`: go to the field in the editor
"""
    BINDINGS = [
        Binding("escape", "back", "Back", id="review.back"),
        Binding("r", "refresh", "Refresh (live)", id="review.refresh"),
        Binding("p", "push", "Push", id="review.push"),
        Binding("d", "toggle_deletes", "Deletes on/off", id="review.deletes"),
        Binding("c", "cancel_push", "Cancel push", id="review.cancel"),
        Binding("t", "settle('theirs')", "Take theirs", id="review.take_theirs"),
        Binding("m", "settle('mine')", "Keep mine", id="review.take_mine"),
    ]
    DEFAULT_CSS = """
    ReviewScreen #status { height: auto; padding: 0 1; }
    ReviewScreen #result { height: auto; padding: 0 1; color: $text-muted; }
    ReviewScreen #progress-row { height: auto; display: none; padding: 0 1; }
    ReviewScreen #progress-row.-running { display: block; }
    ReviewScreen DataTable { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.plan: Plan | None = None
        self.online = False
        self.allow_delete = False
        self._rows: dict[str, tuple[Any, ...]] = {}
        self._push_worker: Any = None

    @property
    def editor(self) -> Editor:
        return self.app.editor  # type: ignore[attr-defined,no-any-return]

    @property
    def pushing(self) -> bool:
        return self._push_worker is not None and not self._push_worker.is_finished

    def on_worker_state_changed(self, event: Any) -> None:
        if event.worker is self._push_worker:
            self.refresh_bindings()  # push and cancel swap places in the footer

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer lists only the keys that apply now (at 80 columns they would not all fit): cancel while a
        push runs, push otherwise, take/keep while the plan has conflicts."""
        if action == "cancel_push":
            return self.pushing
        if action == "push":
            return not self.pushing
        if action == "settle":
            return bool(self.plan is not None and self.plan.conflicts)
        return True

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Planning from the base snapshot ...", id="status")
        yield Static("", id="result")
        with Horizontal(id="progress-row"):
            yield ProgressBar(id="progress", show_eta=True)
            yield Static("", id="running")
        yield DataTable(id="plan", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("App", "", "What")
        self.make_plan(online=False)

    # -- planning ------------------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def make_plan(self, online: bool) -> None:
        from tenantdeck.sync.remote.engine import PushRefused, plan_draft

        target = None
        try:
            if online:
                from tenantdeck.targets import resolve_target

                target = resolve_target(self.editor.profile)
            result = asyncio.run(plan_draft(self.editor.path, os.environ, text=self.editor.session.text,
                                            target=target, allow_delete=self.allow_delete))
        except Exception as exc:  # ApiError, ProfileError, OSError: one notification each
            self.app.call_from_thread(self.notify, _problem_text(exc), title="Could not plan", severity="error")
            return
        if isinstance(result, PushRefused):
            first = result.problems[0].render() if result.problems else result.summary
            self.app.call_from_thread(self._show_status, f"The draft has errors (F8): {first}")
            return
        self.app.call_from_thread(self.show_plan, result, online, target.describe() if target else "")

    def _show_status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    def show_plan(self, plan: Plan, online: bool, where: str) -> None:
        from tenantdeck.sync.render import change_symbol, summary_line, value_text

        self.plan, self.online = plan, online
        self.refresh_bindings()
        table = self.query_one(DataTable)
        table.clear()
        self._rows = {}

        def add(key: str, *cells: str, ref: tuple[Any, ...] = ()) -> None:
            table.add_row(*cells, key=key)
            self._rows[key] = ref

        for n, op in enumerate(plan.operations):
            mark = "!" if op.destructive else {"create": "+", "update": "~", "delete": "-"}.get(
                "delete" if op.destructive else "create" if op.kind.startswith(("create", "store")) else "update", "~")
            add(f"op{n}", op.app_name, mark, f"{op.kind.replace('_', ' ')} {op.resource}", ref=(op, None))
            for m, change in enumerate(op.changes):
                if change.secret:
                    fromto = str(change.after)
                else:
                    fromto = f"{value_text(change.before)} -> {value_text(change.after)}"
                add(f"op{n}.{m}", "", change_symbol(change), f"  {change.label} ({change.path}): {fromto}",
                    ref=(op, change))
        for k, c in enumerate(plan.conflicts):
            what = c.message or (f"{c.label} ({c.path}): base {value_text(c.base)}, draft {value_text(c.draft)}, "
                                 f"live {value_text(c.live)}  (t takes theirs, m keeps mine)")
            add(f"conflict{k}", c.app, "!", f"CONFLICT {c.resource}: {what}", ref=("conflict", c))
        for k, d in enumerate(plan.drift):
            add(f"drift{k}", d.app, "~", f"drift (kept) {d.resource}: {d.label}: {value_text(d.before)} -> "
                f"{value_text(d.after)}")
        for k, note in enumerate(plan.notes):
            add(f"note{k}", note.app, "*", note.message)
        source = f"against the service ({where})" if online else "against the base snapshot (r reads the service)"
        deletes = "deletes included" if self.allow_delete else (
            f"{plan.skipped_deletions} deletion(s) skipped (d includes them)" if plan.skipped_deletions else "")
        status = f"{summary_line(plan)} Planned {source}." + (f" {deletes}." if deletes else "")
        if plan.conflicts:
            status += f" {len(plan.conflicts)} conflict(s): settle them in the draft before pushing."
        if self.editor.session.dirty:
            status += " The draft has unsaved edits (F2 saves; a push needs them saved)."
        self._show_status(status)

    def on_draft_changed(self, message: Any) -> None:
        """Plan again, the same way as shown (a live plan stays live: settling a conflict edits the draft)."""
        if self._push_worker is None or self._push_worker.is_finished:
            self.make_plan(online=self.online)

    # -- jumping -------------------------------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        ref = self._rows.get(str(event.row_key.value), ())
        if not ref or ref[0] == "conflict":
            return
        op = ref[0]
        apps = self.editor.get("apps", []) or []

        def is_it(a: Any) -> bool:
            if not isinstance(a, dict):
                return False
            if op.app_id:
                return bool(a.get("id") == op.app_id)
            return not a.get("id") and a.get("name") == op.app_name

        index = next((i for i, a in enumerate(apps) if is_it(a)), None)
        if index is None:
            self.notify(f"app {op.app_name!r} is not in the draft (a delete).")
            return
        kind = op.resource_key.split("/", 1)[1].split(":", 1)[0]
        tab = _TAB_OF.get(kind)
        change = ref[1]
        if kind == "widget" and change is not None and "." in change.path:
            tab = change.path.split(".", 1)[0] if change.path.split(".", 1)[0] in ("style", "sidebar", "main") else tab
        self.app.open_app(index, tab)  # type: ignore[attr-defined]

    # -- actions -------------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_settle(self, way: str) -> None:
        """Settle the conflict under the cursor: theirs edits the draft (undoable), mine records the live value in
        the base so the draft's value is pushed over it."""
        from tenantdeck.sync.resolve import Settled, keep_mine, take_theirs
        from tenantdeck.sync.workspace.state import Workspace

        table = self.query_one(DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        ref = self._rows.get(str(key), ())
        if not ref or ref[0] != "conflict" or not ref[1].kind:
            self.notify("Put the cursor on a conflict first (r shows them).")
            return
        conflict = ref[1]
        settled = Settled()
        if way == "theirs":
            try:
                take_theirs(self.editor.session, [conflict], settled)
            except Exception as exc:  # a refused edit (read-only draft, literal secret)
                self.notify(_problem_text(exc), title="Not settled", severity="error")
                return
        else:
            workspace = Workspace(self.editor.path)
            base = workspace.load_base()
            touched = keep_mine(base, [conflict], settled)
            for app_id in touched:
                workspace.write_base_app(app_id, base[app_id])
        for line in settled.refused:
            self.notify(line, title="Not settled", severity="warning")
        for line in settled.done:
            self.notify(line)
        self.make_plan(online=True)

    def action_refresh(self) -> None:
        self._show_status("Reading the service ...")
        self.make_plan(online=True)

    def action_toggle_deletes(self) -> None:
        self.allow_delete = not self.allow_delete
        self.make_plan(online=self.online)

    def action_push(self) -> None:
        from tenantdeck.tui.confirm import ConfirmScreen

        if self._push_worker is not None and not self._push_worker.is_finished:
            self.notify("A push is running (c cancels it).")
            return
        if self.editor.session.read_only or not self.editor.session.validated:
            self.notify("The draft is not checked yet, or cannot be read (F8).", severity="warning")
            return
        if self.editor.session.dirty:
            self.notify("Save the draft first (F2): a push sends the saved draft and writes new ids into it.",
                        severity="warning")
            return
        count = len(self.plan.operations) if self.plan else 0
        question = (f"Push the draft to the service{' (deletes included)' if self.allow_delete else ''}? The plan is "
                    f"read again first; {count} operation(s) were planned.")
        self.app.push_screen(ConfirmScreen(question, yes="Push"), lambda yes: self._start_push() if yes else None)

    def _start_push(self) -> None:
        self.query_one("#progress-row").add_class("-running")
        self._push_worker = self.run_push()
        self.refresh_bindings()

    def action_cancel_push(self) -> None:
        if self._push_worker is not None and not self._push_worker.is_finished:
            self._push_worker.cancel()
            self._show_status("Cancelling: operations in flight finish and are journalled; push again to resume.")

    @work(exclusive=True, group="push", exit_on_error=False)
    async def run_push(self) -> None:
        from tenantdeck.sync.remote.engine import PushRefused, PushRequest, prepare_push, push
        from tenantdeck.sync.remote.push import PushResult
        from tenantdeck.targets import resolve_target

        bar = self.query_one("#progress", ProgressBar)
        result = PushResult()
        try:
            target = resolve_target(self.editor.profile)
            self._show_status(f"Reading the service ({target.describe()}) ...")
            request = PushRequest(draft_path=self.editor.path, allow_delete=self.allow_delete)
            prepared = await prepare_push(target, request, os.environ)
            if isinstance(prepared, PushRefused):
                detail = "; ".join([p.render() for p in prepared.problems[:3]] + prepared.lines[:3])
                self._show_status(f"Not pushed: {prepared.summary}" + (f" ({detail})" if detail else ""))
                if prepared.plan is not None:
                    self.show_plan(prepared.plan, True, target.describe())
                    self._show_status(f"Not pushed: {prepared.summary}")
                return
            bar.update(total=len(prepared.plan.operations), progress=0)
            if not prepared.plan.operations:
                self._show_status("Nothing to push: the service matches the draft.")
                return

            def on_event(event: PushEvent) -> None:
                if event.kind in ("applied", "failed", "not_attempted"):
                    bar.update(progress=event.done)
                    counts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in event.counts.items() if v)
                    self.query_one("#running", Static).update(counts)
                elif event.kind == "started" and event.op is not None:
                    self.query_one("#running", Static).update(f"{event.op.app_name}: {event.op.kind.replace('_', ' ')}")

            await push(prepared, target, on_event, result=result)
        except asyncio.CancelledError:
            self._finish(result)
            raise
        except Exception as exc:  # the typed ApiError family, ProfileError, OSError
            self.notify(_problem_text(exc), title="Push failed", severity="error")
        else:
            self._finish(result)

    def _finish(self, result: Any) -> None:
        """The push's summary stays on screen (the plan below is made again from the new base)."""
        self.query_one("#progress-row").remove_class("-running")
        self.query_one("#result", Static).update(result.summary())
        session = self.editor.session
        if not session.dirty and session.changed_on_disk():
            session.reload()  # the push wrote the new ids into the draft
        self.app.validate_in_background()  # type: ignore[attr-defined]
        self.make_plan(online=False)
