"""What the editor shows of the fleet policies: the rules beside the open draft, their verdict on it kept up to date
edit by edit, and the rows of the Policies screen and the Apps list's badge. Plain data in and out: no Textual,
and nothing heavier than this module is imported until the rules are first read (pydantic and the CEL library
come with :mod:`tenantdeck.policies.model`), so opening the editor does not pay for them.

Why edits are only noted, and evaluated when something shows the result (:meth:`FleetPolicies.refresh`): the App
screen's edits come one key press at a time while the Apps list is hidden; the list catches up once it is back,
with ``PolicyEngine.update`` over the apps edited meanwhile (each app's results are kept), not a full evaluation.
An edit outside one app (a preset every app may extend, the app list itself, a reload) evaluates everything again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenantdeck.draft.session import Change
    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.evaluator import Evaluation, PolicyEngine, Violation
    from tenantdeck.policies.fix import FixPlan
    from tenantdeck.policies.model import PolicySet
    from tenantdeck.problems import PathPart, Problem


@dataclass(frozen=True, slots=True)
class Badge:
    """How many rules an app breaks, by severity: what its row in the Apps list shows."""

    errors: int = 0
    warnings: int = 0

    @classmethod
    def of(cls, violations: Iterable[Violation]) -> Badge | None:
        """The badge of one app's violations; None when it has none."""
        errors = warnings = 0
        for v in violations:
            if v.is_error:
                errors += 1
            else:
                warnings += 1
        return cls(errors, warnings) if errors or warnings else None

    def text(self) -> str:
        """``✗2`` (two error rules broken), ``!1`` (a warning), ``✗1 !2``; empty when it complies."""
        parts = ([f"✗{self.errors}"] if self.errors else []) + ([f"!{self.warnings}"] if self.warnings else [])
        return " ".join(parts)


#: how many columns the Policies screen gives a rule's check (the name, severity, apps and message share the rest
#: of 80); the focused rule's line under the list shows it whole
CHECK_WIDTH = 28


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule as the Policies screen lists it."""

    name: str
    severity: str
    check: str  #: the check as the rules file says it (:func:`check_text`), on one line
    message: str
    violating: int  #: how many apps break it
    selected: int  #: how many apps it is about
    check_cell: str = ""  #: the check cut to :data:`CHECK_WIDTH` columns (:func:`check_cell`)

    @property
    def apps_text(self) -> str:
        return f"{self.violating} of {self.selected}"


def check_parts(check: Any) -> tuple[str, str]:
    """(where, what) of a rule's check as its rules file writes it: ``("", EXPRESSION)`` for a cel check, else
    ``(FIELD, "KIND VALUE")`` (``equals false``, ``count >= 2``, ``same``), values in YAML's flow style. Whitespace
    runs (a multi-line expression) become one space, and what is left is escaped for a terminal
    (:func:`tenantdeck.textsafe.shown`): it is cut to a width as it will be shown."""
    import json

    from tenantdeck.textsafe import shown

    kind = check.kind
    if kind == "cel":
        return "", shown(" ".join(str(check.cel or "").split()))
    value = getattr(check, kind)
    if value is True:  # required, forbidden, same: the key says it all
        said = ""
    elif kind == "count":
        low, high = value.min, value.max
        said = (f"{low}..{high}" if low is not None and high is not None
                else f">= {low}" if low is not None else f"<= {high}" if high is not None else "")
    elif kind == "matches":
        said = str(value)
    else:
        said = json.dumps(value, ensure_ascii=False, default=str)
    return shown(" ".join(str(check.field).split())), shown(f"{kind} {said}".rstrip())


def check_text(check: Any) -> str:
    """A rule's check on one line (``widgets[*].main.send_gifs equals false``, or the cel expression)."""
    return " ".join(part for part in check_parts(check) if part)


