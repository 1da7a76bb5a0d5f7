"""Text edits: make the text say what the data now says by rewriting only the lines of the value that changed
(:mod:`tenantdeck.draft.splice`), each splice checked to read back as the data; what splicing cannot express
falls back to the ruamel.yaml merge of the whole draft (:func:`tenantdeck.draft.save.merge_data`)."""

from __future__ import annotations

import bisect
import copy
import itertools
from collections.abc import Sequence
from typing import Any

from tenantdeck.draft import splice, yamlsource
from tenantdeck.draft.session.errors import DraftSessionError
from tenantdeck.draft.session.history import DataOp, Entry, TextOp, do_op
from tenantdeck.draft.session.paths import MISSING, walk
from tenantdeck.draft.session.validation import scoped, unprefixed
from tenantdeck.problems import PathPart, Problem, format_path


class SplicingMixin:
    """Part of :class:`~tenantdeck.draft.session.DraftSession`: writing edits into the text.

    Owns ``_used_ruamel`` (some edit since the last save needed the ruamel merge: the save reports it) and
    ``_raw_checked`` (the text holds no value written raw that :meth:`_escape_raw_scalars` could escape: a splice
    writes none, so a save's look sets it, and whatever brings back or takes in other text, reading, undo, redo, a
    restored text, a ruamel merge, clears it; the next save then looks again). Writes
    ``text``, the regions (:mod:`.regions`) and the scopes' YAML-level problems (``Scope.text``); reads ``data``.
    """

    text: str
    data: Any
    file: str
    _used_ruamel: bool
    _raw_checked: bool

    def _init_splicing(self) -> None:
        """The state this part owns, as a session starts (called by ``DraftSession.__init__``)."""
        self._used_ruamel = False
        self._raw_checked = False

    def _write_text(self, entry: Entry, op: DataOp) -> None:
        """Make the text say what the data now says: splice where possible, else the ruamel merge."""
        full = (*op.parent, op.key)
        try:
            if self._layout is None:
                raise splice.CannotSplice("the draft is not laid out in block style")
            if len(full) >= 3 and full[0] in ("apps", "presets"):
                self._splice_inside(entry, op, full)
            elif len(full) == 2 and full[0] in ("apps", "presets"):
                self._splice_region(entry, op, full)
            else:
                raise splice.CannotSplice("an edit at the top level of the draft")
        except splice.CannotSplice:
            self._merge_with_ruamel(entry)

    def _splice_inside(self, entry: Entry, op: DataOp, full: tuple[PathPart, ...]) -> None:
        section, index = str(full[0]), full[1]
        region = self._region(section, index)
        if region is None:
            raise splice.CannotSplice("no region")
        head: PathPart = 0 if section == "apps" else index
        old_text = self.text[region[0] : region[1]]
        container = self.data[section][index]

        def new(rel: Sequence[PathPart]) -> Any:
            return walk(container, rel[1:])

        edit = splice.Region(old_text, self._indent, new)
        rel_parent = (head, *op.parent[2:])
        if op.kind == "set":
            new_text = edit.set_scalar((*rel_parent, op.key), op.new)
        elif op.kind == "insert" and isinstance(op.key, str):
            keys = list(walk(self.data, op.parent))
            after = keys[keys.index(op.key) - 1] if keys.index(op.key) > 0 else None
            new_text = edit.insert_key(rel_parent, op.key, after)
        elif op.kind == "insert":
            new_text = edit.insert_item(rel_parent, int(op.key))
        else:
            new_text = edit.delete((*rel_parent, op.key))
        expected = [container] if section == "apps" else {index: container}
        if not same(parse_data(new_text), expected):
            raise splice.CannotSplice("the spliced region does not read back as the data")
        self._replace_region(section, index, new_text)
        entry.text.append(TextOp("region", section, self._region_index(section, index), old_text, new_text))
        self._refresh_text_problems(section, index, new_text)

    def _splice_region(self, entry: Entry, op: DataOp, full: tuple[PathPart, ...]) -> None:
        """A whole app or preset: replaced, inserted or removed as lines of its own."""
        layout = self._layout
        assert layout is not None
        section = str(full[0])
        regions = layout.apps if section == "apps" else layout.presets
        if regions is None:
            raise splice.CannotSplice(f"{section} is not laid out in block style")
        m, o = self._indent.mapping, self._indent.offset
        if section == "apps":
            index = int(op.key)
            dash = layout.app_dash if layout.app_dash is not None else o
            value = self.data["apps"][index] if op.kind != "delete" else None
            lines = splice.emit.item_lines(value, dash, mapping=m, offset=o) if value is not None else []
            expected: Any = [value]
        else:
            names = list(self.data["presets"]) if op.kind != "delete" else None
            index = names.index(op.key) if names is not None else op.position
            col = layout.preset_col if layout.preset_col is not None else m
            value = self.data["presets"][op.key] if op.kind != "delete" else None
            lines = splice.emit.entry_lines(str(op.key), value, col, mapping=m, offset=o) if op.kind != "delete" else []
            expected = {op.key: value}
        block = "\n".join(lines) + "\n" if lines else ""
        if block and not same(parse_data(block), expected):
            raise splice.CannotSplice("the written region does not read back as the data")
        if op.kind == "set":
            old = self.text[regions[index][0] : regions[index][1]]
            self._replace_region(section, index, block if old.endswith("\n") else block.rstrip("\n"))
            entry.text.append(TextOp("region", section, index, old, self._region_text_at(section, index)))
            self._refresh_text_problems(section, full[1], self._region_text_at(section, index))
            return
        if op.kind == "insert":
            if not regions or section in layout.flow_empty:
                raise splice.CannotSplice("the first app or preset")  # `apps: []` becomes a block: ruamel
            if index < len(regions):
                at, line = regions[index][0], regions[index][2]
            else:
                at = regions[-1][1]
                line = regions[-1][2] + self.text.count("\n", regions[-1][0], regions[-1][1])
                if at == len(self.text) and not self.text.endswith("\n"):
                    raise splice.CannotSplice("the draft does not end with a line break")
            self.text = self.text[:at] + block + self.text[at:]
            layout.shift(at, len(block), block.count("\n"))
            regions.insert(index, [at, at + len(block), line])
            entry.text.append(TextOp("insert_region", section, index, "", block, at))
            self._refresh_text_problems(section, full[1], block)
            return
        if len(regions) < 2:
            raise splice.CannotSplice("the last app or preset")  # leaves `apps: []`: ruamel
        a, b, _ = regions[index]
        old = self.text[a:b]
        self.text = self.text[:a] + self.text[b:]
        del regions[index]
        layout.shift(a, -len(old), -old.count("\n"))
        entry.text.append(TextOp("delete_region", section, index, old, "", a))

    def _bulk(self, entry: Entry, edits: list[tuple[tuple[PathPart, ...], Any]]) -> None:
        """Data and text of a bulk edit inside apps; raises CannotSplice (``entry`` says what to take back)."""
        layout = self._layout
        assert layout is not None and layout.apps is not None
        pending: dict[int, str] = {}
        refresh: set[int] = set()
        for parts, value in edits:
            op = self._data_change("set", parts, copy.deepcopy(value))
            full = (*op.parent, op.key)
            if len(full) < 3 or op.kind == "delete":
                raise splice.CannotSplice("not an edit inside an app")
            if op.kind == "set" and same(op.old, op.new):
                continue
            self._refuse_literal_secrets(op)
            entry.data.append(op)
            do_op(self.data, op)
            entry.touched.add(("app", full[1]))
            entry.paths.append(format_path(full))
            index = int(full[1])
            if index not in pending:
                r = layout.apps[index]
                pending[index] = self.text[r[0] : r[1]]
                if self._apps[index].text:
                    refresh.add(index)
            pending[index], surprised = self._splice_small(index, pending[index], op)
            if surprised:
                refresh.add(index)
        if not pending:
            return
        batch = [(i, self._region_text_at("apps", i), text, i in refresh) for i, text in sorted(pending.items())]
        self._replace_app_regions([(i, new) for i, _, new, _ in batch])
        entry.text.append(TextOp("regions", "apps", 0, "", "", batch=batch))
        for i in refresh:
            self._refresh_text_problems("apps", i, self._region_text_at("apps", i))

    def _splice_small(self, index: int, region: str, op: DataOp) -> tuple[str, bool]:
        """``region`` (app ``index``'s text) with ``op`` written into the smallest entry around it; and whether
        the new lines read with a YAML 1.1 surprise (then the app's YAML-level problems are worked out again)."""
        full = (*op.parent, op.key)
        rel = (0, *full[2:])
        target = rel if op.kind == "set" else rel[:-1]
        span = splice.locate(region, target)
        if span is None:
            raise splice.CannotSplice("the app's text does not start as an item")
        root = ("apps", index, *rel[1 : span.depth])  # the data path of the span's node
        snippet = splice.dedent(region[span.start : span.end], span.col)
        if snippet is None:
            span = splice.Span(0, len(region), 0, 1, True)
            root = ("apps", index)
            snippet = region
        head: PathPart = 0 if span.item else root[-1]

        def new(rel_path: Sequence[PathPart]) -> Any:
            return walk(self.data, (*root, *rel_path[1:]))

        edit = splice.Region(snippet, self._indent, new)
        rel_parent = (head, *op.parent[len(root) :])
        if op.kind == "set":
            text = edit.set_scalar((head, *full[len(root) :]), op.new)
        elif isinstance(op.key, str):
            keys = list(walk(self.data, op.parent))
            after = keys[keys.index(op.key) - 1] if keys.index(op.key) > 0 else None
            text = edit.insert_key(rel_parent, op.key, after)
        else:
            text = edit.insert_item(rel_parent, int(op.key))
        value = walk(self.data, root)
        expected = [value] if span.item else {head: value}
        parsed = yamlsource.parse(text, self.file)
        if parsed.fatal or parsed.empty or parsed.problems or not same(parsed.data, expected):
            raise splice.CannotSplice("the spliced lines do not read back as the data")
        prefix = region[span.start : span.start + span.col]
        return region[: span.start] + splice.reindent(text, prefix) + region[span.end :], bool(parsed.surprises)

    def _refresh_text_problems(self, section: str, index: Any, region_text: str) -> None:
        """YAML-level problems (YAML 1.1 readings) of a rewritten region, relative to it."""
        scopes = self._apps if section == "apps" else self._presets
        key = index if section == "apps" else str(index)
        if (section == "apps" and not 0 <= key < len(scopes)) or (section == "presets" and key not in scopes):
            return
        parsed = yamlsource.parse(region_text, self.file)
        found = yaml11_warnings(parsed.surprises)
        scope = scopes[key]  # type: ignore[index]
        scope.text = [unprefixed(p, (0,) if section == "apps" else (index,)) for p in found]
        scope.clear_placed()

    def _merge_with_ruamel(self, entry: Entry) -> None:
        """The whole draft through ruamel.yaml (seconds on large drafts): for edits splicing cannot express."""
        from tenantdeck.draft.save import merge_data

        old = self.text
        new = merge_data(old, self.data)
        if not same(parse_data(new), self.data):
            raise DraftSessionError("the edit cannot be written into this draft's text", (), self.file, "unwritable")
        self.text = new
        self._used_ruamel = True
        self._raw_checked = False
        entry.text.append(TextOp("whole", "", 0, old, new))
        self._rescan()

    def _escape_raw_scalars(self) -> TextOp | None:
        """Rewrite every value (or key) written raw with a control or bidi character as a double-quoted escape,
        wherever it is in the text (:mod:`tenantdeck.draft.raw_scalars`): what a save does first, so the file never
        keeps one a reviewer's ``git diff`` would act on. Returns the text change made (None: nothing to do).

        Bounded for a big draft: one pass over the text (:func:`~tenantdeck.draft.raw_scalars.positions`), then
        only the apps and presets that hold a raw character are composed (the text outside them too, without them,
        when it holds one), each checked to read back as the data it held. Line numbers do not move (each value
        keeps its lines), so stored problems stay placed.
        """
        from tenantdeck.draft import raw_scalars

        if self._raw_checked:
            return None  # nothing since the last look can have brought a raw value (see the class)
        self._raw_checked = True  # what is left raw after this look (comments) no look would change
        text = self.text
        found = raw_scalars.positions(text)
        if not found:
            return None
        edits: list[raw_scalars.Edit] = []
        layout = self._layout
        chunks = self._raw_chunks(layout, found)
        for a, b, expected in chunks:
            piece = text[a:b]
            got = raw_scalars.escapes(piece)
            if not got:
                continue
            new_piece = raw_scalars.apply(piece, got)
            if not same(parse_data(new_piece), expected):
                continue  # would not read back as it was: leave it raw rather than change a value
            edits += [(a + x, a + y, w) for x, y, w in got]
        outside = self._outside_edits(layout, found)
        edits += outside
        edits.sort()
        if not edits:
            return None
        op = TextOp("escape", "", 0, "", "", batch=[(x, text[x:y], w, False) for x, y, w in edits])
        self._apply_escape(op.batch or [])
        return op

    def _raw_chunks(self, layout: splice.Layout | None, found: list[int]) -> list[tuple[int, int, Any]]:
        """(start, end, data it must read as) of each app or preset holding a raw character at ``found``; the
        whole text when the draft is not laid out in regions."""
        if layout is None:
            return [(0, len(self.text), self.data)]
        out: list[tuple[int, int, Any]] = []
        names = list(self.data["presets"]) if isinstance(self.data.get("presets"), dict) else []
        for section, regions in (("apps", layout.apps), ("presets", layout.presets)):
            for i, (a, b, _) in enumerate(regions or []):
                k = bisect.bisect_left(found, a)
                if k == len(found) or found[k] >= b:
                    continue
                if section == "apps":
                    out.append((a, b, [self.data["apps"][i]]))
                elif i < len(names):
                    out.append((a, b, {names[i]: self.data["presets"][names[i]]}))
        return out

    def _outside_edits(self, layout: splice.Layout | None, found: list[int]) -> list[tuple[int, int, str]]:
        """The edits of values outside every app and preset (root keys the model does not know, say): that text,
        without the regions, is composed on its own, so a raw tab in the file's header comment costs no compose
        of its 30 MB of apps."""
        from tenantdeck.draft import raw_scalars

        if layout is None:
            return []
        regions = sorted(r[:2] for rs in (layout.apps, layout.presets) if rs for r in rs)
        gaps: list[tuple[int, int]] = []
        pos = 0
        for a, b in regions:
            gaps.append((pos, a))
            pos = b
        gaps.append((pos, len(self.text)))
        if not any(bisect.bisect_left(found, a) < len(found) and found[bisect.bisect_left(found, a)] < b
                   for a, b in gaps):
            return []
        starts = []  # where each gap begins in the joined text
        joined = 0
        for a, b in gaps:
            starts.append(joined)
            joined += b - a
        outside = "".join(self.text[a:b] for a, b in gaps)
        got = raw_scalars.escapes(outside)
        before = parse_data(outside) if got else MISSING
        if before is MISSING or not same(parse_data(raw_scalars.apply(outside, got or [])), before):
            return []  # nothing to escape, or the text without its apps does not read cleanly: nothing to check by

        def back(p: int) -> int:
            g = bisect.bisect_right(starts, p) - 1
            return gaps[g][0] + p - starts[g]

        return [(back(x), back(x) + (y - x), w) for x, y, w in got]

    def _apply_escape(self, pieces: list[tuple[int, str, str, bool]]) -> None:
        """Make the changes of an ``escape`` step (each: where in the text, what is there, what is written), move
        the regions after them and refresh the YAML-level problems of the regions they were in."""
        text = self.text
        parts: list[str] = []
        pos = 0
        for at, old, new, _ in pieces:
            assert text.startswith(old, at), "undo found the text in an unexpected state"
            parts.append(text[pos:at])
            parts.append(new)
            pos = at + len(old)
        parts.append(text[pos:])
        self.text = "".join(parts)
        layout = self._layout
        if layout is None:
            return
        where = [at for at, _, _, _ in pieces]
        moved = list(itertools.accumulate(len(new) - len(old) for _, old, new, _ in pieces))

        def shift(p: int) -> int:
            k = bisect.bisect_left(where, p)  # the changes before p (a change at p is after it)
            return p + (moved[k - 1] if k else 0)

        touched: list[tuple[str, int]] = []
        for section, regions in (("apps", layout.apps), ("presets", layout.presets)):
            for i, r in enumerate(regions or []):
                k = bisect.bisect_left(where, r[0])
                if k < len(where) and where[k] < r[1]:
                    touched.append((section, i))
                r[0], r[1] = shift(r[0]), shift(r[1])
        for key, p in list(layout.keys.items()):
            layout.keys[key] = shift(p)
        for key, (a, b) in list(layout.flow_empty.items()):
            layout.flow_empty[key] = (shift(a), shift(b))
        names = list(self.data["presets"]) if isinstance(self.data, dict) and isinstance(
            self.data.get("presets"), dict) else []
        for section, i in touched:
            key: Any = i if section == "apps" else (names[i] if i < len(names) else None)
            if key is not None:
                self._refresh_text_problems(section, key, self._region_text_at(section, i))

    def _rescan(self) -> None:
        """Layout and YAML-level problems of the whole text again (after a ruamel merge); scopes keep the rest."""
        parsed = yamlsource.parse(self.text, self.file)
        self._layout = splice.scan(self.text, self.data)
        for scope in (self._root, *self._presets.values(), *self._apps):
            scope.text = []
            scope.clear_placed()
        self._place_text_problems(parsed)

    def _place_text_problems(self, parsed: yamlsource.Parsed) -> None:
        """The YAML-level problems of ``parsed`` (syntax, duplicate keys, YAML 1.1 surprises), each in the scope of
        the app, preset or root it is under: what opening the draft and a rescan after a ruamel merge both do."""
        from tenantdeck.draft.load import DraftDocument, _duplicates

        found = list(parsed.problems)
        found += _duplicates(DraftDocument(self.file, self.text), parsed.duplicates)
        found += yaml11_warnings(parsed.surprises)
        for p in found:
            scope, prefix, base = self._scope_of(p.path)
            scope.text.append(scoped(p, prefix, base - 1))


def guess_indent(text: str) -> tuple[int, int, int]:
    """The draft's indentation style (mapping, sequence, offset), from its start: what new lines are written in."""
    from tenantdeck.draft.save import guess_indentation

    return guess_indentation(text[:65536])


def parse_data(text: str) -> Any:
    """The data of a spliced text, or MISSING when it does not read cleanly (the splice is then refused)."""
    parsed = yamlsource.parse(text)
    return MISSING if parsed.fatal or parsed.empty or parsed.problems else parsed.data


def same(a: Any, b: Any) -> bool:
    """Equal as draft data: types too (``True`` is not ``1``), and mapping keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def yaml11_warnings(surprises: list[yamlsource.Surprise]) -> list[Problem]:
    """The warnings of YAML 1.1 readings (``on`` read as a boolean, ...), as the CLI's loader words them."""
    from tenantdeck.draft.load import _surprise_warnings

    return _surprise_warnings(surprises, [])
