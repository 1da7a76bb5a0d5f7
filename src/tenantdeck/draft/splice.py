"""Edit a draft's text in place: change only the bytes of what changed, in the draft's own style.

A ruamel.yaml round trip of a 1,000-app draft costs about 30 s; an editor needs a save in milliseconds, and a
``git diff`` of one line for one toggle. So the text is edited where the value is written:

* :func:`scan` cuts the text into *regions*, one per app (a ``- `` item of ``apps:``) and one per preset (a key
  of ``presets:``), by their indentation, with regular expressions over the whole text (C speed). Nothing is
  trusted blindly: the session re-reads a region and compares it with its data before and after each edit.
* Inside a region, :class:`Region` composes libyaml nodes (a few kilobytes: well under a millisecond) and the
  edit functions replace, insert or remove the characters of one value, key or item. Values are written by
  :mod:`tenantdeck.draft.emit` with the region's own indentation, a replaced string keeps its quote style, and a
  value whose surroundings cannot take it in place (a flow ``{...}`` or ``[...]``, a first or last item) is
  rewritten together with its parent: the smallest enclosing entry, never the whole region.

What cannot be expressed raises :class:`CannotSplice`; the session then merges the whole draft with ruamel.yaml.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tenantdeck.draft import emit
from tenantdeck.draft.yamlsource import HAVE_LIBYAML
from tenantdeck.problems import PathPart

#: Data after the edit, by path relative to the region (the session's view of what the text must say).
Lookup = Callable[[Sequence[PathPart]], Any]


class CannotSplice(Exception):
    """The edit cannot be made in place; the caller falls back to a ruamel.yaml merge of the whole draft."""


@dataclass(frozen=True, slots=True)
class Indent:
    """The draft's indentation: nested mappings ``mapping`` further in, list dashes ``offset`` further in."""

    mapping: int = 2
    offset: int = 2


# --------------------------------------------------------------------------------------------------------------
# Regions
# --------------------------------------------------------------------------------------------------------------

#: A line at column 0 that starts a root entry (not a comment, not a blank line, not a `- ` item).
_ROOT_LINE = re.compile(r"^(?:[^\s#-]|-\S)", re.M)
_ROOT_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?:[ \t]|$)", re.M)
_ITEM_LINE = re.compile(r"^( *)-(?:[ \t]|$)", re.M)
_KEY_LINE = re.compile(r"^( *)[^\s#-]", re.M)


@dataclass(slots=True)
class Layout:
    """Where the app items and preset entries are written: ``[start, end, line]`` per region.

    ``start`` is the first character of the region's first line, ``end`` the character after the newline of its
    last content line (comment and blank lines after it belong to what follows), ``line`` the 1-based line of
    ``start``. ``apps``/``presets`` are None when that section is not laid out in block style (then structural
    edits there go through ruamel).
    """

    keys: dict[str, int]  # root key -> index of its first character
    apps: list[list[int]] | None
    presets: list[list[int]] | None  # in the order of the data's keys
    app_dash: int | None = None  # column of an app item's dash
    preset_col: int | None = None  # column of a preset's key
    flow_empty: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> span of its `[]`/`{}` value

    def copy(self) -> Layout:
        return Layout(
            dict(self.keys),
            [list(r) for r in self.apps] if self.apps is not None else None,
            [list(r) for r in self.presets] if self.presets is not None else None,
            self.app_dash,
            self.preset_col,
            dict(self.flow_empty),
        )

    def shift(self, at: int, chars: int, lines: int) -> None:
        """Move every region that starts at or after ``at`` (text was inserted or removed before it); a region the
        change happened inside is resized by the caller."""
        if not chars and not lines:
            return
        for key, pos in self.keys.items():
            if pos >= at:
                self.keys[key] = pos + chars
        for key, (a, b) in list(self.flow_empty.items()):
            if a >= at:
                self.flow_empty[key] = (a + chars, b + chars)
        for regions in (self.apps, self.presets):
            if regions is None:
                continue
            for r in regions:
                if r[0] >= at:
                    r[0] += chars
                    r[1] += chars
                    r[2] += lines


