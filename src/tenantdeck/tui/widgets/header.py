"""The header every screen uses: Textual's, except that a new title repaints it without a relayout.

Textual's header updates its title with ``Static.update``, which lays the whole screen out again; the title changes
on the first edit after a save (the dirty marker) and the App screen has a few hundred widgets, so that layout was a
third of a toggle's key-to-frame time at 1,000 apps (bench/tui_latency.py). The title's box is the header's width
and one line whatever the text (``width: 100%``, no wrapping), so a repaint is all a new title needs.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Header
from textual.widgets._header import HeaderClockSpace, HeaderIcon, HeaderTitle  # not re-exported by textual.widgets

from tenantdeck.textsafe import shown
from tenantdeck.tui.widgets.watchers import forget_gone


class _Title(HeaderTitle):
    def update(self, content: Any = "", *, layout: bool = False) -> None:
        super().update(content, layout=False)


class TitleHeader(Header):
    """Textual's header (icon, title and sub-title, no clock) whose title updates without a relayout."""

    def format_title(self) -> Content:
        """Titles name apps and widgets (data): shown safe for the terminal, as every data string is."""
        return self.app.format_title(shown(self.screen_title), shown(self.screen_sub_title))

    def on_unmount(self) -> None:
        """Leave the app's title watchers (tui/widgets/watchers.py): else every closed screen's header stays alive
        until the title next changes (a docs-only trial's memory grew 180 -> 380 MB over ~1,500 screens)."""
        forget_gone(self.app, leaving=self)

    def compose(self) -> ComposeResult:
        yield HeaderIcon().data_bind(Header.icon)
        yield _Title()
        yield HeaderClockSpace()
