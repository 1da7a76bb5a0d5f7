"""Where the policies are checked: a draft offline, the account as a push would leave it, and the live account.

Each function returns data (violations, located problems); the commands and the editor render them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenantdeck.policies.engine import Evaluation, PolicyEngine, Violation
from tenantdeck.policies.model import PolicySet, load_policies, policies_path
from tenantdeck.problems import PathPart, Problem, Severity, did_you_mean, format_path


def policies_for(draft_path: Path, policies_file: Path | None = None) -> PolicySet:
    """The rules that apply to ``draft_path``: ``policies_file``, else ``<stem>.policies.yaml`` beside it."""
    return load_policies(policies_file or policies_path(draft_path))


def violation_problems(evaluation: Evaluation, doc: Any) -> list[Problem]:
    """Each violation as a problem of the draft, at the offending value's line where the draft writes it, else at
    the app's (a widget value inherited from a preset, a team the draft does not list)."""
    out = []
    for v in evaluation.violations:
        path: tuple[PathPart, ...] = ("apps", v.app_index, *v.path)
        line, column = doc.locate(path) if doc is not None else (0, 0)
        found = f" (found {v.found})" if v.found else ""
        out.append(Problem(Severity.ERROR if v.is_error else Severity.WARNING,
                           f"policy {v.rule}: {v.message}{found}", path, getattr(doc, "file", ""), line, column,
                           "policy"))
    return out


def check_draft(draft_path: Path, data: Mapping[str, Any], doc: Any,
                policies_file: Path | None = None) -> tuple[PolicySet, list[Problem]]:
    """``validate``: the rules file's own problems and each violation of the draft ``data`` (plain data), located."""
    policies = policies_for(draft_path, policies_file)
    if not policies.rules:
        return policies, list(policies.problems)
    apps = list(data.get("apps") or [])
    evaluation = PolicyEngine(policies).evaluate(apps, data.get("presets"))
    return policies, [*policies.problems, *fleet_problems(policies, apps, evaluation), *evaluation.problems,
                      *violation_problems(evaluation, doc)]


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


def as_draft_app(canonical: Mapping[str, Any], existing: Any, base: Mapping[str, Any] | None,
                 presets: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical app (what the service holds, as the engine reads it) as the plain data a draft would write
    for it: the form every rule reads. ``existing`` is the draft's app of the same id (its labels, its presets)."""
    from tenantdeck.sync.remote_to_draft import SecretNamer, app_from_canonical

    conversion = app_from_canonical(canonical, existing=existing, base=base, presets=dict(presets),
                                    namer=SecretNamer())
    return conversion.app.model_dump(mode="json", exclude_none=True, by_alias=True)


@dataclass(slots=True)
class FleetCheck:
    """The rules' verdict on a set of apps that are not (only) the draft's: after a push, or live."""

    policies: PolicySet
    evaluation: Evaluation
    apps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def blocking(self) -> list[Violation]:
        return self.evaluation.errors


def merged_apps(draft_apps: Sequence[Any], models: Sequence[Any], service: Mapping[str, Mapping[str, Any]],
                base: Mapping[str, Mapping[str, Any]], presets: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The account's apps as a push of ``draft_apps`` (plain data; ``models`` the same apps as the draft validated
    them) would leave them: the service's state (``service``: live where read, else ``base``) in draft form, with
    each section the draft manages replaced by the draft's (an app to create is the draft's alone). A section the
    draft leaves out (a team it does not list) is the service's."""
    out = []
    for raw, existing in zip(draft_apps, models, strict=True):
        app_id = raw.get("id")
        state = service.get(app_id) if isinstance(app_id, str) else None
        if state is None and isinstance(app_id, str):
            state = base.get(app_id)
        if state is None:
            out.append(dict(raw))
            continue
        service_app = as_draft_app(state, existing, base.get(app_id), presets)
        out.append(_over(service_app, raw))
    return out


def _over(service: dict[str, Any], draft: Mapping[str, Any]) -> dict[str, Any]:
    """The draft's app laid over the service's, section by section, as a push applies it: the extensions the
    draft names switched as it says (the others as they are), only the settings keys and extensions' settings it
    writes, its webhooks and widgets beside the service's others (a push deletes nothing without
    --allow-delete); any other section it writes replaces the service's."""
    out = dict(service)
    for key, value in draft.items():
        if value is None:
            continue
        have = service.get(key)
        if key == "extensions" and isinstance(value, Mapping) and isinstance(have, Mapping):
            on, off = list(value.get("enabled") or []), list(value.get("disabled") or [])
            enabled = [e for e in [*(have.get("enabled") or []), *on] if e not in off]
            out[key] = {"enabled": list(dict.fromkeys(enabled)),
                        "disabled": list(dict.fromkeys([*(e for e in have.get("disabled") or [] if e not in on),
                                                        *off]))}
        elif key in ("settings", "extension_settings") and isinstance(value, Mapping) and isinstance(have, Mapping):
            out[key] = {**have, **value}
        elif key in ("webhooks", "widgets") and isinstance(value, list) and isinstance(have, list):
            ids = {item.get("id") for item in value if isinstance(item, Mapping) and item.get("id")}
            out[key] = [*value, *(item for item in have if isinstance(item, Mapping) and item.get("id") not in ids)]
        else:
            out[key] = value
    return out


