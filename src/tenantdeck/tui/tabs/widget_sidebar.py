"""Widget / Sidebar: which sections show, what the listings contain (only the documented values), and the order
of the sections, reordered with keys (never added to or repeated).

A listing value the service holds outside the documented ones is shown and kept, with a warning: only choosing
another value replaces it.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from tenantdeck.draft import widget_view as wv
from tenantdeck.models import catalog
from tenantdeck.tui.literal import literal
from tenantdeck.tui.tabs.widget_fields import BoolRow, ChoiceRow, FieldRow, SequenceRow, WidgetTab


class SidebarTab(WidgetTab):
    """The ``sidebar`` section of the app's widget (or of its preset, after ``p``)."""

    HELP = """\
## Widget / Sidebar

- `Space` / `Enter` on a section: show or hide it
- `Enter` on a listing: choose among the documented values
- in the order of sections, `u` / `d` (or `shift+up` / `shift+down`) move the highlighted one
- `r` resets the field with the cursor to the preset's value, `p` edits the preset itself
"""
    SECTION = "sidebar"

    def compose_fields(self) -> ComposeResult:
        yield Static("Sections", classes="topic")
        for key in wv.SIDEBAR_BOOLEANS:
            yield BoolRow("sidebar", key)
        yield Static("Listings", classes="topic")
        for key in wv.LISTING_KEYS:
            yield ChoiceRow("sidebar", key)
        yield Static("Navigation", classes="topic")
        yield SequenceRow("sidebar", wv.NAVIGATION_KEY)

    def row_note(self, row: FieldRow, resolved: wv.Resolved, data: dict[str, Any]) -> str:
        if isinstance(row, ChoiceRow):
            _, held = wv.listing_choices(row.key, resolved.value)
            if held:
                allowed = ", ".join(catalog.LISTING_VALUES[row.key])
                return (f"[$warning]! {literal(repr(resolved.value))} is not one of {allowed}: kept as it is until "
                        "you choose another[/]")
        if isinstance(row, SequenceRow) and isinstance(resolved.value, list):
            omitted = [s for s in catalog.NAVIGATION_SECTIONS if s not in resolved.value]
            if omitted:
                return f"[dim]omitted: {literal(', '.join(omitted))}[/]"
        return ""