def check_cell(check: Any, width: int = CHECK_WIDTH) -> str:
    """The check in ``width`` columns: a shorthand loses the start of its field first (``…main.send_gifs equals
    false``: the kind and value are what tells rules apart), a cel expression its end."""
    where, what = check_parts(check)
    if not where:
        return shorten(what, width)
    from tenantdeck.textsafe import cell_width, fitted_end

    full = f"{where} {what}"
    if cell_width(full) <= width:
        return full
    room = width - cell_width(what) - 2  # "…" and the space
    if room >= 6:
        return f"{fitted_end(where, room + 1)} {what}"
    return shorten(full, width)


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ``…`` ending what was cut (:func:`tenantdeck.textsafe.fitted`, the one
    rule for a cut)."""
    from tenantdeck.textsafe import fitted

    return fitted(text, width)


@dataclass(frozen=True, slots=True)
class ViolationRow:
    """One app breaking one rule, as the drill-down lists it; ``key_path`` is where the jump lands."""

    violation: Violation
    where: str  #: the field inside the app (``widgets[0].main.send_gifs``), or "(the app)" for a cel check
    found: str

    @property
    def app_index(self) -> int:
        return self.violation.app_index


@dataclass(frozen=True, slots=True)
class FileProblemRow:
    """A problem of the rules file itself (a rule that does not compile, or raised on apps), located; ``count`` is
    how many apps the same located problem was found on (a rule that raises says so once, not once per app)."""

    problem: Problem
    count: int = 1

    @property
    def location(self) -> str:
        """``line 19`` (the summary names the file), or the file's name for a problem of the whole file."""
        if self.problem.line:
            return f"line {self.problem.line}"
        return Path(self.problem.file).name if self.problem.file else "(rules file)"

    @property
    def where(self) -> str:
        """``policies-demo.policies.yaml:23:18``: the file, line and column, as ``validate`` prints it."""
        p = self.problem
        name = Path(p.file).name if p.file else "(rules file)"
        return f"{name}:{p.line}:{p.column}" if p.line else name

    @property
    def text(self) -> str:
        more = f" (and {self.count - 1} more app{'s' * (self.count != 2)})" if self.count > 1 else ""
        return f"{self.problem.message}{more}"


@dataclass(frozen=True, slots=True)
class JumpTarget:
    """Where a violation (or any problem of the draft inside an app) is in the editor: the app, the tab holding the
    field, the field's key path."""

    app_index: int
    tab: str | None
    key_path: str

    @property
    def on_no_tab(self) -> bool:
        """The field is inside the app but no tab of the App screen shows it (the app's name heads the screen; its
        labels are the draft's alone): the App screen would open on a tab without it (trial H)."""
        from tenantdeck.problems import format_path

        return self.tab is None and self.key_path != format_path(("apps", self.app_index))


