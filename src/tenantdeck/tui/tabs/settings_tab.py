"""The Settings tab: the app settings the draft manages (``core.conversations.*``, ``core.notifications.push.*``),
each with its label, key and value.

Why so little to type: the API sets booleans only, so a boolean is flipped with Space or Enter; a list value
(``...advanced.included``) is the service's, shown and never sent. A key removed here (``d``) is no longer managed:
the service's value stays as it is. Keys the draft does not have come from a pull, or are typed in the draft.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tenantdeck.draft import settings_view as sv
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.quiet import update_static
from tenantdeck.tui.widgets.row_table import RowTable


class SettingsTab(UsesEditor, DraftListener, RefreshWhenShown, Vertical):
    """Space or Enter flips the boolean under the cursor, ``d`` stops managing its key, ``ctrl+n`` manages the
    settings of an app whose draft leaves them to the service."""

    HELP = """\
## Settings

The app settings this draft manages, by the service's key. A push sets only the booleans you changed, in one
request; a key not in the draft is left as the service has it.

- `Space` or `Enter`: switch the highlighted setting on or off
- `d` or `Delete`: stop managing that key (the service keeps its value)
- `Ctrl+N`: manage this app's settings in the draft (an empty block; `tenantdeck pull` or F5 fills it)
- A list value (such as which advanced push features are included) is the service's: shown, never sent.
"""
    BINDINGS = [
        Binding("space", "toggle", "Switch", id="settings.toggle", tooltip="Switch the setting on or off"),
        Binding("d,delete", "forget", "Unmanage", id="settings.forget",
                tooltip="Stop managing this key (the service keeps its value)"),
        Binding("ctrl+n", "manage", "Manage settings", id="settings.manage",
                tooltip="Manage this app's settings in the draft"),
    ]
    DEFAULT_CSS = """
    SettingsTab { height: 1fr; }
    SettingsTab #settings-status { height: auto; padding: 0 1; color: $text-muted; }
    SettingsTab DataTable { height: 1fr; }
    SettingsTab #settings-detail { height: 3; padding: 0 1; border-top: solid $primary; }
    """

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}].settings"

    def settings(self) -> dict[str, Any] | None:
        value = self.editor.get(self.prefix, None)
        return value if isinstance(value, dict) else None

    def compose(self) -> ComposeResult:
        yield Static("", id="settings-status", markup=False)
        yield RowTable(id="settings", cursor_type="row", zebra_stripes=True)
        yield Static("", id="settings-detail", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Setting", "Value")
        self.refresh_rows()

    def refresh_rows(self) -> None:
        settings = self.settings()
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for label, value, key in self._cells(sv.rows(settings)):
            table.add_row(Text(label), Text(value), key=key)
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))
        if settings is None:
            status = "This app's settings are not managed in this draft: the service's stay. Ctrl+N manages them."
        else:
            status = f"{table.row_count} setting(s) managed here; a key not listed is left as the service has it."
        update_static(self.query_one("#settings-status", Static), status)
        self.refresh_bindings()
        self._show_detail()

    def _cells(self, rows: list[sv.SettingRow]) -> list[tuple[str, str, str]]:
        """(setting, value, key) of each row, cut with ``…`` to this tab's width (a setting's name to half of it),
        the value in the rest: the detail line below the table has both whole."""
        from tenantdeck.textsafe import fitted
        from tenantdeck.tui.widgets.columns import last_column_room

        width = self.size.width or self.app.size.width
        labels = [fitted(shown(r.label), max(12, width // 2)) for r in rows]
        room = last_column_room(width, [["Setting", *labels]])
        return [(label, fitted(shown(r.shown if r.settable else f"{r.shown} (service's)"), room), r.key)
                for label, r in zip(labels, rows, strict=True)]

    def _current(self) -> sv.SettingRow | None:
        found = sv.rows(self.settings())
        row = self.query_one(DataTable).cursor_row
        return found[row] if found and 0 <= row < len(found) else None

    def _show_detail(self) -> None:
        current = self._current()
        lines = [] if current is None else [f"{current.key} = {current.shown}"]
        if current is not None:
            lines += [f"{'error' if p.is_error else 'warning'}: {p.message}"
                      for p in self.editor.problems_at(("apps", self.app_index, "settings", current.key))]
        update_static(self.query_one("#settings-detail", Static), shown("\n".join(lines), newlines=True))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_toggle()

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(f"apps[{self.app_index}]"):
            self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.refresh_rows()

    def focus_path(self, path: str) -> bool:
        if path != self.prefix and not path.startswith(self.prefix + "."):
            return False
        table = self.query_one(DataTable)
        key = path[len(self.prefix) + 1:]
        keys = [r.key for r in sv.rows(self.settings())]
        if key in keys:
            table.move_cursor(row=keys.index(key))
        table.focus()
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing here are left out of the footer (it must fit 80 columns)."""
        managed = self.is_mounted and self.settings() is not None
        if action == "manage":
            return not managed
        if action == "toggle":
            current = self._current() if managed else None
            return current is not None and current.settable
        if action == "forget":
            return managed and self._current() is not None
        return True

    def action_toggle(self) -> None:
        current, settings = self._current(), self.settings()
        if current is None or settings is None:
            return
        if not current.settable:
            self.notify(f"{current.key}: the service's value; the API cannot set it.", markup=False)
            return
        path, value = sv.toggled(settings, current.key)
        outcome = self.editor.set(("apps", self.app_index, *path), value)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)

    def action_forget(self) -> None:
        current = self._current()
        if current is None:
            return
        outcome = self.editor.delete(("apps", self.app_index, "settings", current.key))
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
        else:
            self.notify(f"{current.key} is no longer managed here (the service keeps its value).", markup=False)

    def action_manage(self) -> None:
        if self.settings() is not None:
            return
        outcome = self.editor.set(self.prefix, {})
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
