"""A bound on what a CEL check costs, known before it runs: when the file is read, and for each app.

Why a bound computed beforehand rather than a deadline: the ``cel`` binding evaluates in Rust holding the GIL
(measured: a Python thread ticking every 50 ms ticked once during a 2.8 s evaluation), so an evaluation can be
neither interrupted by a signal nor abandoned in a thread; the library has no step limit and no cost estimate (a
``Program`` offers ``execute``, ``variables``, ``functions``, ``references``). A worker process with a deadline
would pay a process start (about 100 ms to import the binding) and a pickled round trip per batch against 15 us
per evaluation, and the editor evaluates on each key. So the cost is bounded here, the way Kubernetes bounds its
admission policies' CEL: an estimate in steps, an upper bound, from the expression and the sizes of the values it
iterates over.

The estimate reads the expression (:func:`parse`, on :mod:`tenantdeck.policies.celview`'s tokens) and walks it with
abstract values: every comprehension (``all``, ``exists``, ``map``, ``filter``...) costs its receiver's size times
its body, and ``map`` and ``filter`` the square of that size besides (measured: the library copies the list it
builds on each item, so mapping 4,000 items took 1.4 s and 16,000 took 27 s, against 25 ms for ``all``); an
operation on texts or lists (``+``, ``in``, ``==``, ``contains``, ``matches``) costs the sizes of its operands; a
list literal its items. A value is either the app's own data (its real size, for each app) or a :class:`Shape` (a
size and what its items can be) for what the expression builds. This is an upper bound because the library has no
function whose result outgrows its inputs (no ``repeat``, ``replace``, ``join`` or ``range``;
``tests/policies/test_hostile_rules.py`` fails if one appears) and every comprehension is counted at its receiver's
largest size.

* When the file is read, every list of the app counts as one item: a check over budget even then (eight nested
  ``[0,...,9].all(...)``: 10^8 steps) is an error of the policies file at its ``cel`` line.
* Before each evaluation, the app's real sizes: over budget, the rule is not run on that app and the app gets a
  located error naming the rule; the other apps and rules run.
* Across one evaluation of a fleet, the cel checks together have a time budget (:data:`PASS_SECONDS`): past it,
  each evaluation left is refused with a located error naming the rule and the app.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.policies.celview import MACROS, _tokens

#: steps one evaluation (one rule on one app) may take: Kubernetes' per-call limit. Measured: six nested
#: comprehensions over ten items (estimated 3.4 million steps) ran in 0.3 s on a quiet machine (1.0 s with the
#: load average at 10 on two cores), mapping 1,000 items (1.0 million) in 0.1 s: a million is 0.1 to 0.3 s
EVAL_BUDGET = 1_000_000
#: seconds the cel checks together may take in one evaluation of a fleet: past it, the evaluations left are
#: refused, each a located error. Time, not steps: a sum of per-app upper bounds over thousands of apps is far
#: above what they cost (bench/policies.py's four cel checks over 5,000 apps: 20 million steps estimated, about
#: 0.1 s run), and each evaluation is bounded in steps already, so the pass stops within one evaluation of this
PASS_SECONDS = 5.0
#: what one ``matches()`` call costs besides its text (the library compiles the pattern on each call)
MATCHES_STEPS = 64


class Unbounded(ValueError):
    """The expression's cost cannot be told (a comprehension over something whose size is unknown)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """A value the expression builds: its size, what its items (or a map's keys) can be, what a map's values can
    be; None where unknown."""

    size: int
    items: tuple[Any, ...] | None
    values: tuple[Any, ...] | None = None


class Symbol:
    """An app whose every field is there and every list, map and text is ``size`` long: :data:`APP` when the file
    is read (one item each), and the cheap bound of :func:`within` (no value of a view is longer than its repr)."""

    __slots__ = ("size",)

    def __init__(self, size: int = 1) -> None:
        self.size = size

    def __repr__(self) -> str:
        return f"APP({self.size})"


APP = Symbol()
SCALAR = 0  # a result whose size does not matter (a bool, a number)

# -- parsing -----------------------------------------------------------------------------------------------------

_BINARY = (("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">=", "in"), ("+", "-"), ("*", "/", "%"))
#: the operators whose chains are kept as one node of many operands (associative, costed operand by operand)
_CHAINED = frozenset({"||", "&&", "+"})


class _Parser:
    """CEL's grammar, as far as the cost needs it; nodes are tuples (``("macro", name, target, vars, bodies)``)."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self, text: str | None = None, kind: str | None = None) -> bool:
        if self.i >= len(self.t):
            return False
        k, v = self.t[self.i]
        return (text is None or v == text) and (kind is None or k == kind)

    def take(self, text: str) -> None:
        if not self.peek(text):
            raise Unbounded(f"cannot read the expression at token {self.i + 1}")
        self.i += 1

    def expr(self) -> tuple[Any, ...]:
        node = self.binary(0)
        if self.peek("?"):
            self.i += 1
            yes = self.expr()
            self.take(":")
            return ("op", "?", [node, yes, self.expr()])
        return node

    def binary(self, level: int) -> tuple[Any, ...]:
        if level == len(_BINARY):
            return self.unary()
        node = self.binary(level + 1)
        while self.i < len(self.t) and self.t[self.i][1] in _BINARY[level] and self.t[self.i][0] in ("op", "ident"):
            op = self.t[self.i][1]
            self.i += 1
            right = self.binary(level + 1)
            if op in _CHAINED and node[0] == "op" and node[1] == op:
                node[2].append(right)  # `a + b + c` as one node of three: a long chain is no deep tree
            else:
                node = ("op", op, [node, right])
        return node

    def unary(self) -> tuple[Any, ...]:
        signs = 0
        while self.peek("!") or self.peek("-"):  # `!!!!x`: one node, however many
            self.i += 1
            signs += 1
        node = self.member(self.primary())
        return ("op", "!", [node]) if signs else node

    def args(self, close: str) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        while not self.peek(close):
            out.append(self.expr())
            if not self.peek(close):
                self.take(",")
        self.take(close)
        return out

    def call(self, name: str, target: tuple[Any, ...] | None) -> tuple[Any, ...]:
        self.take("(")
        args = self.args(")")
        if target is not None and name in MACROS and len(args) >= 2 and all(a[0] == "ident" for a in args[:-1]):
            names = [a[1] for a in args[:-1]]
            if name == "map" and len(args) == 3:  # map(x, filter, transform)
                return ("macro", name, target, names[:1], args[1:])
            return ("macro", name, target, names, args[-1:])
        return ("call", name, target, args)

    def member(self, node: tuple[Any, ...]) -> tuple[Any, ...]:
        while True:
            if self.peek("."):
                self.i += 1
                if not self.peek(kind="ident"):
                    raise Unbounded(f"cannot read the expression at token {self.i + 1}")
                name = self.t[self.i][1]
                self.i += 1
                node = self.call(name, node) if self.peek("(") else ("select", node, name)
            elif self.peek("["):
                self.i += 1
                key = self.expr()
                self.take("]")
                node = ("index", node, key)
            else:
                return node

    def primary(self) -> tuple[Any, ...]:
        if self.i >= len(self.t):
            raise Unbounded("the expression ends early")
        kind, text = self.t[self.i]
        self.i += 1
        if kind in ("string", "raw", "number"):
            return ("lit", _literal(text))
        if kind == "ident":
            if text in ("true", "false", "null"):
                return ("lit", SCALAR)
            return self.call(text, None) if self.peek("(") else ("ident", text)
        if text == "(":
            node = self.expr()
            self.take(")")
            return node
        if text == "[":
            return ("list", self.args("]"))
        if text == "{":
            entries: list[tuple[Any, ...]] = []
            while not self.peek("}"):
                key = self.expr()
                self.take(":")
                entries.append((key, self.expr()))
                if not self.peek("}"):
                    self.take(",")
            self.take("}")
            return ("map", entries)
        raise Unbounded(f"cannot read the expression at {text!r}")


