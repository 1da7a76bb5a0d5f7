"""Evaluate fleet policies over apps: the same code for a draft (offline), the account after a push, and the live
account (audit).

Every rule sees an app as its **normalised draft object**: the app's plain data as a draft writes it, each widget
with its preset and the catalog defaults merged in (``widgets[i].main.send_gifs`` is always there), ``labels``
always a mapping and sections the draft leaves out absent (``has(app.team)`` is false when the team is not
managed). Secrets stay ``${VAR}`` references: a policy never sees a secret's value.

Why shorthands are evaluated here in Python and only ``cel`` checks by the CEL library: a call into the
``cel`` package costs about 15 us per app and rule whatever the expression (converting the app to CEL values
dominates), while a shorthand is a dictionary walk of a few microseconds. The CEL context of an app is built once
for all its cel rules and holds only the top-level fields those expressions read. :class:`PolicyEngine` keeps each
app's results, so after an edit only that app is evaluated again (``same`` rules, which compare apps, are
recomputed from the kept values).
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.policies.model import WILDCARD, PolicySet, Rule
from tenantdeck.problems import PathPart, Problem, Severity, format_path

#: the sections a draft app leaves out when it does not manage them
OPTIONAL_SECTIONS = ("extensions", "sms", "team", "extension_settings", "push_certificates", "settings")


@dataclass(frozen=True, slots=True)
class Violation:
    """One app that breaks one rule; ``path`` is where in the app (for the editor's jump), ``found`` what is there."""

    rule: str
    severity: str
    message: str
    app_index: int
    app_name: str
    app_id: str | None
    path: tuple[PathPart, ...] = ()
    found: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def describe(self) -> str:
        """``policy RULE: app "NAME": message (path: found)``."""
        where = f" ({format_path(self.path)}: {self.found})" if self.path and self.found else ""
        return f'policy {self.rule}: app "{self.app_name}": {self.message}{where}'

    def text(self) -> str:
        """:meth:`describe` after its severity (``error: policy ...``)."""
        return f"{self.severity}: {self.describe()}"

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message, "app": self.app_name,
                "app_id": self.app_id, "app_index": self.app_index, "path": format_path(self.path),
                "found": self.found}


@dataclass(slots=True)
class Evaluation:
    """What the rules found: violations in app order, and located problems of rules that could not run on an app."""

    violations: list[Violation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: rule name -> how many apps it selected
    selected: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.is_error]

    def of_rule(self, name: str) -> list[Violation]:
        return [v for v in self.violations if v.rule == name]

    def of_app(self, index: int) -> list[Violation]:
        return [v for v in self.violations if v.app_index == index]


# -- the normalised app ------------------------------------------------------------------------------------------


def normalise(app: Any, presets: Any) -> dict[str, Any]:
    """The app as every rule sees it (see the module docstring). Never raises: a draft being typed into is
    normalised as far as it reads."""
    if not isinstance(app, Mapping):
        return {"labels": {}, "widgets": [], "webhooks": []}
    out = {k: v for k, v in app.items() if v is not None}
    widgets = app.get("widgets") if isinstance(app.get("widgets"), list) else []
    out["widgets"] = [merged_widget(widget, presets) for widget in widgets]
    out["webhooks"] = list(app.get("webhooks") or []) if isinstance(app.get("webhooks"), list) else []
    out["labels"] = dict(app.get("labels") or {}) if isinstance(app.get("labels"), Mapping) else {}
    return out


def merged_widget(widget: Any, presets: Any) -> dict[str, Any]:
    """One widget as the rules see it: its name (or its preset's), and its sections merged by
    :func:`tenantdeck.draft.effective_widget.merged_sections` (without the per-key sources and notes
    ``effective_widget`` records for the editor, which cost four fifths of it: bench/policies.py)."""
    from tenantdeck.draft.effective_widget import merged_sections

    if not isinstance(widget, Mapping):
        widget = {}
    name = widget.get("name")
    preset: Mapping[str, Any] = {}
    extends = widget.get("extends")
    if isinstance(extends, str) and isinstance(presets, Mapping) and isinstance(presets.get(extends), Mapping):
        preset = presets[extends]
        if name is None and isinstance(preset.get("name"), str):
            name = preset["name"]
    entry: dict[str, Any] = {"name": name, "version": "v2", **merged_sections(widget, preset)}
    if widget.get("id") is not None:
        entry["id"] = widget["id"]
    return entry


def selected(rule: Rule, app: Mapping[str, Any]) -> bool:
    select = rule.select
    if select is None:
        return True
    if select.names is not None and not any(fnmatch.fnmatchcase(str(app.get("name", "")), p) for p in select.names):
        return False
    if select.ids is not None and not any(fnmatch.fnmatchcase(str(app.get("id") or ""), p) for p in select.ids):
        return False
    if select.labels:
        labels = app.get("labels") or {}
        if any(labels.get(k) != v for k, v in select.labels.items()):
            return False
    return True


