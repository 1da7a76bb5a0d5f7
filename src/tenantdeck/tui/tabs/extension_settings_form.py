"""One extension's settings as a form generated from the catalog, opened from the Extensions tab (Enter or ``s``).

Why a list of rows with one edit line, not a widget per field: push-notification alone has 35 fields, a profanity
list can hold hundreds of words and data-masking's masks are a table; as rows they all fit 80x24, scroll, and take
the same keys (arrows and Tab move, Space flips, Enter edits, ``a`` adds, ``d`` removes). What the rows are, what a
value reads as and which edits a key makes come from :mod:`tenantdeck.draft.extension_settings_view`; this screen
only draws them and applies the edits through the editor (one undo step each, validated at once: the session's
problems are shown on the row they name).

A secret row shows its ``${VAR}`` reference and whether the variable is set where the editor runs, never a value;
it is typed in a masked field, and a literal is refused before it reaches the session (which would refuse it too).
An object of a table (a mask, a sticker) opens as the same form, one level down; Escape comes back.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tenantdeck.draft import extension_settings_view as xv
from tenantdeck.problems import format_path
from tenantdeck.textsafe import fitted, shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.quiet import update_static
from tenantdeck.tui.widgets.secret_input import SecretInput

#: the Setting column (indented by depth) is as wide as the form's longest label, within these; the value takes the rest
LABEL_WIDTH = (16, 34)
_MARK = {True: "!", False: "?"}  #: the first column: an error, a warning (in text, so it reads without colour)


class SettingsTable(DataTable[Text]):
    """The form's rows. Tab and Shift+Tab move between fields, as they do in the other forms."""

    BINDINGS = [
        Binding("tab", "cursor_down", "Next", show=False),
        Binding("shift+tab", "cursor_up", "Previous", show=False),
    ]


