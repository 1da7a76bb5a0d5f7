"""The open draft as the TUI sees it: one :class:`DraftSession`, the base snapshot's change states, and the
problems of each key path, with every change announced to the screens.

Why a separate object: screens come and go, the draft stays. Every edit goes through :meth:`Editor.set` (or the
other verbs), which returns the problems of what it touched and never raises for bad input: a refused edit (a
literal secret, a read-only draft) becomes a notification, and the draft is unchanged.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.draft.session import AppRow, Change, ChangeKind, peek_app_rows

if TYPE_CHECKING:
    from tenantdeck.draft.session import DraftSession, PathLike
    from tenantdeck.problems import Problem

if TYPE_CHECKING:
    from tenantdeck.policies.view import FleetPolicies

#: A draft this big opens on its first apps, read from the start of the file, while a worker reads the rest: 5,000
#: apps (7.7 MB) take 0.8 s to parse, which held back the first frame (bench/tui_startup.py).
PROGRESSIVE_MIN_BYTES = 1_000_000
#: A draft of this size range also opens on its first apps, and the UI thread reads it right after that first frame
#: (a parse short enough not to need a worker): a 100-app draft of the benchmark's shape (0.2 MB) parses in 15-25 ms,
#: with 10 ms more of the session's own imports, out of a first frame whose target is 1.3x a bare Textual app's
#: 0.25 s. Below it the whole parse costs about what reading the first apps does; above it, up to
#: PROGRESSIVE_MIN_BYTES, the draft is still read before the first frame (as before issue 24).
PAINT_FIRST_BYTES = range(32_000, 256_000)
#: how many apps that first frame shows (as many as a tall terminal has lines; a taller one gets the rest a moment
#: later, once the whole draft is read)
PREVIEW_APPS = 40
#: how much of a big draft's text is read first for those apps (more when they are not all in it)
PEEK_BYTES = 256 * 1024


@dataclass(slots=True)
class EditOutcome:
    """Whether an edit was made, and if not why (then nothing changed). Its problems are not carried here: the
    screens read them from the session (``Editor.problems_at``) when the change is broadcast."""

    refused: str = ""

    @property
    def ok(self) -> bool:
        return not self.refused


def display_path(path: Path, width: int = 28) -> str:
    """The draft's path as a title shows it: relative to the current directory when it is below it (the common
    case: just the file name), else from ``~``, else absolute. Past ``width`` characters the middle directories
    give way to ``…`` (``~/…/demo/tenantdeck.yaml``), so the app's name still fits beside it at 80
    columns. The demo's draft lives under the user data directory, and nothing else said where."""
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        shown = str(absolute.relative_to(Path.cwd()))
    except ValueError:
        try:
            shown = "~/" + str(absolute.relative_to(Path.home()))
        except (ValueError, RuntimeError):
            shown = str(absolute)
    if len(shown) <= width:
        return shown
    first, *middle, last = shown.split("/")
    tail = [last]
    for part in reversed(middle):
        if len(first) + len("/…/") + len("/".join([part, *tail])) > width:
            break
        tail.insert(0, part)
    return f"{first}/…/{'/'.join(tail)}"