def values_at(obj: Any, parts: Sequence[PathPart], prefix: tuple[PathPart, ...] = ()
              ) -> Iterator[tuple[tuple[PathPart, ...], Any]]:
    """Every (concrete path, value) ``parts`` reaches in ``obj``; ``[*]`` fans out over a list. A path that stops
    short yields ``ABSENT`` at the depth reached (only when it has no wildcard: an empty list is not a miss)."""
    found: list[tuple[tuple[PathPart, ...], Any]] = []
    _values(obj, parts, prefix, found)
    yield from found


def _values(obj: Any, parts: Sequence[PathPart], prefix: tuple[PathPart, ...],
            out: list[tuple[tuple[PathPart, ...], Any]]) -> None:
    """:func:`values_at` into ``out``: a loop down the path, recursing only at a wildcard (a recursive generator per
    part cost a third of evaluating the shorthands)."""
    path = list(prefix)
    for i, head in enumerate(parts):
        if head == WILDCARD:
            if isinstance(obj, list):
                rest = parts[i + 1:]
                for j, item in enumerate(obj):
                    _values(item, rest, (*path, j), out)
            return
        if isinstance(head, int):
            if isinstance(obj, list) and 0 <= head < len(obj):
                obj = obj[head]
                path.append(head)
                continue
            if WILDCARD not in parts[i + 1:]:
                out.append(((*path, head), ABSENT))
            return
        if (type(obj) is dict or isinstance(obj, Mapping)) and obj.get(head) is not None:
            obj = obj[head]
            path.append(head)
            continue
        if WILDCARD not in parts[i + 1:]:
            out.append(((*path, *parts[i:]), ABSENT))
        return
    out.append((tuple(path), obj))


def _empty(value: Any) -> bool:
    return value is ABSENT or value is None or value == "" or (isinstance(value, (list, dict)) and not value)


def _show(value: Any) -> str:
    if value is ABSENT:
        return "not written"
    text = repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def shorthand_breaks(rule: Rule, parts: tuple[PathPart, ...], app: Mapping[str, Any], kind: str | None = None
                     ) -> tuple[tuple[PathPart, ...], Any] | None:
    """The first (path, value) of ``app`` that breaks ``rule`` (a shorthand other than ``same``), or None;
    ``kind`` is the rule's check kind when the caller has it at hand."""
    check = rule.check
    kind = kind or check.kind
    found: list[tuple[tuple[PathPart, ...], Any]] = []
    _values(app, parts, (), found)
    for path, value in found:
        if kind == "equals":
            ok = value is not ABSENT and value == check.equals
        elif kind == "one_of":
            ok = value is not ABSENT and value in (check.one_of or [])
        elif kind == "matches":
            ok = isinstance(value, str) and re.search(check.matches or "", value) is not None
        elif kind == "required":
            ok = not _empty(value) if check.required else True
        elif kind == "forbidden":
            ok = _empty(value) if check.forbidden else True
        elif kind == "count":
            n = 0 if value is ABSENT or value is None else len(value) if isinstance(value, (list, dict)) else 1
            low, high = check.count.min if check.count else None, check.count.max if check.count else None
            ok = (low is None or n >= low) and (high is None or n <= high)
            if not ok:
                return path, f"{n} item{'s' * (n != 1)}"
        else:
            ok = True
        if not ok:
            return path, value
    return None


def same_key(value: Any) -> str:
    """A hashable stand-in for a value (lists and mappings compare by content)."""
    import json

    return json.dumps(value, sort_keys=True, default=str)


# -- the engine --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _AppResult:
    name: str
    app_id: str | None
    violations: list[Violation]
    problems: list[Problem]
    same_values: dict[str, Any]  #: rule name -> the value at its field (``same`` rules), ABSENT when missing
    chosen: set[str]  #: the rules that selected this app
    same_keys: dict[str, str] = field(default_factory=dict)  #: rule name -> :func:`same_key` of its same value


