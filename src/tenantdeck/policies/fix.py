"""``tenantdeck policy fix``: the draft edits that make the fleet comply, where a rule's fix is obvious.

Obvious: ``equals`` (its value), ``one_of`` (the rule's ``fix``, else the first listed), ``required`` (the rule's
``fix``: without one there is nothing to write), ``forbidden`` (the key removed), ``same`` (the value most
selected apps hold, or the rule's ``fix``). ``matches``, ``count`` and ``cel`` checks have no single right value,
so their violations are listed, never guessed at. Edits are computed on the draft's plain data and applied by the
caller as one change (one undo step in the editor, one save on the command line).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.absent import ABSENT
from tenantdeck.policies.engine import Evaluation, PolicyEngine, Violation
from tenantdeck.policies.model import PolicySet, Rule
from tenantdeck.problems import PathPart, format_path

FIXABLE = ("equals", "one_of", "required", "forbidden", "same")


@dataclass(frozen=True, slots=True)
class FixEdit:
    """One edit of the draft: ``value`` ABSENT means remove the key."""

    path: tuple[PathPart, ...]
    value: Any
    rule: str
    app: str

    def text(self) -> str:
        what = "remove" if self.value is ABSENT else f"set to {self.value!r}"
        return f'app "{self.app}": {format_path(self.path[2:])}: {what} (policy {self.rule})'


@dataclass(slots=True)
class FixPlan:
    edits: list[FixEdit] = field(default_factory=list)
    #: violations no edit can settle (a matches, count or cel rule; a required rule without a fix value)
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
    if check.kind == "same":
        return engine.majority_value(rule)
    return None  # required without a fix value: nothing obvious to write


def plan_fixes(policies: PolicySet, data: Mapping[str, Any]) -> tuple[FixPlan, Evaluation]:
    """What ``policy fix`` would write into the draft ``data`` (plain data), and the evaluation it comes from."""
    engine = PolicyEngine(policies)
    apps = list(data.get("apps") or [])
    evaluation = engine.evaluate(apps, data.get("presets"))
    plan = FixPlan()
    seen: set[tuple[PathPart, ...]] = set()
    for violation in evaluation.violations:
        rule = policies.rule(violation.rule)
        assert rule is not None
        if rule.check.kind not in FIXABLE:
            plan.left.append((violation, f"a {rule.check.kind} check has no single value to write"))
            continue
        value = _value_for(rule, engine)
        if value is None or (value is ABSENT and rule.check.kind != "forbidden"):
            plan.left.append((violation, "the rule names no value to write (give it `fix:`)"))
            continue
        targets = _paths(rule, policies, violation, apps, data.get("presets"))
        for path in targets:
            if path in seen:
                continue
            seen.add(path)
            plan.edits.append(FixEdit(path, value, rule.name, violation.app_name))
    return plan, evaluation


def _paths(rule: Rule, policies: PolicySet, violation: Violation, apps: list[Any],
           presets: Any) -> list[tuple[PathPart, ...]]:
    """Every concrete path of the violating app the rule's field reaches (a wildcard fans out: every webhook's
    URL, every widget's colour), as draft paths; for a widget value, the widget's own key (an override of its
    preset, never the preset, which other apps share)."""
    from tenantdeck.policies.engine import normalise, shorthand_breaks, values_at

    app = normalise(apps[violation.app_index], presets)
    parts = policies.paths[rule.name]
    out = []
    for path, value in values_at(app, parts):
        if rule.check.kind in ("same",) or shorthand_breaks(rule, path, app) is not None or value is ABSENT:
            out.append(("apps", violation.app_index, *path))
    return out or [("apps", violation.app_index, *violation.path)]


def apply_fixes(session: Any, plan: FixPlan) -> None:
    """Write ``plan`` into an open :class:`~tenantdeck.draft.session.DraftSession` as one undo step."""
    with session.transaction():
        for edit in plan.edits:
            if edit.value is ABSENT:
                session.delete(edit.path)
            else:
                session.set(edit.path, edit.value)


__all__ = ["FIXABLE", "FixEdit", "FixPlan", "apply_fixes", "plan_fixes"]
