"""The change broadcast: after every change the session tells its listeners what changed, in one :class:`Change`.

A listener is any callable taking a :class:`Change` (the TUI's editor re-posts each one as a Textual message); it
runs in the thread that made the change, under the session's lock, so it must be quick and must not edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from tenantdeck.problems import Problem


class ChangeKind(StrEnum):
    """What a change was. Listeners compare with the members; a member still equals its old string (``"save"``),
    so code written against the strings keeps working."""

    SET = "set"
    INSERT = "insert"
    DELETE = "delete"
    UNDO = "undo"
    REDO = "redo"
    #: several edits as one undo step (a transaction, a bulk edit)
    TRANSACTION = "transaction"
    SAVE = "save"
    #: the whole text was read again (open, reload, a restored text)
    RELOAD = "reload"
    #: a full validation finished: every problem may have changed
    VALIDATE = "validate"
    #: the TUI's own: the base snapshot took in a pull (the draft's text did not change)
    PULL = "pull"


@dataclass(frozen=True, slots=True)
class Change:
    """Told to listeners after every change (once: a save too): ``kind`` says what it was; ``paths`` are the edited
    paths; ``problems`` those of what the change touched."""

    version: int
    kind: ChangeKind
    paths: tuple[str, ...]
    problems: tuple[Problem, ...]

    def edited_apps(self) -> set[int] | None:
        """The indexes of the apps this change edited inside, or None when it reached beyond single apps (a
        preset, the app list itself, a reload): whoever keeps something per app recomputes all of it then."""
        indexes: set[int] = set()
        for path in self.paths:
            m = _APP_PATH.match(path)
            if m is None:
                return None
            indexes.add(int(m.group(1)))
        return indexes or None


#: a path inside one app (``apps[3].widgets[0]...``), not the app list itself (``apps``, ``apps[3]``)
_APP_PATH = re.compile(r"apps\[(\d+)\][.\[]")


class ChangeSignal:
    """The session's listeners (it owns only that list); :meth:`emit` calls each in subscription order.

    A listener may unsubscribe itself (or another) while being called: the list is copied for each emit.
    """

    def __init__(self) -> None:
        self._listeners: list[Callable[[Change], None]] = []

    def subscribe(self, listener: Callable[[Change], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, change: Change) -> None:
        """Tell every listener of ``change``, in the order they subscribed."""
        for listener in list(self._listeners):
            listener(change)
