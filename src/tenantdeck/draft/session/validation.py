"""Problems of the models and the cross-object rules, kept per app and per preset so an edit re-checks only what
it touched: the one app, or every app whose widgets extend an edited preset.

The first full validation (:meth:`ValidationMixin.validate_all`) is the one place that imports pydantic; a UI runs
it in a worker after painting the parsed data. Problems are stored relative to their scope (paths without the
``apps[i]`` prefix, lines from the scope's region) so an edit elsewhere moves none of them; :mod:`.placing` makes
them absolute when they are read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.draft.session.paths import PathLike, parts_of
from tenantdeck.draft.session.signal import ChangeKind
from tenantdeck.problems import PathPart, Problem, sort_problems

if TYPE_CHECKING:
    from pydantic import ValidationError

    from tenantdeck.draft.load import LoadResult
    from tenantdeck.draft.session.history import DataOp, Entry
    from tenantdeck.models import App, WidgetSettings
    from tenantdeck.rules import KeptChecks, WidgetChecker


@dataclass(slots=True)
class Scope:
    """The problems of one app, one preset or the rest of the draft.

    Paths are relative to the scope (``("widgets", 0, "main")`` for an app); lines are relative to the scope's
    region (1 = its first line) once placed, so edits elsewhere never move them.
    """

    model: list[Problem] = field(default_factory=list)  # strict models
    rules: list[Problem] = field(default_factory=list)  # cross-object rules
    text: list[Problem] = field(default_factory=list)  # YAML level (already placed)
    placed: list[Problem] | None = None  # model + rules, placed
    #: the rules' last check of an app, part by part (``rules.check_app(kept=...)``): an edit of one section checks
    #: that part again
    checks: KeptChecks = field(default_factory=dict)

    def clear_placed(self) -> None:
        self.placed = None


@functools.cache
def _app_fields() -> frozenset[str]:
    """The App fields a draft writes under their own name (no alias): those one edit can validate alone."""
    from tenantdeck.models import App

    return frozenset(name for name, info in App.model_fields.items() if info.alias is None)


def edited_fields(entry: Entry) -> dict[int, set[str]]:
    """App index -> the App fields (``widgets``, ``sms``) whose values an undo step's data changes lie inside
    (``apps[i].<field>.<...>``: the field is there before and after). An app changed in another way (a field set or
    removed as a whole) is left out, so it is validated whole; so is everything when the step changed anything
    but the inside of apps (the app list, a preset, the root), whose indexes or models it may have moved."""
    out: dict[int, set[str]] = {}
    whole: set[int] = set()
    for op in entry.data:
        full = (*op.parent, op.key)
        if len(full) < 3 or full[0] != "apps" or not isinstance(full[1], int) or isinstance(full[1], bool):
            return {}
        if len(full) == 3 or not isinstance(full[2], str):
            whole.add(full[1])
        else:
            out.setdefault(full[1], set()).add(full[2])
    return {i: names for i, names in out.items() if i not in whole}


def unprefixed(p: Problem, prefix: tuple[PathPart, ...]) -> Problem:
    """``p`` with ``prefix`` taken off its path."""
    path = p.path[len(prefix) :] if p.path[: len(prefix)] == prefix else p.path
    return Problem(p.severity, p.message, path, p.file, p.line, p.column, p.code, p.extra)


def scoped(p: Problem, prefix: tuple[PathPart, ...], line_offset: int) -> Problem:
    """An absolute problem made relative to its scope (path without ``prefix``, line from the scope's region), as
    scopes store them so that edits elsewhere move none."""
    stripped = unprefixed(p, prefix)
    line = p.line - line_offset if p.line else 0
    return Problem(p.severity, p.message, stripped.path, p.file, line, p.column, p.code, p.extra)


def unscoped(p: Problem, prefix: tuple[PathPart, ...], line_offset: int, file: str) -> Problem:
    """The inverse of :func:`scoped`, when problems are read: the whole path, the line in the file."""
    line = p.line + line_offset if p.line else 0
    return Problem(p.severity, p.message, (*prefix, *p.path), file, line, p.column, p.code, p.extra)


class ValidationMixin:
    """Part of :class:`~tenantdeck.draft.session.DraftSession`: validation of what changed.

    Owns the scopes (``_root``, ``_apps`` one per app, ``_presets`` one per preset, in the draft's order), the
    validated models (``_app_objs``, ``_preset_objs``), the rules' ``_checker``, the duplicate names and ids
    (``_unique``) and ``validated``. Reads the session's ``data``, ``file`` and ``path`` (the folder certificate
    files are read from); places through :mod:`.placing`.
    """

    data: Any
    file: str
    path: str
    validated: bool
    _root: Scope
    _apps: list[Scope]
    _presets: dict[str, Scope]
    _unique: list[Problem]
    _app_objs: list[App | None]
    _preset_objs: dict[str, WidgetSettings]
    _checker: WidgetChecker | None

    def _init_validation(self) -> None:
        """The state this part owns, as a session starts (called by ``DraftSession.__init__``)."""
        self.validated = False
        self._root = Scope()
        self._apps = []
        self._presets = {}
        self._unique = []
        self._app_objs = []
        self._preset_objs = {}
        self._checker = None

    def validate_all(self) -> list[Problem]:
        """Validate the whole draft (models, then cross-object rules) and return :attr:`problems`.

        The one call that imports pydantic; a UI runs it in a worker after painting the parsed data.
        """
        with self._lock:
            if self.read_only:
                return self.problems
            self._validate_everything()
            self._bump(ChangeKind.VALIDATE, (), [])
            return self.problems

    def validated_models(self) -> tuple[list[App | None], dict[str, WidgetSettings]] | None:
        """The validated models of every app (None for one that does not validate) and of every valid preset, in
        the draft's order; None before the first validation. What the editor's change states canonicalise, rather
        than validating 5,000 apps again after a bulk edit. The lists are copies; the models are never changed in
        place (an edit validates into a new one, :meth:`_validate_app_model`), so they can be read in a worker."""
        with self._lock:
            if not self.validated or self.read_only:
                return None
            return list(self._app_objs), dict(self._preset_objs)

    def load_result(self) -> LoadResult | None:
        """The draft as :func:`tenantdeck.draft.load.load_text` reads :attr:`text`, from what this session has
        already validated: its models and its problems (F8's list), nothing parsed or validated again. None before
        the first validation or when read-only (the caller then loads the text).

        What the editor's review plans from: parsing and validating 1,000 apps again took ~575 ms of an 860 ms plan.
        The draft is ``None`` when a model did not validate (the problems then hold the errors), as ``load_text``'s.
        The document has no data (placing a problem composes its text): the session's data changes under later
        edits, while the text and models returned do not."""
        from tenantdeck.draft.load import DraftDocument, LoadResult
        from tenantdeck.models import Draft

        with self._lock:
            models = self.validated_models()
            if models is None:
                return None
            apps, presets = models
            complete = (not self._root.model and all(app is not None for app in apps)
                        and all(not scope.model for scope in self._presets.values()))
            draft = None
            if complete:
                draft = Draft.model_construct(format=self.data.get("format"), presets=presets, apps=apps)
                draft._source = Path(self.path)  # certificate paths are relative to the draft's folder
            return LoadResult(draft, self.problems, DraftDocument(self.file, self.text))

    def recheck(self, path: PathLike) -> list[Problem]:
        """Validate again the app or preset that holds ``path`` (the whole draft for a top-level path) and return
        its problems; what every edit does by itself, exposed for a UI that wants to refresh one app."""
        with self._lock:
            self._writable()
            parts = parts_of(path)
            if not self.validated:
                self.validate_all()
            if len(parts) >= 2 and parts[0] == "apps" and isinstance(parts[1], int) and parts[1] < len(self._apps):
                return self._revalidate({("app", parts[1])})
            if len(parts) >= 2 and parts[0] == "presets" and parts[1] in self._presets:
                return self._revalidate({("preset", parts[1])})
            self._validate_everything()
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
            scope.model = [unprefixed(p, ("presets", name)) for p in found]
        self._check_preset_rules(name)
        scope.clear_placed()

    def _check_preset_rules(self, name: str) -> None:
        from tenantdeck.rules import check_preset

        preset = self._preset_objs.get(name)
        found = check_preset(name, preset) if preset is not None else []
        self._presets[name].rules = [unprefixed(p, ("presets", name)) for p in found]

    def _validate_app_model(self, i: int, fields: Collection[str] = ()) -> None:
        """Validate app ``i`` into a new model. ``fields``: the only App fields whose values changed since its last
        model (:func:`edited_fields`); when that model was valid, only those are validated, into a copy of it that
        shares the other fields' models. The same answer (an App has no validator across its fields), a quarter of
        the time of the whole app (a bulk edit of one toggle on 5,000 apps), and the change states reuse what the
        untouched fields' models gave (``Kind.reads``). Anything unexpected validates the whole app."""
        from pydantic import ValidationError

        from tenantdeck.models import App

        scope = self._apps[i]
        old = self._app_objs[i]
        raw = self.data["apps"][i]
        if fields and old is not None and not scope.model and isinstance(raw, dict) and all(
                name in raw and name in _app_fields() for name in fields):
            new = old.model_copy()
            try:
                for name in sorted(fields):
                    App.__pydantic_validator__.validate_assignment(new, name, raw[name])
            except ValidationError:
                pass  # the whole app's validation below words its problems as ever
            else:
                self._app_objs[i] = new
                scope.clear_placed()
                return
        try:
            self._app_objs[i] = App.model_validate(self.data["apps"][i])
            scope.model = []
        except ValidationError as exc:
            self._app_objs[i] = None
            scope.model = [unprefixed(p, ("apps", i)) for p in self._converter()(exc, ("apps", i))]
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
        found = check_app(self._widget_checker(), app, ("apps", i), self._converter(), scope.checks) \
            if app is not None else []
        if app is not None and app.push_certificates is not None:
            from tenantdeck.models.certfiles import certificate_problems

            found += certificate_problems(app, ("apps", i), Path(self.path).parent)  # the files, as they are now
        scope.rules = [unprefixed(p, ("apps", i)) for p in found]
        scope.clear_placed()

    def _check_unique(self) -> None:
        from tenantdeck.rules import unique_names_and_ids

        self._unique = unique_names_and_ids(self._app_objs)

    def _revalidate(self, touched: set[tuple[str, Any]], fields: Mapping[int, Collection[str]] | None = None,
                    ) -> list[Problem]:
        """Re-check what an edit touched and return its problems (placed). ``fields``: app index -> the only App
        fields that changed in it (:func:`edited_fields`; an app left out is validated whole)."""
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
                self._validate_app_model(i, (fields or {}).get(i, ()))
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

    def _reset_scopes(self) -> None:
        """After the apps or presets were replaced as a whole: one scope per item again (validated afresh)."""
        apps = self.data.get("apps")
        presets = self.data.get("presets")
        self._apps = [Scope() for _ in apps] if isinstance(apps, list) else []
        self._presets = {name: Scope() for name in presets} if isinstance(presets, dict) else {}
        self._app_objs = [None] * len(self._apps)
        self._preset_objs = {}
        self._checker = None

    def _shift_app_scopes(self, op: DataOp) -> None:
        if op.kind == "insert":
            self._apps.insert(int(op.key), Scope())
            self._app_objs.insert(int(op.key), None)
        else:
            del self._apps[int(op.key)]
            del self._app_objs[int(op.key)]
