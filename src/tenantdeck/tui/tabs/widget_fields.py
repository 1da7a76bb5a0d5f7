"""What the three widget tabs (Style, Sidebar, Main) share: the tab itself and one row widget per kind of field.

A tab edits one widget of one app, or, after ``p`` and a confirm, the preset that widget extends. Every row names
its ``section`` and ``key``; the tab resolves each row's value and source in the core
(:mod:`tenantdeck.draft.widget_view`), hands it to the row with the row's problems, and writes what the row edits
through the :class:`~tenantdeck.tui.editor.Editor`. Rows keep no copy of the draft: after every change the tab
recomputes each row's state and repaints only the rows whose state changed, so flipping one toggle repaints one
row.

Text is written to the draft when it is finished (Enter, leaving the field, or the save key), never per keystroke,
so each undo step is one meaningful edit. Escape in a field with a pending edit takes the edit back (the field shows
the draft's value again, as a spreadsheet cell does); a second Escape reaches the screen. Leaving a field with a
value the models refuse does not write it: the field goes back to the draft's value and a notice says why. A field
never selects its text when it gets the focus, so the next key never replaces a value the user did not mean to.

Every focusable row shows the focus as a background bar (``$focus-row-background``, a theme variable with a
default from :mod:`tenantdeck.tui.appearance`), not only as bold text: in tmux or with 256 colours a style change
alone cannot be found on the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, OptionList, Select, Static, TextArea

from tenantdeck.draft import widget_view as wv
from tenantdeck.problems import PathPart, format_path
from tenantdeck.sync.types import VERBATIM
from tenantdeck.textsafe import shortened, shown
from tenantdeck.tui import browser_preview
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.literal import literal
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.input_row import (
    DONE,
    EDIT,
    NEXT,
    back_into_field,
    done,
    leave_to_row,
    next_field,
    row_blurred,
)
from tenantdeck.tui.widgets.quiet import update_static

if TYPE_CHECKING:
    from tenantdeck.problems import Problem


# ----------------------------------------------------------------------------------------------------------------
# What a row shows
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowState:
    """Everything a row paints; rows are repainted only when it changes."""

    resolved: wv.Resolved
    where: tuple[PathPart, ...] = ()  #: the path written to: another widget or the preset repaints every row
    problems: tuple[tuple[str, str], ...] = ()  #: (severity, message)
    editing_preset: bool = False
    note: str = ""  #: a row-specific line (the extension a toggle needs, a held listing value)


def fmt(value: Any) -> str:
    """A value as the draft writes it (true/false, lists in brackets)."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    if value is None:
        return "none"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def source_markup(state: RowState, *, detail: bool = True) -> str:
    """The dim ``preset`` / bold ``override`` marker that says where a value comes from (with ``detail``, an
    override also says the preset's value it hides)."""
    r = state.resolved
    if r.source == wv.OVERRIDE:
        below = ("" if r.inherited_source == wv.UNSET or not detail
                 else f" [dim](preset: {literal(shown(_short(fmt(r.inherited))))})[/]")
        return f"[b $accent]override[/]{below}"
    if r.source == wv.PRESET and not state.editing_preset:
        return "[dim]preset[/]"
    if r.source == wv.DEFAULT:
        return "[dim]default[/]"
    if r.source == wv.UNSET:
        return "[dim]not set[/]"
    return ""


def detail_markup(state: RowState) -> str:
    """What an override hides: the preset's value, for rows whose marker sits in a narrow column."""
    r = state.resolved
    if r.source == wv.OVERRIDE and r.inherited_source != wv.UNSET:
        return f"[dim]preset value: {literal(shown(_short(fmt(r.inherited), 60)))}[/]"
    return ""


def problems_markup(state: RowState) -> str:
    lines = []
    for severity, message in state.problems:
        colour = "$error" if severity == "error" else "$warning"
        lines.append(f"[{colour}]{'✗' if severity == 'error' else '!'} {literal(shown(message))}[/]")
    return "\n".join(lines)