class Editor:
    """Owns the session of one draft file; ``on_change`` is called after every change (the app posts a message)."""

    def __init__(self, path: Path, *, profile: str | None = None) -> None:
        self.path = path
        self.profile = profile
        self._listeners: list[Callable[[Change], None]] = []
        self._session: DraftSession | None = None
        self._load_lock = threading.Lock()
        #: the draft is read on the UI thread right after the first frame, not by a worker (see PAINT_FIRST_BYTES)
        self.read_after_paint = False
        #: the first apps of a big draft, shown while the rest is read (None once it is, or for a small draft)
        self.preview: list[AppRow] | None = self._peek()
        if self.preview is None:
            self.load()
        self.app_states: dict[str, str] = {}  #: app key path -> "new" | "modified" | "in sync" | "no base"
        self._states: Any = None  # sync.workspace.offline.AppStates, made on first use (imports pydantic)
        self._stale_apps: set[int] | None = None  # apps edited since the states were computed; None: all
        self._stale_lock = threading.Lock()
        self._policies: Any = None  # policies.view.FleetPolicies, made on first use

    # -- opening -----------------------------------------------------------------------------------------------

    def _peek(self) -> list[AppRow] | None:
        """The first rows of a big draft, read from the start of the file only; None for a small one (read at once).

        Only the head of the file is read (:data:`PEEK_BYTES`, four times more until it holds the first apps):
        reading and decoding all of a 25 MB draft and handing it to the parser cost about 35 ms of CPU before the
        first frame, three times what parsing its first apps does. One app more than shown is read, so that the
        last one shown is whole (a head cut inside an app still parses, as an app with its last keys missing).
        """
        from tenantdeck import safefile

        try:
            size = self.path.stat().st_size
            self.read_after_paint = size in PAINT_FIRST_BYTES and size < PROGRESSIVE_MIN_BYTES
            if size < PROGRESSIVE_MIN_BYTES and not self.read_after_paint:
                return None
            with safefile.open_regular(self.path) as (fh, _):
                head = fh.read(PEEK_BYTES)
                while True:
                    whole = len(head) >= size
                    rows = peek_app_rows(head.decode("utf-8", errors="strict" if whole else "ignore"),
                                         PREVIEW_APPS + 1)
                    if whole or (rows is not None and len(rows) > PREVIEW_APPS):
                        return None if rows is None else rows[:PREVIEW_APPS]
                    head += fh.read(len(head) * 3)
        except (OSError, UnicodeDecodeError):
            return None  # the session says what is wrong with the file

    @property
    def loaded(self) -> bool:
        """The whole draft has been read (always, except for a big one in its first second)."""
        return self._session is not None

    @property
    def session(self) -> DraftSession:
        """The open draft. Reading a big one is the app's worker's job; a use before it is done reads it (or waits
        for the worker), so nothing ever sees a half-read draft."""
        if self._session is None:
            self.load()
        assert self._session is not None
        return self._session

    def unreadable(self) -> str:
        """Why the draft cannot be read as a draft (then it is read-only, and no screen may give a verdict on it:
        "0 apps", "every app complies", "Plan: 0"), as one sentence with the located line; "" when it can. The one
        rule every screen asks, so they say the same. Plain text (the problem may quote the file): escape it."""
        if not self.loaded or not self.session.read_only:
            return ""
        first = next(iter(self.session.problems), None)
        where = f" (line {first.line}: {first.message})" if first is not None and first.line else (
            f" ({first.message})" if first is not None else "")
        return f"{self.path.name} cannot be read as a draft{where}; F8 shows it, `e` fixes it in $EDITOR."

    def edit_refusal(self) -> str:
        """Why no edit can be made now (the session's refusal, located), "" when one can (or while a big draft is
        still being read: its edits wait for it, they are not refused)."""
        return self.session.edit_refusal() if self.loaded else ""

    def load(self) -> bool:
        """Read the whole draft; True when this call did it (False: it was already read)."""
        with self._load_lock:
            if self._session is not None:
                return False
            from tenantdeck.draft.session import DraftSession

            session = DraftSession.open(self.path, validate=False)
            session.subscribe(self._changed)
            self._session = session
            self.preview = None
            return True

    # -- listening ---------------------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Change], None]) -> None:
        self._listeners.append(listener)

    def _changed(self, change: Change) -> None:
        self._note_stale(change)
        for listener in list(self._listeners):
            listener(change)

    # -- reading -----------------------------------------------------------------------------------------------

    @property
    def title(self) -> str:
        """Where the draft is (:func:`display_path`), with a ``*`` while it has unsaved edits."""
        return f"{display_path(self.path)}{' *' if self._session is not None and self._session.dirty else ''}"

    def get(self, path: PathLike, default: Any = None) -> Any:
        return self.session.get(path, default)

    def problems_at(self, path: PathLike) -> list[Problem]:
        """The problems whose key path is ``path`` or lies under it."""
        return self.session.problems_under(path)

    # -- editing -----------------------------------------------------------------------------------------------

    def _do(self, fn: Callable[[], Sequence[Problem] | None]) -> EditOutcome:
        from tenantdeck.draft.session import DraftSessionError

        try:
            fn()
            return EditOutcome()
        except DraftSessionError as exc:
            return EditOutcome(refused=exc.problem.message)

    def set(self, path: PathLike, value: Any) -> EditOutcome:
        return self._do(lambda: self.session.set(path, value))

    def insert(self, path: PathLike, item: Any) -> EditOutcome:
        return self._do(lambda: self.session.insert(path, item))

    def delete(self, path: PathLike) -> EditOutcome:
        return self._do(lambda: self.session.delete(path))

    def set_many(self, edits: Sequence[tuple[PathLike, Any]]) -> EditOutcome:
        return self._do(lambda: self.session.set_many(edits))

    def apply(self, edits: Sequence[tuple[str, PathLike, Any]]) -> EditOutcome:
        """(verb, path, value) edits (set, insert, delete) as one undo step, refused as a whole."""
        return self._do(lambda: _apply_all(self.session, edits))

    def undo(self) -> EditOutcome:
        return self._do(self.session.undo)

    def redo(self) -> EditOutcome:
        return self._do(self.session.redo)

    def undo_words(self, which: str) -> str:
        """What the next undo or redo changes, in words for a notice: ``apps[0].widgets[0].main.send_gifs`` (and
        how many more places, for a bulk edit or a pull); empty when there is nothing to do."""
        paths = list(dict.fromkeys(self.session.next_paths(which)))
        if not paths:
            return ""
        more = f" and {len(paths) - 1} more place{'s' if len(paths) != 2 else ''}" if len(paths) > 1 else ""
        return f"{paths[0]}{more}"

    @property
    def policies(self) -> FleetPolicies:
        """The fleet policies beside the draft and their verdict on it (:mod:`tenantdeck.policies.view`): made on
        first use (nothing is read until a screen asks), then told of every change so only edited apps are
        evaluated again."""
        if self._policies is None:
            from tenantdeck.policies.view import FleetPolicies

            self._policies = FleetPolicies(self.path)
            self.subscribe(self._policies.note)
        return self._policies  # type: ignore[no-any-return]

    # -- change states against the base snapshot (offline, no network) ------------------------------------------

    def last_read(self, app_id: str | None) -> dict[str, Any] | None:
        """App ``app_id`` as the service had it at the last pull or push (the base), or None."""
        from tenantdeck.sync.workspace.offline import AppStates

        if not app_id:
            return None
        if self._states is None:
            self._states = AppStates(self.path)
        return self._states.last_read(app_id)

    def kept_states(self) -> Any:
        """The change states kept so far (an ``AppStates``), or None before the first: a plan of this session's
        models reuses their canonical parts (``plan_draft(reuse=...)``)."""
        return self._states

    def compute_app_states(self) -> dict[str, str]:
        """Each app's state against the base snapshot: new (no id), no base, in sync or modified.

        Runs the offline comparison of the CLI's ``diff --offline`` on the session's in-memory data; slow on big
        drafts (canonicalising every app), so the app calls it in a worker thread. Only the apps edited since the
        last call are compared again (the comparison and the base snapshot are kept in
        :class:`~tenantdeck.sync.workspace.offline.AppStates`), so a bulk edit refreshes its apps only, from the
        models the session validated (not validated again) and, of each app, only the kinds whose models changed.
        """
        from tenantdeck.sync.workspace.offline import AppStates

        with self._stale_lock:
            stale, self._stale_apps = self._stale_apps, set()
        if self._states is None:
            self._states = AppStates(self.path)
            stale = None
        try:
            states = self._states.compute(self.session.data, env=os.environ, only=stale,
                                          models=self.session.validated_models())
        except BaseException:
            with self._stale_lock:
                self._stale_apps = None  # whatever failed, the next call compares everything
            raise
        self.app_states = states
        return states

    def _note_stale(self, change: Change) -> None:
        """Remember which apps a change edited (all of them for a preset, the app list, a reload)."""
        if change.kind in (ChangeKind.VALIDATE, ChangeKind.SAVE):
            return
        indexes = change.edited_apps() or set()
        with self._stale_lock:
            if not indexes or self._stale_apps is None:
                self._stale_apps = None
            else:
                self._stale_apps |= indexes




def _apply_all(session: DraftSession, edits: Sequence[tuple[str, PathLike, Any]]) -> list[Problem]:
    with session.transaction() as tx:
        for verb, path, value in edits:
            session.delete(path) if verb == "delete" else getattr(session, verb)(path, value)
    return tx.problems
