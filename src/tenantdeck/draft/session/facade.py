"""The session: one draft file open for editing, and the one entry point to everything the package does.

:class:`DraftSession` keeps the text, the plain data and the problems in memory; each part of its work lives in
its own module (see the package's docstring) and this class puts them together: the public verbs take the lock,
run the parts in order and tell the listeners once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tenantdeck.draft import splice, yamlsource
from tenantdeck.draft.session.disk import DiskWatch, Redirected, SaveResult, read_bytes
from tenantdeck.draft.session.editing import EditingMixin
from tenantdeck.draft.session.errors import CHANGED_ON_DISK, ChangedOnDisk, DraftSessionError, PathNotFound
from tenantdeck.draft.session.history import Entry, History, Transaction, keep_in_step
from tenantdeck.draft.session.paths import MISSING, PathLike, copied, parts_of, walk
from tenantdeck.draft.session.placing import PlacingMixin
from tenantdeck.draft.session.regions import RegionsMixin
from tenantdeck.draft.session.rows import AppRow, row_of
from tenantdeck.draft.session.signal import Change, ChangeKind, ChangeSignal
from tenantdeck.draft.session.splicing import SplicingMixin, guess_indent
from tenantdeck.draft.session.validation import Scope, ValidationMixin, edited_fields
from tenantdeck.gcpause import paused_gc
from tenantdeck.problems import Problem, Severity, format_path, sort_problems


@dataclass(frozen=True, slots=True)
class OnDisk:
    """What :meth:`DraftSession.on_disk` found: the file's bytes now (None: it is gone), why they cannot be read as
    a draft (empty: they can) and, when the path now leads elsewhere than the file opened, the sentence that says
    where (else "")."""

    raw: bytes | None
    problems: tuple[Problem, ...]
    redirect: str

    @property
    def readable(self) -> bool:
        return self.raw is not None and not self.problems


def unreadable(parsed: yamlsource.Parsed, file: str) -> list[Problem]:
    """Why a parsed text cannot be read as a draft (a syntax error, aliases, empty, not a mapping), located; empty
    when it can. The one rule of opening, reloading, restoring and looking at a changed file on disk."""
    if parsed.fatal or parsed.empty:
        return parsed.problems or [Problem(Severity.ERROR, "the file holds no draft", (), file, 1, 1, "draft-type")]
    if not isinstance(parsed.data, dict):
        got = "a list" if isinstance(parsed.data, list) else "a single value"
        message = f"a draft is a mapping with the keys format, presets and apps; this file holds {got}"
        return [Problem(Severity.ERROR, message, (), file, 1, 1, "draft-type")]
    return []


class DraftSession(PlacingMixin, ValidationMixin, SplicingMixin, RegionsMixin, EditingMixin):
    """One draft file, open for editing. Create with :meth:`open`.

    Owns the path, ``text``, ``data``, ``version``, ``read_only`` (and ``_fatal``, why), the lock, and three
    collaborators: ``_disk`` (:class:`~.disk.DiskWatch`), ``_history`` (:class:`~.history.History`) and
    ``_signal`` (:class:`~.signal.ChangeSignal`). The mixins each own the state their docstring names.
    """

    #: undo steps kept; older ones are forgotten
    history_limit = 500

    def __init__(self, path: str | os.PathLike[str], display: str | None = None) -> None:
        self.path = os.fspath(path)
        self.file = display if display is not None else self.path
        self.text: str = ""
        self.data: Any = None
        self.version = 0
        self.read_only = False
        self._fatal: list[Problem] = []
        self._lock = threading.RLock()
        self._disk = DiskWatch(self.path)
        self._history = History()
        self._signal = ChangeSignal()
        self._init_validation()
        self._init_placing()
        self._init_regions()
        self._init_splicing()
        self.use_parse_cache = True  #: read (and :meth:`remember_parse` writes) the cache of parsed big drafts
        self.parsed_from_cache = False  #: the data came from the parse cache, not from parsing the text
        self._parse_clean = False
        #: why the file on disk, which the session no longer stands on, cannot be read as a draft (set by
        #: :meth:`on_disk`, cleared by the next read or save): ``tenantdeck validate`` fails on it meanwhile
        self.disk_problems: list[Problem] = []

    # -- opening -----------------------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        validate: bool = True,
        display: str | None = None,
        max_bytes: int = yamlsource.MAX_BYTES,
    ) -> DraftSession:
        """Read and parse the draft at ``path``; never raises for anything in the file.

        A file that cannot be read as a draft's data (missing, not UTF-8, a YAML syntax error, aliases, not a
        mapping) gives a read-only session whose :attr:`problems` say why. With ``validate=False`` the models are
        not imported: :attr:`data` and :meth:`app_rows` are ready, :meth:`validate_all` runs later.
        """
        session = cls(path, display)
        session._read(max_bytes)
        if validate and not session.read_only:
            session.validate_all()
        return session

    def _read(self, max_bytes: int) -> None:
        self.read_only = False
        self.validated = False
        self._fatal = []
        self._history.clear()
        self._used_ruamel = False
        self._raw_checked = False
        self.disk_problems = []
        raw, problems = read_bytes(self.path, self.file, max_bytes)
        if raw is None:
            self._read_only(None, problems)
            self._disk.remember(None)  # too big or unreadable: its stat still tells a later change from none
            return
        text, problems = yamlsource.decode(raw, self.file)
        if text is None:
            self._read_only(None, problems)
            self._disk.remember(raw)
            return
        self.text = text
        self._disk.base_text = text
        self._disk.remember(raw)
        self._parse_all()

    def _read_only(self, text: str | None, problems: list[Problem]) -> None:
        self.read_only = True
        self.data = None
        self.text = text or ""
        self._fatal = sort_problems(problems)
        self._layout = None
        # announced like a good read: a reload that finds the file broken must redraw what showed the old data
        self._bump(ChangeKind.RELOAD, (), [])

    def _parse_all(self) -> None:
        """Data, layout and YAML-level problems of the whole text (on open, reload and after a ruamel merge)."""
        from tenantdeck.draft import parsecache

        cached = parsecache.load(self.text) if self.use_parse_cache else None
        parsed = yamlsource.Parsed(data=cached) if cached is not None else yamlsource.parse(self.text, self.file)
        self.parsed_from_cache = cached is not None
        self._parse_clean = not (parsed.problems or parsed.surprises or parsed.duplicates or parsed.fatal
                                 or parsed.empty or parsed.aliases)
        broken = unreadable(parsed, self.file)
        if broken:
            from tenantdeck.draft.raw_scalars import comment_problems

            # what validate says of the same text: the comments before the error too (load.load_text)
            self._read_only(self.text, broken + comment_problems(self.text, self.file))
            return
        self.read_only = False
        self.data = parsed.data
        # Scanned on first use (the first edit, or placing problems in the validation worker), not before the
        # first paint: 0.1-0.2 s of regular expressions over a 7.7 MB draft. Every data change touches it first,
        # so it is always the layout of the text and data as they were read.
        self._layout_pending = True
        mapping, _, offset = guess_indent(self.text)
        self._indent = splice.Indent(mapping, offset)
        apps = self.data.get("apps")
        presets = self.data.get("presets")
        self._apps = [Scope() for _ in apps] if isinstance(apps, list) else []
        self._presets = {name: Scope() for name in presets} if isinstance(presets, dict) else {}
        self._root = Scope()
        self._app_objs = [None] * len(self._apps)
        self._preset_objs = {}
        self._checker = None
        self._unique = []
        self._comment_memo = {}  # a text read anew: what was a comment is judged again
        self._place_text_problems(parsed)
        self._bump(ChangeKind.RELOAD, (), [])

    # -- reading -----------------------------------------------------------------------------------------------

    def remember_parse(self) -> bool:
        """Keep the parse of the file as read (or last saved) in the parse cache (:mod:`tenantdeck.draft.parsecache`)
        so that the next open of the same text skips parsing; only for a big, clean draft with no unsaved edits
        (its data is then the file's). Meant for a worker after the first paint: it costs a serialisation and a
        write. True when an entry was written."""
        from tenantdeck.draft import parsecache

        with self._lock:
            if (not self.use_parse_cache or self.read_only or self.dirty or self.parsed_from_cache
                    or not self._parse_clean or len(self.text) < parsecache.MIN_CHARS):
                return False
            return parsecache.store(self.text, self.data)

    @property
    def dirty(self) -> bool:
        """True when the text differs from what was last read or saved."""
        return self.text != self._disk.base_text

    @property
    def base_text(self) -> str:
        """The text the session is based on: what was last read from or saved to the file (a recovery file records
        its hash, so a restore can tell whether the file changed since)."""
        return self._disk.base_text

    @property
    def can_undo(self) -> bool:
        return bool(self._history.undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._history.redo)

    @property
    def _undo(self) -> list[Entry]:
        """The undo steps, oldest first (tests look at what the last step recorded)."""
        return self._history.undo

    def snapshot(self) -> tuple[int, Any]:
        """(:attr:`version`, a deep copy of :attr:`data` (:func:`~.paths.copied`)), taken together under the
        session's lock: what a worker reads while the user may go on editing. Meant to be called in the worker: at
        1,000 apps the copy is ~10 ms (40-60 with ``copy.deepcopy``), which the Problems and Pull screens paid before
        their first frame when they copied on the UI thread."""
        with self._lock:
            return self.version, copied(self.data)

    def get(self, path: PathLike, default: Any = MISSING) -> Any:
        """A copy of the value at ``path`` (``PathNotFound`` when it is not there and no default is given)."""
        with self._lock:
            parts = parts_of(path)
            try:
                return copied(walk(self.data, parts))
            except (KeyError, IndexError, TypeError):
                if default is not MISSING:
                    return default
                where = format_path(parts) or "the draft"
                raise PathNotFound(f"{where} is not in the draft", parts, self.file) from None

    def app_rows(self) -> list[AppRow]:
        """Index, name, region, id and widget/webhook counts of every app, straight from the parsed data (no
        validation, no copy of the data: an Apps list of 5,000 apps is painted from this before anything else)."""
        apps = self.data.get("apps") if isinstance(self.data, dict) else None
        if not isinstance(apps, list):
            return []
        return [row_of(i, a) for i, a in enumerate(apps)]

    def app_row(self, index: int) -> AppRow | None:
        """The :meth:`app_rows` entry of one app (None when there is no such app): a list updates one row."""
        apps = self.data.get("apps") if isinstance(self.data, dict) else None
        if not isinstance(apps, list) or not 0 <= index < len(apps):
            return None
        return row_of(index, apps[index])

    # -- listening ---------------------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Change], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        return self._signal.subscribe(listener)

    def _bump(self, kind: ChangeKind, paths: Sequence[str], problems: Sequence[Problem]) -> None:
        self.version += 1
        self._problems_cache = None
        self._signal.emit(Change(self.version, kind, tuple(paths), tuple(problems)))

    # -- editing -----------------------------------------------------------------------------------------------

    def set(self, path: PathLike, value: Any) -> list[Problem]:
        """Set the value at ``path``; a missing key (and missing mappings above it) is added. Returns the problems
        of what the edit touched."""
        return self._edit("set", parts_of(path), value)

    def insert(self, path: PathLike, item: Any) -> list[Problem]:
        """Add ``item``: at ``apps[2]`` (before the third app), at ``apps`` (appended to the list), or as a new key
        (``presets.sales``, ``apps[0].widgets[0].main.send_gifs``). Returns the problems of what it touched."""
        return self._edit("insert", parts_of(path), item)

    def delete(self, path: PathLike) -> list[Problem]:
        """Remove the key or list item at ``path``. Returns the problems of what it touched."""
        return self._edit("delete", parts_of(path), None)

    def set_many(self, edits: Sequence[tuple[PathLike, Any]]) -> list[Problem]:
        """Several ``set``s as one undo step, validated once (a bulk edit across many apps).

        Edits inside apps are written in one pass: each one rewrites only the few lines of its entry (found by
        :func:`splice.locate`, checked to read back as the data), and the text is assembled once at the end, so
        5,000 edits cost 5,000 small splices, not 5,000 copies of the draft. Anything else (a preset, the app list
        itself, a draft not laid out in blocks) takes the general path, one edit at a time.
        """
        with paused_gc():  # 5,000 apps' new models and the undo step: no garbage cycles (tenantdeck.gcpause)
            return self._set_many(edits)

    def _set_many(self, edits: Sequence[tuple[PathLike, Any]]) -> list[Problem]:
        parsed = [(parts_of(path), value) for path, value in edits]
        with self._lock:
            self._writable()
            if self._history.tx is None and self._layout is not None and self._layout.apps is not None and all(
                len(parts) >= 3 and parts[0] == "apps" and isinstance(parts[1], int) and not isinstance(parts[1], bool)
                and 0 <= parts[1] < len(self._layout.apps)
                for parts, _ in parsed
            ):
                entry = Entry()
                try:
                    self._bulk(entry, parsed)
                    done = True
                except (splice.CannotSplice, DraftSessionError):
                    self._take_back(entry)  # the general path below says what is wrong, or writes it another way
                    done = False
                except BaseException:
                    self._take_back(entry)
                    raise
                if done:
                    if not entry.data:
                        return []
                    self._history.push(entry, self.history_limit)
                    problems = self._revalidate(entry.touched, edited_fields(entry))
                    self._bump(ChangeKind.TRANSACTION, entry.paths, problems)
                    return problems
        with self.transaction() as tx:
            for parts, value in parsed:
                self.set(parts, value)
        return tx.problems

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Group edits into one undo step, validated once at the end; on an exception they are all undone."""
        with self._lock:
            if self._history.tx is not None:  # nested: part of the outer one
                yield Transaction()
                return
            self._history.tx = Entry()
            self._history.tx_start = self.text
            tx = Transaction()
            try:
                yield tx
            except BaseException:
                entry, self._history.tx = self._history.tx, None
                self._take_back(entry)
                raise
            entry, self._history.tx = self._history.tx, None
            if entry.data:
                self._history.push(entry, self.history_limit)
                tx.problems = self._revalidate(entry.touched, edited_fields(entry))
                self._bump(ChangeKind.TRANSACTION, entry.paths, tx.problems)

    def next_paths(self, which: str) -> list[str]:
        """The key paths the next ``"undo"`` or ``"redo"`` would change (empty: nothing to do), so a UI can say
        what it took back rather than only that it did."""
        with self._lock:
            return self._history.next_paths(which)

    def undo(self) -> list[Problem] | None:
        """Take back the last edit (or transaction); None when there is nothing to undo."""
        with self._lock, paused_gc():  # a bulk edit's undo re-validates its apps (see set_many)
            self._writable()
            if not self._history.undo:
                return None
            entry = self._history.undo.pop()
            touched = self._unapply(entry)
            self._history.redo.append(entry)
            problems = self._revalidate(touched, edited_fields(entry))
            self._bump(ChangeKind.UNDO, entry.paths, problems)
            return problems

    def redo(self) -> list[Problem] | None:
        """Make the last undone edit again; None when there is nothing to redo."""
        with self._lock, paused_gc():
            self._writable()
            if not self._history.redo:
                return None
            entry = self._history.redo.pop()
            touched = self._reapply(entry)
            self._history.undo.append(entry)
            problems = self._revalidate(touched, edited_fields(entry))
            self._bump(ChangeKind.REDO, entry.paths, problems)
            return problems

    # -- disk ---------------------------------------------------------------------------------------------------

    def changed_on_disk(self) -> bool:
        """True when the file no longer holds what was read or last saved (someone else, or an editor, wrote it).

        Cheap enough for a timer on a draft of tens of MB: a ``stat`` answers while the file's size, time and inode
        are the ones recorded; only when they change is the content hashed (streamed, never decoded), and the
        verdict for that stat is kept, so a file that changed and was kept as it is is not read again every check.
        ``touch`` or a rewrite with the same bytes is not a change.
        """
        with self._lock:
            return self._disk.changed()

    def on_disk(self) -> OnDisk:
        """What the file holds now, for a UI choosing what to offer once :meth:`changed_on_disk` said it changed:
        its bytes (None: gone, or not read: a FIFO, a device), why they cannot be read as a draft (the problems a
        reload would open read-only with, located; empty when they can) and, when a symbolic link was put in the
        draft's place since it was opened, where it leads (a save refuses to write there). The problems are also
        kept as :attr:`disk_problems` until the next read or save."""
        with self._lock:
            redirect = self._disk.redirected()
            raw, problems = read_bytes(self.path, self.file, yamlsource.MAX_BYTES)
            if raw is None and any(p.code == "file-missing" for p in problems):
                self.disk_problems = []
                return OnDisk(None, (), redirect)
            if raw is not None:
                text, problems = yamlsource.decode(raw, self.file)
                if text is not None:
                    problems = unreadable(yamlsource.parse(text, self.file), self.file)
            self.disk_problems = list(problems)
            return OnDisk(raw, tuple(problems), redirect)

    def save(self, *, force: bool = False, backup: bool = True) -> SaveResult:
        """Write the text atomically (``<name>.bak`` keeps the previous version), each value written raw with a
        control or bidi character escaped first (docs/security.md; :meth:`_escape_raw_scalars`).

        Raises :class:`ChangedOnDisk`, writing nothing, when the file changed since it was read or last saved,
        unless ``force``. Refuses to write a literal secret the file did not already hold.
        """
        with self._lock:
            self._writable()
            moved = self._disk.redirected()
            if moved:  # before "changed on disk": no offer to overwrite a file that is not the draft
                raise Redirected(moved, (), self.file, "redirected")
            if not force and self.changed_on_disk():
                raise ChangedOnDisk(CHANGED_ON_DISK, (), self.file, "changed-on-disk")
            if not self.dirty and not force:
                return SaveResult(self.path, "unchanged", 0)
            escaped = self._escape_raw_scalars()  # docs/security.md: no raw control or bidi character in the file
            if escaped is not None:
                keep_in_step(self._history, escaped, self.text)
            written = self._disk.write(self.text, force=force, backup=backup, file=self.file)
            method = "ruamel" if self._used_ruamel else "splice"
            self._used_ruamel = False
            self.disk_problems = []
            self._bump(ChangeKind.SAVE, (), [])
            return SaveResult(self.path, method, len(written))

    def restore_text(self, text: str) -> None:
        """Replace the session's text with ``text`` (unsaved edits recovered after a crash or a hang-up).

        The file is not touched: the session is based on what was read from disk, so it is dirty and a save writes
        the restored text (asking first, as any save does, when the file changed on disk). Undo history is dropped
        and validation starts over (:meth:`validate_all`). A text that cannot be read as a draft is refused
        (:class:`DraftSessionError`) and nothing changes.
        """
        with self._lock:
            self._writable()
            broken = unreadable(yamlsource.parse(text, self.file), self.file)
            if broken:
                first = broken[0].render()
                raise DraftSessionError(f"the recovered text cannot be read as a draft: {first}", (), self.file,
                                        "unrestorable")
            self._history.clear()
            self.validated = False
            self.text = text
            self._used_ruamel = True  # a whole text: the next save reports it as such
            self._raw_checked = False
            self._parse_all()

    def reload(self) -> list[Problem]:
        """Read the file again, dropping edits and undo history; returns :attr:`problems`."""
        with self._lock:
            validate = self.validated
            self._read(yamlsource.MAX_BYTES)
            if validate and not self.read_only:
                return self.validate_all()
            return self.problems