def _short(text: str, width: int = 30) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class FieldRow(Widget):
    """A row that shows and edits ``section.key``: subclasses implement :meth:`show` and, for text, :meth:`commit`."""

    DEFAULT_CSS = """
    FieldRow { height: auto; padding: 0 1; }
    FieldRow:focus-within { background: $focus-row-background; }
    FieldRow > .line { height: 1; }
    FieldRow .field-label { width: 34; height: 1; }
    FieldRow .marker { width: 10; height: 1; padding-left: 1; }
    FieldRow .field-status { height: auto; padding-left: 2; }
    FieldRow .field-status.-empty { display: none; }
    """

    def __init__(self, section: str, key: str, *, id: str | None = None) -> None:
        super().__init__(id=id or f"{section}-{key}")
        self.section = section
        self.key = key
        self.state: RowState | None = None

    @property
    def tab(self) -> WidgetTab:
        return self.query_ancestor(WidgetTab)

    @property
    def label(self) -> str:
        return wv.label_of(self.section, self.key)

    def apply(self, state: RowState) -> None:
        """Repaint when the state changed (the tab calls this after every change)."""
        if state != self.state:
            self.state = state
            self.show(state)

    def forget(self) -> None:
        """Drop what the row shows and holds of the app shown so far, so its next :meth:`apply` paints it as
        composed anew (the tab is re-bound to another app: :meth:`WidgetTab.rebind`). Subclasses drop their own
        widgets' state too (a cursor, an undo history, a highlighted item)."""
        self.state = None

    def show(self, state: RowState) -> None:
        raise NotImplementedError

    def commit(self) -> None:
        """Write a pending text edit to the draft (text rows); nothing for rows that write at once."""

    def status_markup(self, state: RowState, *extra: str) -> str:
        """The lines under a row: what an override hides, the row's note, anything else, and its problems."""
        parts = [detail_markup(state), state.note, *extra, problems_markup(state)]
        return "\n".join(p for p in parts if p)

    def paint_status(self, state: RowState, *extra: str) -> None:
        """Fill the row's ``.marker`` and ``.field-status`` (hidden when there is nothing to say)."""
        self.query_one(".marker", Static).update(source_markup(state, detail=False))
        status = self.query_one(".field-status", Static)
        text = self.status_markup(state, *extra)
        status.update(text)
        status.set_class(not text, "-empty")


# ----------------------------------------------------------------------------------------------------------------
# Booleans: one focusable row, Space or Enter flips it
# ----------------------------------------------------------------------------------------------------------------


class BoolRow(FieldRow, can_focus=True):
    """A boolean: ``[x] Label *`` with its default, where its value comes from, what it needs and its problems."""

    HELP = """\
## A switch

`Space` or `Enter` flips it. In a widget that extends a preset the flip is written as an override of this app's
widget (`override`); `r` takes the override back (the preset's value applies again).
"""
    DEFAULT_CSS = """
    BoolRow { height: auto; padding: 0 1; }
    BoolRow:focus { background: $focus-row-background; text-style: bold; }
    """
    BINDINGS = [Binding("space,enter", "flip", "Flip", id="widget.flip", tooltip="Turn this setting on or off")]

    LABEL_WIDTH: ClassVar[int] = 42

    def __init__(self, section: str, key: str, *, description: str = "", required: bool = False) -> None:
        super().__init__(section, key)
        self.description = description
        self.required = required

    def show(self, state: RowState) -> None:
        # A layout pass (the whole screen is arranged and rendered again) only when the row's height changes:
        # a flip changes one line, and the full pass was a third of the time from the key to the repainted screen.
        lines = self.render().plain.count("\n")
        self.refresh(layout=lines != getattr(self, "_lines", None))
        self._lines = lines

    def render(self) -> Content:
        state = self.state
        if state is None:
            return Content(self.label)
        value = state.resolved.value
        box = "[b $success]\\[x][/]" if value is True else "[dim]\\[ ][/]" if value is None else "\\[ ]"
        label = self.label + (" *" if self.required else "")
        default = state.resolved.default
        head = f"{box} {literal(label)}"
        # its own size, not ``content_region``: that asks the screen's compositor, which rebuilds its map of every
        # widget when a layout is pending, and ``show`` renders each row as a tab is composed (5% of a tab's first
        # showing went there)
        width = (self.outer_size.width - self.styles.gutter.width) or 80
        for detail in (True, False):
            meta = "  ".join(p for p in (
                f"[dim]default {fmt(default)}[/]" if default is not None else "[dim]no default[/]",
                source_markup(state, detail=detail)) if p)
            room = width - 4 - len(label) - Content.from_markup(meta).cell_length
            if room >= 2:
                break
        pad = " " * max(2, min(room, self.LABEL_WIDTH - len(label)))
        lines = [f"{head}{pad}{meta}"]
        if self.description and self.description != self.label:
            lines.append(f"    [dim]{literal(self.description)}[/]")
        if state.note:
            lines.append(f"    {state.note}")
        problems = problems_markup(state)
        if problems:
            lines.extend("    " + line for line in problems.splitlines())
        return Content.from_markup("\n".join(lines))

    def action_flip(self) -> None:
        if self.state is None:
            return
        self.tab.write(self.section, self.key, self.state.resolved.value is not True)


# ----------------------------------------------------------------------------------------------------------------
# Text: a line (a colour with its swatch, an icon URL) or code in a text area
# ----------------------------------------------------------------------------------------------------------------


