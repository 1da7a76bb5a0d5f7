"""``tenantdeck policy fix``: the draft edits that make the fleet comply, where a rule's fix is obvious.

Obvious: ``equals`` (its value), ``one_of`` (the rule's ``fix``, else the first listed), ``required`` (the rule's
``fix``: without one there is nothing to write), ``forbidden`` (the key removed), ``contains`` (the value appended
to the list), ``same`` (the value most selected apps hold, or the rule's ``fix``; of a mapping, only the keys that
differ). A ``same`` rule whose apps tie has no majority: ``fix`` does not pick a side, it says so. ``matches``,
``count`` and ``cel`` checks have no single right value, so their violations are listed, never guessed at. Edits
are computed on the draft's plain data and applied by the caller as one change (one undo step in the editor, one
save on the command line).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.policies.evaluator import Evaluation, PolicyEngine, Violation
from tenantdeck.policies.model import WILDCARD, PolicySet, Rule
from tenantdeck.policies.wording import value_text
from tenantdeck.problems import PathPart, format_path

FIXABLE = ("equals", "one_of", "required", "forbidden", "same", "contains")

#: a list whose items may not also be in its sibling's (an extension is enabled or disabled, not both): a
#: ``contains`` fix adding to one takes the value out of the other
_EXCLUSIVE = {("extensions", "enabled"): ("extensions", "disabled"),
              ("extensions", "disabled"): ("extensions", "enabled")}


@dataclass(frozen=True, slots=True)
class FixEdit:
    """One edit of the draft: ``value`` ABSENT means remove the key; ``append`` adds ``value`` to the list at
    ``path``."""

    path: tuple[PathPart, ...]
    value: Any
    rule: str
    app: str
    append: bool = False

    def text(self) -> str:
        what = ("remove" if self.value is ABSENT else f"add {value_text(self.value)}" if self.append
                else f"set to {value_text(self.value)}")
        return f'app "{self.app}": {format_path(self.path[2:])}: {what} (policy {self.rule})'


@dataclass(slots=True)
class FixPlan:
    edits: list[FixEdit] = field(default_factory=list)
    #: violations no edit can settle (a matches, count or cel rule; a required rule without a fix value; a tie)
    left: list[tuple[Violation, str]] = field(default_factory=list)


def _value_for(rule: Rule, engine: PolicyEngine) -> Any:
    check = rule.check
    if rule.fix is not None:
        return rule.fix
    if check.kind == "equals":
        return check.equals
    if check.kind == "one_of":
        return (check.one_of or [ABSENT])[0]
    if check.kind == "forbidden":
        return ABSENT
    if check.kind == "contains":
        return check.contains
    if check.kind == "same":
        return engine.majority_value(rule)
    return None  # required without a fix value: nothing obvious to write


def plan_fixes(policies: PolicySet, data: Mapping[str, Any]) -> tuple[FixPlan, Evaluation]:
    """What ``policy fix`` would write into the draft ``data`` (plain data), and the evaluation it comes from."""
    engine = PolicyEngine(policies)
    apps = list(data.get("apps") or [])
    evaluation = engine.evaluate(apps, data.get("presets"))
    plan = FixPlan()
    seen: set[tuple[Any, ...]] = set()
    for violation in evaluation.violations:
        rule = policies.rule(violation.rule)
        assert rule is not None
        kind = rule.check.kind
        if kind not in FIXABLE:
            plan.left.append((violation, f"a {kind} check has no single value to write"))
            continue
        if kind == "same" and violation.tie and rule.fix is None:
            plan.left.append((violation, "the apps tie, so there is no majority to write and `policy fix` does not "
                                         "pick one: make them agree, or give the rule `fix:`"))
            continue
        value = _value_for(rule, engine)
        if value is None or (value is ABSENT and kind != "forbidden"):
            plan.left.append((violation, "the rule names no value to write (give it `fix:`)"))
            continue
        if kind == "contains":
            edits = _additions(rule, policies, violation, apps, data.get("presets"), value)
        elif kind == "same" and rule.fix is None and _by_key(violation, policies.paths[rule.name]):
            edits = _key_edits(rule, policies.paths[rule.name], violation)
        else:
            edits = [FixEdit(path, value, rule.name, violation.app_name)
                     for path in _paths(rule, policies, violation, apps, data.get("presets"))]
        for edit in edits:
            mark = (edit.path, edit.append, repr(edit.value) if edit.append else None)
            if mark not in seen:
                seen.add(mark)
                plan.edits.append(edit)
    return plan, evaluation


def _by_key(violation: Violation, field: tuple[PathPart, ...]) -> bool:
    """Whether a ``same`` violation is settled key by key (a mapping at a path without a wildcard)."""
    return WILDCARD not in field and bool(violation.differs) and all(d.key is not None for d in violation.differs)


def _key_edits(rule: Rule, field: tuple[PathPart, ...], violation: Violation) -> list[FixEdit]:
    """A ``same`` fix of a mapping: only the keys that differ from the majority's (the others, and their
    comments, stay as they are)."""
    return [FixEdit(("apps", violation.app_index, *field, d.key), d.other, rule.name, violation.app_name)
            for d in violation.differs if not (d.other is ABSENT and d.here is ABSENT)]


def _additions(rule: Rule, policies: PolicySet, violation: Violation, apps: list[Any], presets: Any,
               value: Any) -> list[FixEdit]:
    """A ``contains`` fix: ``value`` appended to each list that lacks it (a list the draft does not write, such
    as a widget's inherited from its preset, is written whole: what the app had, then the value), and taken out
    of an exclusive sibling list (:data:`_EXCLUSIVE`)."""
    from tenantdeck.policies.evaluator import normalise, values_at

    app = normalise(apps[violation.app_index], presets)
    raw = apps[violation.app_index]
    edits = []
    for path in _paths(rule, policies, violation, apps, presets):
        inner = path[2:]
        held = _raw_at(raw, inner)
        if isinstance(held, list):
            edits.append(FixEdit(path, value, rule.name, violation.app_name, append=True))
        else:
            seen = next((v for p, v in values_at(app, inner) if isinstance(v, list)), [])
            edits.append(FixEdit(path, [*seen, value], rule.name, violation.app_name))
        sibling = _EXCLUSIVE.get(tuple(inner[-2:]))
        other = _raw_at(raw, (*inner[:-2], *sibling)) if sibling and len(inner) == 2 else None
        if isinstance(other, list):
            edits += [FixEdit(("apps", violation.app_index, *sibling, j), ABSENT, rule.name, violation.app_name)
                      for j in reversed(range(len(other))) if type(other[j]) is type(value) and other[j] == value]
    return edits


def _raw_at(obj: Any, path: tuple[PathPart, ...]) -> Any:
    """The value at ``path`` as the draft writes it (None where it does not)."""
    for part in path:
        if isinstance(part, int):
            obj = obj[part] if isinstance(obj, list) and 0 <= part < len(obj) else None
        else:
            obj = obj.get(part) if isinstance(obj, Mapping) else None
    return obj


def _paths(rule: Rule, policies: PolicySet, violation: Violation, apps: list[Any],
           presets: Any) -> list[tuple[PathPart, ...]]:
    """Every concrete path of the violating app the rule's field reaches (a wildcard fans out: every webhook's
    URL, every widget's colour), as draft paths; for a widget value, the widget's own key (an override of its
    preset, never the preset, which other apps share)."""
    from tenantdeck.policies.evaluator import normalise, shorthand_breaks, values_at

    app = normalise(apps[violation.app_index], presets)
    parts = policies.paths[rule.name]
    out = []
    for path, value in values_at(app, parts):
        if rule.check.kind in ("same",) or shorthand_breaks(rule, path, app) is not None or value is ABSENT:
            out.append(("apps", violation.app_index, *path))
    return out or [("apps", violation.app_index, *violation.path)]


def fix_edits(plan: FixPlan) -> list[tuple[str, tuple[PathPart, ...], Any]]:
    """``plan`` as the session's ``(verb, path, value)`` edits (delete, insert into a list, set): the one
    translation the CLI and the editor share. The editor had its own, which set a list to the value it should
    have gained (``enabled: profanity-filter``: the list lost, the draft invalid)."""
    return [("delete", e.path, None) if e.value is ABSENT else ("insert", e.path, e.value) if e.append
            else ("set", e.path, e.value) for e in plan.edits]


def apply_fixes(session: Any, plan: FixPlan) -> None:
    """Write ``plan`` into an open :class:`~tenantdeck.draft.session.DraftSession` as one undo step."""
    with session.transaction():
        for verb, path, value in fix_edits(plan):
            if verb == "delete":
                session.delete(path)
            elif verb == "insert":
                session.insert(path, value)
            else:
                session.set(path, value)


__all__ = ["FIXABLE", "FixEdit", "FixPlan", "apply_fixes", "fix_edits", "plan_fixes"]
