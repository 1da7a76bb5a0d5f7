"""A DataTable of rows (``cursor_type="row"``) where Home and End go to the first and last row, and rows of plain
text are measured without Rich's general measure.

Textual's DataTable binds Home/End to the leftmost/rightmost column, which in a row table only scrolls sideways:
in a list that fits the width they did nothing (issue 37, the Extensions list). Ctrl+Home/End keep their meaning.

**Measuring.** When rows are added, DataTable measures every cell of every new row (its columns only ever widen)
through ``textual.render.measure``: a fresh ``console.options`` per cell (each asks the terminal its size, three
system calls when it is not a terminal), ``rich_cast`` and ``Text.__rich_measure__``, which also splits the text
into words for a minimum width the table never reads. The review's plan and the pull's preview fill 1,000 rows
(3,000 cells): ~45 ms of F5's and F6's settled time at 1,000 apps (issue 36). A cell that is a :class:`~rich.text.Text`
(what this editor's tables hold: data, escaped) or empty is measured here as Rich measures its widest line, the
same number; any other cell, a row label or an auto-height row goes through DataTable's own measure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import DuplicateKey, Row, RowKey


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

    def append_rows(self, rows: Iterable[tuple[Sequence[Any], str]]) -> None:
        """Rows (cells, key) of one line and no label added at the bottom as ``add_row`` adds each one (the same
        keys, data, cursor and ``RowHighlighted`` for a first row), with ``add_row``'s per-row bookkeeping done once:
        it set the cursor reactive again and counted an update for every row, ~20 ms of F5's and F6's 1,000 rows.
        Then :meth:`rows_added`. Kept equal to ``add_row`` by tests/tui/test_row_table.py."""
        columns = self.ordered_columns
        was_empty = self.row_count == 0
        added = False
        for cells, key in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = Row(row_key, 1, None, False)
            self._new_rows.add(row_key)
            added = True
        if not added:
            return
        self._require_update_dimensions = True
        self._update_count += 1
        self.cursor_coordinate = self.cursor_coordinate
        if was_empty and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self.check_idle()
        self.rows_added()

    def rows_added(self) -> None:
        """Measure the rows just added and show the scrollbar they need now, in the frame that shows them.

        DataTable measures new rows when it is next idle, and the layout after that finds the table needs a
        scrollbar and asks for another layout: each one more screen update (16.7 ms apart at Textual's 60 frames a
        second) before the list stops changing. A screen that fills a long table at once (F5, F6: 1,000 rows) calls
        this after its last ``add_row``: ~20 ms of F6's settled time at 1,000 apps."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(new_rows)
        self._refresh_scrollbars()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Widen the columns for the new rows of plain text here (see the module docstring); the rest, and the
        table's virtual size, are DataTable's."""
        columns = self.ordered_columns
        rest: list[RowKey] = []
        for row_key in new_rows:
            row = self.rows.get(row_key)
            cells = self._data.get(row_key)
            if row is None or cells is None or row.label is not None or row.auto_height \
                    or row_key not in self._row_locations:
                rest.append(row_key)
                continue
            widths = [_text_width(cells.get(column.key)) for column in columns]
            if None in widths:
                rest.append(row_key)
                continue
            for column, width in zip(columns, widths, strict=True):
                if width > column.content_width:
                    column.content_width = width
        super()._update_dimensions(rest)


def _text_width(cell: object) -> int | None:
    """What ``textual.render.measure`` gives for ``cell`` in a table (Rich's ``Measurement.maximum``: the widest
    line's cells), or None when it is not a Text or empty (then DataTable measures it)."""
    if cell is None:
        return 0  # DataTable shows an empty Text
    if type(cell) is not Text:
        return None
    lines = cell.plain.splitlines()
    return max(map(cell_len, lines)) if lines else 0


