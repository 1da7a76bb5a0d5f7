"""An open draft for interactive use: edits and their problems in milliseconds, saves that change only what changed.

The CLI reads a draft, validates it and exits; an editor keeps it open. :class:`DraftSession` reads the file once
and holds its text, plain data and problems. Each edit (:meth:`~DraftSession.set`, :meth:`~DraftSession.insert`,
:meth:`~DraftSession.delete`, undo and redo) changes the data, splices the text of just that value
(:mod:`tenantdeck.draft.splice`) and re-validates only what it touched: the one app, or every app whose widgets
extend an edited preset. :meth:`~DraftSession.save` writes that text atomically, so hand comments, key order and
quoting elsewhere survive byte for byte and a toggle is a one-line ``git diff``.

Problems are kept per app and per preset with lines relative to where that app is written, so an edit above them
moves no stored problem; absolute lines are added when :attr:`~DraftSession.problems` is read.

Opening does not need pydantic: ``DraftSession.open(path, validate=False)`` parses (PyYAML's C parser) and the
data can be shown at once; :meth:`~DraftSession.validate_all` can run later, in a worker thread. A session is not
meant to be edited from two threads at once; its methods hold a lock so that a worker's validation and the UI's
edits take turns.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tenantdeck.draft import splice, yamlsource
from tenantdeck.draft.locate import Positions
from tenantdeck.problems import PathPart, Problem, ProblemError, Severity, format_path, sort_problems

if TYPE_CHECKING:
    from pydantic import ValidationError

    from tenantdeck.models import App, WidgetSettings
    from tenantdeck.rules import WidgetChecker

PathLike = str | Sequence[PathPart]
_MISSING: Any = object()


# --------------------------------------------------------------------------------------------------------------
# Results and errors
# --------------------------------------------------------------------------------------------------------------


class DraftSessionError(ProblemError):
    """An edit or save the session refuses; ``problem`` says why, in the form every diagnostic takes."""

    def __init__(self, message: str, path: Sequence[PathPart] = (), file: str = "", code: str = "session") -> None:
        super().__init__(Problem(Severity.ERROR, message, tuple(path), file, 0, 0, code))


class ReadOnlyDraft(DraftSessionError):
    """The draft could not be read as data (syntax error, not a mapping, ...): it can be shown, not edited."""


class PathNotFound(DraftSessionError, LookupError):
    """The path does not lead to a value (or, for an insert, to a place) in the draft."""


#: why a save was refused: the session's edits are of a text the file no longer holds
CHANGED_ON_DISK = ("the file was changed on disk since it was opened; reload it (losing these edits) or save with "
                   "force (overwriting the other changes)")


class ChangedOnDisk(DraftSessionError):
    """The file was changed by someone else since it was opened or last saved; nothing was written.

    The UI can offer :meth:`DraftSession.reload` (lose the session's edits) or ``save(force=True)`` (lose theirs).
    """


@dataclass(frozen=True, slots=True)
class SaveResult:
    """What a save did. ``method`` is "splice" when only changed values were rewritten, "ruamel" when some edit
    since the last save needed the ruamel.yaml merge, "unchanged" when there was nothing to write."""

    path: str
    method: str
    bytes_written: int


@dataclass(frozen=True, slots=True)
class Change:
    """Told to listeners after every change: ``kind`` is set, insert, delete, undo, redo, transaction, save,
    reload or validate; ``paths`` are the edited paths; ``problems`` those of what the change touched."""

    version: int
    kind: str
    paths: tuple[str, ...]
    problems: tuple[Problem, ...]


@dataclass(frozen=True, slots=True)
class AppRow:
    """What a list of apps shows before anything is validated (counts of what is a list; 0 otherwise)."""

    index: int
    name: Any
    region: Any
    id: Any
    widgets: int = 0
    webhooks: int = 0


def _app_row(index: int, app: Any) -> AppRow:
    if not isinstance(app, dict):
        return AppRow(index, None, None, None)
    widgets, hooks = app.get("widgets"), app.get("webhooks")
    return AppRow(index, app.get("name"), app.get("region"), app.get("id"),
                  len(widgets) if isinstance(widgets, list) else 0, len(hooks) if isinstance(hooks, list) else 0)


def peek_app_rows(text: str, count: int) -> list[AppRow] | None:
    """The :meth:`DraftSession.app_rows` of the first ``count`` apps of ``text``, read from its start only, for a
    list to show while a big draft is read; None when the text does not read that far as a draft (see
    :func:`~tenantdeck.draft.yamlsource.peek_apps`)."""
    apps = yamlsource.peek_apps(text, count)
    return None if apps is None else [_app_row(i, a) for i, a in enumerate(apps)]


def parse_path(path: PathLike) -> tuple[PathPart, ...]:
    """``"apps[3].widgets[0].main.send_gifs"`` -> ``("apps", 3, "widgets", 0, "main", "send_gifs")``.

    The inverse of :func:`tenantdeck.problems.format_path`. A key holding ``.`` or ``[`` (a preset named
    ``v1.2``) cannot be told apart in that form: pass such paths as tuples.
    """
    if not isinstance(path, str):
        return tuple(path)
    parts: list[PathPart] = []
    for m in re.finditer(r"\[(\d+)\]|\.?([^.\[\]]+)", path):
        parts.append(int(m.group(1)) if m.group(1) is not None else m.group(2))
    if format_path(parts) != path:
        raise PathNotFound(f"cannot read the path {path!r}; write it as apps[3].widgets[0].main.send_gifs")
    return tuple(parts)


# --------------------------------------------------------------------------------------------------------------
# Internal records
# --------------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Scope:
    """The problems of one app, one preset or the rest of the draft.

    Paths are relative to the scope (``("widgets", 0, "main")`` for an app); lines are relative to the scope's
    region (1 = its first line) once placed, so edits elsewhere never move them.
    """

    model: list[Problem] = field(default_factory=list)  # strict models
    rules: list[Problem] = field(default_factory=list)  # cross-object rules
    text: list[Problem] = field(default_factory=list)  # YAML level (already placed)
    placed: list[Problem] | None = None  # model + rules, placed

    def clear_placed(self) -> None:
        self.placed = None


@dataclass(slots=True)
class _DataOp:
    kind: str  # set | insert | delete
    parent: tuple[PathPart, ...]
    key: PathPart
    old: Any
    new: Any
    position: int  # index of the key in its mapping (insert/delete of keys)


@dataclass(slots=True)
class _TextOp:
    kind: str  # region | insert_region | delete_region | whole | regions
    section: str  # apps | presets | ""
    index: int
    old: str
    new: str
    at: int = 0  # where a region was inserted or removed
    #: kind "regions" (a bulk edit): (app index, old text, new text, refresh its YAML-level problems) per app
    batch: list[tuple[int, str, str, bool]] | None = None


@dataclass(slots=True)
class _Entry:
    """One undo step: data changes and text changes, in the order they were made."""

    data: list[_DataOp] = field(default_factory=list)
    text: list[_TextOp] = field(default_factory=list)
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


# --------------------------------------------------------------------------------------------------------------
# The session
# --------------------------------------------------------------------------------------------------------------


class DraftSession:
    """One draft file, open for editing. Create with :meth:`open`."""

    #: undo steps kept; older ones are forgotten
    history_limit = 500

    def __init__(self, path: str | os.PathLike[str], display: str | None = None) -> None:
        self.path = os.fspath(path)
        self.file = display if display is not None else self.path
        self.text: str = ""
        self.data: Any = None
        self.version = 0
        self.read_only = False
        self.validated = False
        self._fatal: list[Problem] = []
        self._layout_value: splice.Layout | None = None
        self._layout_pending = False  #: the layout of the text as read is computed on first use
        self._indent = splice.Indent()
        self._root = _Scope()
        self._apps: list[_Scope] = []
        self._presets: dict[str, _Scope] = {}
        self._unique: list[Problem] = []
        self._app_objs: list[App | None] = []
        self._preset_objs: dict[str, WidgetSettings] = {}
        self._checker: WidgetChecker | None = None
        self._undo: list[_Entry] = []
        self._redo: list[_Entry] = []
        self._tx: _Entry | None = None
        self._tx_start = ""
        self._listeners: list[Callable[[Change], None]] = []
        self._lock = threading.RLock()
        self._saved_text: str = ""
        self._disk: tuple[int, int, int] | None = None
        self._disk_sha: str | None = None  #: sha256 of the bytes read or last saved (None: not known yet)
        self._seen: tuple[tuple[int, int, int], bool] | None = None  #: last stat that differed, and its verdict
        self._used_ruamel = False
        self._whole_positions: tuple[int, Positions] | None = None
        self._problems_cache: tuple[int, list[Problem]] | None = None
        self.use_parse_cache = True  #: read (and :meth:`remember_parse` writes) the cache of parsed big drafts
        self.parsed_from_cache = False  #: the data came from the parse cache, not from parsing the text
        self._parse_clean = False

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
        self._undo.clear()
        self._redo.clear()
        self._used_ruamel = False
        raw, problems = _read_bytes(self.path, self.file, max_bytes)
        if raw is None:
            self._read_only(None, problems)
            self._remember_disk(None)  # too big or unreadable: its stat still tells a later change from none
            return
        text, problems = yamlsource.decode(raw, self.file)
        if text is None:
            self._read_only(None, problems)
            self._remember_disk(raw)
            return
        self.text = text
        self._saved_text = text
        self._remember_disk(raw)
        self._parse_all()

    def _read_only(self, text: str | None, problems: list[Problem]) -> None:
        self.read_only = True
        self.data = None
        self.text = text or ""
        self._fatal = sort_problems(problems)
        self._layout = None

    def _parse_all(self) -> None:
        """Data, layout and YAML-level problems of the whole text (on open, reload and after a ruamel merge)."""
        from tenantdeck.draft import parsecache
        from tenantdeck.draft.load import DraftDocument, _duplicates

        cached = parsecache.load(self.text) if self.use_parse_cache else None
        parsed = yamlsource.Parsed(data=cached) if cached is not None else yamlsource.parse(self.text, self.file)
        self.parsed_from_cache = cached is not None
        self._parse_clean = not (parsed.problems or parsed.surprises or parsed.duplicates or parsed.fatal
                                 or parsed.empty or parsed.aliases)
        if parsed.fatal or parsed.empty:
            self._read_only(self.text, parsed.problems)
            return
        if not isinstance(parsed.data, dict):
            got = "a list" if isinstance(parsed.data, list) else "a single value"
            message = f"a draft is a mapping with the keys format, presets and apps; this file holds {got}"
            self._read_only(self.text, [Problem(Severity.ERROR, message, (), self.file, 1, 1, "draft-type")])
            return
        self.read_only = False
        self.data = parsed.data
        # Scanned on first use (the first edit, or placing problems in the validation worker), not before the
        # first paint: 0.1-0.2 s of regular expressions over a 7.7 MB draft. Every data change touches it first,
        # so it is always the layout of the text and data as they were read.
        self._layout_pending = True
        mapping, _, offset = _guess_indent(self.text)
        self._indent = splice.Indent(mapping, offset)
        apps = self.data.get("apps")
        presets = self.data.get("presets")
        self._apps = [_Scope() for _ in apps] if isinstance(apps, list) else []
        self._presets = {name: _Scope() for name in presets} if isinstance(presets, dict) else {}
        self._root = _Scope()
        self._app_objs = [None] * len(self._apps)
        self._preset_objs = {}
        self._checker = None
        self._unique = []
        yaml_problems = list(parsed.problems)
        yaml_problems += _duplicates(DraftDocument(self.file, self.text), parsed.duplicates)
        yaml_problems += _surprises(parsed.surprises)
        for p in yaml_problems:
            scope, prefix, base = self._scope_of(p.path)
            scope.text.append(_relative(p, prefix, base - 1))
        self._bump("reload", (), [])

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
        return self.text != self._saved_text

    @property
    def base_text(self) -> str:
        """The text the session is based on: what was last read from or saved to the file (a recovery file records
        its hash, so a restore can tell whether the file changed since)."""
        return self._saved_text

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def get(self, path: PathLike, default: Any = _MISSING) -> Any:
        """A copy of the value at ``path`` (``PathNotFound`` when it is not there and no default is given)."""
        with self._lock:
            parts = parse_path(path)
            try:
                return copy.deepcopy(_walk(self.data, parts))
            except (KeyError, IndexError, TypeError):
                if default is not _MISSING:
                    return default
                where = format_path(parts) or "the draft"
                raise PathNotFound(f"{where} is not in the draft", parts, self.file) from None

    def app_rows(self) -> list[AppRow]:
        """Index, name, region, id and widget/webhook counts of every app, straight from the parsed data (no
        validation, no copy of the data: an Apps list of 5,000 apps is painted from this before anything else)."""
        apps = self.data.get("apps") if isinstance(self.data, dict) else None
        if not isinstance(apps, list):
            return []
        return [_app_row(i, a) for i, a in enumerate(apps)]

    def app_row(self, index: int) -> AppRow | None:
        """The :meth:`app_rows` entry of one app (None when there is no such app): a list updates one row."""
        apps = self.data.get("apps") if isinstance(self.data, dict) else None
        if not isinstance(apps, list) or not 0 <= index < len(apps):
            return None
        return _app_row(index, apps[index])

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
            result = sort_problems(out)
            self._problems_cache = (self.version, result)
            return list(result)

    def problems_under(self, path: PathLike) -> list[Problem]:
        """The problems at ``path`` or below it, placed, in line order.

        A path inside one app or preset is answered from that one scope, so that a screen repainting one app after
        each keystroke does not rebuild the list of every app's problems (1,000 of them for a toggle at 1,000 apps).
        """
        with self._lock:
            parts = parse_path(path)
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
            parts = parse_path(path)
            if self.read_only:
                return 0
            region = self._region_of(parts)
            if region is not None:
                section, index, rel = region
                positions = Positions(self._region_text(section, index))
                base = self._region(section, index)[2]
                return positions.position(rel)[0] + base - 1
            return self._whole().position(parts)[0]

    # -- listening ---------------------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Change], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _bump(self, kind: str, paths: Sequence[str], problems: Sequence[Problem]) -> None:
        self.version += 1
        self._problems_cache = None
        change = Change(self.version, kind, tuple(paths), tuple(problems))
        for listener in list(self._listeners):
            listener(change)

    # -- validation --------------------------------------------------------------------------------------------

    def validate_all(self) -> list[Problem]:
        """Validate the whole draft (models, then cross-object rules) and return :attr:`problems`.

        The one call that imports pydantic; a UI runs it in a worker after painting the parsed data.
        """
        with self._lock:
            if self.read_only:
                return self.problems
            self._validate_everything()
            self._bump("validate", (), [])
            return self.problems

    def _validate_everything(self) -> None:
        from pydantic import ValidationError

        from tenantdeck.models import Draft

        try:
            draft = Draft.model_validate(self.data)
        except ValidationError:
            draft = None
        if draft is not None:  # the common case: one validation of everything
            self._root.model = []
            self._preset_objs = dict(draft.presets)
            for scope in self._presets.values():
                scope.model = []
            self._app_objs = list(draft.apps)
            for scope in self._apps:
                scope.model = []
        else:
            self._validate_root()
            for name in self._presets:
                self._validate_preset(name)
            for i in range(len(self._apps)):
                self._validate_app_model(i)
        self._checker = None
        for name in self._presets:
            self._check_preset_rules(name)
        for i in range(len(self._apps)):
            self._check_app_rules(i)
        self._check_unique()
        for scope in (self._root, *self._presets.values(), *self._apps):
            scope.clear_placed()
        self.validated = True

    def _converter(self) -> Callable[[ValidationError, tuple[PathPart, ...]], list[Problem]]:
        from tenantdeck.draft.pydantic_problems import convert
        from tenantdeck.models import Draft

        def converter(exc: ValidationError, prefix: tuple[PathPart, ...]) -> list[Problem]:
            return convert(exc, prefix, root=Draft, data=self.data, scalar=self._scalar)

        return converter

    def _validate_root(self) -> None:
        from pydantic import ValidationError

        from tenantdeck.models import Draft

        data = dict(self.data)
        if isinstance(data.get("presets"), dict):
            data["presets"] = {}
        if isinstance(data.get("apps"), list):
            data["apps"] = []
        try:
            Draft.model_validate(data)
            self._root.model = []
        except ValidationError as exc:
            self._root.model = self._converter()(exc, ())

    def _validate_preset(self, name: str) -> None:
        from pydantic import ValidationError

        from tenantdeck.models import Draft

        scope = self._presets[name]
        try:
            draft = Draft.model_validate({"format": 1, "presets": {name: self.data["presets"][name]}})
            self._preset_objs[name] = draft.presets[name]
            scope.model = []
        except ValidationError as exc:
            self._preset_objs.pop(name, None)
            found = self._converter()(exc, ())
            scope.model = [_strip(p, ("presets", name)) for p in found]
        self._check_preset_rules(name)
        scope.clear_placed()

    def _check_preset_rules(self, name: str) -> None:
        from tenantdeck.rules import check_preset

        preset = self._preset_objs.get(name)
        found = check_preset(name, preset) if preset is not None else []
        self._presets[name].rules = [_strip(p, ("presets", name)) for p in found]

    def _validate_app_model(self, i: int) -> None:
        from pydantic import ValidationError

        from tenantdeck.models import App

        scope = self._apps[i]
        try:
            self._app_objs[i] = App.model_validate(self.data["apps"][i])
            scope.model = []
        except ValidationError as exc:
            self._app_objs[i] = None
            scope.model = [_strip(p, ("apps", i)) for p in self._converter()(exc, ("apps", i))]
        scope.clear_placed()

    def _widget_checker(self) -> WidgetChecker:
        if self._checker is None:
            from tenantdeck.rules import WidgetChecker

            presets = self.data.get("presets")
            known = list(presets) if isinstance(presets, dict) else []
            self._checker = WidgetChecker(self._preset_objs, known)
        return self._checker

    def _check_app_rules(self, i: int) -> None:
        from tenantdeck.rules import check_app

        scope = self._apps[i]
        app = self._app_objs[i]
        found = check_app(self._widget_checker(), app, ("apps", i), self._converter()) if app is not None else []
        scope.rules = [_strip(p, ("apps", i)) for p in found]
        scope.clear_placed()

    def _check_unique(self) -> None:
        from tenantdeck.rules import unique_names_and_ids

        self._unique = unique_names_and_ids(self._app_objs)

    def _revalidate(self, touched: set[tuple[str, Any]]) -> list[Problem]:
        """Re-check what an edit touched and return its problems (placed)."""
        if not self.validated:
            return []
        if ("whole", None) in touched:
            self._validate_everything()
            return self.problems
        apps: set[int] = set()
        presets: set[str] = set()
        root = False
        for kind, key in touched:
            if kind == "app":
                apps.add(key)
            elif kind == "preset":
                presets.add(key)
            else:
                root = True
        if root:
            self._validate_root()
            self._root.clear_placed()
        before = [(a.name, a.id) if a is not None else None for a in (self._app_objs[i] for i in apps)]
        for name in presets:
            if name in self._presets:
                self._validate_preset(name)
            else:
                self._preset_objs.pop(name, None)
            self._widget_checker().forget(name)
        if presets:
            self._checker = None  # the set of known presets may have changed
            apps |= self._apps_extending(presets)
        for i in apps:
            if ("app", i) in touched:
                self._validate_app_model(i)
            self._check_app_rules(i)
        after = [(a.name, a.id) if a is not None else None for a in (self._app_objs[i] for i in apps)]
        if root or before != after or any(k == "apps" for k, _ in touched):
            self._check_unique()
        out: list[Problem] = []
        if root:
            out += self._placed_root()
        for name in presets:
            if name in self._presets:
                out += self._placed_scope(self._presets[name], ("presets", name))
        for i in sorted(apps):
            out += self._placed_scope(self._apps[i], ("apps", i))
            out += [self._place_absolute(p) for p in self._unique if p.path[:2] == ("apps", i)]
        return sort_problems(out)

    def _apps_extending(self, presets: set[str]) -> set[int]:
        out: set[int] = set()
        for i, app in enumerate(self.data.get("apps") or []):
            widgets = app.get("widgets") if isinstance(app, dict) else None
            if isinstance(widgets, list) and any(isinstance(w, dict) and w.get("extends") in presets for w in widgets):
                out.add(i)
        return out

    def recheck(self, path: PathLike) -> list[Problem]:
        """Validate again the app or preset that holds ``path`` (the whole draft for a top-level path) and return
        its problems; what every edit does by itself, exposed for a UI that wants to refresh one app."""
        with self._lock:
            self._writable()
            parts = parse_path(path)
            if not self.validated:
                self.validate_all()
            if len(parts) >= 2 and parts[0] == "apps" and isinstance(parts[1], int) and parts[1] < len(self._apps):
                return self._revalidate({("app", parts[1])})
            if len(parts) >= 2 and parts[0] == "presets" and parts[1] in self._presets:
                return self._revalidate({("preset", parts[1])})
            self._validate_everything()
            return self.problems

    # -- placing problems ----------------------------------------------------------------------------------------

    def _placed_scope(self, scope: _Scope, prefix: tuple[PathPart, ...]) -> list[Problem]:
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
                scope.placed = [_place(p, positions, head) for p in found] + surprises
            elif found:
                whole = self._whole()
                scope.placed = [_place(p, whole, prefix, relative=False) for p in found] + surprises
            else:
                scope.placed = surprises
        return [_absolute(p, prefix, base - 1, self.file) for p in scope.placed]

    def _placed_root(self) -> list[Problem]:
        if self._root.placed is None:
            whole = self._whole() if self._root.model else None
            placed = [_place(p, whole, (), relative=False) for p in self._root.model] if whole else []
            self._root.placed = placed + self._root.text
        return [_absolute(p, (), 0, self.file) for p in self._root.placed]

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

    def _scope_of(self, parts: tuple[PathPart, ...]) -> tuple[_Scope, tuple[PathPart, ...], int]:
        """The scope a path belongs to, the scope's path prefix, and the line its region starts at."""
        if len(parts) >= 2 and parts[0] == "apps" and isinstance(parts[1], int) and parts[1] < len(self._apps):
            region = self._region("apps", parts[1])
            return self._apps[parts[1]], parts[:2], region[2] if region else 1
        if len(parts) >= 2 and parts[0] == "presets" and parts[1] in self._presets:
            region = self._region("presets", parts[1])
            return self._presets[str(parts[1])], parts[:2], region[2] if region else 1
        return self._root, (), 1

    # -- regions -------------------------------------------------------------------------------------------------

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

    # -- editing: the public operations ------------------------------------------------------------------------

    def set(self, path: PathLike, value: Any) -> list[Problem]:
        """Set the value at ``path``; a missing key (and missing mappings above it) is added. Returns the problems
        of what the edit touched."""
        return self._edit("set", parse_path(path), value)

    def insert(self, path: PathLike, item: Any) -> list[Problem]:
        """Add ``item``: at ``apps[2]`` (before the third app), at ``apps`` (appended to the list), or as a new key
        (``presets.sales``, ``apps[0].widgets[0].main.send_gifs``). Returns the problems of what it touched."""
        return self._edit("insert", parse_path(path), item)

    def delete(self, path: PathLike) -> list[Problem]:
        """Remove the key or list item at ``path``. Returns the problems of what it touched."""
        return self._edit("delete", parse_path(path), None)

    def set_many(self, edits: Sequence[tuple[PathLike, Any]]) -> list[Problem]:
        """Several ``set``s as one undo step, validated once (a bulk edit across many apps).

        Edits inside apps are written in one pass: each one rewrites only the few lines of its entry (found by
        :func:`splice.locate`, checked to read back as the data), and the text is assembled once at the end, so
        5,000 edits cost 5,000 small splices, not 5,000 copies of the draft. Anything else (a preset, the app list
        itself, a draft not laid out in blocks) takes the general path, one edit at a time.
        """
        parsed = [(parse_path(path), value) for path, value in edits]
        with self._lock:
            self._writable()
            if self._tx is None and self._layout is not None and self._layout.apps is not None and all(
                len(parts) >= 3 and parts[0] == "apps" and isinstance(parts[1], int) and not isinstance(parts[1], bool)
                and 0 <= parts[1] < len(self._layout.apps)
                for parts, _ in parsed
            ):
                entry = _Entry()
                try:
                    self._bulk(entry, parsed)
                    done = True
                except (splice.CannotSplice, DraftSessionError):
                    self._unapply(entry)  # the general path below says what is wrong, or writes it another way
                    done = False
                except BaseException:
                    self._unapply(entry)
                    raise
                if done:
                    if not entry.data:
                        return []
                    self._push_undo(entry)
                    problems = self._revalidate(entry.touched)
                    self._bump("transaction", entry.paths, problems)
                    return problems
        with self.transaction() as tx:
            for parts, value in parsed:
                self.set(parts, value)
        return tx.problems

    def _bulk(self, entry: _Entry, edits: list[tuple[tuple[PathPart, ...], Any]]) -> None:
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
            if op.kind == "set" and _same(op.old, op.new):
                continue
            self._refuse_literal_secrets(op)
            entry.data.append(op)
            _do(self.data, op)
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
        entry.text.append(_TextOp("regions", "apps", 0, "", "", batch=batch))
        for i in refresh:
            self._refresh_text_problems("apps", i, self._region_text_at("apps", i))

    def _splice_small(self, index: int, region: str, op: _DataOp) -> tuple[str, bool]:
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
            return _walk(self.data, (*root, *rel_path[1:]))

        edit = splice.Region(snippet, self._indent, new)
        rel_parent = (head, *op.parent[len(root) :])
        if op.kind == "set":
            text = edit.set_scalar((head, *full[len(root) :]), op.new)
        elif isinstance(op.key, str):
            keys = list(_walk(self.data, op.parent))
            after = keys[keys.index(op.key) - 1] if keys.index(op.key) > 0 else None
            text = edit.insert_key(rel_parent, op.key, after)
        else:
            text = edit.insert_item(rel_parent, int(op.key))
        value = _walk(self.data, root)
        expected = [value] if span.item else {head: value}
        parsed = yamlsource.parse(text, self.file)
        if parsed.fatal or parsed.empty or parsed.problems or not _same(parsed.data, expected):
            raise splice.CannotSplice("the spliced lines do not read back as the data")
        prefix = region[span.start : span.start + span.col]
        return region[: span.start] + splice.reindent(text, prefix) + region[span.end :], bool(parsed.surprises)

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

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Group edits into one undo step, validated once at the end; on an exception they are all undone."""
        with self._lock:
            if self._tx is not None:  # nested: part of the outer one
                yield Transaction()
                return
            self._tx = _Entry()
            self._tx_start = self.text
            tx = Transaction()
            try:
                yield tx
            except BaseException:
                entry, self._tx = self._tx, None
                self._unapply(entry)
                raise
            entry, self._tx = self._tx, None
            if entry.data:
                self._push_undo(entry)
                tx.problems = self._revalidate(entry.touched)
                self._bump("transaction", entry.paths, tx.problems)

    def next_paths(self, which: str) -> list[str]:
        """The key paths the next ``"undo"`` or ``"redo"`` would change (empty: nothing to do), so a UI can say
        what it took back rather than only that it did."""
        with self._lock:
            stack = self._undo if which == "undo" else self._redo
            return list(stack[-1].paths) if stack else []

    def undo(self) -> list[Problem] | None:
        """Take back the last edit (or transaction); None when there is nothing to undo."""
        with self._lock:
            self._writable()
            if not self._undo:
                return None
            entry = self._undo.pop()
            self._unapply(entry)
            self._redo.append(entry)
            problems = self._revalidate(_renumbered(entry.touched, self))
            self._bump("undo", entry.paths, problems)
            return problems

    def redo(self) -> list[Problem] | None:
        """Make the last undone edit again; None when there is nothing to redo."""
        with self._lock:
            self._writable()
            if not self._redo:
                return None
            entry = self._redo.pop()
            self._reapply(entry)
            self._undo.append(entry)
            problems = self._revalidate(_renumbered(entry.touched, self))
            self._bump("redo", entry.paths, problems)
            return problems

    # -- editing: how ----------------------------------------------------------------------------------------------

    def _writable(self) -> None:
        if self.read_only:
            first = self._fatal[0].render() if self._fatal else "the file cannot be read as a draft"
            raise ReadOnlyDraft(f"the draft cannot be edited until it can be read: {first}", (), self.file, "read-only")

    def _edit(self, kind: str, parts: tuple[PathPart, ...], value: Any) -> list[Problem]:
        with self._lock:
            self._writable()
            if not parts:
                raise PathNotFound("an edit needs a path inside the draft", (), self.file)
            value = copy.deepcopy(value)
            entry = self._tx if self._tx is not None else _Entry()
            mark = (len(entry.data), len(entry.text))
            start_text = self.text
            try:
                self._apply_one(entry, kind, parts, value)
            except BaseException:
                partial = _Entry(entry.data[mark[0] :], entry.text[mark[1] :])
                del entry.data[mark[0] :], entry.text[mark[1] :]
                if any(t.kind == "whole" for t in partial.text):
                    partial.before = start_text
                self._unapply(partial)
                raise
            if entry.before is None and any(t.kind == "whole" for t in entry.text[mark[1] :]):
                entry.before = start_text if self._tx is None or not mark[1] else self._tx_start
            if entry.before is not None:
                entry.after = self.text
            entry.paths.append(format_path(parts))
            if self._tx is not None:
                return []
            self._push_undo(entry)
            problems = self._revalidate(entry.touched)
            self._bump(kind, entry.paths, problems)
            return problems

    def _push_undo(self, entry: _Entry) -> None:
        self._undo.append(entry)
        del self._undo[: -self.history_limit]
        self._redo.clear()

    def _apply_one(self, entry: _Entry, kind: str, parts: tuple[PathPart, ...], value: Any) -> None:
        op = self._data_change(kind, parts, value)
        if op.kind != "delete":
            self._refuse_literal_secrets(op)
        entry.data.append(op)
        _ = self._layout  # scanned from the data as read, before this change (see _parse_all)
        _do(self.data, op)
        self._note_touched(entry, op)
        self._write_text(entry, op)

    def _data_change(self, kind: str, parts: tuple[PathPart, ...], value: Any) -> _DataOp:
        """The data operation an edit means, checked against the data (nothing is changed yet)."""
        where = format_path(parts)
        try:
            target = _walk(self.data, parts)
            exists = True
        except (KeyError, IndexError, TypeError):
            target, exists = None, False
        if kind == "insert" and exists and isinstance(target, list):
            parts, exists = (*parts, len(target)), False  # insert at a list: append
        parent_path, key = parts[:-1], parts[-1]
        try:
            parent = _walk(self.data, parent_path)
        except (KeyError, IndexError, TypeError):
            parent = _MISSING
        if kind == "set" and parent is _MISSING:
            # missing mappings above a key: add the outermost missing one, holding the rest
            for depth in range(len(parts) - 2, -1, -1):
                try:
                    holder = _walk(self.data, parts[:depth])
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
        if parent is _MISSING:
            raise PathNotFound(f"{where}: its parent is not in the draft", parts, self.file)
        if isinstance(parent, dict):
            if not isinstance(key, str):
                raise PathNotFound(f"{where}: a mapping is addressed by key, not by position", parts, self.file)
            if kind == "set" and key not in parent:
                kind = "insert"
            if kind == "set":
                return _DataOp("set", parent_path, key, parent[key], value, 0)
            if kind == "insert":
                if key in parent:
                    raise PathNotFound(f"{where} is already in the draft; set it instead", parts, self.file)
                return _DataOp("insert", parent_path, key, None, value, self._key_position(parts))
            if key not in parent:
                raise PathNotFound(f"{where} is not in the draft", parts, self.file)
            return _DataOp("delete", parent_path, key, parent[key], None, list(parent).index(key))
        if isinstance(parent, list):
            if not isinstance(key, int) or isinstance(key, bool):
                raise PathNotFound(f"{where}: a list is addressed by position", parts, self.file)
            size = len(parent)
            if kind == "insert" and 0 <= key <= size:
                return _DataOp("insert", parent_path, key, None, value, key)
            if not 0 <= key < size:
                raise PathNotFound(f"{where}: the list has {size} item{'s' * (size != 1)}", parts, self.file)
            if kind == "set":
                return _DataOp("set", parent_path, key, parent[key], value, key)
            return _DataOp("delete", parent_path, key, parent[key], None, key)
        raise PathNotFound(f"{where}: {format_path(parent_path)} holds a single value", parts, self.file)

    def _refuse_literal_secrets(self, op: _DataOp) -> None:
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
        parent = _walk(self.data, parts[:-1])
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

    def _note_touched(self, entry: _Entry, op: _DataOp) -> None:
        full = (*op.parent, op.key)
        if len(full) >= 2 and full[0] == "apps":
            if len(full) == 2 and op.kind != "set":
                entry.touched.add(("apps", None))
                self._shift_app_scopes(op)
                if op.kind == "insert":
                    entry.touched.add(("app", full[1]))
            else:
                entry.touched.add(("app", full[1]))
        elif len(full) >= 2 and full[0] == "presets":
            if len(full) == 2 and op.kind == "insert":
                self._presets = _dict_insert(self._presets, str(op.key), _Scope(), op.position)
            elif len(full) == 2 and op.kind == "delete":
                self._presets.pop(str(op.key), None)
            entry.touched.add(("preset", full[1]))
        else:
            entry.touched.add(("root", None))
            if full[0] in ("apps", "presets"):
                entry.touched.add(("whole", None))
                self._reset_scopes()

    def _reset_scopes(self) -> None:
        """After the apps or presets were replaced as a whole: one scope per item again (validated afresh)."""
        apps = self.data.get("apps")
        presets = self.data.get("presets")
        self._apps = [_Scope() for _ in apps] if isinstance(apps, list) else []
        self._presets = {name: _Scope() for name in presets} if isinstance(presets, dict) else {}
        self._app_objs = [None] * len(self._apps)
        self._preset_objs = {}
        self._checker = None

    def _shift_app_scopes(self, op: _DataOp) -> None:
        if op.kind == "insert":
            self._apps.insert(int(op.key), _Scope())
            self._app_objs.insert(int(op.key), None)
        else:
            del self._apps[int(op.key)]
            del self._app_objs[int(op.key)]

    # -- text -------------------------------------------------------------------------------------------------

    def _write_text(self, entry: _Entry, op: _DataOp) -> None:
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

    def _splice_inside(self, entry: _Entry, op: _DataOp, full: tuple[PathPart, ...]) -> None:
        section, index = str(full[0]), full[1]
        region = self._region(section, index)
        if region is None:
            raise splice.CannotSplice("no region")
        head: PathPart = 0 if section == "apps" else index
        old_text = self.text[region[0] : region[1]]
        container = self.data[section][index]

        def new(rel: Sequence[PathPart]) -> Any:
            return _walk(container, rel[1:])

        edit = splice.Region(old_text, self._indent, new)
        rel_parent = (head, *op.parent[2:])
        if op.kind == "set":
            new_text = edit.set_scalar((*rel_parent, op.key), op.new)
        elif op.kind == "insert" and isinstance(op.key, str):
            keys = list(_walk(self.data, op.parent))
            after = keys[keys.index(op.key) - 1] if keys.index(op.key) > 0 else None
            new_text = edit.insert_key(rel_parent, op.key, after)
        elif op.kind == "insert":
            new_text = edit.insert_item(rel_parent, int(op.key))
        else:
            new_text = edit.delete((*rel_parent, op.key))
        expected = [container] if section == "apps" else {index: container}
        if not _same(_parse_data(new_text), expected):
            raise splice.CannotSplice("the spliced region does not read back as the data")
        self._replace_region(section, index, new_text)
        entry.text.append(_TextOp("region", section, self._region_index(section, index), old_text, new_text))
        self._refresh_text_problems(section, index, new_text)

    def _splice_region(self, entry: _Entry, op: _DataOp, full: tuple[PathPart, ...]) -> None:
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
        if block and not _same(_parse_data(block), expected):
            raise splice.CannotSplice("the written region does not read back as the data")
        if op.kind == "set":
            old = self.text[regions[index][0] : regions[index][1]]
            self._replace_region(section, index, block if old.endswith("\n") else block.rstrip("\n"))
            entry.text.append(_TextOp("region", section, index, old, self._region_text_at(section, index)))
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
            entry.text.append(_TextOp("insert_region", section, index, "", block, at))
            self._refresh_text_problems(section, full[1], block)
            return
        if len(regions) < 2:
            raise splice.CannotSplice("the last app or preset")  # leaves `apps: []`: ruamel
        a, b, _ = regions[index]
        old = self.text[a:b]
        self.text = self.text[:a] + self.text[b:]
        del regions[index]
        layout.shift(a, -len(old), -old.count("\n"))
        entry.text.append(_TextOp("delete_region", section, index, old, "", a))

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

    def _refresh_text_problems(self, section: str, index: Any, region_text: str) -> None:
        """YAML-level problems (YAML 1.1 readings) of a rewritten region, relative to it."""
        scopes = self._apps if section == "apps" else self._presets
        key = index if section == "apps" else str(index)
        if (section == "apps" and not 0 <= key < len(scopes)) or (section == "presets" and key not in scopes):
            return
        parsed = yamlsource.parse(region_text, self.file)
        found = _surprises(parsed.surprises)
        scope = scopes[key]  # type: ignore[index]
        scope.text = [_strip(p, (0,) if section == "apps" else (index,)) for p in found]
        scope.clear_placed()

    def _merge_with_ruamel(self, entry: _Entry) -> None:
        """The whole draft through ruamel.yaml (seconds on large drafts): for edits splicing cannot express."""
        from tenantdeck.draft.save import merge_data

        old = self.text
        new = merge_data(old, self.data)
        if not _same(_parse_data(new), self.data):
            raise DraftSessionError("the edit cannot be written into this draft's text", (), self.file, "unwritable")
        self.text = new
        self._used_ruamel = True
        entry.text.append(_TextOp("whole", "", 0, old, new))
        self._rescan()

    def _rescan(self) -> None:
        """Layout and YAML-level problems of the whole text again (after a ruamel merge); scopes keep the rest."""
        from tenantdeck.draft.load import DraftDocument, _duplicates

        parsed = yamlsource.parse(self.text, self.file)
        self._layout = splice.scan(self.text, self.data)
        for scope in (self._root, *self._presets.values(), *self._apps):
            scope.text = []
            scope.clear_placed()
        found = list(parsed.problems)
        found += _duplicates(DraftDocument(self.file, self.text), parsed.duplicates)
        found += _surprises(parsed.surprises)
        for p in found:
            scope, prefix, base = self._scope_of(p.path)
            scope.text.append(_relative(p, prefix, base - 1))

    # -- undo machinery ---------------------------------------------------------------------------------------

    def _unapply(self, entry: _Entry) -> None:
        _ = self._layout
        for op in reversed(entry.data):
            _undo_data(self.data, op)
            self._scopes_undo(op)
        if entry.before is not None:
            self._whole_text(entry.before)
            return
        for t in reversed(entry.text):
            self._text_apply(t, forward=False)

    def _reapply(self, entry: _Entry) -> None:
        _ = self._layout
        for op in entry.data:
            _do(self.data, op)
            full = (*op.parent, op.key)
            if len(full) == 1 and full[0] in ("apps", "presets"):
                self._reset_scopes()
            elif len(full) == 2 and full[0] == "apps" and op.kind != "set":
                self._shift_app_scopes(op)
            elif len(full) == 2 and full[0] == "presets" and op.kind == "insert":
                self._presets = _dict_insert(self._presets, str(op.key), _Scope(), op.position)
            elif len(full) == 2 and full[0] == "presets" and op.kind == "delete":
                self._presets.pop(str(op.key), None)
        if entry.after is not None:
            self._whole_text(entry.after)
            return
        for t in entry.text:
            self._text_apply(t, forward=True)

    def _whole_text(self, text: str) -> None:
        self.text = text
        self._used_ruamel = True
        self._rescan()

    def _scopes_undo(self, op: _DataOp) -> None:
        full = (*op.parent, op.key)
        if len(full) == 1 and full[0] in ("apps", "presets"):
            self._reset_scopes()
        elif len(full) == 2 and full[0] == "apps" and op.kind != "set":
            inverse = _DataOp("delete" if op.kind == "insert" else "insert", op.parent, op.key, None, None, 0)
            self._shift_app_scopes(inverse)
        elif len(full) == 2 and full[0] == "presets" and op.kind == "insert":
            self._presets.pop(str(op.key), None)
        elif len(full) == 2 and full[0] == "presets" and op.kind == "delete":
            self._presets = _dict_insert(self._presets, str(op.key), _Scope(), op.position)

    def _text_apply(self, t: _TextOp, *, forward: bool) -> None:
        """Replay one region change of an undo step, forwards or backwards."""
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

    # -- disk ---------------------------------------------------------------------------------------------------

    def _remember_disk(self, raw: bytes | None) -> None:
        """Note the file's stat and the hash of ``raw``, the bytes the session now stands on (read or written)."""
        try:
            st = os.stat(self.path)
            self._disk = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            self._disk = None
        self._disk_sha = hashlib.sha256(raw).hexdigest() if raw is not None else None
        self._seen = None

    def changed_on_disk(self) -> bool:
        """True when the file no longer holds what was read or last saved (someone else, or an editor, wrote it).

        Cheap enough for a timer on a draft of tens of MB: a ``stat`` answers while the file's size, time and inode
        are the ones recorded; only when they change is the content hashed (streamed, never decoded), and the
        verdict for that stat is kept, so a file that changed and was kept as it is is not read again every check.
        ``touch`` or a rewrite with the same bytes is not a change.
        """
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                return self._disk is not None
            except OSError:
                return True
            now = (st.st_mtime_ns, st.st_size, st.st_ino)
            if now == self._disk:
                return False
            if self._seen is not None and self._seen[0] == now:
                return self._seen[1]
            try:
                sha = _file_sha256(self.path)
            except OSError:
                return True
            if self._disk_sha is None and self._disk is None:
                self._disk_sha = sha  # nothing was known about the file (unreadable at open): this is it now
            same = sha == self._disk_sha
            if same:
                self._disk = now
                self._seen = None
            else:
                self._seen = (now, True)
            return not same

    def save(self, *, force: bool = False, backup: bool = True) -> SaveResult:
        """Write the text atomically (``<name>.bak`` keeps the previous version).

        Raises :class:`ChangedOnDisk`, writing nothing, when the file changed since it was read or last saved,
        unless ``force``. Refuses to write a literal secret the file did not already hold.
        """
        from tenantdeck.atomic import atomic_write_bytes

        with self._lock:
            self._writable()
            if not force and self.changed_on_disk():
                raise ChangedOnDisk(CHANGED_ON_DISK, (), self.file, "changed-on-disk")
            if not self.dirty and not force:
                return SaveResult(self.path, "unchanged", 0)
            from tenantdeck.atomic import ChangedSinceRead
            from tenantdeck.draft.save import still

            data = self.text.encode("utf-8")
            try:
                # compare-and-swap: the check above and this write are apart; another writer may come between
                atomic_write_bytes(self.path, data, backup=backup, expect=None if force else still(self._saved_text))
            except ChangedSinceRead:
                raise ChangedOnDisk(CHANGED_ON_DISK, (), self.file, "changed-on-disk") from None
            method = "ruamel" if self._used_ruamel else "splice"
            self._saved_text = self.text
            self._used_ruamel = False
            self._remember_disk(data)
            self._bump("save", (), [])
            return SaveResult(self.path, method, len(self.text.encode("utf-8")))

    def restore_text(self, text: str) -> None:
        """Replace the session's text with ``text`` (unsaved edits recovered after a crash or a hang-up).

        The file is not touched: the session is based on what was read from disk, so it is dirty and a save writes
        the restored text (asking first, as any save does, when the file changed on disk). Undo history is dropped
        and validation starts over (:meth:`validate_all`). A text that cannot be read as a draft is refused
        (:class:`DraftSessionError`) and nothing changes.
        """
        with self._lock:
            self._writable()
            parsed = yamlsource.parse(text, self.file)
            if parsed.fatal or parsed.empty or not isinstance(parsed.data, dict):
                first = parsed.problems[0].render() if parsed.problems else "it is not a mapping of format, apps"
                raise DraftSessionError(f"the recovered text cannot be read as a draft: {first}", (), self.file,
                                        "unrestorable")
            self._undo.clear()
            self._redo.clear()
            self.validated = False
            self.text = text
            self._used_ruamel = True  # a whole text: the next save reports it as such
            self._parse_all()

    def reload(self) -> list[Problem]:
        """Read the file again, dropping edits and undo history; returns :attr:`problems`."""
        with self._lock:
            validate = self.validated
            self._read(yamlsource.MAX_BYTES)
            if validate and not self.read_only:
                return self.validate_all()
            return self.problems


# --------------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------------


def _read_bytes(path: str, name: str, max_bytes: int) -> tuple[bytes | None, list[Problem]]:
    """The file's bytes, or the same problems :func:`yamlsource.read_text` reports."""
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            return None, yamlsource.read_text(path, display=name, max_bytes=max_bytes)[1]
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1), []
    except OSError:
        return None, yamlsource.read_text(path, display=name, max_bytes=max_bytes)[1]


def _file_sha256(path: str) -> str:
    """The file's sha256, read in 1 MiB pieces (a draft of tens of MB is never held twice in memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _is_secret_path(path: tuple[PathPart, ...]) -> bool:
    from tenantdeck.draft.pydantic_problems import is_secret
    from tenantdeck.models import Draft

    return is_secret(Draft, path)


def _guess_indent(text: str) -> tuple[int, int, int]:
    from tenantdeck.draft.save import guess_indentation

    return guess_indentation(text[:65536])


def _walk(data: Any, parts: Sequence[PathPart]) -> Any:
    for part in parts:
        if isinstance(data, dict):
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and not isinstance(part, bool):
            if part < 0:
                raise IndexError(part)
            data = data[part]
        else:
            raise TypeError(part)
    return data


def _dict_insert(d: dict[Any, Any], key: Any, value: Any, position: int) -> dict[Any, Any]:
    items = list(d.items())
    items.insert(position, (key, value))
    return dict(items)


def _set_in_place(d: dict[Any, Any], key: Any, value: Any, position: int) -> None:
    items = list(d.items())
    items.insert(position, (key, value))
    d.clear()
    d.update(items)


def _do(data: Any, op: _DataOp) -> None:
    parent = _walk(data, op.parent)
    if op.kind == "set":
        parent[op.key] = copy.deepcopy(op.new)
    elif op.kind == "insert":
        if isinstance(parent, list):
            parent.insert(int(op.key), copy.deepcopy(op.new))
        else:
            _set_in_place(parent, op.key, copy.deepcopy(op.new), op.position)
    else:
        del parent[op.key]


def _undo_data(data: Any, op: _DataOp) -> None:
    parent = _walk(data, op.parent)
    if op.kind == "set":
        parent[op.key] = copy.deepcopy(op.old)
    elif op.kind == "insert":
        del parent[op.key]
    elif isinstance(parent, list):
        parent.insert(int(op.key), copy.deepcopy(op.old))
    else:
        _set_in_place(parent, op.key, copy.deepcopy(op.old), op.position)


def _renumbered(touched: set[tuple[str, Any]], session: DraftSession) -> set[tuple[str, Any]]:
    """What to re-check after undo/redo: apps that no longer exist are dropped."""
    out = set()
    for kind, key in touched:
        if kind == "app" and not 0 <= key < len(session._apps):
            out.add(("apps", None))
            continue
        out.add((kind, key))
    return out


def _key_order(parent: tuple[PathPart, ...]) -> list[str]:
    """Keys the model accepts in the mapping at ``parent``, in model order ([] for free-form mappings)."""
    from tenantdeck.draft.pydantic_problems import field_names
    from tenantdeck.models import Draft

    return field_names(Draft, parent)


def _parse_data(text: str) -> Any:
    parsed = yamlsource.parse(text)
    return _MISSING if parsed.fatal or parsed.empty or parsed.problems else parsed.data


def _same(a: Any, b: Any) -> bool:
    """Equal as draft data: types too (``True`` is not ``1``), and mapping keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _surprises(surprises: list[yamlsource.Surprise]) -> list[Problem]:
    from tenantdeck.draft.load import _surprise_warnings

    return _surprise_warnings(surprises, [])


def _strip(p: Problem, prefix: tuple[PathPart, ...]) -> Problem:
    """``p`` with ``prefix`` taken off its path."""
    path = p.path[len(prefix) :] if p.path[: len(prefix)] == prefix else p.path
    return Problem(p.severity, p.message, path, p.file, p.line, p.column, p.code, p.extra)


def _relative(p: Problem, prefix: tuple[PathPart, ...], line_offset: int) -> Problem:
    stripped = _strip(p, prefix)
    line = p.line - line_offset if p.line else 0
    return Problem(p.severity, p.message, stripped.path, p.file, line, p.column, p.code, p.extra)


def _absolute(p: Problem, prefix: tuple[PathPart, ...], line_offset: int, file: str) -> Problem:
    line = p.line + line_offset if p.line else 0
    return Problem(p.severity, p.message, (*prefix, *p.path), file, line, p.column, p.code, p.extra)


def _place(p: Problem, positions: Positions | None, head: tuple[PathPart, ...], *, relative: bool = True) -> Problem:
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
