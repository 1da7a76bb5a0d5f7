"""The editor's last line of defence: no character a terminal acts on leaves a rendered line of the screen.

Every string that came from data passes :func:`tenantdeck.textsafe.shown` where a screen builds its text, so the
admin sees ``\\x1b`` and ``\\u202e``. That is per call site, and one missed call site (the Webhooks tab's detail
line, issue 32) let a webhook name write the clipboard through tmux (OSC 52) and clear the screen. This module
makes a missed call site harmless, whatever widget drew the text.

Where: Textual turns the screen into terminal output in one method, :meth:`textual.strip.Strip.render` (each
line's segments to text with the escape codes of their styles); every kind of update (full layout, changed
chops, inline) writes through it, and ``App._display`` hands its result to the driver. The check runs there on
each segment's *text*, before the style's codes are added, so Textual's and Rich's own escape codes pass and
nothing of the data can: the driver only sees a finished string, in which a data ``ESC [ 2 J`` and Textual's own
codes cannot be told apart, so a filter at the driver could not be complete.

What: :func:`tenantdeck.textsafe.cells`, which removes the characters (Rich measures each as zero cells wide, so
every column stays where the layout put it) rather than escaping them (an escape is wider than the cells the
layout gave the text). The cost is one regular-expression search per line the first time it is rendered (a
``Strip`` caches its output), measured in docs/benchmarks.md ("safe_output").

Installed by :class:`tenantdeck.tui.app.TenantdeckApp` (``install()`` is idempotent). It replaces a method of a
Textual class, so tests/test_hostile_strings.py checks the output at the driver and fails if a Textual upgrade
routes output around it.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from tenantdeck.textsafe import cells, unsafe

#: Textual's own ``Strip.render``, which the guard calls with clean segments
_textual_render = Strip.render
_text = itemgetter(0)  # a Segment's text


def _render(strip: Strip, console: Any) -> str:
    """``Strip.render``, with every segment's text made safe first (a strip with nothing to clean: as it is)."""
    if strip._render_cache is None:
        segments = strip._segments
        text = "".join(map(_text, segments))
        if not text.isprintable() and unsafe(text):  # isprintable: one C loop, true for nearly every line
            clean = Strip([Segment(cells(text), style, control) for text, style, control in segments],
                          strip._cell_length)
            strip._render_cache = _textual_render(clean, console)
    return _textual_render(strip, console)


def install() -> None:
    """Route every rendered line through the guard (once; calling again changes nothing)."""
    if Strip.render is not _render:
        Strip.render = _render  # type: ignore[method-assign]


def installed() -> bool:
    return Strip.render is _render


__all__ = ["install", "installed"]
