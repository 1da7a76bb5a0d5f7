"""Edits as data: what ``set``, ``insert`` and ``delete`` mean for the plain data (checked before anything
changes), applying them and taking them back, and keeping the scopes in step when apps or presets come and go.

One edit is: the data operation (:meth:`EditingMixin._data_change`), the data changed, the scopes noted
(:meth:`EditingMixin._follow`), the text written (:mod:`.splicing`), one undo step (:mod:`.history`),
re-validation of what it touched (:mod:`.validation`) and one change broadcast (:mod:`.signal`).
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from tenantdeck.draft.session.errors import DraftSessionError, PathNotFound, ReadOnlyDraft
from tenantdeck.draft.session.history import DataOp, Entry, History, dict_insert, do_op, inverse, undo_op
from tenantdeck.draft.session.paths import MISSING, walk
from tenantdeck.draft.session.signal import ChangeKind
from tenantdeck.draft.session.validation import Scope, edited_fields
from tenantdeck.problems import PathPart, Problem, format_path


class EditingMixin:
    """Part of :class:`~tenantdeck.draft.session.DraftSession`: applying edits to the data, both ways.

    Owns no state of its own: it changes ``data`` and the scopes of :mod:`.validation`, records into the
    :class:`~.history.History` (``_history``) and asks :mod:`.splicing` to write the text.
    """

    data: Any
    text: str
    file: str
    read_only: bool
    _lock: threading.RLock
    _fatal: list[Problem]
    _history: History
    _raw_checked: bool  # :mod:`.splicing`'s; undo and redo bring back older text, so they clear it

    def edit_refusal(self) -> str:
        """Why every edit is refused now ("the draft cannot be edited until it can be read: FILE:LINE: ..."), ""
        when edits can be made: a UI greys the keys that would only lead to this, and says it before asking."""
        if not self.read_only:
            return ""
        first = self._fatal[0].render() if self._fatal else "the file cannot be read as a draft"
        return f"the draft cannot be edited until it can be read: {first}"

    def _writable(self) -> None:
        refusal = self.edit_refusal()
        if refusal:
            raise ReadOnlyDraft(refusal, (), self.file, "read-only")

    def _edit(self, kind: str, parts: tuple[PathPart, ...], value: Any) -> list[Problem]:
        with self._lock:
            self._writable()
            if not parts:
                raise PathNotFound("an edit needs a path inside the draft", (), self.file)
            value = copy.deepcopy(value)
            entry = self._history.tx if self._history.tx is not None else Entry()
            mark = (len(entry.data), len(entry.text))
            start_text = self.text
            try:
                self._apply_one(entry, kind, parts, value)
            except BaseException:
                partial = Entry(entry.data[mark[0] :], entry.text[mark[1] :])
                del entry.data[mark[0] :], entry.text[mark[1] :]
                if any(t.kind == "whole" for t in partial.text):
                    partial.before = start_text
                self._take_back(partial, entry.touched if self._history.tx is not None else None)
                raise
            if entry.before is None and any(t.kind == "whole" for t in entry.text[mark[1] :]):
                entry.before = start_text if self._history.tx is None or not mark[1] else self._history.tx_start
            if entry.before is not None:
                entry.after = self.text
            entry.paths.append(format_path(parts))
            if self._history.tx is not None:
                return []
            self._history.push(entry, self.history_limit)
            problems = self._revalidate(entry.touched, edited_fields(entry))
            self._bump(ChangeKind(kind), entry.paths, problems)
            return problems

    def _apply_one(self, entry: Entry, kind: str, parts: tuple[PathPart, ...], value: Any) -> None:
        op = self._data_change(kind, parts, value)
        if op.kind != "delete":
            self._refuse_literal_secrets(op)
        entry.data.append(op)
        _ = self._layout  # scanned from the data as read, before this change (see _parse_all)
        do_op(self.data, op)
        self._follow(entry.touched, op)
        self._write_text(entry, op)

    def _data_change(self, kind: str, parts: tuple[PathPart, ...], value: Any) -> DataOp:
        """The data operation an edit means, checked against the data (nothing is changed yet)."""
        where = format_path(parts)
        try:
            target = walk(self.data, parts)
            exists = True
        except (KeyError, IndexError, TypeError):
            target, exists = None, False
        if kind == "insert" and exists and isinstance(target, list):
            parts, exists = (*parts, len(target)), False  # insert at a list: append
        parent_path, key = parts[:-1], parts[-1]
        try:
            parent = walk(self.data, parent_path)
        except (KeyError, IndexError, TypeError):
            parent = MISSING
        if kind == "set" and parent is MISSING:
            # missing mappings above a key: add the outermost missing one, holding the rest
            for depth in range(len(parts) - 2, -1, -1):
                try:
                    holder = walk(self.data, parts[:depth])
                except (KeyError, IndexError, TypeError):
                    continue
                rest = parts[depth:]
                if isinstance(holder, dict) and all(isinstance(p, str) for p in rest):
                    nested: Any = value
                    for p in reversed(rest[1:]):
                        nested = {p: nested}
                    return self._data_change("insert", parts[: depth + 1], nested)
                break
            raise PathNotFound(f"{where}: its parent is not in the draft", parts, self.file)
        if parent is MISSING:
            raise PathNotFound(f"{where}: its parent is not in the draft", parts, self.file)
        if isinstance(parent, dict):
            if not isinstance(key, str):
                raise PathNotFound(f"{where}: a mapping is addressed by key, not by position", parts, self.file)
            if kind == "set" and key not in parent:
                kind = "insert"
            if kind == "set":
                return DataOp("set", parent_path, key, parent[key], value, 0)
            if kind == "insert":
                if key in parent:
                    raise PathNotFound(f"{where} is already in the draft; set it instead", parts, self.file)
                return DataOp("insert", parent_path, key, None, value, self._key_position(parts))
            if key not in parent:
                raise PathNotFound(f"{where} is not in the draft", parts, self.file)
            return DataOp("delete", parent_path, key, parent[key], None, list(parent).index(key))
        if isinstance(parent, list):
            if not isinstance(key, int) or isinstance(key, bool):
                raise PathNotFound(f"{where}: a list is addressed by position", parts, self.file)
            size = len(parent)
            if kind == "insert" and 0 <= key <= size:
                return DataOp("insert", parent_path, key, None, value, key)
            if not 0 <= key < size:
                raise PathNotFound(f"{where}: the list has {size} item{'s' * (size != 1)}", parts, self.file)
            if kind == "set":
                return DataOp("set", parent_path, key, parent[key], value, key)
            return DataOp("delete", parent_path, key, parent[key], None, key)
        raise PathNotFound(f"{where}: {format_path(parent_path)} holds a single value", parts, self.file)

    def _refuse_literal_secrets(self, op: DataOp) -> None:
        """The session never writes a literal secret, unless that same value is already written at that place."""
        from tenantdeck.draft.save import _get, _secret_paths
        from tenantdeck.models.secrets import is_reference

        full = (*op.parent, op.key)
        if isinstance(op.new, str):
            found = [(full, op.new)] if _is_secret_path(full) else []
        else:  # a new object: its secrets are found by their place in the draft (the models' SECRET marks)
            found = _secret_paths(op.new, full)
        for path, value in found:
            if is_reference(value) or _get(self.data, path) == value:
                continue
            raise DraftSessionError(
                f"refusing to write a literal secret at {format_path(path)}; use an ${{ENV_VAR}} reference",
                path,
                self.file,
                "literal_secret_write",
            )

    def _key_position(self, parts: tuple[PathPart, ...]) -> int:
        """Where a new key goes among its siblings: after the nearest one before it in the model's key order."""
        parent = walk(self.data, parts[:-1])
        keys = list(parent)
        order = _key_order(parts[:-1])
        key = parts[-1]
        if key not in order:
            return len(keys)
        rank = order.index(key)
        before = [i for i, k in enumerate(keys) if k in order and order.index(k) < rank]
        if before:
            return max(before) + 1
        return 0 if any(k in order for k in keys) else len(keys)

    def _follow(self, touched: set[tuple[str, Any]], op: DataOp) -> None:
        """The one rule of what a data change just applied means for the scopes and for what is checked again:
        an edit's, a redo's, or the inverse an undo applies (:func:`~.history.inverse`).

        An app inserted or removed shifts the scopes (and models) after it, and the app indexes already noted in
        ``touched`` with them, so they name the same apps once the step is done (a transaction that edits an app,
        then removes one above it). An app inserted, which an undo of a removal is too, gets an empty scope and no
        model: it is noted to be validated, else it stays None, which reads as "does not validate" (the change
        states' "unknown", the review's "the draft has errors", while the problems, kept per scope, say none)."""
        full = (*op.parent, op.key)
        if len(full) >= 2 and full[0] == "apps":
            if len(full) == 2 and op.kind != "set":
                at = int(op.key)
                moved = {(kind, key) for kind, key in touched if kind == "app" and key >= at}
                touched -= moved
                step = 1 if op.kind == "insert" else -1
                touched |= {(kind, key + step) for kind, key in moved if op.kind == "insert" or key != at}
                touched.add(("apps", None))
                self._shift_app_scopes(op)
                if op.kind == "insert":
                    touched.add(("app", at))
            else:
                touched.add(("app", full[1]))
        elif len(full) >= 2 and full[0] == "presets":
            if len(full) == 2 and op.kind == "insert":
                self._presets = dict_insert(self._presets, str(op.key), Scope(), op.position)
            elif len(full) == 2 and op.kind == "delete":
                self._presets.pop(str(op.key), None)
            touched.add(("preset", full[1]))
        else:
            touched.add(("root", None))
            if full[0] in ("apps", "presets"):
                touched.add(("whole", None))
                self._reset_scopes()

    def _unapply(self, entry: Entry, touched: set[tuple[str, Any]] | None = None) -> set[tuple[str, Any]]:
        """Take ``entry`` back from the data, the scopes and the text; returns what is to be checked again, indexed
        as the draft is now (added to ``touched`` when given)."""
        touched = set() if touched is None else touched
        _ = self._layout
        self._raw_checked = False  # an older text may hold a value written raw (escaped by a save since)
        for op in reversed(entry.data):
            undo_op(self.data, op)
            self._follow(touched, inverse(op))
        if entry.before is not None:
            self._whole_text(entry.before)
            return touched
        for t in reversed(entry.text):
            self._text_apply(t, forward=False)
        return touched

    def _reapply(self, entry: Entry) -> set[tuple[str, Any]]:
        """Make ``entry`` again (a redo); returns what is to be checked again, indexed as the draft is now."""
        touched: set[tuple[str, Any]] = set()
        _ = self._layout
        self._raw_checked = False
        for op in entry.data:
            do_op(self.data, op)
            self._follow(touched, op)
        if entry.after is not None:
            self._whole_text(entry.after)
            return touched
        for t in entry.text:
            self._text_apply(t, forward=True)
        return touched

    def _take_back(self, entry: Entry, into: set[tuple[str, Any]] | None = None) -> None:
        """Take back edits that failed part-way (no undo step, nothing told). Inside a transaction (``into``: its
        touched) what they moved is checked with the rest at its end; else now, when they moved apps or presets:
        the scopes put back are empty until validated (edits inside apps changed no model yet)."""
        touched = self._unapply(entry, into)
        if into is None and any(kind != "app" for kind, _ in touched):
            self._revalidate(touched)

    def _whole_text(self, text: str) -> None:
        self.text = text
        self._used_ruamel = True
        self._rescan()


def _is_secret_path(path: tuple[PathPart, ...]) -> bool:
    from tenantdeck.draft.pydantic_problems import is_secret
    from tenantdeck.models import Draft

    return is_secret(Draft, path)


def _key_order(parent: tuple[PathPart, ...]) -> list[str]:
    """Keys the model accepts in the mapping at ``parent``, in model order ([] for free-form mappings)."""
    from tenantdeck.draft.pydantic_problems import field_names
    from tenantdeck.models import Draft

    return field_names(Draft, parent)
