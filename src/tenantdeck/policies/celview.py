"""What of the app a CEL check reads, so only that is converted to CEL values.

Why: handing an app to the ``cel`` package converts every value it holds to a CEL value, about 1.5 us per value
(bench/policies.py: 230 ms of a 590 ms evaluation of 20 rules over 5,000 apps went to ``cel.Context``, for four
checks that read a handful of fields). :func:`needs` reads a compiled check's source and says which fields it can
reach; :func:`prune` cuts an app down to them. The engine then converts only that, and evaluates each distinct
cut-down app once per check (:class:`tenantdeck.policies.evaluator.PolicyEngine`).

The reading is conservative, never clever: a token stream (strings and comments skipped, so ``'app.x'`` inside a
string is no reference), and every ``app`` (and every variable a comprehension macro binds over a part of it)
followed by a chain of ``.field`` selections (or indexes by a plain literal: ``['a.b']``, ``[0]``). A chain that
ends in anything but ``has(...)``, ``size(...)`` or a comprehension macro needs the whole value where it ends; a
source it cannot tokenise needs the whole app. A variable that shadows another only adds to what is kept. A test
holds it to "the check gives the same answer on the cut-down app" with hypothesis
(tests/policies/test_fast_paths.py).

Measured on bench/validate.py's full draft at 5,000 apps: two checks reading an app setting and a data-masking
setting by index took 360 ms while an index read the whole value (the settings, every extension's settings), 45 ms
now. A check that does read all the settings takes 24 ms converting each app's, 19 ms with the engine's memo of
views it has seen (the settings repeat across apps).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.policies.cellib import Context

#: the macros that bind a variable over the elements of their receiver (``list.all(x, ...)``)
MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap"})

_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<raw>(?:[bB]?[rR]|[rR][bB])(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'[^'\n]*'|"[^"\n]*"))
  | (?P<string>[bB]?(?:'''(?:\\[\s\S]|[^\\])*?'''|\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"
                     |'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*"))
  | (?P<number>(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uU]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[.,()\[\]{}?:])
  | (?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!])
""", re.VERBOSE)


@dataclass(slots=True)
class Need:
    """What is read of one value: all of it, some of its keys, its elements (through a macro), or its size."""

    whole: bool = False
    keys: dict[str, Need] = field(default_factory=dict)
    items: Need | None = None
    size: bool = False
    #: the keys read, when each is read whole and nothing else is (set by :meth:`settle`: prune's fast case)
    flat: tuple[str, ...] | None = None

    def settle(self) -> Need:
        """Simplify once read: every element read whole is the whole value read (a map's macro reads all its keys,
        a list's all its elements); note the flat case."""
        for sub in self.keys.values():
            sub.settle()
        if self.items is not None:
            self.items.settle()
            if self.items.whole:
                self.whole = True
        if not self.whole and self.items is None and not self.size and all(s.whole for s in self.keys.values()):
            self.flat = tuple(self.keys)
        return self


#: the whole app
WHOLE = Need(whole=True)


def needs(source: str, variable: str = "app") -> Need:
    """What ``source`` (a CEL expression that compiled) can read of ``variable``."""
    tokens = _tokens(source)
    if tokens is None:
        return WHOLE
    root = Need()
    _Reader(tokens).scan(0, len(tokens), {variable: root})
    root.settle()
    return WHOLE if root.whole else root


def first_field(source: str, variable: str = "app") -> tuple[str | int, ...]:
    """The first field ``source`` reads of ``variable``, followed down its first chain (``app.team.admins.size()
    >= 2`` -> ``("team", "admins")``; an element read through a macro or an index is item 0:
    ``app.widgets.all(w, w.main.send_gifs)`` -> ``("widgets", 0, "main", "send_gifs")``): where the editor takes
    the user for a cel check's violation. Empty when the expression reads the app whole or cannot be read."""
    node = needs(source, variable)
    path: list[str | int] = []
    while not node.whole:
        if node.keys:
            name, node = next(iter(node.keys.items()))
            path.append(name)
        elif node.items is not None:
            node = node.items
            path.append(0)
        else:
            break
    return tuple(path)


def named_item(source: str, among: frozenset[str] | tuple[str, ...]) -> str | None:
    """The first plain string literal of ``source`` that is one of ``among``: which extension a check such as
    ``'profanity-filter' in app.extensions.enabled`` is about, so its jump lands on that extension's row rather
    than the list's first."""
    for kind, text in _tokens(source) or []:
        if kind == "string" and text[:1] in "'\"" and text[1:-1] in among:
            return text[1:-1]
    return None


