"""Widget / Style: the widget's colours (each with a swatch and checked as you type), the docked icon's images,
whether it overrides the system background colours, and custom CSS and JS in text areas.

A widget that extends a preset shows each value as inherited (``preset``) or this app's own (``override``);
``r`` resets the field that has the cursor, ``p`` edits the preset itself (see
:mod:`tenantdeck.tui.tabs.widget_fields`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tenantdeck.draft import widget_view as wv
from tenantdeck.tui.tabs.widget_fields import BoolRow, CodeRow, TextRow, WidgetTab


class StyleTab(WidgetTab):
    """The ``style`` section of the app's widget (or of its preset, after ``p``)."""

    HELP = """\
## Widget / Style

Colours are `#RGB` or `#RRGGBB`: the swatch beside each shows it, and a colour the models refuse says why as you
type. A text field is written to the draft on `Enter` or when you leave it; custom CSS and JS when you leave the
text area (`Tab`, `Escape`) or save (`F2`).

In a widget that extends a preset, *preset* marks an inherited value and *override* this app's own:
- `r`: reset the field with the cursor to the preset's value
- `p`: edit the preset itself (says first how many widgets and apps that changes); `p` again comes back
- `a`: add a widget, when the app has none
"""
    SECTION = "style"

    def compose_fields(self) -> ComposeResult:
        yield Static("Colours", classes="topic")
        for key in wv.COLOUR_KEYS:
            yield TextRow("style", key, colour=True)
        yield BoolRow("style", "override_system_background_colors")
        yield Static("Docked icon", classes="topic")
        for key in wv.ICON_KEYS:
            yield TextRow("style", key)
        yield Static("Custom code", classes="topic")
        for key in wv.CODE_KEYS:
            yield CodeRow("style", key)