class ExtensionSettingsForm(UsesEditor, DraftListener, Screen[None]):
    """The settings of extension ``ext_id`` in app ``app_index`` (of one object of a table when ``under`` names
    it, such as ``("customregexData", 0)``)."""

    HELP = """\
## Extension settings

The extension's settings in this draft, one row per field, generated from the catalog: its label, its value (or
the default, dimmed, when the draft does not write it) and, below, its description and the draft's problems.

- `Up` / `Down`, `Tab` / `Shift+Tab`: move between fields
- `Space`: flip a switch (on a mask or sticker: its *On* switch)
- `Enter`: edit the field (type, then `Enter`; a choice: pick it, `Enter`); on a list, edit it as `a, b, c`; on
  one object of a table, open it as a form of its own
- `a`: add an item to the list (or a `key=value` entry, or an object to the table) the cursor is in
- `d` or `Delete`: remove the item, or unset an optional field (its default applies)
- `Escape`: take back what is being typed; with nothing typed, go back
- `Ctrl+N`: start this extension's settings from the catalog's defaults · `Ctrl+R`: stop managing them (asks)
- `Ctrl+Z`: undo (every edit is one step)

Secrets (API keys, private keys, passwords) are `${ENV_VAR}` references only: the row says whether that variable
is set where the editor runs, never its value. Set it where you push.
"""
    BINDINGS = [
        Binding("escape", "back", "Back", id="extension_settings.back"),
        Binding("enter", "edit", "Edit", id="extension_settings.edit",
                tooltip="Edit the field (the table's own Enter does it; listed here for the footer)"),
        Binding("space", "toggle", "Flip", id="extension_settings.toggle", tooltip="Flip the switch"),
        Binding("a", "add", "Add", id="extension_settings.add", tooltip="Add an item to this list"),
        Binding("d,delete", "remove", "Remove", id="extension_settings.remove",
                tooltip="Remove the item, or unset an optional field"),
        Binding("ctrl+n", "start", "Start settings", id="extension_settings.start",
                tooltip="Manage this extension's settings, starting from the catalog's defaults"),
        Binding("ctrl+r", "stop", "Unmanage", id="extension_settings.stop",
                tooltip="Remove this extension's settings from the draft (asks first)"),
    ]
    DEFAULT_CSS = """
    ExtensionSettingsForm #xs-status { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    ExtensionSettingsForm #xs-status.-error { color: $error; }
    ExtensionSettingsForm SettingsTable { height: 1fr; }
    ExtensionSettingsForm #xs-edit { height: auto; display: none; padding: 0 1; border-top: solid $primary; }
    ExtensionSettingsForm #xs-edit.-open { display: block; }
    ExtensionSettingsForm #xs-edit-line { height: 1; }
    ExtensionSettingsForm #xs-edit-line Label { width: auto; max-width: 32; margin-right: 1; }
    ExtensionSettingsForm #xs-edit-line Input { width: 1fr; }
    ExtensionSettingsForm #xs-choices { height: auto; max-height: 6; }
    ExtensionSettingsForm #xs-edit-msg { height: auto; color: $error; }
    ExtensionSettingsForm #xs-detail { height: auto; min-height: 3; max-height: 6; padding: 0 1;
                                       border-top: solid $primary; }
    """

    def __init__(self, app_index: int, ext_id: str, under: xv.KeyPath = (),
                 focus_path: xv.KeyPath | None = None) -> None:
        super().__init__()
        self.app_index = app_index
        self.ext_id = ext_id
        self.under = tuple(under)
        self.form: xv.Form | None = None
        self._width = (0, 0)  #: the (Setting, Value) widths the rows were drawn at
        #: (row, "value" | "add") while the edit line is open
        self.editing: tuple[xv.Row, str] | None = None
        self._want: xv.KeyPath | None = tuple(focus_path) if focus_path else None

    @property
    def prefix(self) -> str:
        return format_path(xv.prefix_of(self.app_index, self.ext_id))

    # -- layout ------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("", id="xs-status", markup=False)
        yield SettingsTable(id="xs-rows", cursor_type="row", zebra_stripes=True)
        with Vertical(id="xs-edit"):
            with Horizontal(id="xs-edit-line"):
                yield Label("", id="xs-edit-label", markup=False)
                yield Input(id="xs-input", compact=True, select_on_focus=False)
                yield SecretInput(id="xs-secret", compact=True, select_on_focus=False, placeholder="${ENV_VAR}")
            yield OptionList(id="xs-choices", compact=True)
            yield Static("", id="xs-edit-msg", markup=False)
        yield Static("", id="xs-detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(SettingsTable)
        app_name = self.editor.get(f"apps[{self.app_index}].name", "?")
        self.sub_title = shown(f"{app_name} · settings")
        self.refresh_rows()
        table.focus()

    def _widths(self, form: xv.Form) -> tuple[int, int]:
        """(Setting, Value) column widths at this screen width: three columns' padding and the scroll bar off."""
        longest = max((len(_label(row)) for row in form.rows), default=0)
        label = min(max(longest, LABEL_WIDTH[0]), LABEL_WIDTH[1])
        return label, max(20, self.size.width - label - 1 - 3 * 2 - 2)

    def on_resize(self) -> None:
        if self.form is not None and self._width != self._widths(self.form):
            self.refresh_rows()

    # -- rendering ---------------------------------------------------------------------------------------------

    def build(self) -> xv.Form:
        prefix = xv.prefix_of(self.app_index, self.ext_id)
        app_id = self.editor.get(f"apps[{self.app_index}].id", None)
        last_read = self.editor.last_read(app_id) if self.ext_id == "push-notification" else None
        return xv.build_form(self.editor.session.data, self.app_index, self.ext_id, self.editor.problems_at(prefix),
                             under=self.under, last_read=last_read)

    def refresh_rows(self) -> None:
        """Draw the form again from the draft, the cursor kept on the field it was on."""
        table = self.query_one(SettingsTable)
        old = self.current()
        want = self._want or (old.path if old is not None else None)
        self._want = None
        self.form = form = self.build()
        self._retitle()
        label_width, width = self._widths(form)
        widths = _table_widths(form.rows)
        table.clear(columns=(label_width, width) != self._width)
        if (label_width, width) != self._width:
            self._width = (label_width, width)
            table.add_column("", width=1, key="mark")
            table.add_column("Setting", width=label_width, key="setting")
            table.add_column("Value", width=width, key="value")
        for i, row in enumerate(form.rows):
            table.add_row(*_cells(row, label_width, width, widths), key=str(i))
        if form.rows:
            at = xv.row_index(form, want) if want else None
            table.move_cursor(row=at if at is not None else min(max(table.cursor_row, 0), len(form.rows) - 1),
                              scroll=True)
        self._show_status()
        self._show_detail()
        self.refresh_bindings()

    def _show_status(self) -> None:
        form = self.form
        status = self.query_one("#xs-status", Static)
        if form is None:
            return
        lines: list[str]
        if form.missing:
            lines = ["This object is no longer in the draft (undone or removed): Escape goes back."]
        elif form.why_no_form:
            lines = [form.why_no_form]
        elif form.has_settings:
            lines = [f"{form.ext_id}: {form.state} in this draft · settings managed here · * required"]
        elif self._service_settings() is not None:
            lines = [f"{form.ext_id}: {form.state} in this draft · no settings in the draft (the service's are left "
                     "as they are). Ctrl+N starts them from the service's values (as last read)."]
        else:
            lines = [f"{form.ext_id}: {form.state} in this draft · no settings in the draft (the service's are left "
                     "as they are). Ctrl+N starts them from the catalog's defaults; editing a field does too."]
        lines += list(form.notes)
        errors = [p for p in form.problems if p.is_error]
        lines += [f"{'error' if p.is_error else 'warning'}: {p.message}" for p in form.problems]
        update_static(status, shown("\n".join(lines), newlines=True))
        status.set_class(bool(errors), "-error")

    def current(self) -> xv.Row | None:
        form = self.form
        if form is None or not form.rows or not self.is_mounted:
            return None
        row = self.query_one(SettingsTable).cursor_row
        return form.rows[row] if 0 <= row < len(form.rows) else None

    def _show_detail(self) -> None:
        row = self.current()
        detail = self.query_one("#xs-detail", Static)
        if row is None:
            update_static(detail, "")
            return
        where = format_path(row.path) if row.path else ""
        lines = [f"{row.label} ({where})" + (f": {row.help}" if row.help else "")]
        if row.secret is not None:
            lines.append(f"Secret: {row.secret.sentence}")
        lines += [f"{'error' if p.is_error else 'warning'}: {p.message}" for p in row.problems]
        update_static(detail, shown("\n".join(lines), newlines=True))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()
        self.refresh_bindings()

    def _retitle(self) -> None:
        """The form's title, with the ``*`` of unsaved edits the app's title shows (F2 saves the draft)."""
        if self.form is not None:
            self.title = self.form.title + (" *" if self.editor.session.dirty else "")

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(self.prefix) or message.touches(f"apps[{self.app_index}].extensions"):
            self.refresh_rows()
        else:
            self._retitle()  # a save, or an edit elsewhere: only the unsaved mark may change

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that do something on the highlighted row are listed (the footer has 80 columns)."""
        if not self.is_mounted or self.form is None:
            return True
        row = self.current()
        editing = self.editing is not None
        if action == "toggle":
            return not editing and row is not None and (row.kind == xv.TOGGLE or (
                row.kind == xv.ROW and row.setting is not None and any(f.type == "bool" for f in row.setting.fields)))
        if action == "add":
            return not editing and row is not None and row.container is not None
        if action == "remove":
            return not editing and row is not None and (row.kind in (xv.ITEM, xv.ENTRY, xv.ROW, xv.EXTRA) or (
                row.written and not row.required))
        if action == "start":
            return not editing and not self.under and not self.form.has_settings and not self.form.why_no_form
        if action == "stop":
            return not editing and not self.under and self.form.has_settings
        return True

    # -- keys --------------------------------------------------------------------------------------------------

    def _service_settings(self) -> dict[str, Any] | None:
        """This extension's settings as the service held them at the last pull or push, or None."""
        app_id = self.editor.get(f"apps[{self.app_index}].id", None)
        app = self.editor.last_read(app_id if isinstance(app_id, str) else None) or {}
        found = (app.get("extension_settings") or {}).get(self.ext_id)
        return found if isinstance(found, dict) and found else None

    def _apply(self, edits: list[xv.Edit], done: str = "", *, starting: bool = False) -> bool:
        if not edits:
            return False
        if (not starting and self.form is not None and not self.form.has_settings and not self.under
                and self._service_settings() is not None):
            # an edit here would start the block from the catalog's defaults, over what the service holds
            self.notify("The service holds settings for this extension that the draft does not manage: Ctrl+N "
                        "starts them from the service's values, then edit them.", title="Not changed",
                        severity="warning", markup=False)
            return False
        outcome = self.editor.apply(edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error", markup=False)
            return False
        if done:
            self.notify(done, markup=False)
        return True

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def action_edit(self) -> None:
        """Enter: flip a switch, pick a choice, type a value, open an object of a table."""
        row = self.current()
        if row is None or self.form is None or self.form.missing:
            return
        if row.kind == xv.TOGGLE:
            self.action_toggle()
        elif row.kind == xv.SELECT:
            self._open_choices(row)
        elif row.kind in xv.TYPED:
            self._open_line(row, "value")
        elif row.kind == xv.ROW:
            self.app.push_screen(ExtensionSettingsForm(self.app_index, self.ext_id, under=row.path))
        elif row.kind in (xv.TABLE, xv.MAPPING) and not row.value:
            self.action_add()
        elif row.kind in (xv.GROUP, xv.TABLE, xv.MAPPING):
            self.query_one(SettingsTable).action_cursor_down()
        elif row.kind == xv.EXTRA:
            self.notify(f"{row.label} is not in the catalog: d removes it (or change it in the draft's text).",
                        markup=False)

    def action_toggle(self) -> None:
        row = self.current()
        if row is None or self.editing is not None:
            return
        edits = xv.toggle_edits(self.editor.session.data, self.app_index, self.ext_id, row)
        if not edits:
            raise SkipAction()
        self._apply(edits)

    def action_add(self) -> None:
        row = self.current()
        container = row.container if row is not None else None
        if container is None or self.editing is not None:
            return
        setting = xv.setting_at(self.ext_id, container)
        if setting is None:
            return
        if setting.type == "objects":
            data = self.editor.session.data
            block = xv.settings_of(data, self.app_index, self.ext_id)
            current = block.get(str(container[-1])) if block is not None and len(container) == 1 else None
            index = len(current) if isinstance(current, list) else 0  # before the insert changes the list
            if self._apply(xv.add_edits(data, self.app_index, self.ext_id, container, xv.new_item(setting, block))):
                self.app.push_screen(ExtensionSettingsForm(self.app_index, self.ext_id, under=(*container, index)))
            return
        holder = next((r for r in (self.form.rows if self.form else ()) if r.path == container), row)
        assert holder is not None
        self._open_line(holder, "add")

    def action_remove(self) -> None:
        row = self.current()
        if row is None or self.editing is not None:
            return
        edits, why = xv.remove_edits(self.editor.session.data, self.app_index, self.ext_id, row)
        if why:
            self.notify(why, markup=False)
            return
        what = "removed" if row.kind in (xv.ITEM, xv.ENTRY, xv.ROW, xv.EXTRA) else "unset (its default applies)"
        self._apply(edits, f"{row.label} {what} (Ctrl+Z undoes).")

    def action_start(self) -> None:
        if self.form is None or self.form.has_settings or self.form.why_no_form or self.under:
            return
        service = self._service_settings()
        if self._apply(xv.start_edits(self.editor.session.data, self.app_index, self.ext_id, service),
                       starting=True):
            start = "the service's values (as last read)" if service is not None else "the catalog's defaults"
            self.notify(f"{self.form.name} settings started from {start}: fill in the fields marked !, and set "
                        "the secrets' variables where you push.", markup=False)

    def action_stop(self) -> None:
        if self.form is None or not self.form.has_settings or self.under:
            return
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        name = self.form.name

        def answered(yes: bool | None) -> None:
            if yes:
                self._apply(xv.stop_edits(self.editor.session.data, self.app_index, self.ext_id),
                            f"{name} settings removed from the draft: a push leaves the service's as they are "
                            "(Ctrl+Z undoes).")

        self.app.push_screen(ConfirmScreen(f"Stop managing {name}'s settings? They are removed from the draft; a "
                                           "push then leaves the service's settings as they are.", yes="Remove"),
                             answered)

    def action_back(self) -> None:
        """Escape: close the edit line (nothing written), else go back."""
        if self.editing is not None:
            self._close_edit()
            return
        self.app.pop_screen()

    # -- the edit line -----------------------------------------------------------------------------------------

    def _open_line(self, row: xv.Row, mode: str) -> None:
        self.editing = (row, mode)
        secret = row.kind == xv.SECRET and mode == "value"
        field = self.query_one("#xs-secret" if secret else "#xs-input", Input)
        other = self.query_one("#xs-input" if secret else "#xs-secret", Input)
        other.display = False
        self.query_one("#xs-choices").display = False
        field.display = True
        if mode == "add":
            label = f"New entry in {row.label} (key=value):" if row.kind == xv.MAPPING else f"Add to {row.label}:"
            field.placeholder = "key=value, then Enter" if row.kind == xv.MAPPING else "text, then Enter"
            text = ""
        else:
            label = f"{row.label}:"
            field.placeholder = {xv.STRINGS: "a, b, c", xv.SECRET: "${ENV_VAR}"}.get(row.kind, "then Enter")
            text = xv.edit_text(row)
        self.query_one("#xs-edit-label", Label).update(label)
        with field.prevent(Input.Changed):
            field.value = text
        field.cursor_position = len(text)
        self._show_edit_message("")
        self.query_one("#xs-edit").add_class("-open")
        field.focus()
        self.refresh_bindings()

    def _open_choices(self, row: xv.Row) -> None:
        self.editing = (row, "value")
        self.query_one("#xs-input").display = False
        self.query_one("#xs-secret").display = False
        choices = self.query_one("#xs-choices", OptionList)
        choices.display = True
        choices.clear_options()
        choices.add_options([Option(Text(shown(f"{value} · {label}")), id=str(i))
                             for i, (value, label) in enumerate(row.choices)])
        current = next((i for i, (value, _) in enumerate(row.choices) if value == row.value), None)
        if current is None and row.setting is not None:
            current = next((i for i, (value, _) in enumerate(row.choices) if value == row.setting.default), 0)
        choices.highlighted = current or 0
        self.query_one("#xs-edit-label", Label).update(f"{row.label}: pick one, Enter (Escape keeps it)")
        self._show_edit_message("")
        self.query_one("#xs-edit").add_class("-open")
        choices.focus()
        self.refresh_bindings()

    def _close_edit(self) -> None:
        self.editing = None
        self.query_one("#xs-edit").remove_class("-open")
        self.query_one(SettingsTable).focus()
        self.refresh_bindings()

    def _show_edit_message(self, text: str) -> None:
        box = self.query_one("#xs-edit-msg", Static)
        update_static(box, shown(text, newlines=True))
        box.display = bool(text)

    def _typed(self, text: str) -> tuple[xv.Parsed, xv.KeyPath | None]:
        """The value typed in the edit line, and where it goes (None for a new mapping entry, whose key is typed)."""
        assert self.editing is not None
        row, mode = self.editing
        if mode == "add":
            if row.kind == xv.MAPPING:
                return xv.parse_entry(text, row.value if isinstance(row.value, dict) else None), None
            item_row = xv.Row((*row.path, 0), xv.ITEM, "", "", 0, xv.ABSENT, "", setting=row.setting)
            return xv.parse(item_row, text), None
        return xv.parse(row, text), row.path

    def on_input_changed(self, event: Input.Changed) -> None:
        """Say what is wrong with the typed text as it is typed: first the parse, then the draft's own model."""
        if self.editing is None:
            return
        parsed, path = self._typed(event.value)
        if not parsed.ok:
            self._show_edit_message(parsed.error)
            return
        said = xv.check_value(self.editor.session.data, self.app_index, self.ext_id, path, parsed.value) \
            if path is not None and self.editing[0].kind != xv.SECRET else []
        self._show_edit_message("\n".join(said))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._commit(event.value)

    def _commit(self, text: str) -> None:
        if self.editing is None:
            return
        row, mode = self.editing
        parsed, path = self._typed(text)
        if not parsed.ok:  # said under the field, which keeps the focus: nothing is written
            self._show_edit_message(parsed.error)
            self.app.bell()
            return
        data = self.editor.session.data
        if mode == "add":
            edits = xv.add_edits(data, self.app_index, self.ext_id, row.path, parsed.value)
        else:
            assert path is not None
            if row.written and parsed.value == row.value:
                self._close_edit()
                return
            edits = xv.set_edits(data, self.app_index, self.ext_id, path, parsed.value)
        if mode == "add" and row.kind == xv.MAPPING:
            self._want = (*row.path, parsed.value[0])
        elif mode == "add":
            self._want = (*row.path, len(row.value) if isinstance(row.value, list) else 0)
        self._close_edit()
        self._apply(edits)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.editing is None:
            return
        row, _ = self.editing
        value = row.choices[int(event.option.id or 0)][0]
        self._close_edit()
        if row.written and row.value == value:
            return
        self._apply(xv.set_edits(self.editor.session.data, self.app_index, self.ext_id, row.path, value))


def _table_widths(rows: tuple[xv.Row, ...]) -> dict[xv.KeyPath, list[int]]:
    """For each table: the width of each column (its label, or its widest cell), so its objects line up."""
    out: dict[xv.KeyPath, list[int]] = {}
    for row in rows:
        if row.kind == xv.TABLE:
            out[row.path] = [len(c) for c in row.columns]
        elif row.kind == xv.ROW and row.path[:-1] in out:
            widths = out[row.path[:-1]]
            for i, cell in enumerate(row.columns[:len(widths)]):
                widths[i] = min(max(widths[i], len(cell)), 18)
    return out


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(_cut(cell, w).ljust(w) for cell, w in zip(cells, widths, strict=False)).rstrip()


def _label(row: xv.Row) -> str:
    """A row's label indented by its depth, ``*`` after a required one."""
    return "  " * row.depth + row.label + (" *" if row.required else "")


def _cells(row: xv.Row, label_width: int, width: int,
           widths: dict[xv.KeyPath, list[int]]) -> tuple[Text, Text, Text]:
    """A row's three cells: its mark (``!`` an error, ``?`` a warning), its label indented by depth, its value."""
    errors = [p for p in row.problems if p.is_error]
    mark = _MARK[True] if errors else _MARK[False] if row.problems else ""
    label = _label(row)
    if row.kind == xv.TABLE and row.value:
        value = Text(_cut(_line(row.columns, widths.get(row.path, [])), width), style="bold")
    elif row.kind == xv.ROW:
        value = Text(_cut(_line(row.columns, widths.get(row.path[:-1], [])), width))
    else:
        value = Text(_cut(row.shown, width), style="dim" if row.dimmed else "")
    style = "bold red" if errors else "yellow" if row.problems else ""
    return Text(mark, style=style), Text(_cut(label, label_width)), value


def focus_target(path: tuple[Any, ...], app_index: int) -> tuple[str, xv.KeyPath] | None:
    """(extension id, path below its settings) of a key path inside an app's ``extension_settings``."""
    if len(path) >= 4 and tuple(path[:3]) == ("apps", app_index, "extension_settings") and isinstance(path[3], str):
        return path[3], tuple(path[4:])
    return None


def _cut(text: str, width: int) -> str:
    """A form value or label in ``width`` cells: data, so escaped, then cut as every column is."""
    return fitted(shown(text), width)
