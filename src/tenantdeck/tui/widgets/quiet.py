"""Redraw only what changed: ``Static.update`` always asks for a layout of the whole screen, even with the same text.

Every edit of an app tells all its tabs, hidden ones included, and each rewrote its summary and detail lines; with
the same text that still cost a full-screen layout and render per line, about two thirds of the time from a key
press to the repainted screen (bench/tui_latency.py).
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def update_static(widget: Static, content: VisualType) -> None:
    """``widget.update(content)`` unless it already shows exactly ``content`` (then nothing is redrawn)."""
    if isinstance(content, str) and isinstance(widget.content, str) and widget.content == content:
        return
    widget.update(content)
