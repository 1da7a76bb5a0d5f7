"""The honest summary of a push that did not finish: what was applied, what failed (the service's reason and a
hint), what was not attempted (and why), with a key that retries only the failed and not attempted operations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tenantdeck.sync.render import step_label
from tenantdeck.textsafe import shown
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.sync.remote.push import OpResult, PushResult

_STATUS = {"failed": "FAILED", "not_attempted": "not attempted", "applied": "applied"}


def _what(result: OpResult) -> str:
    return step_label(result.op, app_named=True)


def headline(result: PushResult) -> str:
    """``Push incomplete: 7 applied, 2 failed, 3 not attempted.`` (and why it stopped, when it did)."""
    c = result.counts()
    state = "complete" if result.complete else "interrupted" if result.interrupted else "incomplete"
    line = f"Push {state}: {c['applied']} applied, {c['failed']} failed, {c['not_attempted']} not attempted."
    if result.stopped:
        line += f" Stopped: {result.stopped}."
    return line


class PushSummaryScreen(ModalScreen[str]):
    """Dismisses with ``"retry"`` (f) or ``""`` (Escape)."""

    HELP = """\
## Push summary

Every operation of the push: **FAILED** ones with the service's reason and what to do about it, those **not
attempted** (after a failure they depend on, a cancel, or a service that stopped answering) and the **applied**
ones. What was applied is recorded in the journal and the base snapshot: it is never sent twice.

- `f`: retry only the failed and not attempted operations (the plan is made again from what was applied)
- `Escape`: back to the review
"""
    DEFAULT_CSS = """
    PushSummaryScreen { align: center middle; }
    PushSummaryScreen > Vertical { width: 96%; max-width: 140; height: 90%; border: thick $warning;
                                    background: $surface; padding: 0 1; }
    PushSummaryScreen #headline { height: auto; text-style: bold; }
    PushSummaryScreen #hint { height: auto; color: $text-muted; }
    PushSummaryScreen DataTable { height: 1fr; }
    PushSummaryScreen #reason { height: auto; max-height: 5; border-top: solid $warning; }
    """
    BINDINGS = [
        Binding("escape", "dismiss('')", "Back", id="summary.back"),
        Binding("f", "dismiss('retry')", "Retry failed", id="summary.retry"),
    ]

    def __init__(self, result: PushResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(shown(headline(self.result)), id="headline", markup=False)
            left = sum(1 for r in self.result.results if r.status != "applied")
            hint = (f"f retries the {left} operation(s) not applied; applied ones are recorded and never resent."
                    if left else "Everything was applied.")
            yield Static(hint, id="hint", markup=False)
            yield RowTable(id="results", cursor_type="row", zebra_stripes=True)
            yield Static("", id="reason", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Result", "App", "Operation", "Reason")
        order = {"failed": 0, "not_attempted": 1, "applied": 2}
        self._reasons: dict[str, str] = {}
        for n, r in enumerate(sorted(self.result.results, key=lambda r: order.get(r.status, 3))):
            # app names and the service's reasons are data: Text cells (no markup) of shown() strings
            table.add_row(_STATUS.get(r.status, r.status), *(Text(shown(c)) for c in (r.op.app_name, _what(r),
                                                                                      r.reason)), key=f"r{n}")
            self._reasons[f"r{n}"] = shown(f"{_STATUS.get(r.status, r.status)}: {r.op.app_name}: {_what(r)}"
                                           + (f": {r.reason}" if r.reason else ""))
        for k, warning in enumerate(self.result.warnings):
            table.add_row("warning", "", "", Text(shown(warning)), key=f"w{k}")
            self._reasons[f"w{k}"] = shown(f"warning: {warning}")
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted operation's whole reason and hint, wrapped (the table cuts it at 80 columns)."""
        key = event.row_key.value if event.row_key is not None else None
        self.query_one("#reason", Static).update(self._reasons.get(str(key), "") if key is not None else "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "dismiss" and parameters == ("retry",):
            return not self.result.complete
        return True