class FleetPolicies:
    """The rules of one draft (``<draft stem>.policies.yaml``) and their verdict on its apps, for the editor.

    :meth:`note` is told of every change of the draft (any thread; it only records which apps changed);
    :meth:`refresh` brings the verdict up to date on the UI thread and says which apps' badges changed."""

    def __init__(self, draft_path: Path, policies_file: Path | None = None) -> None:
        self.draft_path = draft_path
        self._file = policies_file
        self.policies: PolicySet | None = None  #: None until :meth:`read`
        self.engine: PolicyEngine | None = None
        self.evaluation: Evaluation | None = None
        #: what only the fleet tells of the rules (unknown settings keys and labels, empty selections), found at
        #: each full evaluation (:func:`tenantdeck.policies.checks.fleet_problems`)
        self.fleet_warnings: list[Problem] = []
        self.badges: dict[int, Badge] = {}
        self._signature: tuple[int, int] | None = None
        self._stale: set[int] | None = None  #: apps edited since the last evaluation; None: every app
        self._lock = threading.Lock()
        #: held while evaluating: the editor evaluates a big draft in a worker thread, and the UI thread then skips
        #: (``busy.acquire(blocking=False)``) rather than wait
        self.busy = threading.Lock()

    # -- the rules file ----------------------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        from tenantdeck.policies.model import policies_path

        return self._file or policies_path(self.draft_path)

    @property
    def read_yet(self) -> bool:
        return self.policies is not None

    @property
    def active(self) -> bool:
        """There is a rules file with something in it (rules, or problems to show)."""
        return bool(self.policies)

    def read(self) -> PolicySet:
        """Read the rules file (again); everything is evaluated at the next :meth:`refresh`."""
        from tenantdeck.policies.evaluator import PolicyEngine
        from tenantdeck.policies.model import load_policies

        self._signature = self._stat()
        policies = load_policies(self.path, beside=None if self._file else self.draft_path.parent)
        with self._lock:
            self.policies = policies
            self.engine = PolicyEngine(policies)
            self.evaluation = None
            self._stale = None
        return policies

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def changed_on_disk(self) -> bool:
        """The rules file was written, created or removed since it was read (a ``stat``)."""
        return self.read_yet and self._stat() != self._signature

    # -- keeping up with the draft -------------------------------------------------------------------------------

    def note(self, change: Change) -> None:
        """Remember which apps a change of the draft edited (every app for anything else)."""
        kind = str(change.kind)
        if kind in ("validate", "save", "pull"):
            return
        indexes = change.edited_apps() or set()
        with self._lock:
            if not indexes or self._stale is None or kind == "reload":
                self._stale = None
            else:
                self._stale |= indexes

    @property
    def stale(self) -> bool:
        return self.evaluation is None or self._stale is None or bool(self._stale)

    @property
    def needs_full(self) -> bool:
        """The next :meth:`refresh` evaluates every app (first time, new rules, an edit outside one app)."""
        return self.evaluation is None or self._stale is None

    def invalidate(self) -> None:
        """Evaluate every app at the next :meth:`refresh` (a worker's evaluation met the draft changing under it)."""
        with self._lock:
            self._stale = None

    def refresh(self, data: Any) -> set[int]:
        """Bring the verdict up to date with the draft's plain ``data``; the indexes of the apps whose badge changed
        (every app after a full evaluation that changed anything)."""
        if self.policies is None:
            self.read()
        with self._lock:
            stale, self._stale = self._stale, set()
            whole = self.evaluation is None or stale is None
        apps, presets = _apps_of(data)
        if whole:
            return self.evaluate(apps, presets)
        return self.update(apps, presets, sorted(stale or ()))

    def evaluate(self, apps: Sequence[Any], presets: Any) -> set[int]:
        """Every rule over every app."""
        if self.policies is None:
            self.read()
        assert self.engine is not None and self.policies is not None
        if not self.policies.rules:  # no rules (no file): nothing to normalise 5,000 apps for
            from tenantdeck.policies.evaluator import Evaluation

            self.evaluation = Evaluation()
            return self._rebadge()
        from tenantdeck.policies.checks import fleet_problems

        self.evaluation = self.engine.evaluate(apps, presets)
        self.fleet_warnings = fleet_problems(self.policies, apps, self.evaluation)
        return self._rebadge()

    def update(self, apps: Sequence[Any], presets: Any, changed: Sequence[int]) -> set[int]:
        """After an edit of the apps at ``changed``: only those are evaluated again."""
        if self.engine is None or self.evaluation is None or not (self.policies and self.policies.rules):
            return self.evaluate(apps, presets)
        self.evaluation = self.engine.update(apps, presets, changed)
        if self.engine.rebuilt:  # a same rule's value moved, or apps were added or removed: any badge may have
            return self._rebadge()
        moved = set()
        for i in changed:
            badge = Badge.of(self.engine.violations_of(i))
            if badge != self.badges.get(i):
                moved.add(i)
                if badge is None:
                    del self.badges[i]
                else:
                    self.badges[i] = badge
        return moved

    def _rebadge(self) -> set[int]:
        assert self.evaluation is not None
        by_app: dict[int, list[Violation]] = {}
        for v in self.evaluation.violations:
            by_app.setdefault(v.app_index, []).append(v)
        badges = {i: badge for i, found in by_app.items() if (badge := Badge.of(found)) is not None}
        old = self.badges
        changed = {i for i in old.keys() | badges.keys() if old.get(i) != badges.get(i)}
        self.badges = badges
        return changed

    def badge(self, index: int) -> str:
        badge = self.badges.get(index)
        return badge.text() if badge is not None else ""

    # -- what the screens list -----------------------------------------------------------------------------------

    def rule_rows(self, check_width: int = CHECK_WIDTH) -> list[RuleRow]:
        """Each rule as the Policies screen lists it, its check cut to ``check_width`` cells."""
        if self.policies is None:
            return []
        evaluation = self.evaluation
        violating: dict[str, set[int]] = {}
        for v in evaluation.violations if evaluation is not None else ():
            violating.setdefault(v.rule, set()).add(v.app_index)
        selected = evaluation.selected if evaluation is not None else {}
        return [RuleRow(r.name, r.severity, check_text(r.check), r.message, len(violating.get(r.name, ())),
                        selected.get(r.name, 0), check_cell(r.check, check_width)) for r in self.policies.rules]

    def violation_rows(self, rule: str) -> list[ViolationRow]:
        from tenantdeck.problems import format_path

        if self.evaluation is None:
            return []
        return [ViolationRow(v, format_path(v.path) if v.path else "(the app)", v.found)
                for v in self.evaluation.of_rule(rule)]

    def problem_rows(self) -> list[FileProblemRow]:
        """The rules file's own problems, then those found while running a rule (once per place, with a count)."""
        if self.policies is None:
            return []
        rows = [FileProblemRow(p) for p in [*self.policies.problems, *self.fleet_warnings]]
        grouped: dict[tuple[str, int, int, tuple[PathPart, ...]], list[Problem]] = {}
        for p in self.evaluation.problems if self.evaluation is not None else ():
            grouped.setdefault((p.file, p.line, p.column, p.path), []).append(p)
        rows += [FileProblemRow(found[0], len(found)) for found in grouped.values()]
        return rows

    def summary(self) -> str:
        """One line: how many rules, how many apps break them, the file's problems."""
        if self.policies is None:
            return "Reading the rules ..."
        name = self.path.name
        if not self.policies:
            return f"No rules: write them in {name} beside the draft (docs/policies.md)."
        rules = len(self.policies.rules)
        if not rules:  # nothing ran, so nothing is judged: `validate`, `audit` and a push refuse it (exit 1)
            first = self.policies.problems[0].render()
            more = len(self.policies.problems) - 1
            return (f"{name} cannot be read: {first}" + (f" (and {more} more problem(s))" if more else "")
                    + "; no rule ran, so no app is judged (validate, audit and push refuse until it is fixed).")
        text = f"{rules} rule{'s' * (rules != 1)} in {name}"
        if self.evaluation is not None:
            apps = {v.app_index for v in self.evaluation.violations}
            errors = {v.app_index for v in self.evaluation.errors}
            if apps:
                text += (f" · {len(apps)} app{'s' * (len(apps) != 1)} break{'s' * (len(apps) == 1)} them "
                         f"({len(errors)} with an error)")
            elif self.evaluation.problems or self.policies.problems:  # a rule that did not run found nothing
                text += " · no violation where the rules ran (some did not: see the problems)"
            else:
                text += " · every app complies"
        problems = len(self.problem_rows())
        if problems:
            text += f" · {problems} problem{'s' * (problems != 1)} in the file"
        return text

    def jump_target(self, violation: Violation) -> JumpTarget:
        """Where Enter on ``violation`` leads (:func:`jump_target`, with its rule's cel source when it has one)."""
        return jump_target(violation, self._cel(violation.rule))

    def problem_target(self, problem: Problem) -> JumpTarget | None:
        """Where Enter on a problem of the draft leads (the Problems screen); None outside an app. A violation's
        (its rule named in the problem by :func:`tenantdeck.policies.checks.violation_problems`) leads where
        :meth:`jump_target` leads from the Policies screen: a cel check's names no field, and its rule's source
        says which (trial H: F8 opened the app on its first tab, the Policies screen on Extensions)."""
        path = problem.path
        if len(path) < 2 or path[0] != "apps" or not isinstance(path[1], int):
            return None
        rule = problem.extra.get("rule") if problem.code == "policy" else None
        return field_target(path[1], path[2:], self._cel(str(rule)) if rule is not None else None)

    def _cel(self, rule_name: str) -> str | None:
        """The cel source of the rule called ``rule_name``, None for another check, no such rule or no rules read."""
        rule = self.policies.rule(rule_name) if self.policies is not None else None
        return rule.check.cel if rule is not None else None

    # -- acting on them ------------------------------------------------------------------------------------------

    def plan_fixes(self, data: Any) -> FixPlan:
        """The edits ``tenantdeck policy fix`` would write into the draft's plain ``data``."""
        from tenantdeck.policies.fix import plan_fixes

        if self.policies is None:
            self.read()
        assert self.policies is not None
        return plan_fixes(self.policies, data if isinstance(data, Mapping) else {})[0]


