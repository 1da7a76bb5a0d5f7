"""The audit log of pushes from this draft's workspace (when, who, profile, plan hash, counts), and each push's
operations: what it applied, as its history record lists them (step, app, resource, outcome), or for a record
written before those were recorded, as its journal did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.row_table import RowTable


def journal_rows(path: Path, beside: Path) -> list[tuple[str, str, str]]:
    """(event, app, operation) per journal line that concerns an operation: what a history record written before
    operations were recorded can still show. The operation is its kind and the resource's name or id (the app's
    id, the same on every row of one app, said nothing), then the service's reason for a failure."""
    from tenantdeck.sync.workspace.journal import read_journal

    rows = []
    for rec in read_journal(path, beside=beside):  # the path comes from the history: only in the draft's folder
        event = str(rec.get("event", ""))
        if event in ("intent", "done", "failed"):
            what = " ".join(str(v) for v in (str(rec.get("kind", "")).replace("_", " "), rec.get("name") or
                                             rec.get("rid")) if v)
            rows.append((event, str(rec.get("app_name", "")), what + (f": {rec['error']}" if rec.get("error") else "")))
    return rows


def operation_rows(record: dict[str, Any], beside: Path) -> list[tuple[str, str, str]]:
    """(outcome, app, operation) of one push: from its history record, else (an older record) from its journal,
    read only in the draft's folder ``beside``."""
    from tenantdeck.sync.workspace.history import operation_rows as recorded

    rows = recorded(record)
    if rows is not None:
        return rows
    journal = record.get("journal")
    try:
        return journal_rows(Path(journal), beside) if journal else []
    except OSError:  # the journal was cleaned away: the counts above are all there is
        return []


#: the plan hash's first characters, as git shows a commit: enough to tell pushes apart and to grep the history file
PLAN_SHOWN = 8


def _when(text: str) -> str:
    """``2026-11-28T09:16:55+00:00`` as ``2026-11-28 09:16`` in UTC (the header says so); what cannot be read, as
    it is."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M")


def _cells(*values: str) -> list[Text]:
    """History and journal lines hold app names and the service's error messages: data, shown as such."""
    return [Text(shown(value)) for value in values]


class HistoryScreen(UsesEditor, RefitOnResize, Screen[None]):
    """Enter shows the selected push's operations; Escape goes back."""

    HELP = """\
## History

Every push made from this draft's workspace (newest first): when (UTC), who, where to, the start of the plan's hash
and how it ended: how many operations were applied, failed, and left (not attempted).
Below, the highlighted push's operations: each step it sent (`create webhook "Orders" (orders)`), its app and its
outcome (applied, FAILED, not attempted); `Enter` moves there, and the line under them shows the highlighted one
whole. A push recorded by an older tenantdeck lists its journal instead (intent, done, failed with the service's
reason).
"""
    BINDINGS = [Binding("escape", "back", "Back", id="history.back")]
    DEFAULT_CSS = """
    HistoryScreen #pushes { height: 1fr; }
    HistoryScreen #operations { height: 1fr; }
    HistoryScreen #empty { padding: 1 2; }
    HistoryScreen #detail { height: auto; max-height: 3; padding: 0 1; border-top: solid $primary; }
    """

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        with Vertical():
            yield Static("", id="empty")
            yield RowTable(id="pushes", cursor_type="row", zebra_stripes=True)
            yield RowTable(id="operations", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        from tenantdeck.sync.workspace.history import read_history
        from tenantdeck.sync.workspace.state import Workspace, WorkspaceError, check_workspace, workspace_error

        self.sub_title = "History"
        self._operations: list[tuple[str, str, str]] = []  #: the shown push's (outcome, app, operation)
        workspace = Workspace(self.editor.path)
        try:
            check_workspace(workspace)
            self.records: list[dict[str, Any]] = list(reversed(read_history(workspace.history_path,
                                                                            beside=workspace.folder)))
        except (WorkspaceError, OSError) as exc:
            error = exc if isinstance(exc, WorkspaceError) else workspace_error(workspace, exc)
            self.notify(str(error), title="No history", severity="error", timeout=15)
            self.records = []
        pushes = self.query_one("#pushes", DataTable)
        # 80 columns hold every column: the full timestamp and hash made the table scroll sideways, its counts
        # off-screen and a lone scrollbar thumb in the middle of the screen
        pushes.add_columns("When (UTC)", "Who", "Result", "Profile", "Plan", "Applied", "Failed", "Left")
        for i, r in enumerate(self.records):
            c = r.get("counts") or {}
            pushes.add_row(*_cells(_when(str(r.get("when", "?"))), str(r.get("who", "?")), str(r.get("result", "?")),
                                   str(r.get("profile") or "-"), str(r.get("plan_hash", "-"))[:PLAN_SHOWN],
                                   _applied_cell(c), str(c.get("failed", 0)), str(c.get("not_attempted", 0))),
                           key=str(i))
        self.query_one("#operations", DataTable).add_columns("Outcome", "App", "Operation")
        self.query_one("#empty", Static).update("" if self.records else "No pushes recorded yet (F6 reviews and "
                                                                         "pushes the draft).")
        self.query_one("#detail", Static).display = bool(self.records)
        pushes.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted push's operations, without a key press: the list answers "what did that push do"; on
        an operation, that operation whole on the line below (its cell is cut to the screen's width)."""
        if event.row_key is None or event.row_key.value is None:
            return
        if event.data_table.id == "operations":
            outcome, app, what = self._operations[int(event.row_key.value)]
            self.query_one("#detail", Static).update(Text(shown(f"{outcome} · {app}: {what}")))
            return
        self.show_operations(self.records[int(event.row_key.value)])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "pushes":
            return
        self.show_operations(self.records[int(event.row_key.value or 0)])
        self.query_one("#operations", DataTable).focus()

    def show_operations(self, record: dict[str, Any], keep_row: bool = False) -> None:
        from tenantdeck.textsafe import fitted
        from tenantdeck.tui.widgets.columns import last_column_room

        operations = self.query_one("#operations", DataTable)
        row = operations.cursor_row
        operations.clear(columns=True)  # a column only ever widens: cut for a narrower screen, rows ran past its edge
        operations.add_columns("Outcome", "App", "Operation")
        self._shown_record = record
        self._operations = operation_rows(record, self.editor.path.parent)
        room = last_column_room(self.size.width or self.app.size.width,
                                [["Outcome", *(shown(r[0]) for r in self._operations)],
                                 ["App", *(shown(r[1]) for r in self._operations)]])
        for i, (outcome, app, what) in enumerate(self._operations):
            operations.add_row(*_cells(outcome, app), Text(fitted(shown(what), room)), key=str(i))
        if keep_row and operations.row_count:
            operations.move_cursor(row=min(row, operations.row_count - 1))

    def refresh_rows(self) -> None:
        """Resized: the shown push's operations cut again to the new width (the pushes' columns fit 80 always)."""
        if getattr(self, "_shown_record", None) is not None:
            self.show_operations(self._shown_record, keep_row=True)

    def action_back(self) -> None:
        self.app.pop_screen()


def _applied_cell(counts: dict[str, Any]) -> str:
    """``1``, or ``0 +1 earlier`` for a re-run of a saved plan whose operations an earlier run applied."""
    from tenantdeck.sync.workspace.history import applied_split

    applied, already = applied_split(counts)
    return str(applied) + (f" +{already} earlier" if already else "")
