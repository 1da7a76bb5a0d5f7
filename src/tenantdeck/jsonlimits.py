"""How deep a JSON body nests, found before it is parsed.

Python's ``json`` parser recurses once per level: a body of a few thousand ``[`` raises ``RecursionError`` (and
whatever walks the result afterwards recurses too). The receiver and the sandbox take JSON from anyone who can
reach the port, so they measure the nesting first and refuse a body deeper than :data:`MAX_JSON_DEPTH` in words,
instead of crashing on it. Nothing they legitimately receive comes close: a webhook delivery or a management API
body is under ten levels deep.
"""

from __future__ import annotations

import re
from typing import Final

#: Deeper bodies are refused (the receiver flags them, the sandbox answers 400).
MAX_JSON_DEPTH: Final = 100

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