def _literal(text: str) -> Any:
    """A literal token's value (a text as the library reads it, escapes and all; a number is a scalar)."""
    if text[0].isdigit() or text[0] == ".":
        return SCALAR
    from tenantdeck.policies.cellib import cel

    return cel.evaluate(text)


def parse(source: str) -> tuple[Any, ...]:
    """The expression's tree; raises :class:`Unbounded` where this reader cannot follow it (nested deeper than
    Python's recursion allows included: what the estimate and the field check then walk is no deeper)."""
    tokens = _tokens(source)
    if tokens is None:
        raise Unbounded("cannot read the expression (a character this reader does not know)")
    parser = _Parser(tokens)
    try:
        node = parser.expr()
        _depth(node)
    except RecursionError:
        raise Unbounded("the expression is nested too deeply to read") from None
    if parser.i != len(tokens):
        raise Unbounded(f"cannot read the expression at token {parser.i + 1}")
    return node


#: how deep a tree may nest: the estimate and the field check walk it recursively, a few frames a level
MAX_DEPTH = 150


def _depth(node: tuple[Any, ...], level: int = 0) -> None:
    if level > MAX_DEPTH:
        raise RecursionError
    for child in children(node):
        _depth(child, level + 1)


# -- the estimate ------------------------------------------------------------------------------------------------


