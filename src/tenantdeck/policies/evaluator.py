"""Evaluate fleet policies over apps: the same code for a draft (offline), the account after a push, and the live
account (audit).

Every rule sees an app as its **normalised draft object**: the app's plain data as a draft writes it, each widget
with its preset and the catalog defaults merged in (``widgets[i].main.send_gifs`` is always there), ``labels``
always a mapping and sections the draft leaves out absent (``has(app.team)`` is false when the team is not
managed). Secrets stay ``${VAR}`` references: a policy never sees a secret's value.

Why shorthands are evaluated here in Python and only ``cel`` checks by the CEL library: a call into the
``cel`` package costs about 15 us per app and rule whatever the expression (converting the app to CEL values
dominates), while a shorthand is a dictionary walk of a microsecond. Each shorthand's path is compiled to one
function over the app as the draft holds it (:mod:`tenantdeck.policies.finder`: a widget's key is read through its
preset and the defaults without merging the whole widget), and each cel check sees only the fields it can read
(:mod:`tenantdeck.policies.celview`), evaluated once per distinct such view. :class:`PolicyEngine` keeps each
app's results, so after an edit only that app is evaluated again (``same`` rules, which compare apps, are
recomputed from the kept values).
"""

from __future__ import annotations

import fnmatch
import functools
import re
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.policies.model import WILDCARD, PolicySet, Rule
from tenantdeck.policies.wording import Difference, differences_text, json_value, value_text
from tenantdeck.problems import PathPart, Problem, Severity, format_path


class _NoValue:
    """A violation's value when its check names none (a cel check: the app as a whole breaks it)."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Any = _NoValue()

#: the sections a draft app leaves out when it does not manage them
OPTIONAL_SECTIONS = ("extensions", "sms", "team", "extension_settings", "push_certificates", "settings")


@dataclass(frozen=True, slots=True)
class Violation:
    """One app that breaks one rule; ``path`` is where in the app (for the editor's jump), ``value`` what is there
    (ABSENT: not written; :data:`NO_VALUE` for a cel check, which names none), ``counted`` for a count check. A
    ``same`` rule's violation says how the app differs (``differs``) and whether the others tie (no majority).

    The words (:attr:`found`) are made when shown, not when evaluated: a value's YAML text costs microseconds
    that 5,000 violations of distinct values would spend on every evaluation (bench/policies.py)."""

    rule: str
    severity: str
    message: str
    app_index: int
    app_name: str
    app_id: str | None
    path: tuple[PathPart, ...] = ()
    value: Any = field(default=NO_VALUE, hash=False)  # a list or mapping is not hashable; the rest identifies it
    differs: tuple[Difference, ...] = field(default=(), hash=False)
    tie: bool = False
    counted: bool = False

    @property
    def found(self) -> str:
        """What is there, in words: ``'#FF0000'``, ``not written``, ``3 items``, a ``same`` rule's differences
        (:func:`tenantdeck.policies.wording.differences_text`); empty for a cel check."""
        if self.differs:
            return differences_text(self.differs, self.tie)
        if self.value is NO_VALUE:
            return ""
        if self.counted:
            n = _count(self.value)
            return f"{n} item{'s' * (n != 1)}"
        return value_text(self.value)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def said(self) -> str:
        """What was found, as a message's parenthesis says it: ``found 'http://x'``, or a ``same`` rule's
        differences (``core.x: false here, true in 4 of 5 apps``)."""
        return self.found if self.differs else f"found {self.found}"

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
                "found": None if self.value is NO_VALUE else json_value(self.value), "found_text": self.found,
                **({"differs": [d.to_json() for d in self.differs], "tie": self.tie} if self.differs else {})}


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
    for key in ("widgets", "webhooks", "labels"):
        out[key] = top_field(app, key, presets)
    return out


def top_field(app: Mapping[str, Any], key: str, presets: Any) -> Any:
    """One top-level field of the normalised app (None where the app does not write it): ``widgets`` and
    ``webhooks`` always lists, ``labels`` always a mapping, each widget merged with its preset and the defaults.
    The compiled paths of :mod:`tenantdeck.policies.finder` read the same, in generated code."""
    value = app.get(key)
    if key == "widgets":
        from tenantdeck.policies.finder import merged_widget

        return [merged_widget(widget, presets) for widget in value] if isinstance(value, list) else []
    if key == "webhooks":
        return list(value) if isinstance(value, list) else []
    if key == "labels":
        return dict(value) if isinstance(value, Mapping) else {}
    return value


def selected(rule: Rule, app: Mapping[str, Any]) -> bool:
    """Whether ``rule`` is about ``app`` (normalised, or as the draft holds it: read the same way)."""
    select = rule.select
    if select is None:
        return True
    if select.names is not None:
        name = app.get("name")
        if _globs(select.names).match(str(name) if name is not None else "") is None:
            return False
    if select.ids is not None and _globs(select.ids).match(str(app.get("id") or "")) is None:
        return False
    if select.labels:
        labels = app.get("labels")
        if not isinstance(labels, Mapping):
            labels = {}
        if any(labels.get(k) != v for k, v in select.labels.items()):
            return False
    return True


_GLOBS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _globs(patterns: Sequence[str]) -> re.Pattern[str]:
    """One compiled pattern matching what any of ``patterns`` matches with ``fnmatch.fnmatchcase`` (which
    translates and looks up its cache on every call: a fifth of a selector rule's cost at 5,000 apps)."""
    key = tuple(patterns)
    if key not in _GLOBS:
        _GLOBS[key] = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in key) or "(?!)")
    return _GLOBS[key]


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


