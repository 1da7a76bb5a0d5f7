"""The Preview tab: the chat widget drawn in the terminal from its values, so an admin sees what a toggle does.

It is a picture, not a list: the widget's window in its own colours (true colour; the terminal's colour system
degrades it, and under ``NO_COLOR`` Textual's monochrome filter keeps it readable because every colour is also
written as text), its sidebar sections in ``sidebar_navigation_sequence`` order, a sample conversation whose
composer has only the buttons whose toggles are on, and the docked launcher icon, open or closed.

What is drawn is decided by :func:`tenantdeck.draft.preview_scene.build_scene` from the widget's effective settings
(:func:`tenantdeck.draft.effective_widget.effective_widget`: preset, overrides and catalog defaults, valid or not);
this module only paints. It redraws on every draft change that touches the widget or the presets, and when the
App screen switches widgets. Two layouts: a compact one under :data:`WIDE` cells (80x24) and a roomier one above.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rich.color import Color
from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Tabs

from tenantdeck.draft.effective_widget import effective_widget
from tenantdeck.draft.preview_scene import Feature, Scene, Swatch, build_scene, parse_colour
from tenantdeck.models import catalog
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener, WidgetSwitched
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown

RGB = tuple[int, int, int]

#: content width from which the roomy layout is used (a 120-column terminal; 80 columns get the compact one)
WIDE = 100
#: the sample conversation
CONTACT = "Alice"
INCOMING = "Hi! How can we help you today?"
OUTGOING = "My order #1042 has not arrived yet"
PLACEHOLDER = "Type a message…"
#: the narrowest the composer's text field gets before the buttons switch to their short labels
MIN_FIELD = 9
#: how an invalid colour is drawn: crossed cells (a box-drawing diagonal cross)
HATCH = "\u2573"


class PreviewTab(UsesEditor, DraftListener, RefreshWhenShown, VerticalScroll):
    """Scrolls the picture; ``o`` shows the widget open or closed (the docked icon's two images)."""

    HELP = """\
## Preview

The selected widget drawn from its values (its preset's, where it `extends` one, and the catalog's defaults for
what neither writes), redrawn on every change.

- The window is painted in the widget's **primary**, **foreground** and **background** colours; the launcher icon
  in its **docked icon background**. An invalid colour is drawn hatched (crossed cells), its problem written
  below.
- The **sidebar** shows the sections in `sidebar_navigation_sequence` order; sections switched off are left out.
  The small captions are the listing modes.
- The **composer** shows a button per media toggle that is on (emoji, GIF, sticker, attachment, poll, voice
  note); the header shows the call buttons; the sample messages show reactions, threads, receipts, typing.
- `o`: show the widget open or closed (the launcher shows a different image in each state)
- `w`: the app's next widget
"""
    BINDINGS = [
        Binding("o", "toggle_open", "Open/closed", id="preview.toggle_open",
                tooltip="Show the widget open or closed: the docked launcher icon has an image for each"),
        # the tab takes focus when shown (for its key), so arrowing along the tab bar must not get stuck here
        Binding("left", "along_tabs(-1)", "Previous tab", show=False, id="preview.previous_tab"),
        Binding("right", "along_tabs(1)", "Next tab", show=False, id="preview.next_tab"),
    ]
    DEFAULT_CSS = """
    PreviewTab { height: 1fr; }
    PreviewTab > PreviewPicture { height: auto; padding: 0 1; }
    """

    show_open: reactive[bool] = reactive(True)

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self.scene: Scene | None = None
        self._drawn: tuple[int, str] | None = None  #: (draft version, widget path) the scene was built from

    @property
    def widget_index(self) -> int:
        return int(getattr(self.screen, "widget_index", 0))

    @property
    def widget_path(self) -> str:
        return f"apps[{self.app_index}].widgets[{self.widget_index}]"

    def compose(self) -> Iterable[Widget]:
        yield PreviewPicture()

    def on_mount(self) -> None:
        self.redraw()

    def on_show(self) -> None:
        if self._stale or self._drawn != (self.editor.session.version, self.widget_path):
            self.redraw()
        # the tab's key (o) only works with focus inside it; take it from the tab bar when the tab is opened
        focused = self.app.focused
        if focused is None or isinstance(focused, Tabs):
            self.focus()

    # -- keeping up with the draft -------------------------------------------------------------------------

    def on_draft_changed(self, message: DraftChanged) -> None:
        # a keystroke in another tab never pays for re-laying out a picture nobody sees (tui/tabs/tab_refresh.py)
        if message.touches(f"apps[{self.app_index}].widgets") or message.touches("presets"):
            self.refresh_or_defer()

    def on_widget_switched(self, message: WidgetSwitched) -> None:
        self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.redraw()

    def watch_show_open(self, show_open: bool) -> None:
        self.query_one(PreviewPicture).refresh(layout=True)

    def redraw(self) -> None:
        """Rebuild the scene from the draft (cheap: one widget and its preset) and repaint."""
        self.rebuild()
        if self.is_mounted:
            self.query_one(PreviewPicture).refresh(layout=True)

    def rebuild(self) -> None:
        """Build the scene from the draft as it is now."""
        self._stale = False
        self._drawn = (self.editor.session.version, self.widget_path)
        raw = self.editor.get(self.widget_path, None)
        if raw is None:
            self.scene = None
        else:
            self.scene = build_scene(effective_widget(raw, self.editor.get("presets", None)))

    def current_scene(self) -> Scene | None:
        """The scene of the draft as it is at paint time. Messages only ask for a repaint; the picture never trusts
        them to have arrived in order (a hidden tab used to miss an edit made just before it was shown, about one
        switch in three), it checks the draft's version when it paints."""
        if self._stale or self._drawn != (self.editor.session.version, self.widget_path):
            self.rebuild()
        return self.scene

    def action_toggle_open(self) -> None:
        self.show_open = not self.show_open

    def action_along_tabs(self, step: int) -> None:
        """Give focus back to the tab bar and move along it, as the arrow keys did before this tab took focus."""
        tabs = self.screen.query(Tabs).first()
        tabs.focus()
        if step < 0:
            tabs.action_previous_tab()
        else:
            tabs.action_next_tab()


class PreviewPicture(Widget):
    """The picture itself: ``render()`` paints the parent tab's scene at the width it is given."""

    def render(self) -> Any:
        tab = self.parent
        if not isinstance(tab, PreviewTab):
            return ""
        scene = tab.current_scene()
        if scene is None:
            return Text(f"No widget to preview: {tab.widget_path} is not in the draft.", style="italic")
        theme = self.app.current_theme
        return Picture(scene, show_open=tab.show_open, error=Style(color=theme.error, bold=True),
                       muted=Style(dim=True), no_color=bool(getattr(self.app, "no_color", False)))


class Picture:
    """A rich renderable of a :class:`Scene`; picks the compact or the wide layout from the width it gets."""

    def __init__(self, scene: Scene, *, show_open: bool = True, error: Style | None = None,
                 muted: Style | None = None, no_color: bool = False) -> None:
        self.scene = scene
        self.show_open = show_open
        self.error = error or Style(color="red", bold=True)
        self.muted = muted or Style(dim=True)
        self.no_color = no_color

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(40, options.max_width)
        for line in self.lines(width):
            line.truncate(width, overflow="ellipsis")
            line.no_wrap = True
            yield line

    # -- layout ------------------------------------------------------------------------------------------------

    def lines(self, width: int) -> list[Text]:
        scene = self.scene
        wide = width >= WIDE
        win_w = min(width, 110) if wide else width
        out: list[Text] = [self._title(win_w)]
        paint = Paint(scene)
        if self.show_open:
            out.extend(Window(scene, paint, win_w, wide, self.error).lines())
        else:
            out.extend(self._closed_page(win_w))
        out.extend(self._launcher(paint, win_w))
        out.append(self._legend(win_w, wide))
        out.extend(self._captions(win_w, wide))
        return out

    def _title(self, width: int) -> Text:
        scene = self.scene
        left = Text(scene.name, style="bold")
        if scene.extends and scene.preset_found:
            detail = "values inherited" if width >= WIDE else "inherited"
            left.append(f" · extends preset {scene.extends!r} ({scene.inherited} {detail})", self.muted)
        elif scene.extends:
            left.append(f" · preset {scene.extends!r} not found", self.error)
        right = Text("open" if self.show_open else "closed", style="bold")
        right.append(f" (o: {'closed' if self.show_open else 'open'})", self.muted)
        return _spread(left, right, width)

    def _closed_page(self, width: int) -> list[Text]:
        blank = Text(" " * width)
        note = Text("(the widget is closed: the page shows only the docked launcher)", style=self.muted)
        return [blank, note, blank]

    def _launcher(self, paint: Paint, width: int) -> list[Text]:
        """The docked icon, bottom right, in its background colour, with the image file shown in this state."""
        scene = self.scene
        image = scene.icon_open if self.show_open else scene.icon_close
        glyph = " ✕ " if "close" in image.lower() else "•••"
        icon_ok = scene.colours["icon"].rgb is not None
        ring = Style(color=_rich(paint.icon)) if icon_ok else self.error
        face = paint.style(_contrast(paint.icon), paint.icon, bold=True) if icon_ok else self.error
        if not icon_ok:
            glyph = HATCH * 3
        state = "open" if self.show_open else "closed"
        captions = [Text(""), Text.assemble(("docked icon, " + state + ": ", self.muted), (image, "bold")),
                    Text(f"(style.docked_layout_icon_{'open' if self.show_open else 'close'})", style=self.muted)]
        shapes = [Text("▗▄▄▄▄▄▖", style=ring),
                  Text.assemble(("▐", ring), (f" {glyph} ", face), ("▌", ring)),
                  Text("▝▀▀▀▀▀▘", style=ring)]
        return [_spread(caption, Text.assemble(shape, " "), width)
                for caption, shape in zip(captions, shapes, strict=True)]

    def _legend(self, width: int, wide: bool) -> Text:
        names = {"primary": "primary", "foreground": "text", "background": "background", "icon": "icon"}
        out = Text()
        for role, swatch in self.scene.colours.items():
            out.append_text(self._swatch(swatch))
            out.append(f" {names[role]} ", self.muted)
            value = repr(swatch.value) if swatch.problem else str(swatch.value)
            out.append(value + "  ", self.error if swatch.problem else "")
        out.rstrip()
        return out

    def _swatch(self, swatch: Swatch) -> Text:
        if swatch.rgb is None:
            return Text(HATCH * 2, style=self.error)
        return Text("██", style=Style(color=_rich(swatch.rgb)))

    def _captions(self, width: int, wide: bool) -> list[Text]:
        scene = self.scene
        lines: list[Text] = []
        facts = Text()
        if scene.hidden_sections:
            facts.append("hidden sections: ", self.muted)
            facts.append(", ".join(scene.hidden_sections) + "  ")
        if not scene.override_background:
            facts.append("system background colours not overridden  ", self.muted)
        if scene.show_deleted:
            facts.append("deleted messages shown  ", self.muted)
        if facts:
            lines.append(facts)
        for note in scene.notes:
            lines.extend(_wrap(Text.assemble(("⚠ ", self.error), note), width, 2))
        if scene.also_on:
            also = Text(f"also on ({len(scene.also_on)}): ", style=self.muted)
            also.append(" · ".join(scene.also_on))
            lines.extend(_wrap(also, width, 6 if wide else 2))
        return lines


class Paint:
    """The colours the window is painted in: each role's RGB, the catalog default for an invalid one."""

    def __init__(self, scene: Scene) -> None:
        def rgb(role: str) -> RGB:
            swatch = scene.colours[role]
            if swatch.rgb is not None:
                return swatch.rgb
            fallback, _ = parse_colour(catalog.STYLE_DEFAULTS.get(swatch.key))
            return fallback or (128, 128, 128)

        self.bad = {role for role, s in scene.colours.items() if s.rgb is None}
        self.primary = rgb("primary")
        self.fg = rgb("foreground")
        self.bg = rgb("background")
        self.icon = rgb("icon")
        self.on_primary = _contrast(self.primary)
        self.tint = _blend(self.bg, self.fg, 0.08)
        self.side = _blend(self.bg, self.fg, 0.04)
        self.rule = _blend(self.bg, self.fg, 0.25)
        self.quiet = _blend(self.bg, self.fg, 0.55)

    def style(self, fg: RGB | None = None, bg: RGB | None = None, **kwargs: Any) -> Style:
        return Style(color=_rich(fg) if fg else None, bgcolor=_rich(bg) if bg else None, **kwargs)


class Window:
    """The open widget: a title bar, the sidebar, the conversation and the composer, ``width`` cells wide."""

    def __init__(self, scene: Scene, paint: Paint, width: int, wide: bool, error: Style) -> None:
        self.scene = scene
        self.p = paint
        self.width = width
        self.wide = wide
        self.side_w = 32 if wide else 21
        self.conv_w = width - self.side_w - 1
        self.error = error

    def lines(self) -> list[Text]:
        p = self.p
        side = self._sidebar()
        conv = self._conversation()
        rows = max(len(side), len(conv))
        side += [Text("")] * (rows - len(side))
        conv = conv[:-1] + [Text("")] * (rows - len(conv)) + conv[-1:]
        base_side = p.style(p.fg, p.side)
        base_conv = p.style(p.fg, p.bg)
        rule = p.style(p.rule, p.bg)
        body = [Text.assemble(_fit(s, self.side_w, base_side), ("│", rule), _fit(c, self.conv_w, base_conv))
                for s, c in zip(side, conv, strict=True)]
        return [self._title_bar(), *body, self._bottom()]

    def _title_bar(self) -> Text:
        p = self.p
        bar = p.style(p.on_primary, p.primary, bold=True)
        mark = f" {HATCH} primary colour invalid" if "primary" in p.bad else ""
        left = Text(f" {self.scene.name}{mark}", style=bar)
        right = Text("─  ✕ ", style=bar)
        return _spread(left, right, self.width, bar)

    def _bottom(self) -> Text:
        return Text("▀" * self.width, style=self.p.style(self.p.side))

    def _sidebar(self) -> list[Text]:
        p, scene = self.p, self.scene
        lines: list[Text] = []
        new = Text(" ✎ New chat", style=p.style(p.primary, bold=True))
        if scene.new_chat:
            new.append(f" · {scene.new_chat}" if not self.wide else "", p.style(p.quiet))
        lines.append(new)
        if self.wide and scene.new_chat:
            lines.append(Text(f"   {scene.new_chat}", style=p.style(p.quiet, italic=True)))
        lines.append(Text(""))
        if not scene.sections:
            lines.append(Text(" (no sections)", style=p.style(p.quiet, italic=True)))
        for i, section in enumerate(scene.sections):
            selected = i == 0
            style = p.style(p.primary, p.tint, bold=True) if selected else p.style(p.fg)
            label = Text(f" {'▸' if selected else ' '} {section.label}", style=style)
            caption_style = p.style(p.quiet, italic=True) if section.caption_ok else self.error
            if section.caption and self.wide:
                lines.append(label)
                lines.append(Text(f"    {section.caption}", style=caption_style))
            else:
                if section.caption:
                    label.append(" " * max(1, 9 - len(section.label)))
                    label.append(section.caption, caption_style)
                lines.append(label)
        return lines

    def _conversation(self) -> list[Text]:
        p, scene, w = self.p, self.scene, self.conv_w
        has = scene.has
        lines: list[Text] = []
        head = Text(f" {CONTACT}", style=p.style(p.fg, bold=True))
        if has("presence"):
            head.append(" ● online" if self.wide else " ●", p.style((76, 175, 80)))
        calls = Text()
        for button in scene.call_buttons:
            calls.append_text(self._chip(button, filled=True))
            calls.append(" ")
        lines.append(_spread(head, calls, w))
        lines.append(Text("─" * w, style=p.style(p.rule)))
        if self.wide:
            lines.append(Text("Today".center(w), style=p.style(p.quiet)))
        bubble_in = p.style(p.fg, p.tint)
        lines.append(Text.assemble(" ", (f" {INCOMING} ", bubble_in)))
        marks = Text("  ")
        link = p.style(p.primary)
        for mark, style in (("reactions", p.style(p.fg, p.tint)), ("threads", link), ("translate", link),
                            ("reply", link)):
            if has(mark):
                feature = _feature(mark)
                marks.append(f" {feature.label if self.wide else feature.short} ", style)
                marks.append(" ")
        if marks.plain.strip():
            lines.append(marks)
        if scene.show_deleted:
            lines.append(Text.assemble(" ", (" ⊘ This message was deleted ", p.style(p.quiet, p.tint, italic=True))))
        if self.wide:
            lines.append(Text(""))
        out = Text()
        if has("edited"):
            out.append("(edited) ", p.style(p.quiet, italic=True))
        out.append(f" {OUTGOING} ", p.style(p.on_primary, p.primary))
        out.append(" ✓✓" if has("receipts") else "   ", p.style(p.primary, bold=True))
        lines.append(_right(out, w))
        if has("large_emoji"):
            lines.append(Text.assemble(" ", (" :D ", p.style(p.fg, p.tint, bold=True)),
                                       ("  large emoji" if self.wide else "", p.style(p.quiet, italic=True))))
        if has("typing"):
            lines.append(Text(f" {CONTACT} {_feature('typing').label}", style=p.style(p.quiet, italic=True)))
        if self.wide:
            lines.append(Text(""))
        lines.append(self._composer())
        return lines

    def _composer(self) -> Text:
        p, scene, w = self.p, self.scene, self.conv_w
        if not scene.can_send:
            return Text(" Sending messages is turned off", style=p.style(p.quiet, p.tint, italic=True))
        send = Text(" Send ", style=p.style(p.on_primary, p.primary, bold=True))
        for use_label in (True, False):
            buttons = Text(" ")
            for button in scene.composer_buttons:
                buttons.append_text(self._chip(button, filled=False, label=use_label))
                buttons.append(" ")
            if buttons.cell_len + MIN_FIELD + send.cell_len + 1 <= w:
                break
        field = Text(f" {PLACEHOLDER}", style=p.style(p.quiet, p.tint, italic=True))
        room = w - buttons.cell_len - send.cell_len - 1
        field.truncate(max(room, 1), overflow="ellipsis", pad=True)
        return Text.assemble(buttons, field, " ", send)

    def _chip(self, feature: Feature, *, filled: bool, label: bool | None = None) -> Text:
        p = self.p
        text = feature.label if (self.wide if label is None else label) else feature.short
        style = p.style(p.on_primary, p.primary, bold=True) if filled else p.style(p.primary, p.tint, bold=True)
        return Text(f" {text} ", style=style)


# -- small helpers ------------------------------------------------------------------------------------------------


def _feature(feature_id: str) -> Feature:
    from tenantdeck.draft.preview_scene import MESSAGE_MARKS

    return next(f for f in MESSAGE_MARKS if f.id == feature_id)


def _rich(rgb: RGB) -> Color:
    return Color.from_rgb(*rgb)


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _contrast(rgb: RGB) -> RGB:
    """Black or white, whichever reads on ``rgb`` (WCAG relative luminance)."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2])
    return (0, 0, 0) if luminance > 0.179 else (255, 255, 255)


def _fit(text: Text, width: int, base: Style) -> Text:
    """``text`` exactly ``width`` cells, on ``base`` (the region's colours) wherever it sets none."""
    out = Text(style=base)
    out.append_text(text)
    out.truncate(width, overflow="ellipsis", pad=True)
    return out


def _spread(left: Text, right: Text, width: int, base: Style | None = None) -> Text:
    """``left`` and ``right`` on one line of ``width`` cells, ``left`` cut short if they do not both fit."""
    room = max(0, width - right.cell_len)
    out = Text(style=base or "")
    head = left.copy()
    head.truncate(room, overflow="ellipsis", pad=True)
    out.append_text(head)
    out.append_text(right)
    return out


def _right(text: Text, width: int) -> Text:
    pad = max(0, width - text.cell_len - 1)
    return Text.assemble(" " * pad, text)


def _wrap(text: Text, width: int, max_lines: int) -> list[Text]:
    lines = list(text.wrap(_measure_console(), width))
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        last.rstrip()
        last.truncate(width - 1, overflow="crop")
        last.append("…")
    return lines


_CONSOLE: Console | None = None


def _measure_console() -> Console:
    """A console only for wrapping text (no output, no colour detection)."""
    global _CONSOLE
    if _CONSOLE is None:
        _CONSOLE = Console(width=200, color_system=None, file=open(os.devnull, "w"))  # noqa: SIM115
    return _CONSOLE