class FieldInput(Input):
    """The input of a :class:`TextRow`: Escape takes back a pending edit; with nothing pending it reaches the
    screen (which leaves it). It never selects its text on focus, so a key typed after moving in never replaces the
    value wholesale."""

    BINDINGS = [Binding("escape", "revert", "Undo typing", id="widget.revert",
                        tooltip="Take back what was typed: the field shows the draft's value again"), DONE]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(select_on_focus=False, **kwargs)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is "Undo typing" only while something is typed: otherwise the footer shows the screen's Escape
        (back to the apps), which is what the key then does."""
        if action == "revert":
            return self.query_ancestor(TextRow).pending if self.is_mounted else False
        return super().check_action(action, parameters)

    def action_done(self) -> None:
        done(self)

    def render_line(self, y: int) -> Strip:
        """Unfocused, a value wider than the box ends in "…" (the cut is marked, as every other cut at 80 columns;
        the whole value is on the line below the row). Focused, the box scrolls as Textual's Input does."""
        from rich.cells import cell_len
        from rich.text import Text

        from tenantdeck.textsafe import fitted

        width = self.scrollable_content_region.width
        if y != 0 or self.has_focus or not self.value or self.password or cell_len(self.value) <= width:
            return super().render_line(y)
        text = Text(fitted(self.value, width), no_wrap=True, overflow="ignore", end="")
        strip = Strip(list(self.app.console.render(text, self.app.console_options.update_width(width + 1))))
        return strip.extend_cell_length(width + 1).apply_style(self.rich_style)

    def action_revert(self) -> None:
        if not self.query_ancestor(TextRow).revert():
            raise SkipAction()  # nothing typed: Escape goes on to the screen (back to the apps)


class TextRow(FieldRow):
    """One line of text: written on Enter (which leaves the field for its row) or when the field is left. Colours
    get a swatch and are checked as you type, with the models' own rule; leaving a colour the rule refuses writes
    nothing."""

    HELP = """\
## A text field

Type, then `Enter` to write it to the draft and leave the field (the focus is on its row: the tab digits and
`Space` work again; `Enter` goes back into the field); `Tab` also writes it and moves on to the next field.
`Escape` takes back what you typed (the draft's value comes back); a second `Escape` leaves the app.

A colour is `#RGB` or `#RRGGBB`: the swatch shows it, and a colour the models refuse says why at once. Leaving the
field with such a colour writes nothing and puts the draft's value back; `Enter` writes it as typed (it is then
listed with F8).
"""
    BINDINGS = [EDIT, NEXT]
    DEFAULT_CSS = """
    TextRow:focus { background: $focus-row-background; text-style: bold; }
    TextRow Input { width: 1fr; }
    TextRow .swatch { width: 4; height: 1; margin-left: 1; }
    """

    #: characters the field shows at 80 columns; a longer value is repeated whole below it
    WHOLE_AFTER = 30

    def __init__(self, section: str, key: str, *, colour: bool = False) -> None:
        super().__init__(section, key)
        self.colour = colour
        self._shown: str = ""
        self._live: str = ""
        self._forgotten = False

    def compose(self) -> ComposeResult:
        with Horizontal(classes="line"):
            yield Static(literal(self.label), classes="field-label")
            yield FieldInput(id=f"input-{self.key}", placeholder=self.label, compact=True)
            if self.colour:
                yield Static("", classes="swatch")
            yield Static("", classes="marker")
        yield Static("", classes="field-status -empty")

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    def show(self, state: RowState) -> None:
        value = state.resolved.value
        text = "" if value is None else str(value)
        box = self.input
        if self._forgotten or not box.has_focus or box.value == self._shown:
            self._shown = text
            if box.value != text:
                box.value = text
            if self._forgotten:
                box.cursor_position = len(text)  # where a new field's first value puts it
                self._forgotten = False
        self._check(box.value)

    def forget(self) -> None:
        super().forget()
        self._forgotten = True
        row_blurred(self)  # not focusable itself, as composed (Enter in the field had made it so)

    def _check(self, text: str) -> None:
        """The swatch, and the live check of a colour being typed (before it is written to the draft)."""
        live = ""
        if self.colour:
            from textual.color import Color

            problem = wv.colour_problem(text) if text else None
            swatch = self.query_one(".swatch", Static)
            if text and problem is None:
                swatch.styles.background = Color.parse(text)  # the colour is the data: shown as it is
                swatch.update("")
            else:
                swatch.styles.background = None
                swatch.update(" ?" if text else "")
            if problem and text != self._shown:
                live = f"[$error]✗ {literal(shown(problem))}[/] [dim](not written yet)[/]"
        if self.state is not None:
            # a value longer than the field (an icon URL at 80 columns) is also shown whole under it, wrapped
            whole = f"[dim]{literal(shown(text))}[/]" if len(text) > self.WHOLE_AFTER and not self.colour else ""
            self.paint_status(self.state, *(p for p in (live, whole) if p))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._check(event.value)
        self._pending_changed()

    def _pending_changed(self) -> None:
        """Refresh the footer when Escape changes meaning (typing began or was written or taken back); only
        then, since the footer recomposes every key on a refresh."""
        pending = self.pending
        if pending != getattr(self, "_was_pending", False):
            self._was_pending = pending
            self.input.refresh_bindings()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.commit()

    def field_done(self, field: Input) -> None:
        """Enter: written, and the focus leaves the field for the row (tui/widgets/input_row.py)."""
        self.commit()
        leave_to_row(self)

    def action_edit_field(self) -> None:
        back_into_field(self)

    def action_next_field(self) -> None:
        next_field(self)

    def on_blur(self) -> None:
        row_blurred(self)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.commit(leaving=True)

    @property
    def pending(self) -> bool:
        """Text typed and not written to the draft yet."""
        return self.state is not None and self.is_mounted and self.input.value != self._shown

    def revert(self) -> bool:
        """Show the draft's value again, dropping what was typed; False when nothing was pending."""
        if not self.pending:
            return False
        box = self.input
        box.value = self._shown
        box.cursor_position = len(self._shown)
        self._check(self._shown)
        self._pending_changed()
        return True

    def commit(self, *, leaving: bool = False) -> None:
        """Write the typed text. ``leaving``: the focus moved away without Enter, so a colour the models refuse is
        not written (the field takes the draft's value back and a notice says what was dropped and why)."""
        if not self.pending:
            return
        text = self.input.value
        problem = wv.colour_problem(text) if leaving and self.colour else None
        if problem is not None:
            self.revert()
            self.notify(f"{self.label}: {text!r} not written ({problem}); the field shows the draft's value again. "
                        "Enter writes a value as typed.", title="Not written", severity="warning", markup=False)
            return
        self._shown = text
        self._pending_changed()
        self.tab.write(self.section, self.key, text)