def shorthand_ok(rule: Rule, kind: str | None = None) -> Callable[[Any], bool]:
    """Whether one value found at a shorthand's field keeps ``rule`` (a shorthand other than ``same``; ``ABSENT``
    where the app does not write the field); ``kind`` is the rule's check kind when the caller has it at hand."""
    check = rule.check
    kind = kind or check.kind
    if kind in ("equals", "one_of") and colour_field(check.field or ""):
        from tenantdeck.models.base import same_colour

        written = [c for c in (check.one_of or [] if kind == "one_of" else [check.equals]) if isinstance(c, str)]
        colours = {same_colour(c) for c in written}
        exact = set(written)  # most apps write a colour as the rule does: no normalising for them
        return lambda value: value is not ABSENT and (value in exact or same_colour(value) in colours)
    if kind == "equals":
        expected = check.equals
        return lambda value: value is not ABSENT and value == expected
    if kind == "one_of":
        choices = check.one_of or []
        return lambda value: value is not ABSENT and value in choices
    if kind == "contains":
        return _holds(check.contains)
    if kind == "matches":
        from tenantdeck.policies.patterns import compile_pattern

        pattern = compile_pattern(check.matches or "")  # RE2: linear in the value, whatever the pattern
        return lambda value: isinstance(value, str) and pattern.search(value) is not None
    if kind == "required" and check.required:
        return lambda value: not _empty(value)
    if kind == "forbidden" and check.forbidden:
        return _empty
    if kind == "count":
        low, high = (check.count.min, check.count.max) if check.count else (None, None)
        return lambda value: (low is None or _count(value) >= low) and (high is None or _count(value) <= high)
    return _always


@functools.lru_cache(maxsize=256)
def colour_field(text: str) -> bool:
    """Whether the field path ``text`` names a colour of the draft's models (``widgets[*].style.primary_color``):
    there ``equals`` and ``one_of`` compare colours, not spellings (:func:`tenantdeck.models.base.same_colour`)."""
    from tenantdeck.draft.pydantic_problems import type_at
    from tenantdeck.models.app import App
    from tenantdeck.models.base import is_colour
    from tenantdeck.policies.model import parse_field

    try:
        parts = parse_field(text)
    except ValueError:
        return False
    return is_colour(type_at(App, [0 if p == WILDCARD else p for p in parts]))


