"""The command palette (ctrl+p) with its own footer: Textual's palette, whose keys are listed on the bottom line.

Textual's palette is a modal over the whole screen without a footer, so the bottom line showed the footer of the
screen behind it ("a Add e Edit ..." on the Webhooks tab), whose keys do nothing while the palette is open (a
letter goes into the search). Every screen and modal of the editor yields a :class:`KeyFooter` listing its own keys
(tui/widgets/footer.py); this one does too, with the palette's keys named for the footer: Escape closes, the arrows
move in the list, Enter runs. The footer lists a key by the first binding of it from the focused widget up, and
the palette's search field binds Enter (submit) and the arrows (scroll, which a one-line field skips) itself; so
the palette binds those keys ahead of the field (priority), to do exactly what they did: Enter what the field's
submit made the palette do (select the highlighted command, or run the selected one), the arrows move in the list.
What is offered is :mod:`tenantdeck.tui.commands`'.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandPalette

from tenantdeck.tui.widgets.footer import KeyFooter


class Palette(CommandPalette):
    """Textual's command palette, with a footer listing its keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Close", id="palette.close"),
        Binding("up", "command_list('cursor_up')", "Move", key_display="↑↓", priority=True, id="palette.up"),
        Binding("down", "cursor_down", "Move", show=False, priority=True, id="palette.down"),
        Binding("enter", "run", "Run", key_display="⏎", priority=True, id="palette.run"),
    ]

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield KeyFooter()

    def action_run(self) -> None:
        """Enter: what the search field's Enter does (select the highlighted command, or run the selected one)."""
        self._select_or_command()