def jump_target(violation: Violation, cel: str | None = None) -> JumpTarget:
    """The tab and field of the App screen a violation is about (:func:`field_target` of its app and path)."""
    return field_target(violation.app_index, violation.path, cel)


def field_target(app_index: int, path: Sequence[PathPart], cel: str | None = None) -> JumpTarget:
    """The tab and field of the App screen at ``path`` inside app ``app_index`` (the tab:
    :func:`tenantdeck.draft.app_tabs.tab_of`, the one table); a wildcard of a ``same`` rule's field lands on the
    first item. A cel check's violation names no field: it lands on the first field the expression reads (``cel``,
    the rule's source; on extensions, the extension whose id the expression quotes), else on the app's first
    tab."""
    from tenantdeck.draft.app_tabs import tab_of
    from tenantdeck.problems import format_path

    at: tuple[PathPart, ...] = tuple(0 if p == "*" else p for p in path)
    if not at and cel:
        from tenantdeck.models import catalog
        from tenantdeck.policies.celview import first_field, named_item

        at = first_field(cel)
        if at[:1] == ("extensions",) and (named := named_item(cel, catalog.EXTENSION_IDS)) is not None:
            at = ("extensions", named)  # the extension the check is about, not the list's first
    return JumpTarget(app_index, tab_of(at), format_path(("apps", app_index, *at)))


