"""Regions: where each app and preset is written in the text (:class:`tenantdeck.draft.splice.Layout`), kept in
step with every text change so that an edit rewrites, and a problem is placed with, one region only."""

from __future__ import annotations

import threading
from typing import Any

from tenantdeck.draft import splice
from tenantdeck.draft.session.history import TextOp, inverse_escape
from tenantdeck.problems import PathPart


class RegionsMixin:
    """Part of :class:`~tenantdeck.draft.session.DraftSession`: the layout of the text.

    Owns ``_layout_value`` and ``_layout_pending`` (the layout of the text as read is scanned on first use, not
    before the first paint) and ``_indent`` (the draft's indentation style, for what is written anew). Reads and
    writes ``text``; reads ``data``; refreshes YAML-level problems through :mod:`.splicing`.
    """

    text: str
    data: Any
    _lock: threading.RLock
    _layout_value: splice.Layout | None
    _layout_pending: bool
    _indent: splice.Indent

    def _init_regions(self) -> None:
        """The state this part owns, as a session starts (called by ``DraftSession.__init__``)."""
        self._layout_value = None
        self._layout_pending = False
        self._indent = splice.Indent()

    @property
    def _layout(self) -> splice.Layout | None:
        """Where each app and preset is written in the text (None when it is not laid out in block style)."""
        if self._layout_pending:
            with self._lock:
                if self._layout_pending:
                    self._layout_value = splice.scan(self.text, self.data)
                    self._layout_pending = False
        return self._layout_value

    @_layout.setter
    def _layout(self, layout: splice.Layout | None) -> None:
        self._layout_value = layout
        self._layout_pending = False

    def _region(self, section: str, index: Any) -> list[int] | None:
        layout = self._layout
        if layout is None:
            return None
        if section == "apps":
            return layout.apps[index] if layout.apps is not None and 0 <= index < len(layout.apps) else None
        if section == "presets" and layout.presets is not None and isinstance(self.data.get("presets"), dict):
            names = list(self.data["presets"])
            if index in names and len(names) == len(layout.presets):
                return layout.presets[names.index(index)]
        return None

    def _region_text(self, section: str, index: Any) -> str:
        r = self._region(section, index)
        assert r is not None
        return self.text[r[0] : r[1]]

    def _region_of(self, parts: tuple[PathPart, ...]) -> tuple[str, Any, tuple[PathPart, ...]] | None:
        """(section, index or name, path inside the region's text) when ``parts`` lies inside a region."""
        if len(parts) >= 2 and parts[0] in ("apps", "presets"):
            section = str(parts[0])
            if self._region(section, parts[1]) is not None:
                head: PathPart = 0 if section == "apps" else parts[1]
                return section, parts[1], (head, *parts[2:])
        return None

    def _region_index(self, section: str, index: Any) -> int:
        if section == "apps":
            return int(index)
        return list(self.data["presets"]).index(index)

    def _region_text_at(self, section: str, index: int) -> str:
        layout = self._layout
        assert layout is not None
        regions = layout.apps if section == "apps" else layout.presets
        assert regions is not None
        return self.text[regions[index][0] : regions[index][1]]

    def _replace_region(self, section: str, index: Any, new_text: str) -> None:
        """Put ``new_text`` in place of a region (by app index, preset name or position) and move what follows."""
        layout = self._layout
        assert layout is not None
        regions = layout.apps if section == "apps" else layout.presets
        assert regions is not None
        i = index if isinstance(index, int) else self._region_index(section, index)
        r = regions[i]
        old_len = r[1] - r[0]
        old_lines = self.text.count("\n", r[0], r[1])
        self.text = self.text[: r[0]] + new_text + self.text[r[1] :]
        chars, lines = len(new_text) - old_len, new_text.count("\n") - old_lines
        start = r[0]
        layout.shift(r[1], chars, lines)
        r[0] = start
        r[1] = start + len(new_text)

    def _replace_app_regions(self, changes: list[tuple[int, str]]) -> None:
        """Put new texts in place of several app regions (in index order) in one pass over the text."""
        import bisect

        layout = self._layout
        assert layout is not None and layout.apps is not None
        regions = layout.apps
        pieces: list[str] = []
        pos = 0
        ends: list[int] = []  # old end of each changed region
        moved: list[tuple[int, int]] = []  # cumulative (chars, lines) after it
        chars = lines = 0
        for i, new in changes:
            a, b, _ = regions[i]
            pieces.append(self.text[pos:a])
            pieces.append(new)
            pos = b
            chars += len(new) - (b - a)
            lines += new.count("\n") - self.text.count("\n", a, b)
            ends.append(b)
            moved.append((chars, lines))
        pieces.append(self.text[pos:])

        def shift(p: int) -> tuple[int, int]:
            k = bisect.bisect_right(ends, p)
            return moved[k - 1] if k else (0, 0)

        lengths = {i: len(new) for i, new in changes}
        for i, r in enumerate(regions):
            dc, dl = shift(r[0])
            r[0] += dc
            r[2] += dl
            r[1] = r[0] + lengths[i] if i in lengths else r[1] + dc
        for key, p in list(layout.keys.items()):
            layout.keys[key] = p + shift(p)[0]
        for key, (a, b) in list(layout.flow_empty.items()):
            layout.flow_empty[key] = (a + shift(a)[0], b + shift(a)[0])
        for r in layout.presets or []:
            dc, dl = shift(r[0])
            r[0] += dc
            r[1] += dc
            r[2] += dl
        self.text = "".join(pieces)

    def _text_apply(self, t: TextOp, *, forward: bool) -> None:
        """Replay one region change of an undo step, forwards or backwards."""
        if t.kind == "escape":
            assert t.batch is not None
            self._apply_escape(t.batch if forward else inverse_escape(t).batch or [])
            return
        if t.kind == "regions":
            assert t.batch is not None
            for i, old_text, new_text, _ in t.batch:
                assert self._region_text_at("apps", i) == (old_text if forward else new_text), (
                    "undo found the text in an unexpected state")
            self._replace_app_regions([(i, n if forward else o) for i, o, n, _ in t.batch])
            for i, _, _, refresh in t.batch:
                if refresh:
                    self._refresh_text_problems("apps", i, self._region_text_at("apps", i))
            return
        old, new = (t.old, t.new) if forward else (t.new, t.old)
        layout = self._layout
        assert layout is not None, "a region change is only recorded while the draft has a layout"
        regions = layout.apps if t.section == "apps" else layout.presets
        assert regions is not None
        kind = t.kind
        if not forward and kind != "region":
            kind = "delete_region" if kind == "insert_region" else "insert_region"
        if kind == "region":
            r = regions[t.index]
            assert self.text[r[0] : r[1]] == old, "undo found the text in an unexpected state"
            self._replace_region(t.section, t.index, new)
        elif kind == "insert_region":
            block, at = new or old, t.at
            if t.index < len(regions):
                line = regions[t.index][2] - self.text.count("\n", at, regions[t.index][0])
            elif regions:
                line = regions[-1][2] + self.text.count("\n", regions[-1][0], at)
            else:
                line = self.text.count("\n", 0, at) + 1
            self.text = self.text[:at] + block + self.text[at:]
            layout.shift(at, len(block), block.count("\n"))
            regions.insert(t.index, [at, at + len(block), line])
        else:
            a, b, _ = regions[t.index]
            removed = self.text[a:b]
            self.text = self.text[:a] + self.text[b:]
            del regions[t.index]
            layout.shift(a, -len(removed), -removed.count("\n"))
            return
        key: Any = t.index if t.section == "apps" else list(self._presets)[t.index]
        self._refresh_text_problems(t.section, key, self.text[regions[t.index][0] : regions[t.index][1]])