def prune(value: Any, need: Need) -> Any:
    """``value`` with only what ``need`` reads (a mapping keeps only the keys read, in its own order; a list keeps
    every element, each cut down to what the macros read of it). An element or key read by nothing but ``has()``
    or ``size()`` stays present, emptied."""
    if need.whole:
        return value
    if type(value) is dict or isinstance(value, Mapping):
        if need.flat is not None:
            return {key: value[key] for key in need.flat if key in value}
        if need.items is not None or need.size:  # a macro over a map binds its keys; size counts them
            return value
        return {key: prune(value[key], sub) for key, sub in need.keys.items() if key in value}
    if isinstance(value, list):
        if need.keys:  # a field of a list: CEL's error, the same with the list as it is
            return value
        if need.items is None and not need.size:
            return []
        inner = need.items if need.items is not None else _NOTHING
        if inner.flat is not None:  # the common case, without a call per element
            flat = inner.flat
            return [{key: item[key] for key in flat if key in item} if type(item) is dict else prune(item, inner)
                    for item in value]
        return [prune(item, inner) for item in value]
    return value


_NOTHING = Need(flat=())


def run(program: Any, view: Mapping[str, Any]) -> Any:
    """A compiled check on one view of an app: True or False, else (True, what it gave instead of a bool), or
    (False, what it raised)."""
    try:
        verdict = program.execute(Context(variables={"app": view}))
    except Exception as exc:  # a rule that raises on one app never stops the others (nor the editor)
        return False, exc
    return verdict if isinstance(verdict, bool) else (True, verdict)


def _tokens(source: str) -> list[tuple[str, str]] | None:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None or m.end() == pos:
            return None  # a character this reader does not know (a quoted `field`): read it all
        kind = m.lastgroup or ""
        if kind != "space":
            out.append((kind, m.group()))
        pos = m.end()
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens

    def _is(self, i: int, kind: str, text: str | None = None) -> bool:
        if not 0 <= i < len(self.tokens):
            return False
        k, t = self.tokens[i]
        return k == kind and (text is None or t == text)

    def scan(self, lo: int, hi: int, bound: dict[str, Need]) -> None:
        i = lo
        while i < hi:
            kind, text = self.tokens[i]
            if kind == "ident" and text in bound and not self._is(i - 1, "punct", "."):
                i = self.chain(i, bound[text], bound)
            else:
                i += 1

    def chain(self, i: int, node: Need, bound: dict[str, Need]) -> int:
        """Read the selections after the variable at ``i``; the index after what was read."""
        wrapped = (self._is(i - 1, "punct", "(") and not self._is(i - 3, "punct", ".")
                   and (self._is(i - 2, "ident", "has") or self._is(i - 2, "ident", "size")))
        j = i + 1
        while True:
            if self._is(j, "punct", ".") and self._is(j + 1, "ident"):
                name = self.tokens[j + 1][1]
                if self._is(j + 2, "punct", "("):
                    return self.call(j + 1, name, node, bound)
                node = node.keys.setdefault(name, Need())
                j += 2
            elif (self._is(j, "punct", "[") and self._is(j + 2, "punct", "]")
                  and (key := self._index(j + 1)) is not None):
                if isinstance(key, str):  # m['k'] reads what m.k reads
                    node = node.keys.setdefault(key, Need())
                else:  # l[0]: one element (every element is kept, cut down alike)
                    if node.items is None:
                        node.items = Need()
                    node = node.items
                j += 3
            else:
                break
        if wrapped and self._is(j, "punct", ")"):
            if self.tokens[i - 2][1] == "size":
                node.size = True
            return j + 1  # has(): present or not, nothing of the value is read
        node.whole = True
        return j

    def _index(self, at: int) -> str | int | None:
        """The key of an index that is a plain literal (``'a.b'``, ``0``), or None (anything else reads the whole
        value)."""
        kind, text = self.tokens[at]
        if kind == "string" and len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" \
                and "\\" not in text and text[0] not in text[1:-1]:
            return text[1:-1]
        if kind == "number" and text.isdigit():
            return int(text)
        return None

    def call(self, at: int, name: str, node: Need, bound: dict[str, Need]) -> int:
        """A method called on ``node``'s value at token ``at`` (its name)."""
        opened = at + 1
        end = self._closing(opened)
        if name in MACROS and self._is(opened + 1, "ident") and self._is(opened + 2, "punct", ","):
            if node.items is None:
                node.items = Need()
            inner = dict(bound)
            inner[self.tokens[opened + 1][1]] = node.items
            # a two-variable form (index or key, then value) binds the second name too, unless it is a
            # variable already (then it is read as one: the three-argument ``map(x, filter, transform)``)
            start = opened + 3
            if self._is(start, "ident") and self._is(start + 1, "punct", ",") and self.tokens[start][1] not in bound:
                inner[self.tokens[start][1]] = node.items
                start += 2
            self.scan(start, end, inner)
            return end + 1
        if name == "size" and self._is(opened + 1, "punct", ")"):
            node.size = True
            return opened + 2
        node.whole = True  # any other method reads the whole value (its arguments are read by the scan)
        return opened

    def _closing(self, opened: int) -> int:
        depth = 0
        for k in range(opened, len(self.tokens)):
            kind, text = self.tokens[k]
            if kind == "punct" and text in "([{":
                depth += 1
            elif kind == "punct" and text in ")]}":
                depth -= 1
                if depth == 0:
                    return k
        return len(self.tokens)


__all__ = ["WHOLE", "Need", "first_field", "needs", "prune", "run"]