# -- the review's gate ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GateRule:
    """One rule the account after a push would break, as the review says it: how many apps, and whether the
    user lets it through."""

    name: str
    severity: str
    apps: int
    allowed: bool = False

    @property
    def blocks(self) -> bool:
        return self.severity == "error" and not self.allowed

    def text(self) -> str:
        return f"{self.name} ({self.apps} app{'s' * (self.apps != 1)})"


@dataclass(frozen=True, slots=True)
class PolicyGate:
    """What the fleet policies say of a plan before ``p``: the rules the push would leave broken (from the plan's
    notes, the engine's own pre-push evaluation: :func:`tenantdeck.policies.checks.policy_notes`), the rules file's
    problems, and the rules the user allowed with a reason. Plain data for the editor's review."""

    rules: tuple[GateRule, ...] = ()
    file_problems: int = 0
    allowance: Allowance | None = None
    #: the plan has operations (a push with none sends nothing and is not gated: the rules then describe the
    #: account as it is)
    pushes: bool = True

    @property
    def blocking(self) -> list[GateRule]:
        return [r for r in self.rules if r.blocks]

    @property
    def errors(self) -> list[GateRule]:
        """The error rules broken, allowed or not: what the allow dialog offers."""
        return [r for r in self.rules if r.severity == "error"]

    @property
    def refused(self) -> bool:
        """The push would be refused as things stand (an error rule broken and not allowed, or the rules file has
        problems)."""
        return self.pushes and bool(self.blocking or self.file_problems)

    def lines(self) -> list[str]:
        """The lines above the review's list (none when every rule is kept): why the push would be refused and the
        editor's way through (never the CLI's flags), the warnings, the rules let through and why."""
        out = []
        if not self.pushes:
            broken = [r for r in self.rules if r.severity == "error"]
            if broken:
                out.append("Nothing to push; the account breaks " + ", ".join(r.text() for r in broken)
                           + " (P lists the apps).")
        elif self.file_problems:
            out.append(f"Push refused: the rules file has {self.file_problems} problem(s); fix it (P lists them).")
        if self.pushes and self.blocking:
            out.append("Push refused: it would break " + ", ".join(r.text() for r in self.blocking)
                       + ". Fix the draft (P lists the apps; f there fixes) or v: allow a rule with a reason.")
        allowed = [r for r in self.rules if r.allowed]
        if allowed and self.allowance is not None and self.pushes:
            out.append("Allowed (" + self.allowance.reason + "): " + ", ".join(r.text() for r in allowed)
                       + "; the history records it.")
        warnings = [r for r in self.rules if r.severity != "error"]
        if warnings:
            out.append("Policy warnings: " + ", ".join(r.text() for r in warnings) + ".")
        return out


