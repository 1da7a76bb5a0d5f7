"""A shorthand rule's field path compiled to one Python function over the app as the draft holds it.

Why compiled: a shorthand is one path walk per app, and at 5,000 apps and 16 shorthands the generic walk
(:func:`tenantdeck.policies.evaluator.values_at` over the normalised app) cost 250 ms of a 590 ms evaluation, and
merging every widget with its preset and the catalog's defaults (so that the walk could read the merged widget)
another 146 ms (bench/policies.py, profiled). The function generated here walks the path with plain local
variables, builds a concrete path only for a value it returns, and reads a widget's ``<section>.<key>`` through
the three layers (widget, preset, defaults) without merging the rest of the widget.

It returns exactly what :func:`~tenantdeck.policies.evaluator.values_at` over
:func:`~tenantdeck.policies.evaluator.normalise` would give, first breaking value first (a test holds both to it with
hypothesis: tests/policies/test_finder.py).

**Data is not code**: the generated source is made of this module's templates and numbered names only; every
key and index of the user's path is bound as a constant in the function's namespace, never spliced into the text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.models.effective import SECTIONS, effective_sections, effective_value, preset_of
from tenantdeck.policies.model import WILDCARD
from tenantdeck.problems import PathPart

#: ``find(app, presets, ok)``: the first (concrete path, value) at the path for which ``ok(value)`` is false
#: (``ABSENT`` where the path stops short), or None
Finder = Callable[[Mapping[str, Any], Any, Callable[[Any], bool]], "tuple[tuple[PathPart, ...], Any] | None"]


def widget_leaf(widget: Any, presets: Any, section: str, key: str) -> Any:
    """``widget.<section>.<key>`` by :func:`tenantdeck.models.effective.effective_value` (the widget's value, else
    its preset's, else the catalog's default; None when none has one), the value the editor shows."""
    return effective_value(widget, preset_of(widget, presets), section, key).value


class _Source:
    """The lines of one generated function and the constants they name."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self._n = 0

    def const(self, value: Any) -> str:
        name = f"K{len(self.names)}"
        self.names[name] = value
        return name

    def var(self, stem: str) -> str:
        self._n += 1
        return f"{stem}{self._n}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def compile_finder(parts: Sequence[PathPart]) -> Finder:
    """The :data:`Finder` for one parsed field path (``("widgets", "*", "main", "send_gifs")``)."""
    src = _Source()
    src.emit(0, "def find(app, presets, ok):")
    parts = tuple(parts)
    head = parts[0]
    if isinstance(head, str) and head != WILDCARD:
        top = src.var("o")
        key = src.const(head)
        if head in ("widgets", "webhooks"):  # the normalised app always holds these lists (empty when not lists)
            src.emit(1, f"{top} = app.get({key})")
            src.emit(1, f"if not isinstance({top}, list): {top} = []")
            if head == "widgets":
                _widgets(src, parts, top, [key], 1)
            else:
                _walk(src, parts, 1, top, [key], 1)
        elif head == "labels":
            src.emit(1, f"{top} = app.get({key})")
            src.emit(1, f"if not (type({top}) is dict or isinstance({top}, Mapping)): {top} = {{}}")
            _walk(src, parts, 1, top, [key], 1)
        else:
            _walk(src, parts, 0, "app", [], 1)
    else:
        _walk(src, parts, 0, "app", [], 1)
    src.emit(1, "return None")
    namespace: dict[str, Any] = {"ABSENT": ABSENT, "Mapping": Mapping, "widget_leaf": widget_leaf,
                                 "merged_widget": merged_widget, **src.names}
    exec(compile("\n".join(src.lines), f"<policy path {'/'.join(map(str, parts))}>", "exec"), namespace)
    return namespace["find"]  # type: ignore[no-any-return]


def merged_widget(widget: Any, presets: Any) -> dict[str, Any]:
    """One widget as the rules see it: its name (or its preset's), and its sections merged by
    :func:`tenantdeck.models.effective.effective_sections` (without the per-key sources and notes
    ``effective_widget`` records for the editor, which cost four fifths of it: bench/policies.py)."""
    if not isinstance(widget, Mapping):
        widget = {}
    name = widget.get("name")
    preset = preset_of(widget, presets)
    if name is None and preset is not None and isinstance(preset.get("name"), str):
        name = preset["name"]
    entry: dict[str, Any] = {"name": name, "version": "v2", **effective_sections(widget, preset)}
    if widget.get("id") is not None:
        entry["id"] = widget["id"]
    return entry