def scan(text: str, data: Any) -> Layout | None:
    """Regions of a block-style draft whose root is a mapping; None when the text is laid out otherwise."""
    if not isinstance(data, dict):
        return None
    roots = [m.start() for m in _ROOT_LINE.finditer(text)]
    keys: dict[str, int] = {}
    for pos in roots:
        m = _ROOT_KEY.match(text, pos)
        if m is not None:
            if m.group(1) in keys:
                return None  # a duplicate root key: the data says which one counts, the text is ambiguous
            keys[m.group(1)] = pos
    if any(k not in keys for k in data if isinstance(k, str)):
        return None  # a quoted or odd root key: not laid out as expected
    layout = Layout(keys, None, None)
    ends = {pos: nxt for pos, nxt in zip(roots, [*roots[1:], len(text)], strict=True)}
    if isinstance(data.get("apps"), list) and "apps" in keys:
        layout.apps, layout.app_dash = _items(text, keys["apps"], ends[keys["apps"]], len(data["apps"]), layout)
    if isinstance(data.get("presets"), dict) and "presets" in keys:
        start = keys["presets"]
        layout.presets, layout.preset_col = _entries(text, start, ends[start], len(data["presets"]), layout)
    _number_lines(text, layout)
    return layout


def _after_colon(text: str, key_pos: int) -> tuple[int, str]:
    """Index just after the root key's colon, and what is written after it on the line (comment removed)."""
    m = _ROOT_KEY.match(text, key_pos)
    assert m is not None
    colon = text.index(":", key_pos, m.end()) + 1
    eol = text.find("\n", colon)
    rest = text[colon : eol if eol >= 0 else len(text)]
    return colon, rest.split(" #")[0].strip() if not rest.lstrip().startswith("#") else ""


def _items(text: str, key: int, end: int, count: int, layout: Layout) -> tuple[list[list[int]] | None, int | None]:
    colon, rest = _after_colon(text, key)
    if rest:
        if rest == "[]" and count == 0:
            at = text.index("[]", colon)
            layout.flow_empty["apps"] = (at, at + 2)
            return [], None
        return None, None
    starts = [m for m in _ITEM_LINE.finditer(text, colon, end)]
    if not starts:
        return ([], None) if count == 0 else (None, None)
    dash = len(starts[0].group(1))
    starts = [m.start() for m in starts if len(m.group(1)) == dash]
    if len(starts) != count:
        return None, None
    return _regions(text, starts, end), dash


def _entries(text: str, key: int, end: int, count: int, layout: Layout) -> tuple[list[list[int]] | None, int | None]:
    colon, rest = _after_colon(text, key)
    if rest:
        if rest == "{}" and count == 0:
            at = text.index("{}", colon)
            layout.flow_empty["presets"] = (at, at + 2)
            return [], None
        return None, None
    first = _KEY_LINE.search(text, colon, end)
    if first is None:
        return ([], None) if count == 0 else (None, None)
    col = len(first.group(1))
    starts = [m.start() for m in _KEY_LINE.finditer(text, colon, end) if len(m.group(1)) == col]
    if len(starts) != count or col == 0:
        return None, None
    return _regions(text, starts, end), col


def _regions(text: str, starts: list[int], end: int) -> list[list[int]]:
    bounds = [*starts[1:], end]
    return [[a, content_end(text, a, b), 0] for a, b in zip(starts, bounds, strict=True)]


def content_end(text: str, lo: int, hi: int) -> int:
    """``hi`` moved back over blank and comment-only lines; the result is at a line start (or the text's end)."""
    while hi > lo:
        line_start = text.rfind("\n", lo, hi - 1) + 1 if hi - 1 > lo else lo
        line = text[max(line_start, lo) : hi]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if line_start <= lo:
            return lo
        hi = line_start
    return hi


def _number_lines(text: str, layout: Layout) -> None:
    regions = [r for rs in (layout.apps, layout.presets) if rs for r in rs]
    regions.sort(key=lambda r: r[0])
    line, pos = 1, 0
    for r in regions:
        line += text.count("\n", pos, r[0])
        pos = r[0]
        r[2] = line


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


# --------------------------------------------------------------------------------------------------------------
# Editing inside a region
# --------------------------------------------------------------------------------------------------------------


def compose(text: str) -> Node | None:
    loader = (yaml.CSafeLoader if HAVE_LIBYAML else yaml.SafeLoader)(text)
    try:
        return loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


