"""How many cells a table's last column has at the screen's width: the one sum every 80-column table cuts its
last cell to (with :func:`tenantdeck.textsafe.fitted`, so the cut ends in ``…`` and the detail line keeps the
whole text); and :class:`RefitOnResize`, which cuts them again when that width changes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tenantdeck.textsafe import cell_width

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object

#: what Textual's DataTable takes beside the cells: one cell of padding each side of a column, plus a vertical
#: scrollbar of two
PADDING, SCROLLBAR = 2, 2


def last_column_room(width: int, others: Sequence[Iterable[str]], least: int = 8, scrollbar: bool = True) -> int:
    """The cells left for the last column of a table ``width`` wide whose other columns hold ``others`` (each
    column's header and cells, already shown); ``scrollbar``: keep room for a vertical one."""
    used = sum(max((cell_width(cell) for cell in column), default=0) for column in others)
    return max(least, width - PADDING * (len(others) + 1) - SCROLLBAR * scrollbar - used)


class RefitOnResize(_Base):
    """Mixin for a screen or widget whose table cells are cut to its width: on a resize, :meth:`refresh_rows` draws
    them again at the new one. Cut once, rows stayed cut at the width the table opened at (20 columns left free
    after a widening), or ran past the edge with no ``…`` after a narrowing (a column never narrows by itself).

    A plain class, not a Widget, placed ahead of the screen or container in the bases (as
    :class:`tenantdeck.tui.tabs.tab_refresh.RefreshWhenShown` is)."""

    def refresh_rows(self) -> None:
        """Draw the rows again, cut to the width the widget has now (its columns cleared: they only widen)."""
        raise NotImplementedError

    def refit(self) -> None:
        """What a resize redraws: :meth:`refresh_rows`, unless that does more than redraw (the problems screen's
        checks the draft again), where this is overridden."""
        self.refresh_rows()

    def on_resize(self) -> None:
        if self.is_mounted:
            self.refit()