class PolicyEngine:
    """Evaluates a :class:`PolicySet` over a list of apps and keeps each app's results, so :meth:`update` after an
    edit evaluates only the apps that changed.

    What is counted over all apps (how many each rule selects, the values of ``same`` rules) is kept as running
    counts, moved by each app's old and new results, so an update costs the edited apps plus one pass that only
    concatenates the kept violations (bench/policies.py: 4 ms of 5 at 5,000 apps went to recounting)."""

    def __init__(self, policies: PolicySet) -> None:
        self.policies = policies
        self._results: list[_AppResult] = []
        #: per rule, what evaluating it needs (read once: ``Check.kind`` is a property over pydantic's fields set)
        self._plan = [(rule, rule.check.kind, policies.paths.get(rule.name, ())) for rule in policies.rules]
        self._order = {r.name: i for i, r in enumerate(policies.rules)}
        self._same_rules = [r for r in policies.rules if r.check.kind == "same"]
        self._selected: Counter[str] = Counter()
        self._same_counts: dict[str, Counter[str]] = {r.name: Counter() for r in self._same_rules}
        self._with_problems = 0  #: how many apps have a problem (a rule raised on them)
        self._violations: list[Violation] = []  #: the last evaluation's, in app then rule order (patched by update)
        self._majority: dict[str, str] = {}
        #: whether the last evaluate/update rebuilt every app's part (False: only the apps it was given changed)
        self.rebuilt = True
        cel_rules = [r for r in policies.rules if r.check.kind == "cel"]
        self._cel_rules = cel_rules
        fields: set[str] = set()
        whole = False
        for rule in cel_rules:
            source = rule.check.cel or ""
            fields.update(re.findall(r"\bapp\.([A-Za-z_]\w*)", source))
            whole = whole or re.search(r"\bapp\b(?!\s*\.)", source) is not None
        #: the app's top-level fields the cel rules read (None: all of them)
        self._cel_fields: frozenset[str] | None = None if whole else frozenset(fields)

    def evaluate(self, apps: Sequence[Any], presets: Any) -> Evaluation:
        """Every rule over every app (``apps`` as a draft holds them: plain data)."""
        self._results = [self._one(i, normalise(app, presets)) for i, app in enumerate(apps)]
        self._selected = Counter()
        self._same_counts = {r.name: Counter() for r in self._same_rules}
        self._with_problems = 0
        for result in self._results:
            self._count(result, 1)
        return self._collect(None)

    def _count(self, result: _AppResult | None, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) one app's part of the running counts."""
        if result is None:
            return
        for name in result.chosen:
            self._selected[name] += sign
        for name, key in result.same_keys.items():
            self._same_counts[name][key] += sign
        if result.problems:
            self._with_problems += sign

    def update(self, apps: Sequence[Any], presets: Any, changed: Sequence[int]) -> Evaluation:
        """After an edit of the apps at ``changed`` (the list's length may have changed too: apps added or removed
        at the end are evaluated, the others' results kept)."""
        resized = len(self._results) != len(apps)
        if resized:
            for gone in self._results[len(apps):]:
                self._count(gone, -1)
            kept = self._results[:len(apps)]
            changed = sorted(set(changed) | set(range(len(kept), len(apps))))
            self._results = kept + [None] * (len(apps) - len(kept))  # type: ignore[list-item]
        done = sorted({i for i in changed if 0 <= i < len(apps)})
        for i in done:
            self._count(self._results[i], -1)
            self._results[i] = self._one(i, normalise(apps[i], presets))
            self._count(self._results[i], 1)
        return self._collect(None if resized else done)

    def _one(self, index: int, app: dict[str, Any]) -> _AppResult:
        name, app_id = str(app.get("name", f"apps[{index}]")), app.get("id")
        result = _AppResult(name, app_id if isinstance(app_id, str) else None, [], [], {}, set())
        cel_context: Any = None
        for rule, kind, parts in self._plan:
            if rule.select is not None and not selected(rule, app):
                continue
            result.chosen.add(rule.name)
            if kind == "same":
                found = next(iter(values_at(app, parts)), ((), ABSENT))
                result.same_values[rule.name] = found[1]
                result.same_keys[rule.name] = same_key(found[1])
            elif kind == "cel":
                if cel_context is None:
                    cel_context = self._context(app)
                self._cel(rule, index, app, cel_context, result)
            else:
                broken = shorthand_breaks(rule, parts, app, kind)
                if broken is not None:
                    path, value = broken
                    found = value if isinstance(value, str) and kind == "count" else _show(value)
                    result.violations.append(Violation(rule.name, rule.severity, rule.message, index, name,
                                                       result.app_id, path, found))
        return result

    def _context(self, app: Mapping[str, Any]) -> Any:
        import cel

        fields = self._cel_fields
        view = dict(app) if fields is None else {k: app[k] for k in fields if k in app}
        return cel.Context(variables={"app": view})

    def _cel(self, rule: Rule, index: int, app: Mapping[str, Any], context: Any, result: _AppResult) -> None:
        try:
            verdict = self.policies.programs[rule.name].execute(context)
        except Exception as exc:  # a rule that raises on one app never stops the others (nor the editor)
            reason = (f"the app has no {exc.args[0]!r} (guard it with has(), e.g. `!has(app.sms) || ...`)"
                      if isinstance(exc, KeyError) and exc.args else _one_line(exc))
            result.problems.append(self._raised(rule, f"could not be evaluated on app {result.name!r}: {reason}"))
            return
        if not isinstance(verdict, bool):
            result.problems.append(self._raised(rule, f"gave {type(verdict).__name__} {_show(verdict)} on app "
                                                      f"{result.name!r}, not true or false"))
            return
        if not verdict:
            result.violations.append(Violation(rule.name, rule.severity, rule.message, index, result.name,
                                               result.app_id))

    def _raised(self, rule: Rule, text: str) -> Problem:
        """A located problem of the policies file: at the rule's ``cel`` line."""
        where = self.policies.check_position(rule)
        return Problem(Severity.WARNING, f"rule {rule.name}: {text}", where[0], where[1], where[2], where[3],
                       "policy-raised")

    def _collect(self, changed: Sequence[int] | None) -> Evaluation:
        """The evaluation from the kept results, in app order then rule order (each app's own list is in rule order
        already; only an app a ``same`` rule flags has its list merged). After an update of the apps at ``changed``
        that moved no ``same`` rule's majority, only their part of the kept list is replaced (a bisect and a slice:
        at 5,000 apps and 17,500 violations, concatenating every app's list again was most of an update)."""
        out = Evaluation()
        out.selected = {rule.name: self._selected.get(rule.name, 0) for rule in self.policies.rules}
        majority = self._majorities()
        if changed is not None and majority == self._majority:
            from bisect import bisect_left, bisect_right

            violations = self._violations
            for i in changed:
                lo = bisect_left(violations, i, key=_APP_INDEX)
                hi = bisect_right(violations, i, lo=lo, key=_APP_INDEX)
                violations[lo:hi] = self._app_violations(i, majority)
            self.rebuilt = False
        else:
            self._violations = [v for i in range(len(self._results)) for v in self._app_violations(i, majority)]
            self._majority = majority
            self.rebuilt = True
        out.violations = list(self._violations)
        if self._with_problems:
            out.problems = [p for r in self._results for p in r.problems]
        return out

    def violations_of(self, index: int) -> list[Violation]:
        """The violations of app ``index`` in the last evaluation, in rule order."""
        from bisect import bisect_left, bisect_right

        lo = bisect_left(self._violations, index, key=_APP_INDEX)
        return self._violations[lo:bisect_right(self._violations, index, lo=lo, key=_APP_INDEX)]

    def _app_violations(self, index: int, majority: Mapping[str, str]) -> list[Violation]:
        result = self._results[index]
        extra = [Violation(rule.name, rule.severity, rule.message, index, result.name, result.app_id,
                           self.policies.paths[rule.name], _show(result.same_values[rule.name]))
                 for rule in self._same_rules
                 if rule.name in result.same_keys and result.same_keys[rule.name] != majority[rule.name]]
        if not extra:
            return result.violations
        order = self._order
        return sorted([*result.violations, *extra], key=lambda v: order[v.rule])

    def _majorities(self) -> dict[str, str]:
        """Each ``same`` rule's most common value (its :func:`same_key`)."""
        majority: dict[str, str] = {}
        for rule in self._same_rules:
            counts = +self._same_counts[rule.name]
            if counts:
                # the most common value; a tie goes to the first app's (as Counter.most_common over app order did)
                top = max(counts.values())
                tied = {key for key, n in counts.items() if n == top}
                majority[rule.name] = next(r.same_keys[rule.name] for r in self._results
                                           if r.same_keys.get(rule.name) in tied)
        return majority

    def majority_value(self, rule: Rule) -> Any:
        """The value most selected apps hold for a ``same`` rule (what ``policy fix`` writes), ABSENT if none."""
        import json

        counts = Counter(r.same_keys[rule.name] for r in self._results if rule.name in r.same_keys)
        if not counts:
            return ABSENT
        key = counts.most_common(1)[0][0]
        for r in self._results:
            if rule.name in r.chosen and same_key(r.same_values[rule.name]) == key:
                return r.same_values[rule.name]
        return json.loads(key)


#: the key violations are kept sorted by (bisect finds one app's part)
_APP_INDEX = attrgetter("app_index")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:200]


def evaluate(policies: PolicySet, apps: Sequence[Any], presets: Any) -> Evaluation:
    """Every rule of ``policies`` over ``apps`` (plain data), once."""
    return PolicyEngine(policies).evaluate(apps, presets)


__all__ = ["Evaluation", "PolicyEngine", "Violation", "evaluate", "normalise", "values_at"]