class Region:
    """The text of one region with its node tree; paths are relative to the region's root node.

    An app region's root is a one-item list (paths start with ``0``), a preset region's a one-key mapping (paths
    start with the preset's name). Every edit returns the region's new text; ``new`` looks up the data the text
    must hold after the edit, so that a value can be rewritten with its parent when it cannot change alone.
    """

    def __init__(self, text: str, indent: Indent, new: Lookup) -> None:
        self.text = text
        self.indent = indent
        self.new = new
        root = compose(text)
        if root is None:
            raise CannotSplice("the region does not compose")
        self.root: Node = root

    # -- finding -------------------------------------------------------------------------------------------

    def walk(self, path: Sequence[PathPart]) -> list[tuple[Node, ScalarNode | None]]:
        """(node, key node) for every step of ``path`` from the root; raises when a part is not there."""
        steps: list[tuple[Node, ScalarNode | None]] = [(self.root, None)]
        node = self.root
        for part in path:
            if isinstance(node, MappingNode) and isinstance(part, str):
                hit = None
                for k, v in node.value:
                    if isinstance(k, ScalarNode) and k.value == part:
                        hit = (v, k)
                if hit is None:
                    raise CannotSplice(f"no key {part!r} in the text")
                node = hit[0]
                steps.append(hit)
            elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = node.value[part]
                steps.append((node, None))
            else:
                raise CannotSplice(f"no {part!r} in the text")
        return steps

    def end_of(self, node: Node) -> int:
        """Where ``node``'s content ends: its last character (a block collection ends with its last descendant)."""
        if isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1][1] if isinstance(node, MappingNode) else node.value[-1]
            return self.end_of(last)
        end = node.end_mark.index
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            while end > node.start_mark.index and self.text[end - 1] == "\n":
                end -= 1
        return end

    # -- primitive edits -------------------------------------------------------------------------------------

    def _replace(self, a: int, b: int, new: str) -> str:
        return self.text[:a] + new + self.text[b:]

    def rewrite(self, path: Sequence[PathPart]) -> str:
        """Write the value at ``path`` afresh from the new data, in its context (mapping value or list item)."""
        if not path:
            raise CannotSplice("the region itself is not rewritten here")
        steps = self.walk(path)
        node, key = steps[-1]
        parent = steps[-2][0]
        value = self.new(path)
        if getattr(parent, "flow_style", False):
            return self.rewrite(path[:-1])  # inside [...] or {...}: write the whole collection again
        m, o = self.indent.mapping, self.indent.offset
        one_line = emit.inline(value)
        if key is not None:  # a value in a block mapping
            col = key.start_mark.column
            if one_line is not None:
                if _inline_node(node):
                    return self._replace(node.start_mark.index, self.end_of(node), one_line)
                return self._replace(key.end_mark.index, self.end_of(node), ": " + one_line)
            lines = emit.entry_lines("k", value, col, mapping=m, offset=o)
            body = "\n".join(lines)[col + 1 :]  # drop the placeholder key: keep ":" and what follows
            return self._replace(key.end_mark.index, self.end_of(node), body)
        # an item of a block list: the text after its "- "
        col = node.start_mark.column
        if one_line is not None:
            return self._replace(node.start_mark.index, self.end_of(node), one_line)
        if isinstance(value, dict):
            lines = emit.item_lines(value, col - 2, mapping=m, offset=o)
            return self._replace(node.start_mark.index, self.end_of(node), "\n".join(lines)[col:])
        raise CannotSplice("a list or text block as a list item")

    def set_scalar(self, path: Sequence[PathPart], value: Any) -> str:
        """Replace one scalar's characters, keeping the quote style it was written in when it can."""
        steps = self.walk(path)
        node = steps[-1][0]
        parent = steps[-2][0] if len(steps) > 1 else None
        flow = bool(getattr(parent, "flow_style", False))
        if not isinstance(node, ScalarNode) or node.style in ("|", ">") or isinstance(value, dict | list):
            return self.rewrite(path)
        written = _styled_scalar(value, node.style or "", flow)
        if written is None:
            return self.rewrite(path)
        a, b = node.start_mark.index, node.end_mark.index
        if node.start_mark.line == node.end_mark.line:
            # keep a comment aligned after the value in the column it was written at: `send_gifs: false   # ...`
            m = re.compile(r"( {2,})#").match(self.text, b)
            if m is not None:
                pad = max(len(m.group(1)) - (len(written) - (b - a)), 1)
                return self._replace(a, m.start(1) + len(m.group(1)), written + " " * pad)
        return self._replace(a, b, written)

    def insert_key(self, path: Sequence[PathPart], key: str, after: str | None) -> str:
        """Add ``key`` (its value from the new data) to the mapping at ``path``, after the entry ``after`` (None:
        first)."""
        node = self.walk(path)[-1][0]
        if not isinstance(node, MappingNode) or node.flow_style or not node.value:
            return self.rewrite(path)
        value = self.new((*path, key))
        col = node.value[0][0].start_mark.column
        lines = emit.entry_lines(key, value, col, mapping=self.indent.mapping, offset=self.indent.offset)
        if after is None:
            first = node.value[0][0]
            at = first.start_mark.index
            return self._replace(at, at, "\n".join(lines)[col:] + "\n" + " " * col)
        prev = next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == after), None)
        if prev is None:
            raise CannotSplice(f"no key {after!r} in the text")
        at = line_end(self.text, self.end_of(prev))
        return self._replace(at, at, "\n" + "\n".join(lines))

    def insert_item(self, path: Sequence[PathPart], index: int) -> str:
        """Add the item at ``index`` (its value from the new data) to the list at ``path``."""
        node = self.walk(path)[-1][0]
        if not isinstance(node, SequenceNode) or node.flow_style or not node.value:
            return self.rewrite(path)
        value = self.new((*path, index))
        items = node.value
        ref = items[index] if index < len(items) else items[-1]
        start = line_start(self.text, ref.start_mark.index)
        lead = self.text[start : ref.start_mark.index]
        if not re.fullmatch(r" *- +", lead):
            return self.rewrite(path)
        dash = lead.index("-")
        lines = emit.item_lines(value, dash, mapping=self.indent.mapping, offset=self.indent.offset)
        if index < len(items):
            return self._replace(start, start, "\n".join(lines) + "\n")
        at = line_end(self.text, self.end_of(items[-1]))
        return self._replace(at, at, "\n" + "\n".join(lines))

    def delete(self, path: Sequence[PathPart]) -> str:
        """Remove the entry or item at ``path`` (its lines); an only entry leaves ``{}``/``[]`` behind."""
        steps = self.walk(path)
        node, key = steps[-1]
        parent = steps[-2][0]
        if getattr(parent, "flow_style", False) or len(parent.value) < 2:
            return self.rewrite(path[:-1])
        if isinstance(parent, MappingNode):
            assert key is not None
            first = key.start_mark.index
            start = line_start(self.text, first)
            if self.text[start:first].strip():  # `- key: ...`: the key shares its line with the dash
                following = next(
                    (k for i, (k, _) in enumerate(parent.value) if i > 0 and parent.value[i - 1][0] is key), None
                )
                if following is None:
                    return self.rewrite(path[:-1])
                return self._replace(first, following.start_mark.index, "")
        else:
            first = node.start_mark.index
            start = line_start(self.text, first)
            if not re.fullmatch(r" *- +", self.text[start:first]):
                return self.rewrite(path[:-1])
        end = line_end(self.text, self.end_of(node))
        return self._replace(start, min(end + 1, len(self.text)), "")


