"""The Extensions tab: every known extension with its state in the draft, whether the draft holds its settings,
and the main toggles that need it; Enter (or ``s``) opens an extension's settings form.

Why a table of all of them, not only those the draft lists: the draft's ``extensions`` block lists only what it
manages, and the admin's question is usually "is X on, and what breaks if I turn it off". The state and the
dependents come from :mod:`tenantdeck.draft.extension_view`, the settings marker and why an extension has no form
from :mod:`tenantdeck.draft.extension_settings_view`; this widget only renders them and applies its edits. The form
itself is :class:`~tenantdeck.tui.tabs.extension_settings_form.ExtensionSettingsForm`.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tenantdeck.draft import extension_settings_view as xv
from tenantdeck.draft import extension_view as ev
from tenantdeck.problems import format_path
from tenantdeck.textsafe import fitted, shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.quiet import update_static

#: the Main tab's toggles that need the extension ("Needed by" read as if an extension needed itself, where the
#: toggle and the extension share a name: "Collaborative document")
NEEDED = "Toggles needing it"
#: (label, width); the last column takes what is left; the Id column only when there is room (the detail names it).
#: Settings: ``draft`` (the draft holds the extension's settings), ``none`` (it could), ``SMS tab``, ``-``.
COLUMNS = (("Extension", 24), ("Id", 22), ("State", 11), ("Settings", 8), (NEEDED, 0))


class ExtensionsTab(UsesEditor, DraftListener, RefreshWhenShown, RefitOnResize, Vertical):
    """``e`` enables, ``d`` disables, ``u`` stops managing the extension under the cursor."""

    HELP = """\
## Extensions

Every extension the tool knows, with its state **in this draft**:

- *enabled* / *disabled*: listed in the app's `extensions` block; a push makes the service match.
- *not managed*: in neither list; a push leaves it as it is on the service.

**Settings** says whether the draft holds the extension's settings: *draft* (managed here), *none* (the
service's are left as they are; the form can start them), *SMS tab* (SMS keeps its own block), *-* (nothing to
set here: the extension has no settings, or the vendor publishes none).

**Toggles needing it** lists the Main tab's toggles that need the extension (the toggle may only be on while it
is enabled); below the table, the widgets of this app where such a toggle is on.