def _holds(expected: Any) -> Callable[[Any], bool]:
    """A ``contains`` check: the value is a list holding ``expected`` (of its type: ``1`` is not ``true``)."""
    kind = type(expected)
    return lambda value: isinstance(value, list) and any(type(x) is kind and x == expected for x in value)


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _count(value: Any) -> int:
    return 0 if value is ABSENT or value is None else len(value) if isinstance(value, (list, dict)) else 1


def shorthand_breaks(rule: Rule, parts: tuple[PathPart, ...], app: Mapping[str, Any], kind: str | None = None
                     ) -> tuple[tuple[PathPart, ...], Any] | None:
    """The first (path, value) of ``app`` (normalised) that breaks ``rule`` (a shorthand other than ``same``), or
    None; the engine does the same through a compiled path (:mod:`tenantdeck.policies.finder`)."""
    ok = shorthand_ok(rule, kind)
    found: list[tuple[tuple[PathPart, ...], Any]] = []
    _values(app, parts, (), found)
    return next(((path, value) for path, value in found if not ok(value)), None)


def same_key(value: Any) -> str:
    """A hashable stand-in for a value (lists and mappings compare by content; ``1``, ``1.0`` and ``true``
    stay apart)."""
    if value is None or type(value) in (str, int, float, bool):
        return _scalar_key(type(value), value)
    import json

    return json.dumps(value, sort_keys=True, default=str)


@functools.lru_cache(maxsize=4096)
def _scalar_key(kind: type, value: Any) -> str:
    import json

    return json.dumps(value)


