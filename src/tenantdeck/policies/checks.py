"""Where the policies are checked: a draft offline, the account as a push would leave it, and the live account.

Each function returns data (violations, located problems); the commands and the editor render them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tenantdeck.policies.evaluator import Evaluation, PolicyEngine, Violation
from tenantdeck.policies.model import PolicySet, load_policies, policies_path
from tenantdeck.problems import PathPart, Problem, Severity, did_you_mean, format_path


def policies_for(draft_path: Path, policies_file: Path | None = None) -> PolicySet:
    """The rules that apply to ``draft_path``: ``policies_file``, else ``<stem>.policies.yaml`` beside it (read
    only inside the draft's folder)."""
    if policies_file is not None:
        return load_policies(policies_file)
    return load_policies(policies_path(draft_path), beside=draft_path.parent)


def violation_problems(evaluation: Evaluation, doc: Any) -> list[Problem]:
    """Each violation as a problem of the draft, at the offending value's line where the draft writes it, else at
    the app's (a widget value inherited from a preset, a team the draft does not list)."""
    out = []
    for v in evaluation.violations:
        path: tuple[PathPart, ...] = ("apps", v.app_index, *v.path)
        line, column = doc.locate(path) if doc is not None else (0, 0)
        found = f" ({v.said})" if v.found else ""
        out.append(Problem(Severity.ERROR if v.is_error else Severity.WARNING,
                           f"policy {v.rule}: {v.message}{found}", path, getattr(doc, "file", ""), line, column,
                           "policy", {"rule": v.rule}))  # the rule: where Enter leads (FleetPolicies.problem_target)
    return out


def check_draft(draft_path: Path, data: Mapping[str, Any], doc: Any, policies_file: Path | None = None,
                schema: Sequence[Problem] = ()) -> tuple[PolicySet, list[Problem]]:
    """``validate``: the rules file's own problems and each violation of the draft ``data`` (plain data), located.

    ``schema``: the draft's own problems. An app with a schema error is left out (what a rule would read of it is
    not what it means), every other app is judged: one broken app does not hide the violations of the rest."""
    policies = policies_for(draft_path, policies_file)
    if not policies.rules:
        return policies, [*policies.problems, *policies.warnings]
    apps = list(data.get("apps") or []) if isinstance(data.get("apps"), list) else []
    broken = broken_apps(schema)
    kept = [i for i in range(len(apps)) if i not in broken]
    evaluation = PolicyEngine(policies).evaluate([apps[i] for i in kept] if broken else apps, data.get("presets"))
    if broken:
        evaluation.violations = [replace(v, app_index=kept[v.app_index]) for v in evaluation.violations]
    return policies, [*policies.problems, *policies.warnings, *fleet_problems(policies, apps, evaluation),
                      *evaluation.problems, *violation_problems(evaluation, doc)]


def fleet_problems(policies: PolicySet, apps: Sequence[Any], evaluation: Evaluation) -> list[Problem]:
    """What only the fleet can tell of the rules, as warnings of the policies file: a settings key that neither
    the catalog nor any app knows, a label (of a ``select``, or read by a check) no app holds (each with a
    did-you-mean), a rule that selects no app. Settings and labels are free mappings, so a key the models cannot
    check would otherwise make every app violate, or select none, without a word (issue 33)."""
    from tenantdeck.models.catalog import APP_SETTINGS

    held = [a for a in apps if isinstance(a, Mapping)]
    settings = {k for a in held if isinstance(a.get("settings"), Mapping) for k in a["settings"]}
    settings |= {s.key for s in APP_SETTINGS}
    labels: dict[str, set[Any]] = {}
    for app in held:
        for key, value in (app.get("labels") or {}).items() if isinstance(app.get("labels"), Mapping) else ():
            labels.setdefault(key, set()).add(value)
    out: list[Problem] = []
    for index, rule in ((policies.indexes.get(r.name, 0), r) for r in policies.rules):
        for section, key in _free_keys(policies, rule):
            known = settings if section == "settings" else set(labels)
            if key not in known:
                where = ("policies", index, "check", "cel" if rule.check.kind == "cel" else "field")
                what = "no app and no catalog entry has the setting" if section == "settings" else \
                    "no app has the label"
                out.append(_warning(policies, f"rule {rule.name}: {what} {key!r}{did_you_mean(key, known)}", where))
        wanted = (rule.select.labels or {}) if rule.select is not None else {}
        for key, value in wanted.items():
            where = ("policies", index, "select", "labels", key)
            if key not in labels:
                out.append(_warning(policies, f"rule {rule.name}: no app has the label {key!r}"
                                              f"{did_you_mean(key, labels)}", where))
            elif value not in labels[key]:
                out.append(_warning(policies, f"rule {rule.name}: no app has the label {key}: {value!r}"
                                              f"{did_you_mean(value, sorted(map(str, labels[key])))}", where))
        if held and rule.select is not None and not evaluation.selected.get(rule.name):
            out.append(_warning(policies, f"rule {rule.name}: selects no app, so it checks nothing",
                                ("policies", index, "select")))
    return out


def _free_keys(policies: PolicySet, rule: Any) -> list[tuple[str, str]]:
    """(``settings`` or ``labels``, key) for each key of those mappings the rule's check reads by name."""
    paths: list[tuple[PathPart, ...]] = []
    if rule.check.kind == "cel":
        from tenantdeck.policies.celcost import Unbounded, parse
        from tenantdeck.policies.model import cel_chains

        try:
            paths = cel_chains(parse(rule.check.cel or ""))
        except Unbounded:
            paths = []
    elif rule.name in policies.paths:
        paths = [policies.paths[rule.name]]
    found = [(str(p[0]), p[1]) for p in paths if len(p) >= 2 and p[0] in ("settings", "labels")
             and isinstance(p[1], str) and p[1] != "*"]
    return list(dict.fromkeys(found))


def _warning(policies: PolicySet, message: str, where: tuple[PathPart, ...]) -> Problem:
    line, column = policies.doc.locate(where) if policies.doc is not None else (0, 0)
    return Problem(Severity.WARNING, message, where, str(policies.path or ""), line, column, "policy-fleet")


def broken_apps(problems: Sequence[Problem]) -> set[int]:
    """The indexes of the apps an error of ``problems`` is about (its path starts ``apps[i]``)."""
    return {p.path[1] for p in problems
            if p.is_error and len(p.path) > 1 and p.path[0] == "apps" and isinstance(p.path[1], int)}


@dataclass(slots=True)
class FleetCheck:
    """The rules' verdict on a set of apps that are not (only) the draft's: after a push, or live."""

    policies: PolicySet
    evaluation: Evaluation
    apps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def blocking(self) -> list[Violation]:
        return self.evaluation.errors


def check_apps(policies: PolicySet, apps: Sequence[Mapping[str, Any]], presets: Any) -> FleetCheck:
    return FleetCheck(policies, PolicyEngine(policies).evaluate(list(apps), presets), list(apps))


class NotAllowed(ValueError):
    """Rules cannot be let through as asked: no reason given (``rule`` None), or no such rule (``rule``)."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Allowance:
    """Error rules a push may leave broken, and why: the push records both in the history (its
    ``allowed_violations`` and ``violation_reason``). The CLI's ``--allow-violation RULE --reason TEXT`` and the
    editor's review make one the same way, through :func:`allowance`."""

    rules: tuple[str, ...] = ()
    reason: str = ""

    def __bool__(self) -> bool:
        return bool(self.rules)


def allowance(policies: PolicySet, rules: Sequence[str], reason: str | None) -> Allowance:
    """The allowance of ``rules`` for ``reason`` (stripped), checked: a reason is required and every rule must be
    one of ``policies``; raises :class:`NotAllowed` saying which is wrong (with a did-you-mean)."""
    from tenantdeck.problems import did_you_mean

    text = (reason or "").strip()
    if rules and not text:
        raise NotAllowed("a reason is required: why breaking the rule is acceptable (the history keeps it)")
    known = [r.name for r in policies.rules]
    for rule in rules:
        if rule not in known:
            raise NotAllowed(f"no such rule in {policies.path}" + did_you_mean(rule, known), rule)
    return Allowance(tuple(dict.fromkeys(rules)), text if rules else "")


def allowed(violations: Sequence[Violation], allow: Sequence[str]) -> tuple[list[Violation], list[Violation]]:
    """(the violations ``--allow-violation RULE`` lets through, those that still block)."""
    let = [v for v in violations if v.rule in allow]
    return let, [v for v in violations if v.rule not in allow]


async def audit_target(target: Any, draft_path: Path, policies: PolicySet, *, concurrency: int = 16
                       ) -> FleetCheck:
    """The live account as it is now, every app of it, against ``policies``: what a dashboard change broke.

    The draft (if there is one) gives each app its labels and the presets its widgets are written against; the
    values, and which objects there are, are the service's alone (:func:`tenantdeck.policies.account.account_now`:
    a webhook only the draft holds is not on the service). Nothing is written."""
    from tenantdeck.draft.load import load_draft
    from tenantdeck.models.app import App
    from tenantdeck.policies.account import account_now
    from tenantdeck.sync.remote.pull import fetch_pull
    from tenantdeck.sync.workspace.binding import check_identity, identity_of
    from tenantdeck.sync.workspace.state import Workspace

    workspace = Workspace(draft_path)
    draft_apps: list[App] = []
    presets: dict[str, Any] = {}
    if draft_path.exists():
        check_identity(workspace, identity_of(target))
        loaded = load_draft(str(draft_path))
        if loaded.draft is not None:
            draft_apps = list(loaded.draft.apps)
            presets = {k: v.model_dump(mode="json", exclude_none=True) for k, v in loaded.draft.presets.items()}
    workspace.secret_key(target.fingerprint_key())
    async with target.client(concurrency=concurrency) as client:
        canonicals = await fetch_pull(client, workspace, concurrency=concurrency)
    return check_apps(policies, account_now(canonicals, draft_apps, presets), presets)


def judge_after_push(policies: PolicySet, local: Any, steps: Sequence[Any], now: Mapping[str, Mapping[str, Any]],
                     order: Sequence[str]) -> FleetCheck:
    """The rules on the account after a push of ``steps`` (:func:`tenantdeck.policies.account.account_after_push`:
    ``now`` is every app of the account as the service holds it, read as far as the rules read)."""
    from tenantdeck.policies.account import account_after_push

    data = local.result.doc.data
    presets = (data.get("presets") if isinstance(data, Mapping) else None) or {}
    checked = check_apps(policies, account_after_push(local, steps, now, order), presets)
    checked.evaluation.violations = _named_as_drafted(checked.evaluation.violations, local.apps)
    return checked


def _named_as_drafted(violations: list[Violation], apps: Sequence[Any]) -> list[Violation]:
    """``violations`` with each app named as the draft names it now. The rules judge the service's app, which keeps
    its name (the API cannot rename an existing app), so a violation named the app by its old name while the plan's
    steps and notes beside it in the review, ``diff`` and the push's refusal name it by the draft's (trial H)."""
    names = {str(a["id"]): str(a["name"]) for a in apps
             if isinstance(a, Mapping) and a.get("id") and isinstance(a.get("name"), str)}
    return [replace(v, app_name=names[v.app_id]) if v.app_id in names and names[v.app_id] != v.app_name else v
            for v in violations]


def policy_notes(policies: PolicySet, checked: FleetCheck | None) -> list[Any]:
    """The plan's notes for ``policies``: each problem of the rules file, and each violation the push would leave
    (``checked``: :func:`judge_after_push`; kind ``policy``, the rule and severity in ``extra``). ``diff``, ``plan``
    and the editor's review show them; ``push`` refuses on the error ones (:mod:`tenantdeck.sync.remote.engine`)."""
    from tenantdeck.sync.types import Note

    notes = [Note("", f"policies file: {p.render()}", "policy", {"severity": "error"}) for p in policies.problems]
    if checked is not None:  # the rules that can run, whatever the others' problems
        notes += [Note("", f"policies file: {p.render()}", "policy", {"severity": p.severity.value})
                  for p in checked.evaluation.problems]
        notes += [Note(v.app_name, f"policy {v.rule} ({v.severity}): {v.message}"
                       + (f" ({format_path(v.path)}: {v.found})" if v.found else ""),
                       "policy", {"rule": v.rule, "severity": v.severity}) for v in checked.evaluation.violations]
    return notes


__all__ = ["Allowance", "FleetCheck", "NotAllowed", "allowance", "allowed", "audit_target", "broken_apps",
           "check_apps", "check_draft", "fleet_problems", "judge_after_push", "policies_for", "policy_notes",
           "violation_problems"]
