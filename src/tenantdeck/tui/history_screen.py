"""The audit log of pushes from this draft's workspace (when, who, profile, plan hash, counts), and each push's
operations as its journal recorded them."""

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
from tenantdeck.tui.editor import UsesEditor
from tenantdeck.tui.footer import KeyFooter
from tenantdeck.tui.header import TitleHeader


def journal_rows(path: Path) -> list[tuple[str, str, str, str]]:
    """(event, operation, app, detail) per journal line that concerns an operation: the push's own record."""
    from tenantdeck.sync.workspace.journal import read_journal

    rows = []
    for rec in read_journal(path):
        event = str(rec.get("event", ""))
        if event in ("intent", "done", "failed"):
            detail = str(rec.get("error") or rec.get("widget_id") or rec.get("app_id") or "")
            rows.append((event, str(rec.get("kind", "")).replace("_", " "), str(rec.get("app_name", "")), detail))
    return rows


def _cells(*values: str) -> list[Text]:
    """History and journal lines hold app names and the service's error messages: data, shown as such."""
    return [Text(shown(value)) for value in values]


class HistoryScreen(UsesEditor, Screen[None]):
    """Enter shows the selected push's operations; Escape goes back."""

    HELP = """\
## History

Every push made from this draft's workspace (newest first): when, who, where to, the plan's hash and how it ended.
`Enter` lists that push's operations from its journal (intent, done, failed with the service's reason).
"""
    BINDINGS = [Binding("escape", "back", "Back", id="history.back")]
    DEFAULT_CSS = """
    HistoryScreen #pushes { height: 1fr; }
    HistoryScreen #operations { height: 1fr; }
    HistoryScreen #empty { padding: 1 2; }
    """

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        with Vertical():
            yield Static("", id="empty")
            yield DataTable(id="pushes", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="operations", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        from tenantdeck.sync.workspace.history import read_history
        from tenantdeck.sync.workspace.state import Workspace, WorkspaceError, check_workspace, workspace_error

        workspace = Workspace(self.editor.path)
        try:
            check_workspace(workspace)
            self.records: list[dict[str, Any]] = list(reversed(read_history(workspace.history_path)))
        except (WorkspaceError, OSError) as exc:
            error = exc if isinstance(exc, WorkspaceError) else workspace_error(workspace, exc)
            self.notify(str(error), title="No history", severity="error", timeout=15)
            self.records = []
        pushes = self.query_one("#pushes", DataTable)
        pushes.add_columns("When", "Who", "Result", "Profile", "Plan", "Applied", "Failed", "Not attempted")
        for i, r in enumerate(self.records):
            c = r.get("counts") or {}
            pushes.add_row(*_cells(str(r.get("when", "?")), str(r.get("who", "?")), str(r.get("result", "?")),
                                   str(r.get("profile") or "-"), str(r.get("plan_hash", "-")),
                                   str(c.get("applied", 0)), str(c.get("failed", 0)), str(c.get("not_attempted", 0))),
                           key=str(i))
        self.query_one("#operations", DataTable).add_columns("Event", "Operation", "App", "Detail")
        self.query_one("#empty", Static).update("" if self.records else "No pushes recorded yet (F6 reviews and "
                                                                         "pushes the draft).")
        pushes.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "pushes":
            return
        record = self.records[int(event.row_key.value or 0)]
        operations = self.query_one("#operations", DataTable)
        operations.clear()
        journal = record.get("journal")
        for row in journal_rows(Path(journal)) if journal else []:
            operations.add_row(*_cells(*row))
        operations.focus()

    def action_back(self) -> None:
        self.app.pop_screen()
