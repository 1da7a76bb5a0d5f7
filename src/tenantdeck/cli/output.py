"""How the command line writes messages: ``error:`` red, ``warning:`` yellow, ``note:`` cyan, on a terminal only.

Colour is for a person reading a terminal: it is off when the stream is not a terminal (pipes, files, CI logs,
click's test runner) and when ``NO_COLOR`` is set to anything non-empty (https://no-color.org). Only the level
word is coloured, so a coloured line reads the same as the plain one an editor or CI annotation parses.

Every human-readable line the command line prints passes :func:`tenantdeck.textsafe.shown` here (:func:`echo`,
:func:`write`), so a name or message carrying terminal escapes is printed escaped, never interpreted.
"""

from __future__ import annotations

import os
import re
import sys
from typing import IO, Any

import click

from tenantdeck.textsafe import shown

_COLOURS: dict[str, dict[str, Any]] = {
    "error": {"fg": "red", "bold": True},
    "warning": {"fg": "yellow", "bold": True},
    "note": {"fg": "cyan"},
}
#: ``error: ...`` or ``FILE:LINE:COL: error: ...`` (a rendered Problem)
_LEVEL = re.compile(r"^(?P<head>(?:[^\n]*?:\d+:\d+: )?)(?P<level>error|warning|note):")


def color_enabled(stream: IO[str] | None = None) -> bool:
    """True when ``stream`` (default stderr) is a terminal and ``NO_COLOR`` is unset or empty."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def style_line(line: str) -> str:
    """``line`` with its level word (``error:``, ``warning:``, ``note:``) coloured; other lines unchanged."""
    match = _LEVEL.match(line)
    if match is None:
        return line
    level = match.group("level")
    head = match.group("head")
    return head + click.style(level + ":", **_COLOURS[level]) + line[match.end():]


def echo(text: str, *, err: bool = True, nl: bool = True) -> None:
    """Write ``text`` (one or more lines), made safe for a terminal, with each line's level coloured when the stream
    takes colour."""
    text = shown(text, newlines=True)  # before colouring: the only escape sequences printed are our own
    stream = sys.stderr if err else sys.stdout
    colour = color_enabled(stream)
    if colour:
        text = "\n".join(style_line(line) for line in text.split("\n"))
    click.echo(text, err=err, nl=nl, color=colour)


def write(text: str, *, err: bool = False) -> None:
    """Write ``text`` as it is (no colour, no newline added), made safe for a terminal: a rendered plan, history."""
    stream = sys.stderr if err else sys.stdout
    stream.write(shown(text, newlines=True))
    stream.flush()


def error(message: str) -> None:
    """``error: message`` on stderr."""
    echo(f"error: {message}")


def warning(message: str) -> None:
    """``warning: message`` on stderr."""
    echo(f"warning: {message}")


def note(message: str) -> None:
    """``note: message`` on stderr."""
    echo(f"note: {message}")
