"""A DataTable of rows (``cursor_type="row"``) where Home and End go to the first and last row.

Textual's DataTable binds Home/End to the leftmost/rightmost column, which in a row table only scrolls sideways:
in a list that fits the width they did nothing (issue 37, the Extensions list). Ctrl+Home/End keep their meaning."""

from __future__ import annotations

from textual.widgets import DataTable


class RowTable(DataTable[str]):
    """Home: the first row; End: the last one (a row table has no columns to move to)."""

    def action_scroll_home(self) -> None:
        if self.cursor_type == "row":
            self.action_scroll_top()
        else:
            super().action_scroll_home()

    def action_scroll_end(self) -> None:
        if self.cursor_type == "row":
            self.action_scroll_bottom()
        else:
            super().action_scroll_end()
