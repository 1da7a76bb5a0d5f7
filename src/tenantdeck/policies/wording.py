"""How a policy violation says what it found: values as the draft writes them, and a ``same`` rule's differences.

A value in text is what a person would type into the draft: a YAML scalar (``true``, ``'#03a9f4'``, ``null``), a
list or mapping in flow style (``[a, b]``, ``{core.x: true}``), shortened past :data:`LIMIT` characters and safe
for a terminal (:func:`tenantdeck.textsafe.shown`). In JSON the same value is the JSON value itself
(:func:`json_value`), never a Python ``repr``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.textsafe import shown

#: how many characters of a value a line of text shows
LIMIT = 60


def value_text(value: Any, limit: int = LIMIT) -> str:
    """``value`` as the draft would write it, on one line: ``true``, ``'#03a9f4'``, ``[a, b]``, ``not written``."""
    if value is ABSENT:
        return "not written"
    if value is None or type(value) in (str, int, float, bool):
        return _scalar_text(type(value), value, limit)
    return _cut(shown(_flow(value)), limit)


@functools.lru_cache(maxsize=8192)
def _scalar_text(kind: type, value: Any, limit: int) -> str:
    """:func:`value_text` of a scalar; fleets repeat values (a violation's text cost 13 us: 64 ms at 5,000
    violations, a fifth of evaluating 20 rules, before this cache)."""
    return _cut(shown(_flow(value)), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _flow(value: Any) -> str:
    from tenantdeck.draft.emit import scalar

    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{scalar(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return scalar(value)


def json_value(value: Any) -> Any:
    """``value`` for a JSON document: itself when JSON can hold it (``null`` when not written), else its text."""
    if value is ABSENT:
        return None
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return json.loads(json.dumps(value, default=str))
    return value


@dataclass(frozen=True, slots=True)
class Difference:
    """How one app's value for a ``same`` rule differs from the others': at ``key`` of a mapping (None: the whole
    value), ``here`` against ``other`` (the majority's, or on a tie the other tied value), which ``count`` of the
    ``total`` selected apps hold."""

    key: str | None
    here: Any
    other: Any
    count: int
    total: int

    def text(self) -> str:
        """``core.x: false here, true in 4 of 5 apps``."""
        where = f"{shown(self.key)}: " if self.key is not None else ""
        apps = "app" if self.total == 1 else "apps"
        return f"{where}{value_text(self.here)} here, {value_text(self.other)} in {self.count} of {self.total} {apps}"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "here": json_value(self.here), "majority": json_value(self.other),
                "count": self.count, "of": self.total}


#: how many differing keys a line of text names before "and N more"
SHOWN_KEYS = 3


def differences_text(differs: tuple[Difference, ...], tie: bool) -> str:
    """The differences of one app, for a line of text: the first :data:`SHOWN_KEYS` keys, then how many more."""
    said = "; ".join(d.text() for d in differs[:SHOWN_KEYS])
    more = len(differs) - SHOWN_KEYS
    if more > 0:
        said += f"; and {more} more key{'s' * (more != 1)}"
    return said + (" (a tie: no majority)" if tie else "")


__all__ = ["LIMIT", "Difference", "differences_text", "json_value", "value_text"]