#: bytes of a text one step stands for (comparing or copying text runs at memory speed; visiting a node does not)
TEXT_STEP = 64


def size(value: Any) -> int:
    """``value``'s weight in steps: a list's or map's items, a text's length in :data:`TEXT_STEP` s."""
    if isinstance(value, (Shape, Symbol)):
        return value.size
    if isinstance(value, (str, bytes)):
        return 1 + len(value) // TEXT_STEP
    if isinstance(value, (list, tuple, Mapping)):
        return len(value)
    return 1


def _items(value: Any) -> list[Any] | None:
    """What a comprehension over ``value`` binds its variable to."""
    if isinstance(value, Symbol):
        return [value]
    if isinstance(value, Shape):
        return None if value.items is None else list(value.items)
    if isinstance(value, list):
        return value
    if isinstance(value, Mapping):
        return list(value)
    return []


def _most(values: list[Any] | None, what: str) -> int:
    if values is None:
        raise Unbounded(f"cannot tell how large {what} is")
    return max((size(v) for v in values), default=0)


def _union(*groups: list[Any] | None) -> list[Any] | None:
    out: list[Any] = []
    for group in groups:
        if group is None:
            return None
        out += group
    return out


def _member(values: list[Any] | None, key: Any) -> list[Any] | None:
    """``value.key`` / ``value[key]`` for each value (``key`` None: a computed key, every member)."""
    if values is None:
        return None
    out: list[Any] = []
    for v in values:
        if isinstance(v, Symbol):
            out.append(v)
        elif isinstance(v, Shape):
            members = v.values if v.values is not None else v.items
            if members is None:
                return None
            out += members
        elif isinstance(v, Mapping):
            if key is None:
                out += list(v.values())
            elif key in v:
                out.append(v[key])
        elif isinstance(v, list):
            if key is None:
                out += v
            elif isinstance(key, int) and 0 <= key < len(v):
                out.append(v[key])
    return out


