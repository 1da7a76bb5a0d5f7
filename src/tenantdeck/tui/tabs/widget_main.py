"""Widget / Main: the 46 feature toggles, grouped by topic, each with its label, the spec's description, its
default, the API's required marker and the extension it needs; ``e`` enables that extension in the draft.

Flipping a toggle repaints that one row (and any row whose problems changed), never the whole tab: the tab keeps
each row's last state and compares.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tenantdeck.draft import widget_view as wv
from tenantdeck.models import catalog
from tenantdeck.tui.literal import literal
from tenantdeck.tui.tabs.widget_fields import BoolRow, FieldRow, WidgetTab


class MainTab(WidgetTab):
    """The ``main`` section of the app's widget (or of its preset, after ``p``)."""

    HELP = """\
## Widget / Main

Every feature toggle, by topic. Each row: the switch, its label (`*`: the API requires it), its default, and where
its value comes from; below, the spec's description and the extension it needs.

- `Space` / `Enter`: flip the toggle with the cursor
- `e`: enable the extension that toggle needs, in this app's `extensions` (created when missing)
- `r`: reset the toggle to the preset's value, `p`: edit the preset itself
"""
    BINDINGS = [
        Binding("e", "enable_extension", "Enable ext", id="widget.enable_extension",
                tooltip="Enable the extension the toggle with the cursor needs"),
    ]
    SECTION = "main"

    def compose_fields(self) -> ComposeResult:
        for topic in catalog.TOGGLE_TOPICS:
            yield Static(topic.capitalize(), classes="topic")
            for toggle in catalog.MAIN_TOGGLES:
                if toggle.topic == topic:
                    yield BoolRow("main", toggle.key, description=toggle.description, required=toggle.required)

    def row_note(self, row: FieldRow, resolved: wv.Resolved, data: dict[str, Any]) -> str:
        extension = catalog.TOGGLE_EXTENSIONS.get(row.key)
        if not extension:
            return ""
        name = literal(extension)
        if self.preset_mode is not None:
            return f"needs [b]{name}[/] in every app that turns it on"
        state = wv.extension_enabled(data["extensions"], extension)
        if state:
            return f"needs [b]{name}[/]: [$success]enabled[/]"
        if state is None:
            return f"needs [b]{name}[/]: [dim]extensions not managed here[/] ([b]e[/] enables)"
        return f"needs [b]{name}[/]: [$warning]not enabled[/] ([b]e[/] enables)"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "enable_extension":  # only where it would enable something (the footer offered it on a
            row = self.focused_row() if self.is_mounted else None  # toggle whose extension was on: trial F33)
            extension = catalog.TOGGLE_EXTENSIONS.get(row.key) if row is not None else None
            return extension is not None and bool(self._enable_edits(extension))
        return super().check_action(action, parameters)

    def _enable_edits(self, extension: str) -> list[Any]:
        """The edits ``e`` makes for ``extension``: none when it is enabled already (one rule for key and footer)."""
        return wv.enable_extension_edits(self.editor.get(f"{self.prefix}.extensions", None), self.app_index,
                                         extension)

    def bindings_state(self, widget: dict[str, Any] | None) -> tuple[object, ...]:
        """The footer's ``e`` follows the app's extensions too (enabled with ``e``, an undo, the Extensions tab)."""
        extensions = self.editor.get(f"{self.prefix}.extensions", None)
        block = extensions if isinstance(extensions, dict) else {}
        return (*super().bindings_state(widget), repr(block.get("enabled")), repr(block.get("disabled")))

    def action_enable_extension(self) -> None:
        row = self.focused_row()
        extension = catalog.TOGGLE_EXTENSIONS.get(row.key) if row is not None else None
        if row is None or not extension:
            self.notify("The toggle with the cursor needs no extension.")
            return
        edits = self._enable_edits(extension)
        if not edits:
            self.notify(f"{extension!r} is already enabled in this app.")
            return
        outcome = self.editor.set_many(edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not enabled", severity="error")
            return
        self.notify(f"{extension!r} enabled in this app's extensions (ctrl+z undoes).")
