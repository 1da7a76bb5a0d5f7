"""How many cells a table's last column has at the screen's width: the one sum every 80-column table cuts its
last cell to (with :func:`tenantdeck.textsafe.fitted`, so the cut ends in ``…`` and the detail line keeps the
whole text)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tenantdeck.textsafe import cell_width

#: what Textual's DataTable takes beside the cells: one cell of padding each side of a column, plus a vertical
#: scrollbar of two
PADDING, SCROLLBAR = 2, 2


def last_column_room(width: int, others: Sequence[Iterable[str]], least: int = 8, scrollbar: bool = True) -> int:
    """The cells left for the last column of a table ``width`` wide whose other columns hold ``others`` (each
    column's header and cells, already shown); ``scrollbar``: keep room for a vertical one."""
    used = sum(max((cell_width(cell) for cell in column), default=0) for column in others)
    return max(least, width - PADDING * (len(others) + 1) - SCROLLBAR * scrollbar - used)
