"""Textual's ``Select`` in 1 widget until it is first opened: the value drawn by one widget, the list of choices
mounted when it is first opened.

Textual's ``Select`` is six widgets: the select, a row (``SelectCurrent``) holding three ``Static`` (the value, a
down and an up arrow), and the list of choices (``SelectOverlay``, an ``OptionList``) shown over the screen when
open. Each is created, mounted and styled as its screen opens, and bulk edit has three selects: 18 widgets, ~16 ms of
its first frame of ~40 on a quiet machine (issue 36, measured by leaving them out). Here the row is one widget that
draws the value and the arrow as the three ``Static`` drew them (the same CSS: ``SelectCurrent``'s rules, and the
value's and arrow's as component classes), and the list is mounted by the key or click that first opens the select;
opening waits for that mount, so a key after it goes where it went. (Mounted after the first frame instead, the
three lists each laid the screen out again: bulk edit's settled time 75-110 -> 160-185 ms.) The
rest is Textual's: the keys (Enter, Space, Up, Down open; typing finds a choice; Enter picks; Escape closes), the
``Changed`` message, ``value``, ``NULL``. tests/tui/test_select.py holds it equal to Textual's, picture and keys.

A label given as a string is read as markup, as Textual's ``Static`` reads it; a label naming data (a preset) is
given as a ``Text`` (escaped), which is drawn as it is, here as in the list of choices.
"""

from __future__ import annotations

import asyncio
from typing import Any, Generic

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual._context import active_message_pump
from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.widgets import Select
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay, SelectType


class SelectValue(SelectCurrent):
    """``SelectCurrent`` as one widget: the value (or the prompt) and the arrow, drawn as its three ``Static``
    children drew them (value: ``width: 1fr; height: auto``, wrapped; arrow: one cell after one of padding, on
    the first line; ▲ while the select is open)."""

    COMPONENT_CLASSES = {"select-value--label", "select-value--arrow"}
    DEFAULT_CSS = """
    SelectValue {
        & > .select-value--label { color: $foreground 50%; }
        &.-has-value > .select-value--label { color: $foreground; }
        & > .select-value--arrow { color: $foreground 50%; }
    }
    """

    def __init__(self, placeholder: str) -> None:
        super().__init__(placeholder)
        self._shown: RenderableType = placeholder

    def compose(self) -> ComposeResult:
        return iter(())

    def update(self, label: RenderableType | NoSelection) -> None:
        self.label = label
        self.has_value = label is not Select.NULL
        self._shown = self.placeholder if isinstance(label, NoSelection) else label
        self.refresh(layout=True)

    def _label_lines(self, width: int) -> list[Content]:
        shown = self._shown
        content = (Content.from_markup(shown) if isinstance(shown, str)
                   else Content.from_rich_text(shown) if isinstance(shown, Text) else Content(str(shown)))
        return content.wrap(max(width - 2, 1)) or [Content("")]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._label_lines(width))

    def render(self) -> Content:
        width = self.content_region.width
        label_style = self.get_visual_style("select-value--label")
        arrow_style = self.get_visual_style("select-value--arrow")
        expanded = self.parent is not None and self.parent.has_class("-expanded")
        lines = []
        for n, line in enumerate(self._label_lines(width)):
            # the spaces after the value and before the arrow unstyled, as the two Static's padding was: one run
            gap = " " * (max(width - 2 - line.cell_length, 0) + (1 if n == 0 else 2))
            arrow = ("▲" if expanded else "▼", arrow_style) if n == 0 else ""
            lines.append(Content.assemble(line.stylize_before(label_style), gap, arrow))
        return Content("\n").join(lines)

    async def _on_click(self, event: events.Click) -> None:
        """Open or close, the list mounted first (SelectCurrent's own click handler is not run)."""
        event.stop()
        event.prevent_default()
        select = self.parent
        if isinstance(select, LightSelect):
            await select.overlay_mounted()
        self.post_message(self.Toggle())


class LightSelect(Select[SelectType], Generic[SelectType]):
    """Textual's ``Select``, with one widget for its value and its list of choices mounted when first opened (see
    the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._overlay_ready: asyncio.Event | None = None

    def compose(self) -> ComposeResult:
        yield SelectValue(self.prompt)

    async def overlay_mounted(self) -> None:
        """Mount the list of choices unless it is (being) mounted; return once it is."""
        if self._overlay_ready is not None:
            await self._overlay_ready.wait()
            return
        self._overlay_ready = asyncio.Event()
        token = active_message_pump.set(self)  # data_bind binds to the pump composing: this select, as in compose
        try:
            overlay = SelectOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)
        finally:
            active_message_pump.reset(token)
        await self.mount(overlay)
        super()._setup_options_renderables()
        if self.value != self.NULL:
            overlay.highlighted = self._index_of(self.value)
        self._overlay_ready.set()

    def _overlay(self) -> SelectOverlay | None:
        try:
            return self.query_one(SelectOverlay)
        except NoMatches:
            return None

    def _index_of(self, value: Any) -> int | None:
        return next((i for i, (_prompt, v) in enumerate(self._options) if v == value), None)

    def _setup_options_renderables(self) -> None:
        if self._overlay() is not None:
            super()._setup_options_renderables()

    def _watch_value(self, value: SelectType | NoSelection) -> None:
        """Textual's, with the list's highlight set only once the list is mounted."""
        self._value = value
        try:
            current = self.query_one(SelectCurrent)
        except NoMatches:
            return
        if value == self.NULL:
            current.update(self.NULL)
        else:
            index = self._index_of(value)
            if index is not None:
                overlay = self._overlay()
                if overlay is not None:
                    overlay.highlighted = index
                current.update(self._options[index][0])
        self.post_message(self.Changed(self, value))

    def _watch_expanded(self, expanded: bool) -> None:
        super()._watch_expanded(expanded)
        self.query_one(SelectValue).refresh()

    def _watch_prompt(self, prompt: str) -> None:
        if self._overlay() is not None:
            super()._watch_prompt(prompt)
        elif self.is_mounted:
            current = self.query_one(SelectCurrent)
            current.placeholder = prompt
            if self._allow_blank and self.value == self.NULL:
                current.update(self.NULL)

    async def action_show_overlay(self) -> None:
        await self.overlay_mounted()
        super().action_show_overlay()
