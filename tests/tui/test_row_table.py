"""RowTable measures rows of Text as DataTable does (the same column widths and size), without Rich's general
measure per cell (issue 36: 3,000 cells of F5's and F6's tables at 1,000 apps)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable
from textual.widgets import _data_table as data_table_module

from tenantdeck.tui.widgets.row_table import RowTable

ROWS: list[tuple[Any, ...]] = [
    (Text("Acme"), Text("+"), Text("new on the service")),
    (Text("表示名 wide"), Text(""), Text("two\nlines, the second longer")),
    (None, Text("~"), Text("  tabs\tand a form feed\x0cinside")),
    (Text("x" * 40), Text("-"), Text("")),
]
#: rows DataTable measures itself: markup text, a number, a label
OTHERS: list[tuple[Any, ...]] = [("[b]bold[/b]", 12.5, "plain str")]


class Tables(App[None]):
    CSS = "DataTable { height: 10; }"  # as the review's and the pull's: a fixed room, a scrollbar past it

    def compose(self) -> ComposeResult:
        yield RowTable(id="ours", cursor_type="row")
        yield DataTable(id="textuals", cursor_type="row")


def _filled(others: bool) -> dict[str, tuple[list[int], Any]]:
    out: dict[str, tuple[list[int], Any]] = {}

    async def flow() -> None:
        app = Tables()
        async with app.run_test(size=(80, 24)) as pilot:
            for table in app.query(DataTable):
                table.add_columns("App", "", "What")
                for n, row in enumerate(ROWS):
                    table.add_row(*row, key=f"r{n}")
                if others:
                    table.add_row(*OTHERS[0], key="other", label="L")
            await pilot.pause()
            for table in app.query(DataTable):
                out[str(table.id)] = ([c.content_width for c in table.ordered_columns], table.virtual_size)

    asyncio.run(flow())
    return out


@pytest.mark.parametrize("others", [False, True], ids=["text rows", "with rows DataTable measures"])
def test_the_columns_are_as_wide_as_datatable_makes_them(others: bool) -> None:
    widths = _filled(others)
    assert widths["ours"] == widths["textuals"]
    assert widths["ours"][0][0] == 40


def test_rows_of_text_are_not_measured_through_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without RowTable's measure, DataTable calls ``measure`` once per cell (12 here)."""
    calls: list[object] = []
    real = data_table_module.measure

    def counted(console: Any, renderable: Any, default: int, **kwargs: Any) -> int:
        calls.append(renderable)
        return real(console, renderable, default, **kwargs)

    monkeypatch.setattr(data_table_module, "measure", counted)

    async def flow() -> None:
        app = Tables()
        async with app.run_test(size=(80, 24)) as pilot:
            await app.query_one("#textuals", DataTable).remove()
            table = app.query_one(RowTable)
            table.add_columns("App", "", "What")
            for n, row in enumerate(ROWS):
                table.add_row(*row, key=f"r{n}")
            calls.clear()
            await pilot.pause()
            assert table.ordered_columns[0].content_width == 40

    asyncio.run(flow())
    assert calls == []


def test_rows_added_measures_them_and_shows_the_scrollbar_at_once() -> None:
    """``rows_added`` after a fill: the columns are as wide as the rows and the scrollbar they need is on before
    the table is next idle and laid out (each of those a screen update later, F5 and F6 at 1,000 rows)."""
    seen: dict[str, Any] = {}

    async def flow() -> None:
        app = Tables()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            table = app.query_one(RowTable)
            table.add_columns("App", "", "What")
            for n in range(200):
                table.add_row(Text(f"app {n}"), Text("+"), Text("x" * (n % 37)), key=f"r{n}")
            seen["before"] = (table.show_vertical_scrollbar, table.ordered_columns[2].content_width)
            table.rows_added()
            seen["after"] = (table.show_vertical_scrollbar, table.ordered_columns[2].content_width)
            await pilot.pause()
            textuals = app.query_one("#textuals", DataTable)
            textuals.add_columns("App", "", "What")
            for n in range(200):
                textuals.add_row(Text(f"app {n}"), Text("+"), Text("x" * (n % 37)), key=f"r{n}")
            await pilot.pause()
            seen["textual's"] = [c.content_width for c in textuals.ordered_columns]
            seen["ours"] = [c.content_width for c in table.ordered_columns]

    asyncio.run(flow())
    assert seen["before"] == (False, len("What")) and seen["after"] == (True, 36)
    assert seen["ours"] == seen["textual's"]


@pytest.mark.parametrize("first", [0, 3], ids=["into an empty table", "after rows"])
def test_append_rows_leaves_the_table_as_add_row_does(first: int) -> None:
    """``append_rows`` does ``add_row``'s bookkeeping once for many rows (F5, F6): the same rows, keys, data, order,
    heights, cursor and highlighted row, the same messages, the same drawing."""
    seen: dict[str, Any] = {}

    class Watching(Tables):
        def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
            seen.setdefault(f"{event.data_table.id} highlighted", []).append(event.row_key.value)

    rows = [([Text(f"app {n}"), Text("+-~"[n % 3]), Text("x" * (n % 41))], f"r{n}") for n in range(60)]

    async def flow() -> None:
        app = Watching()
        async with app.run_test(size=(80, 24)) as pilot:
            ours, textuals = app.query_one(RowTable), app.query_one("#textuals", DataTable)
            for table in (ours, textuals):
                table.add_columns("App", "", "What")
                for cells, key in rows[:first]:
                    table.add_row(*cells, key=key)
            await pilot.pause()
            ours.append_rows(rows[first:])
            for cells, key in rows[first:]:
                textuals.add_row(*cells, key=key)
            await pilot.pause()
            for table in (ours, textuals):
                seen[str(table.id)] = (
                    [table.get_row_at(i) for i in range(table.row_count)],
                    [(key.value, row.height, row.label) for key, row in table.rows.items()],
                    table.cursor_coordinate, [c.content_width for c in table.ordered_columns], table.virtual_size,
                    table._total_row_height, [line.text for line in table.render_lines(table.region.reset_offset)])

    asyncio.run(flow())
    assert seen["ours"] == seen["textuals"]
    assert seen.get("ours highlighted") == seen.get("textuals highlighted") == ["r0"]  # once, by the first row