def _inline_node(node: Node) -> bool:
    """Written on the key's line: a one-line scalar or a flow collection (then only its characters change)."""
    if isinstance(node, ScalarNode):
        return node.style not in ("|", ">") and node.start_mark.line == node.end_mark.line
    return bool(getattr(node, "flow_style", False)) and node.start_mark.line == node.end_mark.line


def _styled_scalar(value: Any, style: str, flow: bool) -> str | None:
    """A scalar in the quote style the old one was written in, if the new value can be written so."""
    if not isinstance(value, str) or "\n" in value or "\r" in value:
        return emit.inline(value, flow=flow)
    if style == '"':
        return '"' + "".join(emit._escape(c) for c in value) + '"'
    if style == "'" and not emit.needs_escapes(value):
        return "'" + value.replace("'", "''") + "'"
    return emit.inline(value, flow=flow)


# --------------------------------------------------------------------------------------------------------------
# Finding a small entry inside a region (bulk edits)
# --------------------------------------------------------------------------------------------------------------

_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?=[ \t]*:(?:[ \t]|$))")


@dataclass(frozen=True, slots=True)
class Span:
    """The lines of one entry (``key: ...``) or one list item (``- ...``) inside a region's text.

    ``start``/``end`` are character offsets in the region (``end`` after the last content line), ``col`` the
    column of the key or dash, ``depth`` how many parts of the searched path lead to it (the part at
    ``depth - 1`` is its key or index), ``item`` whether it is a list item.
    """

    start: int
    end: int
    col: int
    depth: int
    item: bool