class Estimate:
    """The steps of one expression on one binding of its variables (``env``: name -> the values it can hold)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def cost(self, node: tuple[Any, ...], env: dict[str, list[Any] | None]) -> tuple[int, list[Any] | None]:
        kind = node[0]
        if kind == "lit":
            return 1, [node[1]]
        if kind == "ident":  # a name the expression does not bind is a namespace or a type (`optional`, `int`)
            return 1, env.get(node[1], [SCALAR])
        if kind in ("list", "map"):
            parts = node[1] if kind == "list" else [p for entry in node[1] for p in entry]
            results = [self.cost(p, env) for p in parts]
            steps = 1 + sum(c for c, _ in results)
            if kind == "list":
                return steps, [Shape(len(parts), _tuple(_union(*(v for _, v in results))))]
            keys, values = results[0::2], results[1::2]
            return steps, [Shape(len(node[1]), _tuple(_union(*(v for _, v in keys))),
                                 _tuple(_union(*(v for _, v in values))))]
        if kind == "select":
            steps, values = self.cost(node[1], env)
            return steps + 1, _member(values, node[2])
        if kind == "index":
            steps, values = self.cost(node[1], env)
            key_steps, keys = self.cost(node[2], env)
            key = node[2][1] if node[2][0] == "lit" and node[2][1] is not SCALAR else None
            return steps + key_steps + 1, _member(values, key)
        if kind == "macro":
            return self._macro(node, env)
        return self._operation(node, env)

    def _macro(self, node: tuple[Any, ...], env: dict[str, list[Any] | None]) -> tuple[int, list[Any] | None]:
        _, name, target, names, bodies = node
        steps, receivers = self.cost(target, env)
        count = _most(receivers, f"the list `{name}` goes over")
        items = None if receivers is None else _union(*(_items(v) for v in receivers))
        inner = dict(env)
        for variable in names[:-1]:
            inner[variable] = [SCALAR]  # an index or a key
        inner[names[-1]] = items
        results = [self.cost(body, inner) for body in bodies]
        total = steps + 1 + count * (1 + sum(c for c, _ in results))
        if name in ("map", "filter"):  # the library copies the list built so far on each item: quadratic
            total += count * count
        if total > self.limit:
            raise OverBudget(total)
        if name == "map":
            return total, [Shape(count, _tuple(results[-1][1]))]
        if name == "filter":
            return total, [Shape(count, _tuple(items))]
        return total, [SCALAR]

    def _operation(self, node: tuple[Any, ...], env: dict[str, list[Any] | None]) -> tuple[int, list[Any] | None]:
        if node[0] == "op":
            op, operands = node[1], node[2]
        else:
            op, operands = node[1], ([node[2]] if node[2] is not None else []) + node[3]
        if op == "has":
            return 1, [SCALAR]
        results = [self.cost(o, env) for o in operands]
        steps = 1 + sum(c for c, _ in results)
        if op == "?":
            return steps, _union(results[1][1], results[2][1])
        if op == "+":
            total = sum(_most(v, "one side of `+`") for _, v in results)
            items = _union(*(_union(*(_items(x) or [] for x in v or [])) for _, v in results))
            return steps + total, [Shape(total, _tuple(items))]
        if op == "in":
            return steps + _most(results[1][1], "the right side of `in`"), [SCALAR]
        work = sum(max((size(v) for v in values or []), default=0) for _, values in results)
        if op in ("size", "!", "&&", "||", "<", "<=", ">", ">=", "*", "/", "%", "-"):
            return steps, [SCALAR]
        if op in ("==", "!=", "contains", "startsWith", "endsWith"):
            return steps + work, [SCALAR]
        if op == "matches":  # the library compiles the pattern on each call
            return steps + work + MATCHES_STEPS, [SCALAR]
        # conversions and optionals (string(), dyn(), optional.of(x).value()...): no bigger than their inputs
        return steps + work, _union(*(v for _, v in results))


class OverBudget(Exception):
    """The estimate passed the limit (raised as soon as it does: a count of 10^100 is never finished)."""

    def __init__(self, steps: int) -> None:
        super().__init__(steps)
        self.steps = steps


def _tuple(values: list[Any] | None) -> tuple[Any, ...] | None:
    return None if values is None else tuple(values)


def steps(tree: tuple[Any, ...], app: Any, limit: int = EVAL_BUDGET) -> int:
    """The estimated steps of ``tree`` on ``app`` (a view of it, or :data:`APP` when the file is read): at most
    ``limit``; raises :class:`OverBudget` past it, :class:`Unbounded` when a size cannot be told."""
    total, _ = Estimate(limit).cost(tree, {"app": [app]})
    if total > limit:
        raise OverBudget(total)
    return total


def within(tree: tuple[Any, ...], longest: int, limit: int, cache: dict[int, int | None]) -> int | None:
    """A quick upper bound of :func:`steps` on any view whose repr is ``longest`` characters long (no list, map or
    text in it is longer), or None when that bound is over ``limit`` (then :func:`steps` on the view itself
    decides). Rounded up to a power of two and kept in ``cache``, so an app costs a ``repr`` (which the engine's
    memo makes anyway) and a dict lookup rather than a walk of the expression: the walk cost what evaluating the
    check did (36 against 37 us), paid at each of thousands of apps."""
    bucket = 1 << max(0, (longest - 1).bit_length())
    if bucket not in cache:
        try:
            cache[bucket] = steps(tree, Symbol(bucket), limit)
        except (OverBudget, Unbounded):
            cache[bucket] = None
    return cache[bucket]


def data_dependent(tree: tuple[Any, ...]) -> bool:
    """Whether the estimate must be made again for each app: only a comprehension multiplies by the app's sizes.
    Without one, every operation is visited once and costs at most the size of the app's values it reads (linear:
    no more than converting them to CEL values costs), so the estimate made when the file was read stands."""
    return tree[0] == "macro" or any(data_dependent(child) for child in children(tree))


def children(tree: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    kind = tree[0]
    if kind in ("lit", "ident"):
        return []
    if kind == "list":
        return list(tree[1])
    if kind == "map":
        return [p for entry in tree[1] for p in entry]
    if kind == "select":
        return [tree[1]]
    if kind == "index":
        return [tree[1], tree[2]]
    if kind == "macro":
        return [tree[2], *tree[4]]
    if kind == "op":
        return list(tree[2])
    return ([tree[2]] if tree[2] is not None else []) + list(tree[3])


def literal_patterns(tree: tuple[Any, ...]) -> list[str]:
    """The patterns given as text literals to ``matches()``: checked with the engine that runs them when the file
    is read (:func:`tenantdeck.policies.patterns.cel_pattern_problem`)."""
    found = []
    if tree[0] == "call" and tree[1] == "matches":
        args = tree[3] if tree[2] is not None else tree[3][1:]
        found += [a[1] for a in args if a[0] == "lit" and isinstance(a[1], str)]
    for child in children(tree):
        found += literal_patterns(child)
    return found


__all__ = ["APP", "EVAL_BUDGET", "PASS_SECONDS", "OverBudget", "Shape", "Symbol", "Unbounded", "children",
           "data_dependent", "literal_patterns", "parse", "steps", "within"]
