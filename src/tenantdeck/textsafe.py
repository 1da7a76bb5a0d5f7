"""The one boundary between data and a terminal: :func:`shown` makes a string safe to print or draw.

Everything tenantdeck shows may come from someone else: an app named in the dashboard, a webhook URL, a message
the service sent, a webhook delivery's path and body. A terminal interprets control characters: ``ESC ] 52 ; c ;
… BEL`` writes the admin's clipboard (over SSH too), ``ESC [ 2 J`` clears the screen, U+202E reverses the text
after it so ``gnp.exe`` reads as ``exe.png``. So every string that came from data passes :func:`shown` before a
terminal or Textual renders it: C0 and C1 controls, DEL, the bidi overrides, embeddings, isolates and marks, the
line and paragraph separators and lone surrogates are written as escapes (``\\x1b``, ``\\u202e``), never
interpreted. Printable text comes back as the very same object, and a shown string is shown again unchanged
(the escapes are printable), so applying it twice on a path is harmless.

Markup is the other half and depends on the renderer, so it is not done here: the TUI never parses data as markup
(``rich.text.Text`` cells and labels, ``markup=False`` on ``Static``, ``Label`` and notifications), and the CLI's
rich progress bar prints with markup off.

Core module: no Textual; Rich only for its cell widths (the table the editor lays out with). It is called for
every cell of a 5,000-app table, so the common case is one precompiled regular-expression search that finds
nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len, split_graphemes

#: code points a terminal (or a bidi-aware renderer) would act on instead of drawing
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_OTHER = "\x7f-\x9f" + _BIDI + "\u2028\u2029\ud800-\udfff"  # DEL, C1, bidi, separators, lone surrogates
_UNSAFE = re.compile(f"[\x00-\x1f{_OTHER}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[\x00-\x09\x0b-\x1f{_OTHER}]")
#: what :func:`unsafe` finds but the line breaks ``\n`` and ``\r``, as the inside of a regular-expression class (a
#: search of a whole file: its own line breaks are not data; tenantdeck.draft.raw_scalars)
UNSAFE_BUT_BREAKS_CLASS = f"\x00-\x09\x0b\x0c\x0e-\x1f{_OTHER}"

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_CODES = [*range(0x00, 0x20), *range(0x7F, 0xA0), *(ord(c) for c in _BIDI), 0x2028, 0x2029, *range(0xD800, 0xE000)]
_TABLE = {code: _escape(code) for code in _CODES}
_TABLE_KEEP_NEWLINE = {code: text for code, text in _TABLE.items() if code != 0x0A}


def shown(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control, bidi and separator character written as an escape (``\\x1b``, ``\\u202e``).

    ``newlines=True`` keeps ``\\n`` as a line break, for output that is several lines on purpose (a rendered plan,
    a list of problems) once each data value in it is on its own line; a single value (a name, a table cell, one
    message) is shown with its newlines escaped, so data cannot forge a line of its own. Tabs are always escaped.
    """
    if (_UNSAFE_BUT_NEWLINE if newlines else _UNSAFE).search(text) is None:
        return text
    return text.translate(_TABLE_KEEP_NEWLINE if newlines else _TABLE)


#: what :func:`cells` does to each unsafe character: gone (a control or bidi character takes no cell), except a
#: lone surrogate, which a terminal cannot be sent and which took one cell in the layout: U+FFFD in its place
_DROP = {code: ("\ufffd" if 0xD800 <= code < 0xE000 else None) for code in _CODES}


def cells(text: str) -> str:
    """``text`` made safe for a terminal without changing its width: for a layout already measured (the editor's
    last line of defence, :mod:`tenantdeck.tui.safe_output`), where :func:`shown`'s escapes would not fit.

    Rich and Textual measure a control, bidi or separator character as zero cells wide, so removing it keeps every
    column where the layout put it; a lone surrogate was measured as one cell and becomes U+FFFD. The escapes a
    reader should see come from :func:`shown` at the call site; this only makes sure nothing is ever acted on.
    """
    if _UNSAFE.search(text) is None:
        return text
    return text.translate(_DROP)


def unsafe(text: str, *, newlines: bool = False) -> bool:
    """True when ``text`` holds a character a terminal would act on (what :func:`shown` and :func:`cells` change);
    ``newlines=True``: a line break does not count (text written over several lines on purpose)."""
    return (_UNSAFE_BUT_NEWLINE if newlines else _UNSAFE).search(text) is not None


#: the longest value text output (a plan, a diff, the editor's review) writes whole; a longer one is shortened
SHOWN_MAX_CHARS = 200