def locate(text: str, path: Sequence[PathPart]) -> Span | None:
    """The smallest entry or item of an app region (``text``, a one-item list) on the way to ``path`` (which starts
    with ``0``), found from the lines' indentation with regular expressions, without composing the region.

    A bulk edit of 5,000 apps cannot compose each app's nodes (a millisecond each); it edits the few lines this
    finds, with :class:`Region` on those lines, and checks that they read back as the data. Anything unusual (a
    flow collection, a quoted or duplicated key, an item whose content starts on the next line) stops the descent
    early: the span found so far still holds the path, it is only larger. None when the region itself does not
    start as expected.
    """
    if not path or path[0] != 0:
        return None
    m = _FIRST.match(text)
    if m is None:
        return None
    dash = len(m.group(1))
    best = Span(0, len(text), dash, 1, True)
    lo, hi = 0, len(text)
    col = _item_mapping(text, 0, dash)
    if col is None:
        return best
    head, seq = 0, False  # the node at `best`: keys (or, with seq, dashes) at `col`; its first key on line `head`
    depth = 1
    while depth < len(path):
        part = path[depth]
        if seq:
            if not isinstance(part, int) or isinstance(part, bool):
                return best
            dashes = [d.start() + 1 for d in _dashes(col).finditer(text, max(lo - 1, 0), hi)]
            if part >= len(dashes):
                return best
            a = dashes[part]
            end = content_end(text, a, dashes[part + 1] if part + 1 < len(dashes) else hi)
            best = Span(a, end, col, depth + 1, True)
            inner = _item_mapping(text, a, col)
            if inner is None:
                return best
            lo, hi, col, head, seq = a, end, inner, a, False
            depth += 1
            continue
        if not isinstance(part, str):
            return best
        hits = [k.start() + 1 for k in _keys(col, part).finditer(text, max(lo - 1, 0), hi)]
        if head >= 0:
            k = _SIMPLE_KEY.match(text, head + col)
            if k is not None and k.group(0) == part:
                hits.append(head)
        if len(hits) != 1:
            return best
        a = hits[0]
        colon = text.index(":", a + col)
        eol = line_end(text, colon)
        stop = _block_end(col).search(text, min(eol, hi), hi)
        end = content_end(text, a, stop.start() + 1 if stop is not None else hi)
        best = Span(a, end, col, depth + 1, False)
        rest = text[colon + 1 : eol].strip()
        if rest and not rest.startswith("#"):
            return best  # written on the key's line (a scalar or a flow collection): the entry is the smallest
        first = _CONTENT.search(text, min(eol + 1, end), end)
        if first is None:
            return best
        indent = len(first.group(1))
        if _dash_line(text, first.start(), indent):
            if indent < col:
                return best
            lo, hi, col, head, seq = first.start(), end, indent, -1, True
        else:
            if indent <= col:
                return best
            lo, hi, col, head, seq = first.start(), end, indent, -1, False
        depth += 1
    return best


_FIRST = re.compile(r"( *)-(?:[ \t]|$)", re.M)
_CONTENT = re.compile(r"^( *)[^ \n#]", re.M)
_AFTER_DASH = re.compile(r"-( +)")


@functools.lru_cache(maxsize=256)
def _keys(col: int, key: str) -> re.Pattern[str]:
    return re.compile(rf"\n {{{col}}}{re.escape(key)}[ \t]*:(?:[ \t]|$)", re.M)


@functools.lru_cache(maxsize=64)
def _dashes(col: int) -> re.Pattern[str]:
    return re.compile(rf"\n {{{col}}}-(?:[ \t]|$)", re.M)


@functools.lru_cache(maxsize=64)
def _block_end(col: int) -> re.Pattern[str]:
    """A content line that ends the value of a key at ``col``: indented at most ``col``, not a dash at ``col``."""
    return re.compile(rf"\n(?! {{{col + 1}}})(?! {{{col}}}-(?:[ \t]|$)) *[^ \n#]", re.M)


def _dash_line(text: str, line: int, col: int) -> bool:
    return text.startswith(" " * col + "-", line) and (len(text) == line + col + 1 or text[line + col + 1] in " \t\n")


def _item_mapping(text: str, line: int, dash: int) -> int | None:
    """The column of the first key of a list item's mapping written on its dash line (``- key: ...``)."""
    m = _AFTER_DASH.match(text, line + dash)
    if m is None:
        return None
    col = m.end() - line
    return col if _SIMPLE_KEY.match(text, m.end()) is not None else None


def dedent(text: str, col: int) -> str | None:
    """The span's text moved ``col`` columns left (the first line loses its prefix, a dash included); None when a
    line does not start with that many spaces or holds only spaces (re-indenting could not give it back)."""
    lines = text.split("\n")
    out = [lines[0][col:]]
    pad = " " * col
    for line in lines[1:]:
        if not line:
            out.append("")
        elif not line.startswith(pad) or not line.strip():
            return None
        else:
            out.append(line[col:])
    return "\n".join(out)


def reindent(text: str, prefix: str) -> str:
    """The inverse of :func:`dedent`: ``prefix`` before the first line, as many spaces before every other one."""
    pad = " " * len(prefix)
    lines = text.split("\n")
    return "\n".join([prefix + lines[0], *(pad + line if line else line for line in lines[1:])])