# -- the engine --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _AppResult:
    name: str
    app_id: str | None
    violations: list[Violation]
    problems: list[Problem]
    same_values: dict[str, Any]  #: rule name -> the value at its field (``same`` rules), ABSENT when missing
    chosen: frozenset[str]  #: the rules that selected this app
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
        self._order = {r.name: i for i, r in enumerate(policies.rules)}
        self._same_rules = [r for r in policies.rules if r.check.kind == "same"]
        #: the rules without a selector: they choose every app (one set shared by every app's result)
        self._everyone = frozenset(r.name for r in policies.rules if r.select is None)
        self._selected: Counter[str] = Counter()
        self._same_counts: dict[str, Counter[str]] = {r.name: Counter() for r in self._same_rules}
        self._with_problems = 0  #: how many apps have a problem (a rule raised on them)
        self._spent = 0.0  #: the seconds the cel checks of the current pass took (celcost.PASS_SECONDS)
        #: per cel rule, :func:`tenantdeck.policies.celcost.within`'s bounds by the length of a view's repr
        self._quick: dict[str, dict[int, int | None]] = {}
        self._violations: list[Violation] = []  #: the last evaluation's, in app then rule order (patched by update)
        self._majority: dict[str, _Majority] = {}
        #: per ``same`` rule, what its violations' wording reads across apps (a value by its key, how many apps
        #: hold a mapping's key as the reference does); kept until a same value changes
        self._same_cache: dict[tuple[str, Any], Any] = {}
        #: per ``same`` rule, the apps it flags in the kept list (their wording moves with its counts)
        self._flagged: dict[str, set[int]] = {r.name: set() for r in self._same_rules}
        #: whether the last evaluate/update rebuilt every app's part (False: only the apps it was given changed)
        self.rebuilt = True
        # imported here: the engine's module is imported by every command that may read a policies file
        from tenantdeck.policies import celcost
        from tenantdeck.policies.celview import needs, run
        from tenantdeck.policies.finder import compile_finder

        self._celcost, self._run = celcost, run  # looked up once: _bounded runs per app and cel check

        #: per rule, what evaluating it needs (read once: ``Check.kind`` is a property over pydantic's fields set):
        #: (rule, kind, its field's compiled path, the test of one value, what a cel check reads of the app)
        self._plan = [(rule, kind,
                       _finder(compile_finder, parts) if kind != "cel" else None,
                       shorthand_ok(rule, kind) if kind not in ("cel", "same") else _never,
                       _needs(needs, rule.check.cel or "") if kind == "cel" else None)
                      for rule in policies.rules
                      for kind in [rule.check.kind]
                      for parts in [policies.paths.get(rule.name, ())]]
        #: per cel rule, the verdict (or what it raised) per distinct view of an app (its repr: types and order kept)
        self._memo: dict[str, dict[str, Any]] = {r.name: {} for r in policies.rules if r.check.kind == "cel"}

    def evaluate(self, apps: Sequence[Any], presets: Any) -> Evaluation:
        """Every rule over every app (``apps`` as a draft holds them: plain data)."""
        self._spent = 0.0  # the seconds the cel checks of this pass took (celcost.PASS_SECONDS)
        # in chunks: rule by rule over a few apps keeps those apps' data in the CPU's cache
        self._results = [result for start in range(0, len(apps), _CHUNK)
                         for result in self._batch(apps, presets, range(start, min(start + _CHUNK, len(apps))))]
        # the running counts at once: every app is chosen by the rules without a selector
        everyone = self._everyone
        self._selected = Counter(dict.fromkeys(everyone, len(self._results)))
        self._same_counts = {r.name: Counter() for r in self._same_rules}
        self._with_problems = 0
        for result in self._results:
            if result.chosen is not everyone:
                self._selected.update(result.chosen - everyone)
            for name, key in result.same_keys.items():
                self._same_counts[name][key] += 1
            if result.problems:
                self._with_problems += 1
        return self._collect(None)

    def _count(self, result: _AppResult | None, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) one app's part of the running counts."""
        if result is None:
            return
        if sign > 0:
            self._selected.update(result.chosen)
        else:
            self._selected.subtract(result.chosen)
        for name, key in result.same_keys.items():
            self._same_counts[name][key] += sign
        if result.problems:
            self._with_problems += sign

    def update(self, apps: Sequence[Any], presets: Any, changed: Sequence[int]) -> Evaluation:
        """After an edit of the apps at ``changed`` (the list's length may have changed too: apps added or removed
        at the end are evaluated, the others' results kept)."""
        self._spent = 0.0
        resized = len(self._results) != len(apps)
        if resized:
            for gone in self._results[len(apps):]:
                self._count(gone, -1)
            kept = self._results[:len(apps)]
            changed = sorted(set(changed) | set(range(len(kept), len(apps))))
            self._results = kept + [None] * (len(apps) - len(kept))  # type: ignore[list-item]
        done = sorted({i for i in changed if 0 <= i < len(apps)})
        full = resized
        moved: set[str] = set()  # the same rules whose values changed
        for i, result in zip(done, self._batch(apps, presets, done), strict=True):
            old = self._results[i]
            if old is None:
                full = True
            elif old.same_keys != result.same_keys:
                moved.update(n for n in {*old.same_keys, *result.same_keys}
                             if old.same_keys.get(n) != result.same_keys.get(n))
            self._count(old, -1)
            self._results[i] = result
            self._count(result, 1)
        return self._collect(None if full else done, moved)

    def _batch(self, apps: Sequence[Any], presets: Any, indices: Sequence[int]) -> list[_AppResult]:
        """The results of the apps at ``indices`` (as the draft holds them; normalised only as far as a rule reads
        them). Rule by rule, each over all the apps: a loop per app over twenty rules cost a third of a full
        evaluation in the loop itself (bench/policies.py)."""
        raws: list[Mapping[str, Any]] = [app if isinstance(app, Mapping) else {} for app in (apps[i] for i in indices)]
        results = []
        for index, raw in zip(indices, raws, strict=True):
            name, app_id = raw.get("name"), raw.get("id")
            results.append(_AppResult(str(name) if name is not None else f"apps[{index}]",
                                      app_id if isinstance(app_id, str) else None, [], [], {}, self._everyone))
        every = range(len(raws))
        picked: dict[int, list[str]] = {}  # per app (its place in ``raws``), the rules with a selector that chose it
        normal: dict[int, dict[str, Any]] = {}  # whole normalised apps, for a cel check that reads all of one
        for rule, kind, find, ok, need in self._plan:
            members: Sequence[int] = every
            if rule.select is not None:
                members = [k for k in every if selected(rule, raws[k])]
                for k in members:
                    picked.setdefault(k, []).append(rule.name)
            if kind == "cel":
                self._cel_rule(rule, need, members, apps, presets, indices, raws, results, normal)
            elif kind == "same":
                name = rule.name
                for k in members:
                    broken = find(raws[k], presets, _never)
                    value = ABSENT if broken is None else broken[1]
                    results[k].same_values[name] = value
                    results[k].same_keys[name] = same_key(value)
            else:
                for k, (path, value) in [(k, broken) for k in members
                                         if (broken := find(raws[k], presets, ok)) is not None]:
                    result = results[k]
                    result.violations.append(Violation(rule.name, rule.severity, rule.message, indices[k],
                                                       result.name, result.app_id, path, value,
                                                       counted=kind == "count"))
        for k, names in picked.items():
            results[k].chosen = self._everyone.union(names)
        return results

    def _cel_rule(self, rule: Rule, need: Any, members: Sequence[int], apps: Sequence[Any], presets: Any,
                  indices: Sequence[int], raws: list[Mapping[str, Any]], results: list[_AppResult],
                  normal: dict[int, dict[str, Any]]) -> None:
        """One cel check over the ``members`` of a batch (places in ``raws``), each on its view of the app. A view
        seen before (the same values, in the same order, of the same types: its repr) gives the verdict it gave
        then: converting a view to CEL values is most of a check's cost (4 us for a two-level mapping), and
        fleets repeat values. When a batch finds most views new, it stops looking them up."""
        program = self.policies.programs[rule.name]
        whole = need.whole or need.items is not None or need.size  # the whole app (a view of it would be all of it)
        seen: dict[str, Any] | None = None if whole else self._memo[rule.name]
        looked = hits = 0
        for k in members:
            if whole:
                if k not in normal:
                    normal[k] = normalise(apps[indices[k]], presets)
                view = normal[k]
            else:
                view = _view(raws[k], presets, need)
            if seen is not None:
                key = repr(view)
                outcome = seen.get(key)
                looked += 1
                if outcome is None:
                    outcome = self._bounded(rule, program, view, key)
                    if not isinstance(outcome, _Refused):  # the pass's budget may be spent only this time
                        seen[key] = outcome
                    if len(seen) >= _MEMO_SIZE:
                        seen.clear()
                else:
                    hits += 1
                if looked == _MEMO_TRIAL and hits * 8 < looked:
                    seen = None
            else:
                outcome = self._bounded(rule, program, view)
            if outcome is not True:
                self._cel_outcome(rule, outcome, indices[k], results[k])

    def _bounded(self, rule: Rule, program: Any, view: Mapping[str, Any], key: str | None = None) -> Any:
        """:func:`tenantdeck.policies.celview.run` once the check's estimated cost on ``view`` is known to fit its
        budget (:mod:`tenantdeck.policies.celcost`: the evaluation itself cannot be interrupted), and while this
        pass's cel checks have not used up their time; else a :class:`_Refused`, and the check is not run.
        ``key``: the view's repr, if made. The quick bound from the repr's length is tried first, the estimate on
        the view only when that bound is over the budget."""
        celcost = self._celcost
        tree = self.policies.costs.get(rule.name, (None, 1))[0]
        if tree is not None:
            longest = len(key if key is not None else repr(view))
            if celcost.within(tree, longest, celcost.EVAL_BUDGET, self._quick.setdefault(rule.name, {})) is None:
                try:
                    celcost.steps(tree, view, celcost.EVAL_BUDGET)
                except celcost.OverBudget as exc:
                    return _Refused(f"more than {exc.steps:,} steps on this app, over the {celcost.EVAL_BUDGET:,} "
                                    "a check may take (its lists are long and the check goes over them one inside "
                                    "another)")
                except celcost.Unbounded as exc:
                    return _Refused(f"its cost on this app cannot be bounded: {exc}")
        if self._spent > celcost.PASS_SECONDS:
            return _Refused(f"the {celcost.PASS_SECONDS:g} s the cel checks may take in one evaluation are spent")
        started = time.perf_counter()
        outcome = self._run(program, view)
        self._spent += time.perf_counter() - started
        return outcome

    def _cel_outcome(self, rule: Rule, outcome: Any, index: int, result: _AppResult) -> None:
        """A cel check's verdict on one app other than true: a violation, or a located problem."""
        if isinstance(outcome, _Refused):
            result.problems.append(self._raised(rule, f"not run on app {result.name!r}: {outcome.why}",
                                                Severity.ERROR, "policy-budget"))
            return
        if outcome is False:
            result.violations.append(Violation(rule.name, rule.severity, rule.message, index, result.name,
                                               result.app_id))
            return
        ran, verdict = outcome
        if not ran:
            exc = verdict
            reason = (f"the app has no {exc.args[0]!r} (guard it with has(), e.g. `!has(app.sms) || ...`)"
                      if isinstance(exc, KeyError) and exc.args else _one_line(exc))
            result.problems.append(self._raised(rule, f"could not be evaluated on app {result.name!r}: {reason}"))
            return
        result.problems.append(self._raised(rule, f"gave {type(verdict).__name__} {value_text(verdict)} on app "
                                                  f"{result.name!r}, not true or false"))

    def _raised(self, rule: Rule, text: str, severity: Severity = Severity.WARNING,
                code: str = "policy-raised") -> Problem:
        """A located problem of the policies file: at the rule's ``cel`` line."""
        where = self.policies.check_position(rule)
        return Problem(severity, f"rule {rule.name}: {text}", where[0], where[1], where[2], where[3], code)

    def _collect(self, changed: Sequence[int] | None, moved: Collection[str] = ()) -> Evaluation:
        """The evaluation from the kept results, in app order then rule order (each app's own list is in rule order
        already; only an app a ``same`` rule flags has its list merged). After an update of the apps at ``changed``
        that moved no ``same`` rule's majority, only their part of the kept list is replaced, with that of every
        app flagged by a ``same`` rule whose values changed (``moved``: its counts, which the wording says, moved)
        (a bisect and a slice: at 5,000 apps and 17,500 violations, concatenating every app's list again was most
        of an update)."""
        out = Evaluation()
        out.selected = {rule.name: self._selected.get(rule.name, 0) for rule in self.policies.rules}
        if changed is not None and moved:
            majority = self._majorities()
            if any(_side(majority.get(n)) != _side(self._majority.get(n)) for n in moved):
                changed = None
            else:
                changed = sorted({*changed, *(i for n in moved for i in self._flagged[n])})
                self._same_cache = {}
                self._majority = majority
        if changed is not None:
            violations = self._violations
            for i in changed:
                lo = bisect_left(violations, i, key=_APP_INDEX)
                hi = bisect_right(violations, i, lo=lo, key=_APP_INDEX)
                violations[lo:hi] = self._app_violations(i, self._majority)
            self.rebuilt = False
        else:
            self._same_cache = {}
            self._flagged = {r.name: set() for r in self._same_rules}
            majority = self._majorities()
            self._violations = [v for i in range(len(self._results)) for v in self._app_violations(i, majority)]
            self._majority = majority
            self.rebuilt = True
        out.violations = list(self._violations)
        if self._with_problems:
            out.problems = [p for r in self._results for p in r.problems]
        return out

    def violations_of(self, index: int) -> list[Violation]:
        """The violations of app ``index`` in the last evaluation, in rule order."""
        lo = bisect_left(self._violations, index, key=_APP_INDEX)
        return self._violations[lo:bisect_right(self._violations, index, lo=lo, key=_APP_INDEX)]

    def _app_violations(self, index: int, majority: Mapping[str, _Majority]) -> list[Violation]:
        result = self._results[index]
        extra = []
        for rule in self._same_rules:
            flagged = self._flagged[rule.name]
            flagged.discard(index)
            if rule.name in result.same_keys and (majority[rule.name].tied
                                                  or result.same_keys[rule.name] != majority[rule.name].key):
                flagged.add(index)
                extra.append(self._same_violation(rule, index, result, majority[rule.name]))
        if not extra:
            return result.violations
        order = self._order
        return sorted([*result.violations, *extra], key=lambda v: order[v.rule])

    def _same_violation(self, rule: Rule, index: int, result: _AppResult, majority: _Majority) -> Violation:
        """One odd app out of a ``same`` rule: each way its value differs from the majority's (on a tie, from the
        first other tied value's), with how many apps hold that."""
        own = result.same_keys[rule.name]
        ref = majority.key if own != majority.key else next(k for k in majority.tied if k != own)
        here, other = result.same_values[rule.name], self._same_value(rule.name, ref)
        path = self.policies.paths[rule.name]
        if isinstance(here, Mapping) and isinstance(other, Mapping):
            keys = [k for k in sorted({*other, *here}, key=str)  # in key order: not the order one app wrote
                    if same_key(here.get(k, ABSENT)) != same_key(other.get(k, ABSENT))]
            differs = tuple(Difference(str(k), here.get(k, ABSENT), other.get(k, ABSENT),
                                       self._key_count(rule.name, k, other.get(k, ABSENT)), majority.total)
                            for k in keys)
            if keys and keys[0] in here and WILDCARD not in path:
                path = (*path, keys[0])
        else:
            differs = (Difference(None, here, other, self._same_counts[rule.name][ref], majority.total),)
        tie = bool(majority.tied)
        return Violation(rule.name, rule.severity, rule.message, index, result.name, result.app_id, path,
                         here, differs, tie)

    def _same_value(self, name: str, key: str) -> Any:
        """The value of a ``same`` rule whose :func:`same_key` is ``key``, as the first app holding it wrote it."""
        if (name, key) not in self._same_cache:
            self._same_cache[name, key] = next(r.same_values[name] for r in self._results
                                               if r.same_keys.get(name) == key)
        return self._same_cache[name, key]

    def _key_count(self, name: str, key: Any, value: Any) -> int:
        """How many apps a ``same`` rule selects hold ``value`` at ``key`` of their mapping (ABSENT: do not)."""
        want = same_key(value)
        cached = self._same_cache.get((name, ("key", key, want)))
        if cached is None:
            cached = self._same_cache[name, ("key", key, want)] = sum(
                1 for r in self._results if name in r.same_keys
                and same_key(_at(r.same_values[name], key)) == want)
        return int(cached)

    def _majorities(self) -> dict[str, _Majority]:
        """Each ``same`` rule's most common value (its :func:`same_key`), or the values tied for most."""
        majority: dict[str, _Majority] = {}
        for rule in self._same_rules:
            counts = +self._same_counts[rule.name]
            if not counts:
                continue
            top = max(counts.values())
            tied = {key for key, n in counts.items() if n == top}
            total = sum(counts.values())
            if len(tied) == 1:
                majority[rule.name] = _Majority(next(iter(tied)), top, total)
                continue
            order = list(dict.fromkeys(r.same_keys[rule.name] for r in self._results
                                       if r.same_keys.get(rule.name) in tied))  # in app order
            majority[rule.name] = _Majority(order[0], top, total, tuple(order))
        return majority

    def majority_value(self, rule: Rule) -> Any:
        """The value most selected apps hold for a ``same`` rule (what ``policy fix`` writes), as the first app
        holding it wrote it; ABSENT if none, or on a tie (its violations say ``tie``)."""
        majority = self._majority.get(rule.name)
        if majority is None or majority.tied:
            return ABSENT
        return self._same_value(rule.name, majority.key)