def _widgets(src: _Source, parts: tuple[PathPart, ...], widgets: str, path: list[str], depth: int) -> None:
    """``widgets`` then the rest: a ``[*]``/``[i]`` widget's ``<section>.<key>`` is read through its layers; any
    other shape walks the merged widget."""
    if len(parts) == 1:
        merged = src.var("m")
        src.emit(depth, f"{merged} = [merged_widget(w, presets) for w in {widgets}]")
        _walk(src, parts, 1, merged, path, depth)
        return
    step = parts[1]
    index = src.var("j")
    widget = src.var("w")
    if step == WILDCARD:
        src.emit(depth, f"for {index}, {widget} in enumerate({widgets}):")
        inner = depth + 1
        index_name = index
    elif isinstance(step, int):
        index_name = src.const(step)
        src.emit(depth, f"if 0 <= {index_name} < len({widgets}):")
        src.emit(depth + 1, f"{widget} = {widgets}[{index_name}]")
        inner = depth + 1
    else:  # a key of a list: nothing there
        if WILDCARD not in parts[2:]:
            _absent(src, depth, [*path, *(src.const(p) for p in parts[1:])])
        return
    rest = parts[2:]
    leaf_shape = len(rest) >= 2 and rest[0] in SECTIONS and isinstance(rest[1], str) and rest[1] != WILDCARD
    if leaf_shape:
        value = src.var("v")
        section, key = src.const(rest[0]), src.const(rest[1])
        values = src.var("s")
        # the widget's own value without a call (what a draft that writes its widgets out holds), else the layers
        src.emit(inner, f"{values} = {widget}.get({section}) if type({widget}) is dict else None")
        src.emit(inner, f"{value} = {values}.get({key}) if type({values}) is dict else None")
        src.emit(inner, f"if {value} is None: {value} = widget_leaf({widget}, presets, {section}, {key})")
        src.emit(inner, f"if {value} is not None:")
        _walk(src, parts, 4, value, [*path, index_name, section, key], inner + 1)
        if WILDCARD not in parts[4:]:
            src.emit(inner, "else:")
            _absent(src, inner + 1, [*path, index_name, section, key, *(src.const(p) for p in parts[4:])])
    else:
        merged = src.var("m")
        src.emit(inner, f"{merged} = merged_widget({widget}, presets)")
        _walk(src, parts, 2, merged, [*path, index_name], inner)
    if isinstance(step, int) and WILDCARD not in parts[2:]:
        src.emit(depth, "else:")
        _absent(src, depth + 1, [*path, index_name])


def _walk(src: _Source, parts: tuple[PathPart, ...], i: int, obj: str, path: list[str], depth: int) -> None:
    """Code for ``parts[i:]`` from the object named ``obj``, with the path so far made of the names in ``path``
    (mirrors :func:`tenantdeck.policies.evaluator._values` step for step)."""
    if i == len(parts):
        src.emit(depth, f"if not ok({obj}): return ({_tuple(path)}, {obj})")
        return
    head = parts[i]
    later_wildcard = WILDCARD in parts[i + 1:]
    if head == WILDCARD:
        index, item = src.var("j"), src.var("o")
        src.emit(depth, f"if isinstance({obj}, list):")
        src.emit(depth + 1, f"for {index}, {item} in enumerate({obj}):")
        _walk(src, parts, i + 1, item, [*path, index], depth + 2)
        return
    name = src.const(head)
    nxt = src.var("o")
    if isinstance(head, int):
        src.emit(depth, f"if isinstance({obj}, list) and 0 <= {name} < len({obj}):")
        src.emit(depth + 1, f"{nxt} = {obj}[{name}]")
        _walk(src, parts, i + 1, nxt, [*path, name], depth + 1)
        if not later_wildcard:
            src.emit(depth, "else:")
            _absent(src, depth + 1, [*path, name])
        return
    src.emit(depth, f"{nxt} = {obj}.get({name}) if type({obj}) is dict or isinstance({obj}, Mapping) else None")
    src.emit(depth, f"if {nxt} is not None:")
    _walk(src, parts, i + 1, nxt, [*path, name], depth + 1)
    if not later_wildcard:
        src.emit(depth, "else:")
        _absent(src, depth + 1, [*path, name, *(src.const(p) for p in parts[i + 1:])])


def _absent(src: _Source, depth: int, path: list[str]) -> None:
    src.emit(depth, f"if not ok(ABSENT): return ({_tuple(path)}, ABSENT)")


def _tuple(names: list[str]) -> str:
    return "(" + "".join(f"{n}, " for n in names) + ")"


__all__ = ["Finder", "compile_finder", "merged_widget", "widget_leaf"]
