"""Undo and redo: what one step records (data operations and text changes, in order), the stacks of steps, and
the transaction that gathers several edits into one step.

Recording is cheap on purpose: a step keeps the old and new values and the old and new text of the regions it
rewrote, never a copy of the draft; only a step that went through the ruamel merge keeps whole texts (its regions
cannot be replayed). Applying a step to the data lives here too (:func:`do_op`, :func:`undo_op`); applying it to
the text is the regions' job (:meth:`RegionsMixin._text_apply`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.draft.session.paths import walk
from tenantdeck.problems import PathPart, Problem


@dataclass(slots=True)
class DataOp:
    """One change of the data: ``kind`` set, insert or delete of ``key`` in the container at ``parent``, with the
    value before and after (deep copies are made when it is applied, so a step never shares the draft's objects)."""

    kind: str  # set | insert | delete
    parent: tuple[PathPart, ...]
    key: PathPart
    old: Any
    new: Any
    position: int  # index of the key in its mapping (insert/delete of keys)


@dataclass(slots=True)
class TextOp:
    """One change of the text, enough to replay it either way: a region rewritten, inserted or removed, the whole
    text (a ruamel merge), or several app regions at once (a bulk edit)."""

    kind: str  # region | insert_region | delete_region | whole | regions | escape
    section: str  # apps | presets | ""
    index: int
    old: str
    new: str
    at: int = 0  # where a region was inserted or removed
    #: kind "regions" (a bulk edit): (app index, old text, new text, refresh its YAML-level problems) per app;
    #: kind "escape" (a save escaped values written raw): (where in the text before, old text, new text, False) per
    #: value, in text order
    batch: list[tuple[int, str, str, bool]] | None = None


@dataclass(slots=True)
class Entry:
    """One undo step: data changes and text changes, in the order they were made."""

    data: list[DataOp] = field(default_factory=list)
    text: list[TextOp] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    touched: set[tuple[str, Any]] = field(default_factory=set)
    #: whole texts before and after, kept only when the entry holds a ruamel merge (regions cannot be replayed)
    before: str | None = None
    after: str | None = None


class Transaction:
    """Edits made inside ``with session.transaction() as tx:`` are one undo step and are validated once, at the
    end; ``tx.problems`` then holds the problems of everything they touched."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []


class History:
    """The undo and redo stacks, and the transaction being gathered (``tx``, None when none is open).

    ``tx_start`` is the text when the open transaction began: a ruamel merge inside it records the whole text from
    there, so undo can restore it.
    """

    def __init__(self) -> None:
        self.undo: list[Entry] = []
        self.redo: list[Entry] = []
        self.tx: Entry | None = None
        self.tx_start = ""

    def clear(self) -> None:
        """Forget every step (a reload or a restored text: the steps are of a text that is gone)."""
        self.undo.clear()
        self.redo.clear()

    def push(self, entry: Entry, limit: int) -> None:
        """A new step: the oldest beyond ``limit`` are forgotten, and what was undone can no longer be redone."""
        self.undo.append(entry)
        del self.undo[:-limit]
        self.redo.clear()

    def next_paths(self, which: str) -> list[str]:
        """The paths the next ``"undo"`` or ``"redo"`` would change."""
        stack = self.undo if which == "undo" else self.redo
        return list(stack[-1].paths) if stack else []


def inverse_escape(op: TextOp) -> TextOp:
    """The ``escape`` step that takes ``op`` back: each value's texts swapped, placed in the text ``op`` made."""
    assert op.kind == "escape" and op.batch is not None
    moved = 0
    back: list[tuple[int, str, str, bool]] = []
    for at, old, new, _ in op.batch:
        back.append((at + moved, new, old, False))
        moved += len(new) - len(old)
    return TextOp("escape", "", 0, "", "", batch=back)


def keep_in_step(history: History, op: TextOp, text: str) -> None:
    """Make the steps agree with a text a save has just escaped (``op``, :mod:`tenantdeck.draft.raw_scalars`) so
    that undo and redo still find the text each step was made on: the last step (or the open transaction, once it
    holds an edit) ends with the escape, so undoing it first puts the raw values back; the next redo step starts by
    taking it back. A step that keeps whole texts (a ruamel merge) takes ``text`` as its own."""
    last = history.tx if history.tx is not None and history.tx.data else (history.undo[-1] if history.undo else None)
    if last is not None:
        if last.after is not None:
            last.after = text
        else:
            last.text.append(op)
    if history.redo:
        following = history.redo[-1]
        if following.before is not None:
            following.before = text
        else:
            following.text.insert(0, inverse_escape(op))


def dict_insert(d: dict[Any, Any], key: Any, value: Any, position: int) -> dict[Any, Any]:
    """A copy of ``d`` with ``key`` at ``position`` (the scopes follow the draft's key order)."""
    items = list(d.items())
    items.insert(position, (key, value))
    return dict(items)


def _set_in_place(d: dict[Any, Any], key: Any, value: Any, position: int) -> None:
    """Put ``key`` at ``position`` in ``d`` itself: the draft's mapping is referenced from its parent."""
    items = list(d.items())
    items.insert(position, (key, value))
    d.clear()
    d.update(items)


def do_op(data: Any, op: DataOp) -> None:
    """Apply ``op`` to the data (an edit, or a redo)."""
    parent = walk(data, op.parent)
    if op.kind == "set":
        parent[op.key] = copy.deepcopy(op.new)
    elif op.kind == "insert":
        if isinstance(parent, list):
            parent.insert(int(op.key), copy.deepcopy(op.new))
        else:
            _set_in_place(parent, op.key, copy.deepcopy(op.new), op.position)
    else:
        del parent[op.key]


def undo_op(data: Any, op: DataOp) -> None:
    """Take ``op`` back from the data (an undo, or an edit that failed half-way)."""
    parent = walk(data, op.parent)
    if op.kind == "set":
        parent[op.key] = copy.deepcopy(op.old)
    elif op.kind == "insert":
        del parent[op.key]
    elif isinstance(parent, list):
        parent.insert(int(op.key), copy.deepcopy(op.old))
    else:
        _set_in_place(parent, op.key, copy.deepcopy(op.old), op.position)


def inverse(op: DataOp) -> DataOp:
    """The change that takes ``op`` back, as it is applied by :func:`undo_op` (what an undo means for the scopes and
    for what is checked again is then the same rule as for an edit)."""
    kind = {"set": "set", "insert": "delete", "delete": "insert"}[op.kind]
    return DataOp(kind, op.parent, op.key, op.new, op.old, op.position)
