"""Machine-readable output: one JSON document per command on stdout (``--format json``), the same flag everywhere.

Every document has the same head, so a CI job can check what it reads before reading it::

    {"format_version": 1, "tool": "tenantdeck", "command": "push", "exit_code": 0, ...}

``format_version`` moves only when a field changes meaning or goes away (new fields may appear); the fields of each
command are documented in docs/json-output.md, and a test checks each document against that page. Human text and
progress go to stderr meanwhile, so stdout is only the document. ``diff`` and ``plan`` print the plan document
(its own ``format_version``, the one a saved plan has); ``listen`` writes JSON Lines, one delivery per line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from tenantdeck.textsafe import json_text

#: the version of the documents below (docs/json-output.md)
FORMAT_VERSION = 1

F = TypeVar("F", bound=Callable[..., Any])


def format_option(*formats: str, help: str = "Output on stdout: text for people, json for programs "
                  "(docs/json-output.md); messages and progress go to stderr.") -> Callable[[F], F]:
    """``--format text|json`` (plus ``formats``), passed as ``fmt``."""
    return click.option("--format", "fmt", type=click.Choice(["text", *formats, "json"]), default="text",
                        show_default=True, help=help)


def document(command: str, exit_code: int, **fields: Any) -> dict[str, Any]:
    """The document ``command`` prints, with the common head."""
    return {"format_version": FORMAT_VERSION, "tool": "tenantdeck", "command": command, "exit_code": exit_code,
            **fields}


def emit(doc: dict[str, Any]) -> None:
    """Write ``doc`` on stdout: JSON with every string escaped as JSON escapes it (no raw control character from
    the service's data reaches a terminal that shows it)."""
    sys.stdout.write(json_text(doc, indent=2) + "\n")
    sys.stdout.flush()


__all__ = ["FORMAT_VERSION", "document", "emit", "format_option"]
