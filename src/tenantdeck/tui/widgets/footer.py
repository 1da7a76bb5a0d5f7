"""The footer every screen uses: the keys that apply, fitted to 80 columns, drawn as one line of one widget.

Textual's footer lists the focused widget's keys, then the screen's, then the app's, and cuts off what does not fit;
at 80 columns the app's own keys (Help, Save, Review) fell off the end on most tabs. This one is compact (one space
between keys) and leaves out the command palette's entry: ctrl+p is the first line of F1 help instead.

It is one widget that draws the keys as text, not Textual's footer (a widget per key, composed again whenever the
keys change). Moving the focus or switching a tab changes the keys, and building the key widgets again, each with its
styles and layout, was 20-40 ms of a tab switch's settled time (issue 36, ``bench/tui_navigation.py``). Here a change
of the keys is a repaint: the keys are read from the screen's ``active_bindings`` when the line is drawn, so they are
always those of the frame they are drawn in (the tab bar, the pane and the footer change together). It looks as
Textual's compact footer does (the same component classes and theme variables), and a click on a key presses it.

Every screen and every modal yields one, last in its ``compose``: the footer on the bottom line is then always the
one of the screen in front, listing its keys. A modal without one showed the footer of the screen behind it, whose
keys do nothing while the modal is open (Textual sends keys no further down than the modal). Which keys a footer
lists is its screen's ``active_bindings``: a binding's ``show`` and its node's ``check_action``, so a key that works
only sometimes is listed only then. tests/tui/test_footer.py walks every screen class of ``tenantdeck.tui`` and
holds each to this, with Escape listed where it leaves and any key the screen's text says to press.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen


class FooterEntry(NamedTuple):
    """One key the footer lists."""

    key: str
    key_display: str
    action: str
    description: str
    enabled: bool
    tooltip: str


class KeyFooter(Widget, can_focus=False):
    """A compact footer without the palette entry (see the module docstring for why)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--hover"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: clip;
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._spans: list[tuple[int, int, FooterEntry]] = []
        self._hover: int | None = None

    @property
    def entries(self) -> list[FooterEntry]:
        """The keys listed now, in order: the screen's active bindings that are shown (one per action)."""
        try:
            screen = self.screen
        except Exception:  # not on a screen (being removed): nothing to list
            return []
        seen: set[str] = set()
        listed = []
        for _node, binding, enabled, tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            listed.append(FooterEntry(binding.key, self.app.get_key_display(binding), binding.action,
                                      binding.description, enabled, tooltip or binding.tooltip or ""))
        return listed

    @property
    def text(self) -> str:
        """The line as drawn, without its styles: what a user reads (and the width it needs, ``len``)."""
        return self.render().plain

    def render(self) -> Text:
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        hover_style = self.get_component_rich_style("footer-key--hover")
        line = Text(no_wrap=True, overflow="crop")
        spans = []
        for index, entry in enumerate(self.entries):
            if index:
                line.append(" ")  # Textual's compact footer: one column between keys
            start = line.cell_len
            item = Text.assemble((entry.key_display, key_style),
                                 *([(" " + entry.description, description_style)] if entry.description else []))
            if index == self._hover:
                item.stylize(hover_style)
            if not entry.enabled:
                item.stylize(Style(dim=True))
            line.append_text(item)
            spans.append((start, line.cell_len, entry))
        self._spans = spans
        return line

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """The focus moved or a binding's state changed: repaint if that changed the keys (they are read again as
        the line is drawn). Textual signals this on every focus change; most leave the keys as they were."""
        if self.is_attached and screen is self.screen and self.entries != [entry for *_, entry in self._spans]:
            self.refresh()

    def _index_at(self, x: int) -> int | None:
        """Which of the keys drawn is at column ``x`` of the footer, if any (the gaps between keys are none)."""
        return next((i for i, (start, end, _entry) in enumerate(self._spans) if start <= x < end), None)

    def entry_at(self, x: int) -> FooterEntry | None:
        """The key drawn at column ``x`` of the footer, if any."""
        index = self._index_at(x)
        return None if index is None else self._spans[index][2]

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self.entry_at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._index_at(event.x)
        if hover != self._hover:
            self._hover = hover
            self.tooltip = (self._spans[hover][2].tooltip or None) if hover is not None else None
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()
