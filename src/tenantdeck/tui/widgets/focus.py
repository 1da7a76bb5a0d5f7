"""Landing the focus on a field another screen named (the palette, a problem): the field scrolled into view.

Why not ``Widget.focus(scroll_visible=True)`` alone: a jump usually shows a tab that was hidden a moment ago, and
until that tab is laid out its rows have no place and it has no scroll range, so the scroll is lost and the tab
shows its top while the focus sits on a row below the screen (issue 20: the palette's "Allow GIFs" left the Main
tab at its top). The scroll waits for the layout, a few refreshes at most.
"""

from __future__ import annotations

from textual.widget import Widget

#: how long to wait for a just-shown tab to be laid out before giving up on scrolling (the focus is set anyway), and
#: how often to look: a count of refreshes is no measure, since an idle screen runs "after refresh" at once
LAYOUT_WAIT, LAYOUT_POLL = 2.0, 0.02


def scroll_into_view(container: Widget, widget: Widget) -> None:
    """Centre ``widget`` (just given the focus) in its scrolling ``container`` once both are laid out: scroll, and
    look again shortly until the widget is on the screen (a scroll before the layout is clamped to a range of 0)."""
    _scroll(container, widget, LAYOUT_WAIT, first=True)


def _scroll(container: Widget, widget: Widget, wait: float, *, first: bool = False) -> None:
    if not container.is_mounted or not widget.is_mounted:
        return
    if not first and not (widget.has_focus or widget.has_focus_within):
        return  # the user has moved on (the focus is set after the call that asked for it): the scroll is theirs
    region = widget.region
    if region.height > 0 and container.scrollable_content_region.contains_region(region):
        return
    if widget.virtual_region.height > 0 and container.size.height > 0:
        container.scroll_to_center(widget, animate=False, immediate=True)
    if wait > 0:
        container.set_timer(LAYOUT_POLL, lambda: _scroll(container, widget, wait - LAYOUT_POLL))