@dataclass(frozen=True, slots=True)
class _Majority:
    """A ``same`` rule's reference value (its :func:`same_key`), how many apps hold it, of how many selected; on
    a tie, ``tied`` lists every value tied for most (``key`` the first app's of them)."""

    key: str
    count: int
    total: int
    tied: tuple[str, ...] = ()


def _side(majority: _Majority | None) -> tuple[str, tuple[str, ...]] | None:
    """What decides which apps a ``same`` rule flags: its reference value and the tied ones."""
    return None if majority is None else (majority.key, majority.tied)


def _at(value: Any, key: Any) -> Any:
    return value.get(key, ABSENT) if isinstance(value, Mapping) else ABSENT


@dataclass(frozen=True, slots=True)
class _Refused:
    """A cel check not run on one app: over its cost budget (why, in words)."""

    why: str


#: the key violations are kept sorted by (bisect finds one app's part)
_APP_INDEX = attrgetter("app_index")
#: how many apps :meth:`PolicyEngine.evaluate` takes rule by rule at a time
_CHUNK = 256
#: after this many views of one cel rule in a batch, it stops looking them up if fewer than an eighth were seen
_MEMO_TRIAL = 128

#: how many distinct views of apps each cel rule remembers the verdict of (then it starts again)
_MEMO_SIZE = 50_000


