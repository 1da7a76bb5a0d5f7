"""How the command line writes messages: ``error:`` red, ``warning:`` yellow, ``note:`` cyan, on a terminal only.

Colour is for a person reading a terminal: it is off when the stream is not a terminal (pipes, files, CI logs,
click's test runner) and when ``NO_COLOR`` is set to anything non-empty (https://no-color.org). Only the level
word is coloured, so a coloured line reads the same as the plain one an editor or CI annotation parses.
"""

from __future__ import annotations

import os
import re
import sys
from typing import IO, Any

import click

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
    """Write ``text`` (one or more lines) with each line's level coloured when the stream takes colour."""
    stream = sys.stderr if err else sys.stdout
    colour = color_enabled(stream)
    if colour:
        text = "\n".join(style_line(line) for line in text.split("\n"))
    click.echo(text, err=err, nl=nl, color=colour)


def error(message: str) -> None:
    """``error: message`` on stderr."""
    echo(f"error: {message}")


def warning(message: str) -> None:
    """``warning: message`` on stderr."""
    echo(f"warning: {message}")


def note(message: str) -> None:
    """``note: message`` on stderr."""
    echo(f"note: {message}")
