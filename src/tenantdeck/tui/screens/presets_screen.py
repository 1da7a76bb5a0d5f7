"""Presets: each preset with the apps that extend it; for the chosen preset each field with its value and how many
of those apps override it, and the apps themselves.

A preset edit reaches every app that extends the preset and does not override that value: Enter on a field asks
for the new value and says, before anything is written, how many apps it reaches. Enter on an app opens it. The
counts are :mod:`tenantdeck.draft.preset_view`'s; the reach sentence is
:func:`tenantdeck.draft.widget_view.preset_usage`'s.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.suggester import SuggestFromList
from textual.widgets import DataTable, Input, Label, Static

from tenantdeck.draft import bulk, preset_view, widget_view
from tenantdeck.draft.session import ChangeKind
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.row_table import RowTable

#: apps listed with the preset's first frame (more than any terminal shows); the rest come one refresh later
FIRST_ROWS = 60
#: the name the Presets screen kept for the session is installed under (:meth:`PresetsScreen.for_app`)
KEPT = "presets"


class PresetsScreen(UsesEditor, DraftListener, Screen[None]):
    """Presets on the left; the chosen preset's fields and the apps extending it on the right."""

    HELP = """\
## Presets

Every preset in the draft and how many apps extend it. For the highlighted preset: each field with its value
(*default* when the preset leaves it to the service) and how many of the apps extending it **override** it
(those keep their own value when the preset changes), and the apps themselves.

- `Enter` on a field: edit the preset's value; the dialog says how many apps the change reaches before saving
- `Enter` on an app: open it
- `Tab` / `shift+Tab`: move between the presets, fields and apps
- `Escape`: back to the apps
"""
    BINDINGS = [Binding("escape", "close", "Back", id="presets.close")]
    DEFAULT_CSS = """
    PresetsScreen #presets { width: 22; height: 1fr; }
    PresetsScreen #right { width: 1fr; }
    PresetsScreen #fields { height: 3fr; }
    PresetsScreen #apps-of { height: 2fr; }
    PresetsScreen .caption { height: 1; padding: 0 1; background: $panel; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.preset: str | None = None
        self._fields: list[preset_view.PresetField] = []
        self._apps: list[int] = []
        self._stale = False
        #: how many times a preset was shown: the apps list is filled for the last showing only (_fill_apps)
        self._shown = 0

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        with Horizontal():
            presets: DataTable[str] = RowTable(id="presets", cursor_type="row")
            yield presets
            with Vertical(id="right"):
                yield Static("", id="fields-caption", classes="caption", markup=False)
                yield RowTable(id="fields", cursor_type="row", zebra_stripes=True)
                yield Static("", id="apps-caption", classes="caption", markup=False)
                yield RowTable(id="apps-of", cursor_type="row")
        yield KeyFooter()

    @classmethod
    def for_app(cls, app: App[Any]) -> PresetsScreen:
        """The Presets screen to push: the one kept for the session, shown again as a new one shows (:meth:`reopen`),
        when it is off every screen stack; else a new one, kept if none is yet. Composing and styling the screen's
        13 widgets was ~10 ms of the 35-55 ms to its first frame (issue 36, bench/tui_navigation.py "p presets");
        kept, the first frame is filling and drawing the tables."""
        from tenantdeck.tui.screens import kept as kept_screens

        kept = kept_screens.free(app, KEPT, PresetsScreen)
        if kept is not None:
            kept.reopen()
            return kept
        return kept_screens.keep_first(app, KEPT, cls())

    def reopen(self) -> None:
        """What a new screen shows: the presets from the draft as it is now, the first one highlighted, every
        table at its top, the focus in the list of presets."""
        self.preset = None
        self._fields, self._apps = [], []
        self._stale = False
        tables = [self.query_one(f"#{name}", DataTable) for name in ("presets", "fields", "apps-of")]
        for table in tables:
            table.clear(columns=True)  # a column keeps the width of the widest cell it has held (a long preset id)
        self._add_columns()
        self.refresh_presets()
        self.set_focus(tables[0], scroll_visible=False)

    def on_mount(self) -> None:
        self._add_columns()
        self.refresh_presets()
        self.query_one("#presets", DataTable).focus()

    def _add_columns(self) -> None:
        self.query_one("#presets", DataTable).add_columns("Preset", "Apps")
        fields = self.query_one("#fields", DataTable)
        fields.add_column("Field", width=26)
        fields.add_column("Value", width=12)
        fields.add_column("Overrides")
        self.query_one("#apps-of", DataTable).add_columns("App", "Region", "Overrides")

    # -- content ----------------------------------------------------------------------------------------------------

    def refresh_presets(self) -> None:
        table = self.query_one("#presets", DataTable)
        rows = preset_view.presets(self.editor.session.data)
        current = self.preset
        table.clear()
        for row in rows:
            table.add_row(Text(shown(row.name)), Text(str(row.apps)), key=row.name)
        names = [r.name for r in rows]
        self.sub_title = f"Presets: {len(rows)}"
        if current in names:
            table.move_cursor(row=names.index(current))
        self.show_preset(current if current in names else (names[0] if names else None))

    def show_preset(self, name: str | None) -> None:
        self.preset = name
        fields = self.query_one("#fields", DataTable)
        apps = self.query_one("#apps-of", DataTable)
        row = fields.cursor_row
        fields.clear()
        apps.clear()
        data = self.editor.session.data
        if name is None:
            self._fields, self._apps = [], []
            self.query_one("#fields-caption", Static).update("No presets in this draft.")
            self.query_one("#apps-caption", Static).update("")
            return
        self._fields = preset_view.fields(data, name)
        self._apps = preset_view.extending(data, name)
        for f in self._fields:
            value = preset_view.shown(f.value) + (" (default)" if f.source == widget_view.DEFAULT else "")
            label = f.label if len(f.label) <= 26 else f.label[:25] + "…"
            fields.add_row(Text(label), Text(shown(value)), Text(str(f.overriding) if f.overriding else ""),
                           key=f"{f.section}.{f.key}")  # Text cells: no markup, and RowTable's quick measure
        if self._fields:
            fields.move_cursor(row=min(row, len(self._fields) - 1))
        n = len(self._apps)
        self.query_one("#fields-caption", Static).update(
            f"{name}: Enter edits; Overrides: apps keeping their own")
        more = ", the first 2000 shown" if n > 2000 else ""
        self.query_one("#apps-caption", Static).update(
            f"{n} app{'s' * (n != 1)} extend {name}{more}; Enter opens one")
        # a screenful now, the rest after the frame that shows the preset: the table measures every cell of every
        # row it is given before its next frame, 55 ms of a 90 ms first frame for 667 apps (issue 36)
        self._shown += 1
        self._fill_apps(self._shown, 0, FIRST_ROWS)
        if len(self._apps) > FIRST_ROWS:
            self.call_after_refresh(self._fill_apps, self._shown, FIRST_ROWS, 2000)

    def _fill_apps(self, shown_as: int, start: int, stop: int) -> None:
        """Rows ``start`` to ``stop`` of the apps extending the preset shown, unless it was shown again meanwhile
        (the later showing fills them)."""
        name = self.preset
        if shown_as != self._shown or name is None:
            return
        apps = self.query_one("#apps-of", DataTable)
        everything = self.editor.session.data.get("apps") or []
        for i in self._apps[start:stop]:
            app = everything[i] if isinstance(everything[i], dict) else {}
            own = sum(len(w.get(s) or {}) for w in app.get("widgets") or [] if isinstance(w, dict)
                      and w.get("extends") == name for s in widget_view.SECTIONS if isinstance(w.get(s), dict))
            apps.add_row(Text(shown(str(app.get("name", "?")))), Text(shown(str(app.get("region", "?")))),
                         Text(str(own) if own else ""), key=str(i))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "presets" and event.row_key.value != self.preset:
            self.show_preset(event.row_key.value)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        table = event.data_table.id
        if table == "presets":
            self.query_one("#fields", DataTable).focus()
        elif table == "fields" and 0 <= event.cursor_row < len(self._fields):
            self.edit_field(self._fields[event.cursor_row])
        elif table == "apps-of" and event.row_key.value is not None:
            self.host.open_app(int(event.row_key.value))

    def on_draft_changed(self, message: DraftChanged) -> None:
        """Redraw now when visible; when an App screen opened from here is on top, once it is back (counting the
        overrides of 5,000 apps on every key pressed in another screen would slow that screen down)."""
        if message.change.kind == ChangeKind.VALIDATE:
            return
        if self.app.screen is not self and not isinstance(self.app.screen, ModalScreen):
            self._stale = True
            return
        self.refresh_presets()

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.refresh_presets()

    # -- editing --------------------------------------------------------------------------------------------------

    def edit_field(self, field: preset_view.PresetField) -> None:
        name = self.preset
        if name is None:
            return
        editable = bulk.find_field(f"{field.section}.{field.key}")
        if editable is None:
            self.notify(f"{field.label} is edited in the widget tabs (open an app, then the preset key there).",
                        title="Not editable here", markup=False)
            return
        usage = widget_view.preset_usage(self.editor.session.data, name, field.section, field.key)

        def done(value: Any) -> None:
            if value is None:
                return
            outcome = self.editor.set(("presets", name, field.section, field.key), value)
            if not outcome.ok:
                self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
                return
            self.notify(f"Preset {name}: {field.label} = {preset_view.shown(value)}; reaches {usage.changed} "
                        f"widget{'s' * (usage.changed != 1)} (ctrl+z undoes).", markup=False)

        self.app.push_screen(PresetValueScreen(name, editable, field.value, usage), done)

    def action_close(self) -> None:
        self.dismiss()


class PresetValueScreen(ModalScreen[Any]):
    """Asks for a preset field's new value and says how many apps it reaches; dismisses with the value or None."""

    DEFAULT_CSS = """
    PresetValueScreen { align: center middle; }
    PresetValueScreen > Vertical {
        width: 70; max-width: 100%; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    PresetValueScreen #error { color: $error; height: auto; }
    PresetValueScreen #reach { height: auto; margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="preset_value.cancel")]

    def __init__(self, preset: str, field: bulk.Field, current: Any, usage: widget_view.PresetUsage) -> None:
        super().__init__()
        self.preset = preset
        self.field = field
        self.current = current
        self.usage = usage

    def compose(self) -> ComposeResult:
        choices = [str(c) for c in self.field.choices] if self.field.kind == bulk.LISTING else ["on", "off"]
        with Vertical():
            yield Label(f"Preset {self.preset}: {self.field.label} ({self.field.name})", markup=False)
            n = self.usage.changed
            yield Static(f"{self.usage.sentence(self.preset)} Saving reaches {n} widget{'s' * (n != 1)}. "
                         f"Now: {preset_view.shown(self.current)}.", id="reach", markup=False)
            yield Input(preset_view.shown(self.current) if self.current is not None else "", id="value",
                        placeholder="#rrggbb" if self.field.kind == bulk.COLOUR else " / ".join(choices),
                        suggester=None if self.field.kind == bulk.COLOUR else SuggestFromList(choices))
            yield Label("", id="error", markup=False)
            yield Label("Enter saves it into the preset; Escape cancels.")
        yield KeyFooter()

    def on_input_changed(self, event: Input.Changed) -> None:
        problem = bulk.parse_value(self.field, event.value)[1] if event.value.strip() else ""
        self.query_one("#error", Label).update(problem or "")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value, problem = bulk.parse_value(self.field, event.value)
        if problem:
            self.query_one("#error", Label).update(problem)
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
