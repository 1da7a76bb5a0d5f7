"""Bulk edit: one value set on a selection of apps, as one undoable step.

The selection is the apps that pass every criterion given: a filter (name, region or id, as on the Apps screen), a
region, the preset their widgets extend, and, when asked, only the apps marked on the Apps screen (Space). What to
set is a widget field (a toggle by key or label, a colour, a listing value; completed from the catalog) or a
trigger added to the webhook with a given id. The screen says "N apps will change, M already so" before anything
is written; F5 applies it through :meth:`tenantdeck.tui.editor.Editor.set_many` (one undo step: ctrl+z takes it all
back), and the Apps list's change states follow. All decisions are :mod:`tenantdeck.draft.bulk`'s.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Checkbox, Input, Label, Select, Static

from tenantdeck.draft import bulk
from tenantdeck.models import catalog
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.widgets.checkbox import TextCheckbox
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.select import LightSelect

FIELD, TRIGGER = "field", "trigger"


class BulkEditScreen(UsesEditor, Screen[None]):
    """Choose apps, choose a value, see how many apps change, F5 applies (one undo step)."""

    HELP = """\
## Bulk edit

Set one value on many apps at once.

**Apps**: every criterion you give must hold: the filter (words of the name, region or id), the region, the
preset a widget extends, and "only marked" (apps marked with Space on the Apps screen).

**Set**: a widget field (a Main or Sidebar toggle by key or label, with `on`/`off`; a listing with one of its
values; a colour as `#rrggbb`), an app setting by key or label (`core.conversations.updateOnReplies`, with
`on`/`off`), or a trigger to add to the webhook with an id. An app whose widget extends a preset
gets an override on its own widget; apps that already hold the value are left alone.

The line below says how many apps will change before anything is written.