def policy_gate(notes: Iterable[Any], allowance: Allowance | None = None, *, pushes: bool = True) -> PolicyGate:
    """The gate of a plan's notes (those of kind ``policy``: one per violation, with the rule and severity in their
    ``extra``; a rules-file problem has no rule), with ``allowance`` applied; ``pushes``: the plan has
    operations."""
    apps: dict[str, set[str]] = {}
    severity: dict[str, str] = {}
    problems = 0
    for note in notes:
        if getattr(note, "kind", "") != "policy":
            continue
        rule = note.extra.get("rule")
        if rule is None:
            problems += 1
            continue
        apps.setdefault(rule, set()).add(note.app)
        severity[rule] = str(note.extra.get("severity", "error"))
    let = set(allowance.rules) if allowance is not None else set()
    rules = sorted((GateRule(name, severity[name], len(found), name in let and severity[name] == "error")
                    for name, found in apps.items()), key=lambda r: (r.severity != "error", r.name))
    return PolicyGate(tuple(rules), problems, allowance, pushes)


def refusal_text(kind: str, rules: Sequence[str], summary: str) -> str:
    """Why a push from the editor was refused, and the editor's way through (the engine's ``summary`` names no
    command line; this adds the keys)."""
    if kind == "policy_violations":
        return (f"Not pushed: {summary}. Fix the draft (P lists the apps breaking {', '.join(rules)}; f there fixes "
                "the obvious ones) or press v to allow a rule with a reason, then p again.")
    if kind == "policies":
        return f"Not pushed: {summary}. P lists the rules file's problems."
    return f"Not pushed: {summary}"


def _apps_of(data: Any) -> tuple[list[Any], Any]:
    if not isinstance(data, Mapping):
        return [], None
    apps = data.get("apps")
    return (apps if isinstance(apps, list) else []), data.get("presets")


__all__ = [
    "CHECK_WIDTH",
    "Badge",
    "FileProblemRow",
    "FleetPolicies",
    "GateRule",
    "JumpTarget",
    "PolicyGate",
    "RuleRow",
    "ViolationRow",
    "check_cell",
    "check_parts",
    "check_text",
    "field_target",
    "jump_target",
    "policy_gate",
    "refusal_text",
    "shorten",
]
