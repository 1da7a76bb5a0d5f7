"""Where each problem is written: scope-relative problems (:mod:`.validation`) placed at file, line and column
when they are read, with the node positions of one region (an app, a preset) rather than of the whole text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tenantdeck.draft.locate import Positions
from tenantdeck.draft.session.paths import PathLike, parts_of
from tenantdeck.draft.session.validation import Scope, unscoped
from tenantdeck.problems import PathPart, Problem, sort_problems


class PlacingMixin:
    """Part of :class:`~tenantdeck.draft.session.DraftSession`: problems at file, line and column.

    Owns ``_problems_cache`` (the placed list for one ``version``; the change broadcast drops it) and
    ``_whole_positions`` (node positions of the whole text, for one ``version``). Reads the scopes of
    :mod:`.validation`, the regions of :mod:`.regions`, ``text``, ``file``, ``version``, ``read_only`` and ``_fatal``.
    """

    text: str
    file: str
    version: int
    read_only: bool
    _fatal: list[Problem]
    _problems_cache: tuple[int, list[Problem]] | None
    _whole_positions: tuple[int, Positions] | None
    _comment_memo: dict[str, Any]
    data: Any

    def _init_placing(self) -> None:
        """The state this part owns, as a session starts (called by ``DraftSession.__init__``)."""
        self._problems_cache = None
        self._whole_positions = None
        self._comment_memo = {}

    @property
    def problems(self) -> list[Problem]:
        """Every problem of the draft, placed at file, line and column, in line order."""
        with self._lock:
            if self.read_only:
                return list(self._fatal)
            if self._problems_cache is not None and self._problems_cache[0] == self.version:
                return list(self._problems_cache[1])
            out: list[Problem] = []
            out += self._placed_root()
            for name, scope in self._presets.items():
                out += self._placed_scope(scope, ("presets", name))
            for i, scope in enumerate(self._apps):
                out += self._placed_scope(scope, ("apps", i))
            out += [self._place_absolute(p) for p in self._unique]
            out += self._comment_problems()
            result = sort_problems(out)
            self._problems_cache = (self.version, result)
            return list(result)

    def _comment_problems(self) -> list[Problem]:
        """What ``validate`` says of a comment holding a raw bidi or control character
        (:func:`tenantdeck.draft.raw_scalars.comment_problems`), of the text as it is now: an edit moves comments,
        never changes them, so the memo keeps the one costly part (telling a comment from a value) across edits."""
        from tenantdeck.draft.raw_scalars import comment_problems

        return comment_problems(self.text, self.file, data=self.data, memo=self._comment_memo)

    def problems_under(self, path: PathLike) -> list[Problem]:
        """The problems at ``path`` or below it, placed, in line order.

        A path inside one app or preset is answered from that one scope, so that a screen repainting one app after
        each keystroke does not rebuild the list of every app's problems (1,000 of them for a toggle at 1,000 apps).
        """
        with self._lock:
            parts = parts_of(path)
            scope, prefix, _ = self._scope_of(parts)
            if self.read_only or not prefix:  # not inside one app or preset
                candidates = self.problems
            else:
                candidates = self._placed_root() + self._placed_scope(scope, prefix)
                candidates += [self._place_absolute(p) for p in self._unique if p.path[:2] == prefix]
            n = len(parts)
            return sort_problems(p for p in candidates if tuple(p.path[:n]) == parts)

    def line_of(self, path: PathLike) -> int:
        """1-based line where the value at ``path`` is written (its nearest existing parent if it is not)."""
        with self._lock:
            parts = parts_of(path)
            if self.read_only:
                return 0
            region = self._region_of(parts)
            if region is not None:
                section, index, rel = region
                positions = Positions(self._region_text(section, index))
                base = self._region(section, index)[2]
                return positions.position(rel)[0] + base - 1
            return self._whole().position(parts)[0]

    def locate(self, path: Sequence[PathPart]) -> tuple[int, int]:
        """1-based (line, column) of the value at ``path``: what a problem found outside the session (a policy's
        violation) is placed with, as the loader's document places it for ``validate``."""
        with self._lock:
            return (0, 0) if self.read_only else self._locate(tuple(path))

    def _placed_scope(self, scope: Scope, prefix: tuple[PathPart, ...]) -> list[Problem]:
        section, index = (prefix[0], prefix[1])
        region = self._region(str(section), index)
        base = region[2] if region is not None else 1
        if scope.placed is None:
            found = scope.model + scope.rules
            taken = {p.path for p in found}
            surprises = [p for p in scope.text if not (p.code == "yaml-1.1" and p.path in taken)]
            if found and region is not None:
                positions = Positions(self._region_text(str(section), index))
                head: tuple[PathPart, ...] = (0,) if section == "apps" else (index,)
                scope.placed = [place(p, positions, head) for p in found] + surprises
            elif found:
                whole = self._whole()
                scope.placed = [place(p, whole, prefix, relative=False) for p in found] + surprises
            else:
                scope.placed = surprises
        return [unscoped(p, prefix, base - 1, self.file) for p in scope.placed]

    def _placed_root(self) -> list[Problem]:
        if self._root.placed is None:
            whole = self._whole() if self._root.model else None
            placed = [place(p, whole, (), relative=False) for p in self._root.model] if whole else []
            self._root.placed = placed + self._root.text
        return [unscoped(p, (), 0, self.file) for p in self._root.placed]

    def _place_absolute(self, p: Problem) -> Problem:
        return p.located(self.file, *self._locate(p.path))

    def _locate(self, parts: tuple[PathPart, ...]) -> tuple[int, int]:
        region = self._region_of(parts)
        if region is not None:
            section, index, rel = region
            line, col = Positions(self._region_text(section, index)).position(rel)
            return line + self._region(section, index)[2] - 1, col
        return self._whole().position(parts)

    def _whole(self) -> Positions:
        if self._whole_positions is None or self._whole_positions[0] != self.version:
            self._whole_positions = (self.version, Positions(self.text))
        return self._whole_positions[1]

    def _scalar(self, parts: Sequence[PathPart]) -> tuple[str, str, str] | None:
        region = self._region_of(tuple(parts))
        if region is not None:
            node = Positions(self._region_text(region[0], region[1])).scalar(region[2])
        else:
            node = self._whole().scalar(parts)
        return None if node is None else (node.value, node.style or "", node.tag)

    def _scope_of(self, parts: tuple[PathPart, ...]) -> tuple[Scope, tuple[PathPart, ...], int]:
        """The scope a path belongs to, the scope's path prefix, and the line its region starts at."""
        if len(parts) >= 2 and parts[0] == "apps" and isinstance(parts[1], int) and parts[1] < len(self._apps):
            region = self._region("apps", parts[1])
            return self._apps[parts[1]], parts[:2], region[2] if region else 1
        if len(parts) >= 2 and parts[0] == "presets" and parts[1] in self._presets:
            region = self._region("presets", parts[1])
            return self._presets[str(parts[1])], parts[:2], region[2] if region else 1
        return self._root, (), 1


def place(p: Problem, positions: Positions | None, head: tuple[PathPart, ...], *, relative: bool = True) -> Problem:
    """Place a scope-relative problem with the region's (or the whole text's) node positions."""
    if positions is None:
        return p
    path = (*head, *p.path)
    at = str(p.extra.get("at", "value")) if p.extra else "value"
    if at == "parent":
        line, col = positions.position(path[:-1], at_key=True) if path else (1, 1)
    else:
        line, col = positions.position(path, at_key=at == "key")
    if not relative:
        return Problem(p.severity, p.message, p.path, p.file, line, col, p.code, p.extra)
    return Problem(p.severity, p.message, p.path, p.file, line, col, p.code, p.extra)
