"""The first screen: every app of the draft, with its region, widget and webhook counts, problems and change state.

Painted from the parsed data (no pydantic) so it appears at once; problems and change states fill in when the
app's validation worker finishes. Filtering is incremental and debounced, so typing stays responsive at 5,000 apps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input

from tenantdeck.tui.messages import DraftChanged

if TYPE_CHECKING:
    from tenantdeck.tui.editor import Editor

COLUMNS = ("✓", "Name", "Region", "Widgets", "Webhooks", "Problems", "Change")


class AppsScreen(Screen[None]):
    """Enter opens an app; ``/`` filters; ``n`` adds an app; ``delete`` removes one from the draft."""

    HELP = """\
## Apps

Every app in the draft. **Change** compares the draft with the base snapshot (what was last pulled or pushed):
*new* apps are created by the next push, *modified* ones have local changes, *in sync* ones have none.
**Problems** counts validation errors and warnings (F8 lists them all).

- `Enter`: open the app
- `/`: filter by name, region or id (Escape clears)
- `n`: add an app
- `Delete`: remove the app from the draft (a push with deletes allowed then deletes it on the service)
- `Space`: mark or unmark the app (marked apps can be bulk edited together)
- `b`: bulk edit: set one value on many apps (filtered, by region or preset, or the marked ones)
- `p`: presets: the apps that extend each preset, and what a preset edit reaches
"""
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="apps.filter"),
        Binding("n", "new_app", "New app", id="apps.new"),
        Binding("delete", "delete_app", "Delete app", id="apps.delete"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="apps.clear_filter"),
        Binding("space", "mark", "Mark", show=False, id="apps.mark"),
        Binding("b", "bulk_edit", "Bulk edit", id="apps.bulk"),
        Binding("p", "presets", "Presets", show=False, id="apps.presets"),
    ]
    DEFAULT_CSS = """
    AppsScreen #filter { margin: 0 1; }
    AppsScreen DataTable { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._filter = ""
        self._timer: Any = None
        self.marked: set[int] = set()  #: indexes of the apps marked with Space (for a bulk edit)

    @property
    def editor(self) -> Editor:
        return self.app.editor  # type: ignore[attr-defined,no-any-return]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Filter apps: name, region or id  (/)", id="filter")
        table: DataTable[str] = DataTable(id="apps", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.refresh_rows()
        table.focus()

    # -- rows --------------------------------------------------------------------------------------------------

    def row(self, index: int, app: Any) -> tuple[str, ...]:
        data = app if isinstance(app, dict) else {}
        widgets = data.get("widgets") if isinstance(data.get("widgets"), list) else []
        hooks = data.get("webhooks") if isinstance(data.get("webhooks"), list) else []
        if self.editor.session.validated:
            problems = self.editor.problems_at(f"apps[{index}]")
            errors = sum(p.is_error for p in problems)
            warnings = len(problems) - errors
            shown = "ok" if not problems else ", ".join(
                part for part in (f"{errors} error{'s' * (errors != 1)}" if errors else "",
                                  f"{warnings} warning{'s' * (warnings != 1)}" if warnings else "") if part)
        else:
            shown = "checking"
        state = self.editor.app_states.get(f"apps[{index}]", "new" if not data.get("id") else "…")
        return ("✓" if index in self.marked else "", str(data.get("name", "?")), str(data.get("region", "?")),
                str(len(widgets)), str(len(hooks)), shown, state)

    def _matches(self, app: Any) -> bool:
        if not self._filter:
            return True
        data = app if isinstance(app, dict) else {}
        text = " ".join(str(data.get(k, "")) for k in ("name", "region", "id")).lower()
        return all(word in text for word in self._filter.lower().split())

    def refresh_rows(self) -> None:
        table = self.query_one(DataTable)
        current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value if table.row_count else None
        apps = self.editor.get("apps", []) or []
        table.clear()
        for i, app in enumerate(apps):
            if self._matches(app):
                table.add_row(*self.row(i, app), key=str(i))
        if current is not None and current in table.rows:
            table.move_cursor(row=table.get_row_index(current))
        self.marked = {i for i in self.marked if i < len(apps)}
        self.sub_title = f"{table.row_count} of {len(apps)} apps" if self._filter else f"{len(apps)} apps"
        if self.marked:
            self.sub_title += f" · {len(self.marked)} marked"

    def on_draft_changed(self, message: DraftChanged) -> None:
        """Redraw what changed: nothing while another screen is on top (once it is back), one row for an edit
        inside one app, the whole table only when apps were added, removed or reloaded. At 5,000 apps a full
        rebuild costs about a second; an edit in the App screen must not pay it on every key."""
        if self._covered():
            self._stale = True
            return
        if not self._refresh_edited_rows(message):
            self.refresh_rows()

    def _covered(self) -> bool:
        """A full screen is on top of this one (a modal leaves it visible, so it keeps it up to date)."""
        from textual.screen import ModalScreen

        stack = self.app.screen_stack
        if self not in stack:
            return True
        return any(not isinstance(screen, ModalScreen) for screen in stack[stack.index(self) + 1:])

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale", False):
            self._stale = False
            self.refresh_rows()

    def _refresh_edited_rows(self, message: DraftChanged) -> bool:
        """Update the rows of the apps an edit touched in place; False when the table must be rebuilt."""
        import re

        change = message.change
        if change.kind not in ("set", "insert", "delete", "undo", "redo", "transaction") or not change.paths:
            return False
        indexes: set[int] = set()
        for path in change.paths:
            m = re.match(r"apps\[(\d+)\]\.", path)
            if m is None:
                return False  # the app list itself, a preset (every app extending it), or the root
            indexes.add(int(m.group(1)))
        table = self.query_one(DataTable)
        apps = self.editor.get("apps", []) or []
        for i in indexes:
            if i >= len(apps) or str(i) not in table.rows:
                if i < len(apps) and self._matches(apps[i]):
                    return False
                continue
            for column, value in zip(table.columns, self.row(i, apps[i]), strict=False):
                table.update_cell(str(i), column, value)
        return True

    # -- filter ------------------------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        self._filter = event.value.strip()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.12, self.refresh_rows)

    def on_input_submitted(self) -> None:
        self.query_one(DataTable).focus()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one(DataTable).focus()

    # -- actions -----------------------------------------------------------------------------------------------

    def selected_index(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.app.open_app(int(event.row_key.value))  # type: ignore[attr-defined]

    def action_mark(self) -> None:
        """Mark or unmark the highlighted app and move down, so Space Space Space marks a run of apps."""
        index = self.selected_index()
        if index is None:
            return
        self.marked ^= {index}
        table = self.query_one(DataTable)
        table.update_cell(str(index), table.ordered_columns[0].key, "✓" if index in self.marked else "")
        apps = self.editor.get("apps", []) or []
        self.sub_title = (f"{table.row_count} of {len(apps)} apps" if self._filter else f"{len(apps)} apps") + (
            f" · {len(self.marked)} marked" if self.marked else "")
        table.action_cursor_down()

    def action_bulk_edit(self) -> None:
        self.app.action_bulk_edit()  # type: ignore[attr-defined]

    def action_presets(self) -> None:
        self.app.action_presets()  # type: ignore[attr-defined]

    def action_new_app(self) -> None:
        from tenantdeck.tui.new_app import NewAppScreen

        taken = {str(a.get("name")) for a in self.editor.get("apps", []) or [] if isinstance(a, dict)
                 and not a.get("id")}

        def created(data: dict[str, Any] | None) -> None:
            if data is None:
                return
            outcome = self.editor.insert("apps", data)
            if not outcome.ok:
                self.notify(outcome.refused, title="Not added", severity="error")
                return
            self.notify(f"App {data['name']!r} added to the draft; the next push creates it.")

        self.app.push_screen(NewAppScreen(taken), created)

    def action_delete_app(self) -> None:
        from tenantdeck.tui.confirm import ConfirmScreen

        index = self.selected_index()
        if index is None:
            return
        app = self.editor.get(f"apps[{index}]", {}) or {}
        name = app.get("name", "?") if isinstance(app, dict) else "?"
        where = ("it exists only in the draft" if not (isinstance(app, dict) and app.get("id"))
                 else "a push with deletes allowed then deletes it on the service")

        def answered(yes: bool | None) -> None:
            if yes:
                outcome = self.editor.delete(f"apps[{index}]")
                if not outcome.ok:
                    self.notify(outcome.refused, title="Not deleted", severity="error")
                else:
                    self.notify(f"App {name!r} removed from the draft (ctrl+z undoes).")

        self.app.push_screen(ConfirmScreen(f"Remove app {name!r} from the draft? ({where})", yes="Remove"),
                             answered)