def _view(raw: Mapping[str, Any], presets: Any, need: Any) -> dict[str, Any]:
    """The top-level fields ``need`` reads of the normalised app, cut down to what it reads of each
    (:func:`tenantdeck.policies.celview.prune`)."""
    from tenantdeck.policies.celview import prune

    view: dict[str, Any] = {}
    for key, sub in need.keys.items():
        if key == "widgets" and sub.items is not None and not sub.items.whole and not sub.keys:
            widgets = raw.get(key)
            view[key] = [_widget_view(w, presets, sub.items) for w in widgets] if isinstance(widgets, list) else []
            continue
        value = top_field(raw, key, presets)
        if value is not None:
            view[key] = value if sub.whole else prune(value, sub)
    return view


def _widget_view(widget: Any, presets: Any, need: Any) -> Any:
    """One widget as a cel check sees it, cut down to ``need``: the ``section.key`` values it reads, each through
    the widget, its preset and the defaults (:func:`tenantdeck.policies.finder.widget_leaf`) rather than merging
    the whole widget (a check on two widget keys took 92 ms at 5,000 apps merging each widget). Any other need
    is met by the merged widget, cut down."""
    from tenantdeck.models.effective import DEFAULTS
    from tenantdeck.policies.celview import prune
    from tenantdeck.policies.finder import merged_widget, widget_leaf

    if need.size or need.items is not None or any(k not in DEFAULTS or s.flat is None for k, s in need.keys.items()):
        return prune(merged_widget(widget, presets), need)
    out: dict[str, Any] = {}
    for section, sub in need.keys.items():
        values: dict[str, Any] = {}
        for key in sub.flat:
            value = widget_leaf(widget, presets, section, key)
            if value is not None or key in DEFAULTS[section]:
                values[key] = value
        out[section] = values
    return out


_FINDERS: dict[tuple[PathPart, ...], Any] = {}
_NEEDS: dict[str, Any] = {}


def _finder(compile_finder: Callable[[tuple[PathPart, ...]], Any], parts: tuple[PathPart, ...]) -> Any:
    """One compiled function per path, shared by every engine (the TUI builds one per draft it loads)."""
    if parts not in _FINDERS:
        if len(_FINDERS) >= 1024:  # a rules file edited for a long session: start again
            _FINDERS.clear()
        _FINDERS[parts] = compile_finder(parts)
    return _FINDERS[parts]


def _needs(read: Callable[[str], Any], source: str) -> Any:
    if source not in _NEEDS:
        if len(_NEEDS) >= 1024:
            _NEEDS.clear()
        _NEEDS[source] = read(source)
    return _NEEDS[source]


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:200]


def evaluate(policies: PolicySet, apps: Sequence[Any], presets: Any) -> Evaluation:
    """Every rule of ``policies`` over ``apps`` (plain data), once."""
    return PolicyEngine(policies).evaluate(apps, presets)


__all__ = ["Evaluation", "PolicyEngine", "Violation", "evaluate", "normalise", "values_at"]