def shortened(text: str, limit: int = SHOWN_MAX_CHARS) -> str:
    """``text``, or when it is longer than ``limit`` its start and end around ``…`` and its length: ``"aaaa…zz"
    (10,000,002 chars)``. For a person's output only (a 10 MB value in a plan is one unreadable line that buries
    the rest); the JSON outputs keep the whole value. Apply before :func:`shown`, which escapes what is kept."""
    if len(text) <= limit:
        return text
    tail = limit // 5
    return f"{text[:limit - tail]}…{text[-tail:]} ({len(text):,} chars)"


_NARROW = re.compile(r"[\x20-\x7e]*")  #: printable ASCII: one cell each (the common case, measured without a loop)


def cell_width(text: str) -> int:
    """How many terminal cells ``text`` takes, measured as Rich (and so Textual) lays it out: a layout and a cut
    that disagree by one cell (a soft hyphen, an unassigned code point, a spacing mark) shift every column after
    it. Rich's table is the one the editor draws with; a hand-kept copy of it disagreed on 766,000 code points."""
    if _NARROW.fullmatch(text):
        return len(text)
    return cell_len(text)


def fitted(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal cells, ``…`` ending what was cut: the one rule for a value cut to a
    column (a table cell, a row at 80 columns), so a cut never looks like the whole value. Apply after
    :func:`shown` (an escape then counts as the cells it takes); the full text belongs in a detail line."""
    if cell_width(text) <= width:
        return text
    if width <= 0:
        return ""
    if _NARROW.fullmatch(text):  # one cell, one grapheme a character: what the loop below keeps, without it
        return text[:width - 1] + "…"  # (F6's plan cuts 1,000 rows: splitting each into graphemes was 25 ms)
    spans, _ = split_graphemes(text)
    used = end = 0
    for _start, stop, cells in spans:
        if used + cells > width - 1:
            break
        used, end = used + cells, stop
    return _trimmed(text[:end], width, lambda kept: kept + "…", lambda kept: kept[:-1])


def fitted_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, keeping its end after ``…`` (a field path, an idempotency key: what
    tells two apart is at the end). The mirror of :func:`fitted`; apply after :func:`shown` too."""
    if cell_width(text) <= width:
        return text
    if width <= 0:
        return ""
    if _NARROW.fullmatch(text):  # as in fitted
        return "…" + text[len(text) - (width - 1):] if width > 1 else "…"
    spans, _ = split_graphemes(text)
    used, start = 0, len(text)
    for begin, _stop, cells in reversed(spans):
        if used + cells > width - 1:
            break
        used, start = used + cells, begin
    return _trimmed(text[start:], width, lambda kept: "…" + kept, lambda kept: kept[1:])


def _trimmed(kept: str, width: int, mark: Callable[[str], str], less: Callable[[str], str]) -> str:
    """``mark(kept)``, with ``kept`` made shorter until it fits. Cut by whole graphemes (a variation selector
    stays with the character it widens), then measured as Rich lays the result out: Rich's grapheme split and its
    ``cell_len`` disagree on joiner sequences, and ``cell_len`` is what Textual draws with."""
    while kept and cell_len(mark(kept)) > width:
        kept = less(kept)
    return mark(kept)


_LONG_RUN = re.compile(f"\\S{{{SHOWN_MAX_CHARS + 1},}}")


def shortened_runs(text: str, limit: int = 5 * SHOWN_MAX_CHARS) -> str:
    """A message that quotes values, for a person: each run of more than :data:`SHOWN_MAX_CHARS` characters
    without a space (a long value) :func:`shortened`, and the whole when it is still longer than ``limit``. The
    words around the values, which say what is wrong, stay whole."""
    if len(text) <= SHOWN_MAX_CHARS:
        return text
    text = _LONG_RUN.sub(lambda m: shortened(m.group()), text)
    return shortened(text, limit)


_JSON_UNSAFE = re.compile(f"[{_OTHER}]")


def json_text(value: object, **dumps: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` that is also safe on a terminal: the same JSON data, with C1
    controls, DEL, bidi and separator characters and lone surrogates written as ``\\uXXXX`` escapes (json.dumps
    escapes C0 itself; the rest it would print raw). A program reading it gets exactly the strings it got before;
    a person reading it sees ``\\u202e`` instead of reversed text."""
    text = json.dumps(value, ensure_ascii=False, **dumps)
    if _JSON_UNSAFE.search(text) is None:
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


__all__ = [
    "SHOWN_MAX_CHARS",
    "UNSAFE_BUT_BREAKS_CLASS",
    "cell_width",
    "cells",
    "fitted",
    "fitted_end",
    "json_text",
    "shortened",
    "shortened_runs",
    "shown",
    "unsafe",
]