class CodeArea(TextArea):
    """A text area whose Escape writes it to the draft and leaves it (Tab leaves too)."""

    BINDINGS = [Binding("escape", "done", "Done", id="widget.code_done", tooltip="Write to the draft and leave")]

    def action_done(self) -> None:
        row = self.query_ancestor(CodeRow)
        row.commit()
        self.screen.focus_next()


class CodeRow(FieldRow):
    """Custom CSS or JS: edited in a text area with its own undo; written to the draft when you leave it (Tab,
    Escape) or save (F2), so one visit is one undo step of the draft."""

    HELP = """\
## Code

Edit freely (`ctrl+z` undoes inside the text). It is written to the draft when you leave the field (`Tab` or
`Escape`) or save with `F2`: one visit is one undo step of the draft.
"""
    DEFAULT_CSS = """
    CodeRow CodeArea { height: 6; }
    """

    def __init__(self, section: str, key: str) -> None:
        super().__init__(section, key)
        self._shown: str = ""
        self._forgotten = False

    def compose(self) -> ComposeResult:
        with Horizontal(classes="line"):
            yield Static(literal(self.label), classes="field-label")
            yield Static("", classes="marker")
        yield CodeArea(id=f"code-{self.key}", soft_wrap=True, show_line_numbers=False)
        yield Static("", classes="field-status -empty")

    @property
    def area(self) -> CodeArea:
        return self.query_one(CodeArea)

    def show(self, state: RowState) -> None:
        value = state.resolved.value
        text = "" if value is None else str(value)
        area = self.area
        if self._forgotten or not area.has_focus or area.text == self._shown:
            self._shown = text
            if self._forgotten or area.text != text:
                area.load_text(text)  # also drops the area's own undo history (the other app's edits)
            self._forgotten = False
        self.paint_status(state)

    def forget(self) -> None:
        super().forget()
        self._forgotten = True

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.commit()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """The browser preview, when it runs, shows the text as typed (the draft gets it when the field is left)."""
        if self.area.has_focus and self.state is not None:
            browser_preview.typing(self.app, self.tab.target.path(self.section, self.key), self.area.text)

    def commit(self) -> None:
        if self.state is None or not self.is_mounted:
            return
        text = self.area.text
        if text != self._shown:
            self._shown = text
            self.tab.write(self.section, self.key, text)
        browser_preview.typing(self.app, None)


# ----------------------------------------------------------------------------------------------------------------
# Choices and the navigation sequence
# ----------------------------------------------------------------------------------------------------------------


class ListingSelect(Select[str], inherit_bindings=False):
    """A select that opens on Enter or Space only, so the arrows keep moving between fields."""

    BINDINGS = [Binding("enter,space", "show_overlay", "Choose", id="widget.choose", tooltip="Open the choices")]


