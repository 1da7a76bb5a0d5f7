"""Keep the account key and secret out of every string the client produces.

The service could echo a header back in an error body, and httpx exceptions can mention request details, so every
text that reaches an exception, a log line or the terminal passes through a :class:`Redactor` first. The redactor
itself never shows the values it hides, not even in its ``repr``.
"""

from __future__ import annotations

from collections.abc import Iterable

MASK = "***"
MIN_LENGTH = 4


class Redactor:
    """Replaces each known secret value in a text with ``***``."""

    __slots__ = ("_values",)

    def __init__(self, values: Iterable[str]) -> None:
        # Longest first, so that a secret containing the key is masked whole rather than in pieces. Values shorter
        # than MIN_LENGTH are not real credentials and would mangle ordinary words ("s" in "attempts").
        self._values = tuple(sorted({v for v in values if v and len(v) >= MIN_LENGTH}, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def __repr__(self) -> str:
        return f"Redactor(<{len(self._values)} hidden values>)"
