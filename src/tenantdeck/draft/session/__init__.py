"""An open draft for interactive use: edits and their problems in milliseconds, saves that change only what changed.

The CLI reads a draft, validates it and exits; an editor keeps it open. :class:`DraftSession` reads the file once
and holds its text, plain data and problems. Each edit (:meth:`~DraftSession.set`, :meth:`~DraftSession.insert`,
:meth:`~DraftSession.delete`, undo and redo) changes the data, splices the text of just that value
(:mod:`tenantdeck.draft.splice`) and re-validates only what it touched: the one app, or every app whose widgets
extend an edited preset. :meth:`~DraftSession.save` writes that text atomically, so hand comments, key order and
quoting elsewhere survive byte for byte and a toggle is a one-line ``git diff`` (a value written raw with a
control or bidi character is escaped in place first: docs/security.md).

Problems are kept per app and per preset with lines relative to where that app is written, so an edit above them
moves no stored problem; absolute lines are added when :attr:`~DraftSession.problems` is read.

Opening does not need pydantic: ``DraftSession.open(path, validate=False)`` parses (PyYAML's C parser) and the
data can be shown at once; :meth:`~DraftSession.validate_all` can run later, in a worker thread. A session is not
meant to be edited from two threads at once; its methods hold a lock so that a worker's validation and the UI's
edits take turns.

One concern per module; :class:`DraftSession` (:mod:`.facade`) is the one entry point and puts them together:

* :mod:`.paths` — key paths and walking the data; :mod:`.errors` — what the session refuses;
* :mod:`.validation` — per-scope problems and incremental re-validation; :mod:`.placing` — problems at lines;
* :mod:`.regions` — where each app and preset is written; :mod:`.splicing` — text edits and the ruamel fallback;
* :mod:`.editing` — edits as data, applied and taken back; :mod:`.history` — undo/redo steps and transactions;
* :mod:`.disk` — reading, changed-on-disk, compare-and-swap saves; :mod:`.signal` — the change broadcast;
* :mod:`.rows` — the apps list's rows before validation.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenantdeck.draft.session.disk import SaveResult
    from tenantdeck.draft.session.errors import (
        CHANGED_ON_DISK,
        ChangedOnDisk,
        DraftSessionError,
        PathNotFound,
        ReadOnlyDraft,
    )
    from tenantdeck.draft.session.facade import DraftSession
    from tenantdeck.draft.session.history import Transaction
    from tenantdeck.draft.session.paths import PathLike
    from tenantdeck.draft.session.rows import AppRow, peek_app_rows
    from tenantdeck.draft.session.signal import Change, ChangeKind
    from tenantdeck.problems import parse_path

#: where each name of the package lives. Loaded on first use (PEP 562), so that the editor's first frame, which
#: needs ``Change``, ``ChangeKind`` and ``AppRow`` only, does not import the session's editing, splicing, saving and
#: history modules (about 10 ms of a first paint whose target is 1.3x a bare Textual app; bench/tui_startup.py).
_WHERE = {
    "SaveResult": "disk",
    "CHANGED_ON_DISK": "errors",
    "ChangedOnDisk": "errors",
    "DraftSessionError": "errors",
    "PathNotFound": "errors",
    "ReadOnlyDraft": "errors",
    "DraftSession": "facade",
    "Transaction": "history",
    "PathLike": "paths",
    "AppRow": "rows",
    "peek_app_rows": "rows",
    "Change": "signal",
    "ChangeKind": "signal",
}


def __getattr__(name: str) -> Any:
    if name == "parse_path":
        from tenantdeck.problems import parse_path

        return parse_path
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CHANGED_ON_DISK",
    "AppRow",
    "Change",
    "ChangeKind",
    "ChangedOnDisk",
    "DraftSession",
    "DraftSessionError",
    "PathLike",
    "PathNotFound",
    "ReadOnlyDraft",
    "SaveResult",
    "Transaction",
    "parse_path",
    "peek_app_rows",
]