- `F5`: apply (one step: `ctrl+z` undoes all of it)
- `Tab` / `shift+Tab`: move between the choices
- `Escape`: back to the apps, nothing written
"""
    BINDINGS = [
        Binding("f5", "apply", "Apply", id="bulk.apply"),
        Binding("escape", "close", "Back", id="bulk.close"),
    ]
    #: the filter takes the focus as the screen opens (Textual's default focuses the first focusable widget, the
    #: form's scroll container: its whole form styled as it took the focus and again as the filter took it, 15-20
    #: ms of the first frame, issue 36); Tab and shift+Tab go where they went
    AUTO_FOCUS = "#filter"
    DEFAULT_CSS = """
    BulkEditScreen VerticalScroll { padding: 0 1; }
    BulkEditScreen .heading { text-style: bold; margin-top: 1; }
    BulkEditScreen Horizontal { height: auto; }
    BulkEditScreen Select { width: 1fr; }
    BulkEditScreen Checkbox { width: auto; }
    BulkEditScreen #kind { width: 26; }
    BulkEditScreen #target, BulkEditScreen #value { width: 1fr; }
    BulkEditScreen #summary { margin-top: 1; height: auto; }
    BulkEditScreen #summary.error { color: $error; }
    """

    def __init__(self, marked: set[int] | None = None, *, text: str = "") -> None:
        super().__init__()
        self.marked = set(marked or ())
        self.initial_text = text
        self.pending: bulk.BulkEdit | None = None
        self.message = ""
        self._timer: Any = None

    def compose(self) -> ComposeResult:
        data = self.editor.session.data
        presets = data.get("presets") if isinstance(data, dict) else None
        names = [str(n) for n in presets] if isinstance(presets, dict) else []
        yield TitleHeader()
        with VerticalScroll():
            yield Label("Apps", classes="heading")
            yield Input(self.initial_text, placeholder="Filter: words of the name, region or id", id="filter")
            with Horizontal():
                yield LightSelect([(f"region {r}", r) for r in catalog.REGIONS], prompt="any region", id="region")
                # a preset's name is data: Text, not markup (a name holding "[/]" broke the screen), escaped
                yield LightSelect([(Text(f"extends {shown(n)}"), n) for n in names], prompt="any preset", id="preset")
                yield TextCheckbox(f"only marked ({len(self.marked)})", value=bool(self.marked), id="marked",
                               disabled=not self.marked)
            yield Label("Set", classes="heading")
            with Horizontal():
                yield LightSelect([("a widget field", FIELD), ("a trigger on a webhook", TRIGGER)], value=FIELD,
                                  allow_blank=False, id="kind")
                yield Input(placeholder="field: key or label", id="target")
                yield Input(placeholder="value", id="value")
            yield Static("", id="summary", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "Bulk edit"
        self._suggest()
        self.query_one("#filter", Input).focus()
        self.recompute()

    # -- completion ---------------------------------------------------------------------------------------------

    def _kind(self) -> str:
        return str(self.query_one("#kind", Select).value)

    def _suggest(self) -> None:
        target = self.query_one("#target", Input)
        value = self.query_one("#value", Input)
        if self._kind() == FIELD:
            names = [f.key for f in bulk.fields()] + [f.label for f in bulk.fields()]
            target.suggester = SuggestFromList(names, case_sensitive=False)
            target.placeholder = "field: key or label (send_gifs, Allow GIFs, primary_color)"
            field = bulk.find_field(target.value)
            choices = [str(c) for c in field.choices] if field and field.kind == bulk.LISTING else ["on", "off"]
            value.suggester = SuggestFromList(choices, case_sensitive=False)
            value.placeholder = ("one of " + ", ".join(choices)) if field and field.kind == bulk.LISTING else (
                "#rrggbb" if field and field.kind == bulk.COLOUR else "on or off")
        else:
            ids = bulk.webhook_ids(self.editor.session.data)
            target.suggester = SuggestFromList(ids, case_sensitive=True)
            target.placeholder = "webhook id" + (f" ({', '.join(ids[:2])}...)" if ids else "")
            value.suggester = SuggestFromList(list(catalog.TRIGGER_IDS), case_sensitive=True)
            value.placeholder = "trigger id (message_sent, group_created, ...)"

    # -- working out what would change ----------------------------------------------------------------------------

    def selection(self) -> list[int]:
        region = self.query_one("#region", Select).value
        preset = self.query_one("#preset", Select).value
        marked = self.query_one("#marked", Checkbox).value
        return bulk.select_apps(
            self.editor.session.data,
            text=self.query_one("#filter", Input).value,
            region=str(region) if region is not Select.NULL else None,
            preset=str(preset) if preset is not Select.NULL else None,
            marked=self.marked if marked else None,
        )

    def build(self) -> tuple[bulk.BulkEdit | None, str, bool]:
        """The edit the choices describe, or what is missing (third: True when a choice is wrong)."""
        indexes = self.selection()
        target = self.query_one("#target", Input).value.strip()
        raw = self.query_one("#value", Input).value.strip()
        count = f"{len(indexes)} app{'s' * (len(indexes) != 1)} selected"
        data = self.editor.session.data
        if self._kind() == FIELD:
            if not target:
                return None, f"{count}. Name a field to set (a toggle, colour or listing).", False
            field = bulk.find_field(target)
            if field is None:
                typing = any(n.lower().startswith(target.lower()) for f in bulk.fields() for n in (f.key, f.label))
                return None, f"{count}. {target!r} is not a toggle, colour or listing a bulk edit can set.", not typing
            if not raw:
                return None, f"{count}. Give a value for {field.label} ({field.name}).", False
            value, problem = bulk.parse_value(field, raw)
            if problem:
                return None, f"{count}. {problem}", True
            return bulk.set_field(data, indexes, field, value), count, False
        if not target:
            return None, f"{count}. Name the webhook id to add a trigger to.", False
        if not raw:
            return None, f"{count}. Name the trigger to add to webhook {target!r}.", False
        problem = bulk.trigger_problem(raw)
        if problem:
            return None, f"{count}. {problem}", True
        return bulk.add_trigger(data, indexes, target, raw), count, False

    def recompute(self) -> None:
        edit, count, wrong = self.build()
        self.pending = edit
        self.message = count
        summary = self.query_one("#summary", Static)
        summary.set_class(wrong, "error")
        if edit is None:
            summary.update(count)
            return
        summary.remove_class("error")
        action = "F5 applies it as one step (ctrl+z undoes it all)." if edit.changed else "Nothing to apply."
        summary.update(f"{count}. {edit.what}: {edit.sentence()} {action}")

    def _later(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.12, self.recompute)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "target":
            self._suggest()
        self._later()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "kind":
            self.query_one("#target", Input).value = ""
            self.query_one("#value", Input).value = ""
            self._suggest()
        self._later()

    def on_checkbox_changed(self) -> None:
        self._later()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.recompute()
        if event.input.id == "value" and self.pending is not None and self.pending.changed:
            self.action_apply()
        else:
            self.focus_next()

    # -- actions --------------------------------------------------------------------------------------------------

    def action_apply(self) -> None:
        self.recompute()
        edit = self.pending
        if edit is None:
            self.notify(self.message, title="Nothing applied", severity="warning", markup=False)
            return
        if not edit.changed:
            self.notify(f"{edit.what}: every selected app holds it already.", title="Nothing to apply", markup=False)
            return
        outcome = self.editor.set_many(edit.edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not applied", severity="error", markup=False)
            return
        n = len(edit.changed)
        self.notify(f"{edit.what} on {n} app{'s' * (n != 1)} (one step: ctrl+z undoes all of it).",
                    title="Bulk edit applied", markup=False)
        self.dismiss()

    def action_close(self) -> None:
        self.dismiss()
