"""What a JSON body may be: how deep it nests (found before it is parsed) and how large it is.

Python's ``json`` parser recurses once per level: a body of a few thousand ``[`` raises ``RecursionError`` (and
whatever walks the result afterwards recurses too). The receiver and the sandbox take JSON from anyone who can
reach the port, so they measure the nesting first and refuse a body deeper than :data:`MAX_JSON_DEPTH` in words,
instead of crashing on it. Nothing they legitimately receive comes close: a webhook delivery or a management API
body is under ten levels deep.

The size bounds are the service's (docs/real-service.md): the sandbox enforces them and ``validate`` refuses a
draft that would break them, both from the constants and :func:`json_size` here, so the two cannot disagree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final

#: Deeper bodies are refused (the receiver flags them, the sandbox answers 400).
MAX_JSON_DEPTH: Final = 100
#: The largest request body, in bytes (the sandbox's default ``--max-body``; a larger one is answered 413). The
#: API's bodies are a few kilobytes (a message's ``data`` is at most 10 KB); a megabyte leaves room for anything
#: legitimate.
BODY_MAX_BYTES: Final = 1024 * 1024
#: The largest settings document one extension of one app may hold, in bytes of compact JSON (a larger one is a
#: 422). The biggest real ones are a profanity word list or a few hundred custom masks (tens of kilobytes);
#: data-masking's PUT *adds* the masks it sends to those kept, so without a bound repeated requests would grow one
#: row without end.
EXTENSION_SETTINGS_MAX_BYTES: Final = 256 * 1024


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON: what httpx sends for ``json=value`` and what the sandbox stores
    and measures (``separators=(",", ":")``, ``ensure_ascii=False``)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def bytes_text(size: int) -> str:
    """``262144`` -> ``262,144 bytes (256 KiB)``: a limit or a size as people read it."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale:
            amount = size / scale
            shown = f"{amount:.0f}" if amount == int(amount) else f"{amount:.1f}"
            return f"{size:,} bytes ({shown} {unit})"
    return f"{size:,} bytes"


def _children(value: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(value, dict):
        yield from value.items()
    elif isinstance(value, list):
        yield from enumerate(value)


def _over(value: Any, limit: int) -> bool:
    """``json_size(value) > limit``, without encoding a string whose length decides it, nor a constant: a list of
    100,000 words is searched in milliseconds."""
    if isinstance(value, str):
        if 6 * len(value) + 2 <= limit:  # at most six bytes a character (``\u001f``), two quotes
            return False
        if len(value) + 2 > limit:  # at least one byte a character
            return True
    elif value is None or isinstance(value, bool):
        return (5 if value is False else 4) > limit  # null and true are four bytes, false five
    return json_size(value) > limit


def largest_part(value: Any, limit: int) -> tuple[str | int, ...]:
    """The way down (keys and indexes) to the deepest part of ``value`` that alone is over ``limit`` bytes of JSON:
    where a problem about the whole is best located (one 10 MB word, not the list that holds it; the list, when
    its 100,000 words are each small). ``()`` when no part alone is over. Costs one :func:`json_size` of each
    child on the way down, so only call it for a value already found too large."""
    path: list[str | int] = []
    while True:
        over = next(((key, child) for key, child in _children(value) if _over(child, limit)), None)
        if over is None:
            return tuple(path)
        path.append(over[0])
        value = over[1]

# A JSON string, written as an unrolled loop so a long string costs one linear pass.
_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
#: ``{``/``}`` read as ``[``/``]`` (the depth does not care which), every other byte dropped
_TO_SQUARE: Final = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the arrays and objects of ``body`` nest more than ``limit`` levels (brackets inside strings do not
    count). Every step runs at C speed: unless there are more than ``limit`` opening brackets at all, nothing is
    scanned; otherwise the brackets alone are kept and innermost ``[]`` pairs are removed one level per pass, at
    most ``limit + 1`` passes. Brackets left unclosed count as levels (Python's parser recurses into them before it
    finds the text broken). Meant for bodies that are then parsed anyway: for text that is not JSON it is a guess.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", body).translate(_TO_SQUARE, _NOT_BRACKETS)
    levels = 0
    while levels <= limit:
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            return levels + brackets.count(b"[") > limit
        brackets = inner
        levels += 1
    return True


def too_deep_message(limit: int = MAX_JSON_DEPTH) -> str:
    """The one sentence both the receiver and the sandbox say about such a body."""
    return f"the body is nested more than {limit} levels deep"