def check_apps(policies: PolicySet, apps: Sequence[Mapping[str, Any]], presets: Any) -> FleetCheck:
    return FleetCheck(policies, PolicyEngine(policies).evaluate(list(apps), presets), list(apps))


def allowed(violations: Sequence[Violation], allow: Sequence[str]) -> tuple[list[Violation], list[Violation]]:
    """(the violations ``--allow-violation RULE`` lets through, those that still block)."""
    let = [v for v in violations if v.rule in allow]
    return let, [v for v in violations if v.rule not in allow]


async def audit_target(target: Any, draft_path: Path, policies: PolicySet, *, concurrency: int = 16
                       ) -> FleetCheck:
    """The live account as it is now, every app of it, against ``policies``: what a dashboard change broke.

    The draft (if there is one) gives each app its labels and the presets its widgets name; the values are the
    service's. Nothing is written."""
    from tenantdeck.draft.load import load_draft
    from tenantdeck.models.app import App
    from tenantdeck.sync.remote.pull import fetch_pull
    from tenantdeck.sync.workspace.binding import check_identity, identity_of
    from tenantdeck.sync.workspace.state import Workspace

    workspace = Workspace(draft_path)
    draft_apps: dict[str, App] = {}
    presets: dict[str, Any] = {}
    if draft_path.exists():
        check_identity(workspace, identity_of(target))
        loaded = load_draft(str(draft_path))
        if loaded.draft is not None:
            draft_apps = {a.id: a for a in loaded.draft.apps if a.id}
            presets = {k: v.model_dump(mode="json", exclude_none=True) for k, v in loaded.draft.presets.items()}
    workspace.secret_key(target.fingerprint_key())
    async with target.client(concurrency=concurrency) as client:
        canonicals = await fetch_pull(client, workspace, concurrency=concurrency)
    base = workspace.load_base()
    apps = [as_draft_app(c, draft_apps.get(c["id"]), base.get(c["id"]), presets) for c in canonicals]
    return check_apps(policies, apps, presets)




def after_push(policies: PolicySet, local: Any, live: Mapping[str, Mapping[str, Any]] | None) -> FleetCheck:
    """The rules on the account as a push of ``local`` (a :class:`~tenantdeck.sync.workspace.local.Local`) would
    leave it: its draft's managed sections over ``live`` (offline: the base stands in for the service)."""
    data = local.result.doc.data
    presets = data.get("presets") or {}
    apps = merged_apps(list(data.get("apps") or []), local.draft.apps, live or {}, local.base, presets)
    return check_apps(policies, apps, presets)


def policy_notes(local: Any, live: Mapping[str, Mapping[str, Any]] | None) -> list[Any]:
    """The plan's notes for the policies beside ``local``'s draft: each violation the push would leave (kind
    ``policy``, the rule and severity in ``extra``), and each problem of the rules file. ``diff``, ``plan`` and the
    editor's review show them; ``push`` refuses on the error ones (:func:`tenantdeck.sync.remote.engine`)."""
    from tenantdeck.sync.types import Note

    policies = policies_for(local.path)
    if not policies:
        return []
    notes = [Note("", f"policies file: {p.render()}", "policy", {"severity": "error"}) for p in policies.problems]
    if policies.rules:  # the rules that can run, whatever the others' problems
        checked = after_push(policies, local, live)
        notes += [Note("", f"policies file: {p.render()}", "policy", {"severity": p.severity.value})
                  for p in checked.evaluation.problems]
        notes += [Note(v.app_name, f"policy {v.rule} ({v.severity}): {v.message}"
                       + (f" ({format_path(v.path)}: {v.found})" if v.found else ""),
                       "policy", {"rule": v.rule, "severity": v.severity}) for v in checked.evaluation.violations]
    return notes


__all__ = ["FleetCheck", "after_push", "allowed", "as_draft_app", "audit_target", "check_apps", "check_draft",
           "fleet_problems",
           "merged_apps", "policies_for", "policy_notes", "violation_problems"]