class ChoiceRow(FieldRow):
    """One of the allowed values (:data:`~tenantdeck.models.catalog.LISTING_VALUES`). A value the service holds
    outside them is offered too, marked, so showing it never replaces it."""

    HELP = """\
## A choice

`Enter` opens the list; arrows and `Enter` choose. Only the documented values are offered; a value the service
holds outside them stays until you choose another.
"""
    DEFAULT_CSS = """
    ChoiceRow Select { width: 1fr; }
    ChoiceRow.-narrow > .line { layout: grid; grid-size: 2; grid-columns: 1fr 10; grid-rows: 1; height: 2; }
    ChoiceRow.-narrow .field-label { column-span: 2; width: 1fr; }
    """
    #: below this width the label has a line of its own above the value, so the longest value (36 characters)
    #: stays readable: a label wrapped beside it read around it ("Chats in the recent  all_chats ▼ / chat section")
    NARROW: ClassVar[int] = 90

    def __init__(self, section: str, key: str) -> None:
        super().__init__(section, key)
        self._options: tuple[str, ...] = ()
        self._shown: Any = Select.NULL

    def compose(self) -> ComposeResult:
        # narrow from the start when the terminal is (80 columns): set on the first resize instead, the class
        # restyled the row and its list, and laid the tab out again, in the frame after the tab's first (issue 36)
        self.set_class(self.app.size.width < self.NARROW, "-narrow", update=False)
        with Horizontal(classes="line"):
            yield Static(literal(self.label), classes="field-label")
            yield ListingSelect([], id=f"select-{self.key}", allow_blank=True, prompt="(not set)", compact=True)
            yield Static("", classes="marker")
        yield Static("", classes="field-status -empty")

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < self.NARROW, "-narrow")

    def show(self, state: RowState) -> None:
        value = state.resolved.value
        options, held = wv.listing_choices(self.key, value)
        select = self.query_one(Select)
        if options != self._options:
            self._options = options
            select.set_options([(f"{o}  (not an allowed value)" if held and o == value else o, o) for o in options])
        self._shown = value if value in options else Select.NULL
        if select.value != self._shown:
            select.value = self._shown
        self.paint_status(state)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is Select.NULL or event.value == self._shown or self.state is None:
            return
        self._shown = event.value
        self.tab.write(self.section, self.key, event.value)


class SequenceList(OptionList):
    """The sections in their order; ``u`` / ``d`` (or shift+up / shift+down) move the highlighted one."""

    BINDINGS = [
        Binding("u,shift+up", "move(-1)", "Move up", id="widget.sequence_up", tooltip="Move the section up"),
        Binding("d,shift+down", "move(1)", "Move down", id="widget.sequence_down", tooltip="Move the section down"),
    ]

    def action_move(self, step: int) -> None:
        self.query_ancestor(SequenceRow).move(step)


class SequenceRow(FieldRow):
    """``sidebar_navigation_sequence``: reordered with keys, never added to or repeated."""

    HELP = """\
## Order of sidebar sections

Arrows choose a section; `u` / `d` (or `shift+up` / `shift+down`) move it. The order may only be changed: nothing
can be added or repeated here.
"""
    DEFAULT_CSS = """
    SequenceRow SequenceList { height: auto; max-height: 7; width: 40; max-width: 100%; }
    """

    def compose(self) -> ComposeResult:
        with Horizontal(classes="line"):
            yield Static(literal(self.label), classes="field-label")
            yield Static("", classes="marker")
        yield SequenceList(id="sequence")
        yield Static("", classes="field-status -empty")

    def show(self, state: RowState) -> None:
        value = state.resolved.value
        items = [str(v) for v in value] if isinstance(value, list) else []
        listing = self.query_one(SequenceList)
        highlighted = listing.highlighted
        listing.clear_options()
        listing.add_options([f"{n}. {literal(item)}" for n, item in enumerate(items, 1)])
        if items:
            listing.highlighted = min(highlighted or 0, len(items) - 1)
        self.paint_status(state)

    def forget(self) -> None:
        super().forget()
        self.query_one(SequenceList).highlighted = None  # the first section, as composed

    def move(self, step: int) -> None:
        if self.state is None:
            return
        value = self.state.resolved.value
        listing = self.query_one(SequenceList)
        index = listing.highlighted
        moved = wv.move(value, index, step) if isinstance(value, list) and index is not None else None
        if moved is None:
            self.app.bell()
            return
        self.tab.write(self.section, self.key, moved)
        listing.highlighted = index + step


# ----------------------------------------------------------------------------------------------------------------
# The tab
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WidgetIndex:
    """Which widget of the app the tab shows (what :class:`~tenantdeck.tui.messages.WidgetSwitched` says)."""

    index: int