- `Enter` or `s`: the extension's settings form (generated from the catalog)
- `e`: enable · `d`: disable (warns when a widget's toggle needs it) · `u`: stop managing it
- `Ctrl+Z`: undo
"""
    BINDINGS = [
        Binding("s", "settings", "Settings", id="extensions.settings", show=False,  # the detail says Enter does it
                tooltip="Open the extension's settings form"),
        Binding("e", "set_state('enabled')", "Enable", id="extensions.enable", tooltip="Enable this extension"),
        Binding("d", "set_state('disabled')", "Disable", id="extensions.disable",
                tooltip="Disable this extension (warns when a toggle needs it)"),
        Binding("u", "set_state('not managed')", "Unmanage", id="extensions.unmanage",
                tooltip="Take it out of the draft: a push leaves it as it is on the service"),
    ]
    DEFAULT_CSS = """
    ExtensionsTab { height: 1fr; }
    ExtensionsTab #ext-summary { height: auto; padding: 0 1; color: $text-muted; }
    ExtensionsTab DataTable { height: 1fr; }
    ExtensionsTab #ext-detail { height: 6; padding: 0 1; border-top: solid $primary; }
    ExtensionsTab #ext-detail.-warning { color: $warning; }
    """

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self._rows: list[ev.ExtensionRow] = []

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}]"

    def compose(self) -> ComposeResult:
        yield Static("", id="ext-summary")
        from tenantdeck.tui.widgets.row_table import RowTable

        table: DataTable[str] = RowTable(id="extensions", cursor_type="row", zebra_stripes=True)  # Home/End: rows
        yield table
        yield Static("", id="ext-detail", markup=False)

    def on_mount(self) -> None:
        self.refresh_rows()

    def _columns(self) -> list[tuple[str, int]]:
        wide = self.size.width >= 100
        cols = [c for c in COLUMNS if wide or c[0] != "Id"]
        fixed = sum(w for _, w in cols) + 2 * len(cols) + 2
        return [(label, w or max(16, self.size.width - fixed)) for label, w in cols]

    # -- rendering ---------------------------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        data: Any = self.editor.session.data
        self._rows = ev.extension_rows(data, self.app_index)
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        columns = self._columns()
        for label, width in columns:
            table.add_column(label, width=width, key=label)
        for r in self._rows:
            cells = {"Extension": r.name if r.known else f"{r.name} (not in the catalog)", "Id": r.id,
                     "State": r.state, "Settings": xv.settings_marker(data, self.app_index, r.id),
                     NEEDED: ", ".join(d.toggle.label for d in r.dependents) or "-"}
            # an id or a name the catalog does not know is the draft's: data, escaped before the cut
            table.add_row(*(Text(fitted(shown(cells[label]), width)) for label, width in columns), key=r.id)
        if self._rows:
            table.move_cursor(row=min(max(row, 0), len(self._rows) - 1))
        managed = sum(r.state != ev.NOT_MANAGED for r in self._rows)
        if ev.manages_extensions(data, self.app_index):
            summary = f"Managed here: {managed} of {len(self._rows)}; the rest are left as they are on the service."
        else:
            summary = "Not managed here (no extensions block): enabling or disabling one adds the block."
        update_static(self.query_one("#ext-summary", Static), summary)
        self._show_detail()

    def _current(self) -> ev.ExtensionRow | None:
        table = self.query_one(DataTable)
        if not self._rows or not 0 <= table.cursor_row < len(self._rows):
            return None
        return self._rows[table.cursor_row]

    def _show_detail(self) -> None:
        detail = self.query_one("#ext-detail", Static)
        row = self._current()
        if row is None:
            update_static(detail, "")
            return
        problems = [p for p in self.editor.problems_at(self.prefix) if f"'{row.id}'" in p.message]
        lines = [f"{row.name} ({row.id}): {row.state}."]
        if row.needed_by:
            lines.append("On in this app and needing it: " + "; ".join(row.needed_by))
        elif row.dependents:
            names = ", ".join(d.toggle.label for d in row.dependents)
            lines.append(f"Needed by the Main tab's toggle{'s' if len(row.dependents) > 1 else ''} {names} (off in "
                         "this app).")
        lines += [f"{p.severity.value}: {p.message}" for p in problems]
        lines.append(self._settings_line(row))
        update_static(detail, shown("\n".join(lines), newlines=True))
        detail.set_class(bool(row.needed_by) and row.state != ev.ENABLED, "-warning")

    def _settings_line(self, row: ev.ExtensionRow) -> str:
        """What Enter does here: open the form (and how many problems its settings have), or why there is none."""
        why = xv.why_no_form(row.id)
        if why:
            return why
        prefix = xv.prefix_of(self.app_index, row.id)
        if xv.settings_of(self.editor.session.data, self.app_index, row.id) is None:
            return "Settings: none in the draft (the service's are left as they are). Enter opens the form."
        problems = self.editor.problems_at(prefix)
        errors = sum(p.is_error for p in problems)
        said = f": {errors} error(s), {len(problems) - errors} warning(s)" if problems else ""
        return f"Settings: in the draft{said}. Enter opens the form."

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_settings()

    def action_settings(self, path: tuple[str | int, ...] | None = None) -> None:
        """Open the highlighted extension's settings form (on the field of ``path`` when given); SMS goes to its
        tab; an extension without a form says why."""
        row = self._current()
        if row is None:
            return
        if row.id == "sms-notification":
            show_tab = getattr(self.screen, "action_show_tab", None)
            if callable(show_tab):
                self.screen.call_later(show_tab, "sms")  # a coroutine: the tab may be composed first
                return
        why = xv.why_no_form(row.id)
        if why:
            self.notify(why, title="No settings form", markup=False)
            return
        from tenantdeck.tui.tabs.extension_settings_form import ExtensionSettingsForm

        self.app.push_screen(ExtensionSettingsForm(self.app_index, row.id, focus_path=path))

    def focus_path(self, path: str) -> bool:
        """``apps[i].extensions...``: the table focused, the cursor on the extension the path names when it names
        one (``extensions.enabled[k]`` is the k-th id of that list; ``extensions.<id>`` is that extension).
        ``apps[i].extension_settings.<id>...``: that
        extension's settings form, on the field the path names."""
        from tenantdeck.problems import parse_path

        try:
            parts = parse_path(path)
        except ValueError:
            return False
        if parts[:3] == ("apps", self.app_index, "extension_settings") and len(parts) >= 4:
            ids = [r.id for r in self._rows]
            table = self.query_one(DataTable)
            if parts[3] not in ids:
                table.focus()
                return True
            table.move_cursor(row=ids.index(str(parts[3])))
            table.focus()
            self.action_settings(tuple(parts[4:]))
            return True
        if parts[:3] != ("apps", self.app_index, "extensions"):
            return False
        table = self.query_one(DataTable)
        named = self.editor.get(format_path(parts[:5]), None) if len(parts) >= 5 else None
        if len(parts) == 4 and isinstance(parts[3], str):  # ``apps[i].extensions.<id>``: a policy's jump
            named = parts[3]
        row = next((n for n, r in enumerate(self._rows) if r.id == named), None)
        if row is not None:
            table.move_cursor(row=row)
        table.focus()
        return True

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(self.prefix) or message.touches("presets"):  # extension_settings is under the prefix
            self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.refresh_rows()

    # -- actions -----------------------------------------------------------------------------------------------

    def action_set_state(self, state: str) -> None:
        row = self._current()
        if row is None:
            return
        edits = ev.state_edits(self.editor.session.data, self.app_index, row.id, state)
        if not edits:
            self.notify(f"{row.name} is already {state} in the draft.", markup=False)
            return
        outcome = self.editor.set_many(edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
            return
        if state != ev.ENABLED and row.needed_by:
            self.notify(f"{row.name} is now {state}, but {'; '.join(row.needed_by)} needs it: turn the toggle off in "
                        "the Main tab, or enable it again (Ctrl+Z undoes).", title="Needed by a toggle",
                        severity="warning", timeout=8, markup=False)
        else:
            self.notify(f"{row.name}: {state}.", markup=False)