class NoWidget(Static, can_focus=True):
    """Shown instead of the fields when the app has no widget: focusable, so its key is reachable."""

    HELP = """\
## No widget

This app has no chat widget. `a` (or `Enter` here) adds one: it extends the draft's first preset when there is one,
else it is written with the catalog's default settings.
"""
    DEFAULT_CSS = """
    NoWidget { height: auto; padding: 1 1; }
    NoWidget:focus { background: $focus-row-background; }
    """
    BINDINGS = [Binding("a,enter", "add", "Add widget", id="widget.add", tooltip="Add a widget to this app")]

    def action_add(self) -> None:
        self.query_ancestor(WidgetTab).action_add_widget()


class WidgetTab(UsesEditor, DraftListener, RefreshWhenShown, VerticalScroll, can_focus=False):
    """Base of the Style, Sidebar and Main tabs: which widget (or preset) they edit, the banner that says so,
    presets (``r`` reset, ``p`` edit the preset), adding a widget (``a``), and repainting the rows on change."""

    BINDINGS = [
        Binding("r,ctrl+r", "reset", "Reset", id="widget.reset",
                tooltip="Take back this app's override: the preset's value applies again"),
        Binding("p,ctrl+t", "toggle_preset", "Edit preset", id="widget.edit_preset",
                tooltip="Edit the preset itself (every widget that extends it), after saying how many"),
        Binding("f2,ctrl+s", "save", "Save", id="save", tooltip="Write pending text, then save the draft"),
        Binding("down", "app.focus_next", show=False),
        Binding("up", "app.focus_previous", show=False),
    ]
    DEFAULT_CSS = """
    WidgetTab { height: 1fr; }
    WidgetTab #banner { height: auto; padding: 0 1; background: $boost; }
    WidgetTab #banner.-preset { background: $warning 25%; }
    WidgetTab #fields { height: auto; }
    WidgetTab .topic { height: 1; padding: 0 1; margin-top: 1; text-style: bold; color: $accent; }
    """

    #: the section of the draft the rows edit (rows may name theirs; this is for the banner and problems)
    SECTION: ClassVar[str] = "style"

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self.widget_index = 0
        self.preset_mode: str | None = None
        self._rows: list[FieldRow] = []

    # -- reading ---------------------------------------------------------------------------------------------------

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}]"

    def widget(self) -> dict[str, Any] | None:
        widgets = self.editor.get(f"{self.prefix}.widgets", None)
        if not isinstance(widgets, list) or not 0 <= self.widget_index < len(widgets):
            return None
        widget = widgets[self.widget_index]
        return widget if isinstance(widget, dict) else None

    def presets(self) -> dict[str, Any]:
        presets = self.editor.get("presets", None)
        return presets if isinstance(presets, dict) else {}

    @property
    def target(self) -> wv.WidgetSlot:
        return wv.WidgetSlot(self.app_index, self.widget_index, self.preset_mode)

    # -- composing -------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="banner")
        yield NoWidget("", id="none")
        with Vertical(id="fields"):
            yield from self.compose_fields()

    def compose_fields(self) -> ComposeResult:
        raise NotImplementedError

    def on_mount(self) -> None:
        self.widget_index = getattr(self.screen, "widget_index", 0)
        self._rows = list(self.query(FieldRow))
        self.refresh_all()

    # -- painting --------------------------------------------------------------------------------------------------

    def row_note(self, row: FieldRow, resolved: wv.Resolved, data: dict[str, Any]) -> str:
        """A row-specific line (subclasses: the extension a toggle needs)."""
        return ""

    def refresh_all(self) -> None:
        """Recompute every row's state; repaint the rows whose state changed and the banner."""
        widget = self.widget()
        presets = self.presets()
        if self.preset_mode is not None and (widget is None or widget.get("extends") != self.preset_mode
                                             or self.preset_mode not in presets):
            self.preset_mode = None  # the widget or the preset went away (undo, another edit)
        fields = self.query_one("#fields")
        fields.display = widget is not None
        none = self.query_one(NoWidget)
        if widget is None and not none.display and fields.has_focus_within:
            none.display = True
            none.focus()  # the field that had the cursor went away (undo of an added widget)
        none.display = widget is None
        self._paint_banner(widget, presets)
        self._refresh_bindings_if_changed(widget)
        if widget is None:
            return
        target = self.target
        root = target.root
        by_field: dict[tuple[str, str], list[Problem]] = {}
        for problem in self.editor.problems_at(root):
            rest = problem.path[len(root):]
            if len(rest) >= 2 and isinstance(rest[0], str) and isinstance(rest[1], str):
                by_field.setdefault((rest[0], rest[1]), []).append(problem)
        extends = widget.get("extends")
        preset = presets.get(extends) if isinstance(extends, str) else None
        context = {"widget": widget, "presets": presets,
                   "extensions": self.editor.get(f"{self.prefix}.extensions", None)}
        held = {} if self.preset_mode is not None else wv.held_fields(
            self.editor.last_read(self.editor.get(f"{self.prefix}.id", None)), VERBATIM, widget.get("id"))
        for row in self._rows:
            if self.preset_mode is not None:
                resolved = wv.resolve_preset(preset, row.section, row.key)
            else:
                resolved = wv.resolve(widget, preset if isinstance(preset, dict) else None, row.section, row.key)
            problems = tuple((p.severity.value, p.message) for p in by_field.get((row.section, row.key), ()))
            note = self.row_note(row, resolved, context)
            own = widget.get(row.section)
            if (row.section, row.key) in held and not (isinstance(own, dict) and row.key in own):
                said = f"[$warning]{literal(wv.held_note(held[(row.section, row.key)]))}[/]"  # the service's text
                note = "\n".join(n for n in (note, said) if n)
            row.apply(RowState(resolved, root, problems, self.preset_mode is not None, note))

    def _refresh_bindings_if_changed(self, widget: dict[str, Any] | None) -> None:
        """Refresh the footer only when what :meth:`check_action` answers can have changed (a widget appeared or
        went away, it started or stopped extending a preset, preset mode): the footer recomposes all its keys on
        every refresh, which was most of the time of a toggle (bench/tui_latency.py)."""
        state = self.bindings_state(widget)
        if state != getattr(self, "_bindings_state", None):
            self._bindings_state = state
            self.refresh_bindings()

    def bindings_state(self, widget: dict[str, Any] | None) -> tuple[object, ...]:
        """What :meth:`check_action` depends on besides the focus (a tab adds what its own keys depend on)."""
        return (widget is None, isinstance(widget.get("extends"), str) if widget is not None else False,
                self.preset_mode)

    def _paint_banner(self, widget: dict[str, Any] | None, presets: dict[str, Any]) -> None:
        banner = self.query_one("#banner", Static)
        banner.set_class(self.preset_mode is not None, "-preset")
        banner.display = widget is not None
        if widget is None:
            first = next(iter(presets), None)
            how = f"one that extends preset {first!r}" if first else "one with the default settings"
            self.query_one(NoWidget).update(f"[b]This app has no widget.[/] Press [b]a[/] to add {literal(how)}.")
            return
        name = widget.get("name")
        count = len(self.editor.get(f"{self.prefix}.widgets", []) or [])
        # a name is shortened as every person-facing place shortens a long value (a 100,000-character name filled
        # ~1,300 lines above the fields: trial J, J14); the Main tab's Name field holds it whole
        which = f"Widget {self.widget_index + 1}/{count}" + (f" {literal(repr(shortened(str(name))))}" if name else "")
        extends = widget.get("extends")
        problems = [p for p in self.editor.problems_at(self.target.root)
                    if len(p.path) <= len(self.target.root) + 1]
        lines: list[str] = []
        if self.preset_mode is not None:
            usage = wv.preset_usage(self.editor.session.data, self.preset_mode).sentence(self.preset_mode)
            lines.append(f"[b]Editing preset {literal(repr(self.preset_mode))}[/]: {literal(usage)} "
                         "[b]p[/] goes back to this app's widget.")
        elif isinstance(extends, str):
            missing = "" if extends in presets else " [$error](not in the draft)[/]"
            lines.append(f"{which} extends preset [b]{literal(extends)}[/]{missing}: [dim]preset[/] = inherited, "
                         "[b $accent]override[/] = this app's own; [b]r[/] resets, [b]p[/] edits the preset.")
        else:
            lines.append(f"{which}: extends no preset, every value is its own.")
        if self.SECTION == "main":
            lines.append("[dim]* required by the API[/]")
        root = self.target.root
        own = tuple((p.severity.value, f"{format_path(p.path[len(root):]) or 'widget'}: {p.message}")
                    for p in problems)
        if own:
            lines.append(problems_markup(RowState(wv.Resolved(None, wv.UNSET), problems=own)))
        update_static(banner, "\n".join(lines))

    def rebind(self, app_index: int) -> None:
        """Show app ``app_index`` as a tab composed for it would (the App screen kept for the session shows another
        app: ``AppScreen.rebind``, which wrote any typed text to the app shown so far first): its first widget, not
        a preset, scrolled to the top, every row painted anew; now if the tab is shown, else when it is."""
        self.app_index = app_index
        self.widget_index = 0
        self.preset_mode = None
        for row in self._rows:
            row.forget()
        self.scroll_home(animate=False, immediate=True)
        self._stale = False
        self.refresh_or_defer()

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(self.prefix) or any(p.startswith("presets") for p in message.change.paths):
            self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.refresh_all()

    def on_widget_switched(self, message: Any) -> None:
        self.commit_pending()
        self.widget_index = message.index
        self.preset_mode = None
        self.refresh_all()

    # -- writing ---------------------------------------------------------------------------------------------------

    def write(self, section: str, key: str, value: Any) -> bool:
        """Write ``section.key`` to the widget (an override when it extends a preset) or to the preset."""
        path = self.target.path(section, key)
        outcome = self.editor.set(path, value)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not changed", severity="error")
            self.refresh_all()
            return False
        return True

    def commit_pending(self) -> None:
        for row in self._rows:
            row.commit()

    def focus_path(self, path: str) -> bool:
        """Focus the row of ``path`` (``apps[i].widgets[w].<section>.<key>``, from the palette or a problem),
        scrolled into view; the widget tabs show widget ``w`` first. False when the path is not one of this tab's
        rows (then the caller tries another tab)."""
        from tenantdeck.problems import parse_path

        try:
            parts = parse_path(path)
        except ValueError:
            return False
        if (len(parts) < 6 or parts[:2] != ("apps", self.app_index) or parts[2] != "widgets"
                or not isinstance(parts[3], int) or not isinstance(parts[4], str) or not isinstance(parts[5], str)):
            return False
        row = next((r for r in self._rows if r.section == parts[4] and r.key == parts[5]), None)
        if row is None:
            return False
        if parts[3] != self.widget_index:
            show = getattr(self.screen, "show_widget", None)
            if not callable(show) or not show(parts[3]):
                return False
            self.on_widget_switched(WidgetIndex(parts[3]))  # at once: the row must show widget w when focused
        target = row if row.focusable else next((w for w in row.query("*") if w.focusable), None)
        if target is None:
            return False
        from tenantdeck.tui.widgets.focus import scroll_into_view

        target.focus(scroll_visible=False)
        scroll_into_view(self, row)
        return True

    def focused_row(self) -> FieldRow | None:
        node = self.app.focused
        while node is not None and node is not self:
            if isinstance(node, FieldRow):
                return node
            node = node.parent  # type: ignore[assignment]
        return None

    # -- actions ---------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("reset", "toggle_preset"):
            widget = self.widget() if self.is_mounted else None
            if widget is None or not isinstance(widget.get("extends"), str):
                return False
            if action == "reset" and self.preset_mode is not None:
                return False
        return True

    def action_save(self) -> None:
        self.commit_pending()
        self.host.action_save()

    def action_reset(self) -> None:
        row = self.focused_row()
        if row is None:
            self.notify("Move to a field first: r resets the field that has the cursor.")
            return
        if self.preset_mode is not None:
            self.notify("r resets a widget's override; you are editing the preset itself (p goes back).",
                        severity="warning")
            return
        row.commit()
        path = wv.reset_path(self.widget(), self.target, row.section, row.key)
        if path is None:
            self.notify(f"{row.label} is not overridden here: it already comes from the preset.")
            return
        outcome = self.editor.delete(path)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not reset", severity="error")
            return

    def action_toggle_preset(self) -> None:
        if self.preset_mode is not None:
            self.commit_pending()
            self.preset_mode = None
            self.refresh_all()
            return
        widget = self.widget()
        extends = widget.get("extends") if widget else None
        if not isinstance(extends, str):
            self.notify("This widget extends no preset.")
            return
        if extends not in self.presets():
            self.notify(f"Preset {extends!r} is not in the draft.", severity="error")
            return
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        row = self.focused_row()
        usage = wv.preset_usage(self.editor.session.data, extends, *(
            (row.section, row.key) if row is not None else (None, None)))
        self.commit_pending()

        def answered(yes: bool | None) -> None:
            if yes:
                self.preset_mode = extends
                self.refresh_all()

        self.app.push_screen(ConfirmScreen(f"Edit preset {extends!r} itself? {usage.sentence(extends)} Edits then "
                                           "change every widget that does not override them.", yes="Edit the preset"),
                             answered)

    def action_add_widget(self) -> None:
        if self.widget() is not None:
            self.notify("This app already has a widget.")
            return
        widgets = self.editor.get(f"{self.prefix}.widgets", None)
        item = wv.new_widget(self.presets())
        # appended to the list, or the list added as a new key when the app has none
        outcome = self.editor.insert(f"{self.prefix}.widgets", item if isinstance(widgets, list) else [item])
        if not outcome.ok:
            self.notify(outcome.refused, title="Not added", severity="error")
            return
        self.widget_index = 0 if not isinstance(widgets, list) else len(widgets)
        self.refresh_all()
        self.notify(f"Widget {item['name']!r} added to the draft (ctrl+z undoes).")
