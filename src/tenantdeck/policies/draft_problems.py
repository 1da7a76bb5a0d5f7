"""Every problem of a draft, as ``tenantdeck validate`` counts them and the editor's Problems screen (F8) lists
them: the draft's own (models and rules), its targets file's (each target's effective draft) and its fleet
policies' (the rules file's own problems and each violation). One function, so the editor and the command cannot
give two counts for the same draft (issue 37: "0 errors, 1 warning" in F8, "1 error, 1 warning" from validate).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tenantdeck.problems import Problem, Severity
from tenantdeck.textsafe import shortened, shown


def all_problems(draft_path: str | os.PathLike[str], data: Any, own: Sequence[Problem], doc: Any,
                 policies_file: Path | None = None) -> list[Problem]:
    """``own`` (the draft's problems, placed) with its targets file's and its policies', the draft's first.

    ``data`` is the draft's plain data (not a mapping: unreadable, nothing else is judged), ``doc`` places a key
    path (``doc.locate(path) -> (line, column)``, ``doc.file``). The targets file is checked only when the draft
    itself has no error: a target is the draft with a few values replaced, so the draft's errors would repeat."""
    from tenantdeck.draft.target_overrides import target_problems
    from tenantdeck.policies.checks import check_draft

    problems = against_the_base(draft_path, data, list(own), doc)
    if not isinstance(data, Mapping):
        return problems
    if not any(p.is_error for p in own):
        problems += target_problems(draft_path)
    problems += check_draft(Path(draft_path), data, doc, policies_file, own)[1]
    name = str(getattr(doc, "file", "") or os.fspath(draft_path))  # the draft's own come first
    return sorted(problems, key=lambda p: (p.file != name, p.file, p.line, p.column))


def against_the_base(draft_path: str | os.PathLike[str], data: Any, own: list[Problem],
                     doc: Any = None) -> list[Problem]:
    """``own`` as the committed base (the lock file beside the draft) judges it. A held-value warning (a name over
    its length, an undocumented listing or trigger: "kept as the service holds it, but a push refuses to create or
    set such a value") becomes an error when the base shows the service does not hold that value: the draft changed
    it, every push refuses it, so ``validate`` (and F8) may not call the draft valid (trial J, J3: validate passed a
    51-character webhook name that plan, diff and push refused). And a team member the service lists as the app's
    owner is an error, a developer a warning naming the role change (:func:`_service_roles_named`), placed by
    ``doc``. Without a lock file, or for an app it does not know, nothing tells, and ``own`` stays as it is."""
    held = [p for p in own if p.code.startswith("held_") and not p.is_error and len(p.path) >= 3]
    apps = data.get("apps") if isinstance(data, Mapping) else None
    teams = isinstance(apps, list) and any(isinstance(a, Mapping) and isinstance(a.get("team"), Mapping)
                                           for a in apps)
    if not (held or teams) or not isinstance(apps, list):
        return own
    base_apps = _base_apps(Path(draft_path))
    if not base_apps:
        return own
    changed = {id(p): why for p in held if (why := _not_held(p, apps, base_apps)) is not None}
    out = [Problem(Severity.ERROR, f"{changed[id(p)]}: a push refuses to send it", p.path, p.file, p.line,
                   p.column, "drafted_over_limit") if id(p) in changed else p for p in own]
    roles = _service_roles_named(apps, base_apps)
    place = getattr(doc, "place", None)
    return out + ([place(p) for p in roles] if callable(place) else roles)


def _base_apps(draft_path: Path) -> Mapping[str, Any]:
    """The committed base's apps (the lock file beside the draft), {} when there is none or it cannot be read (the
    push reports that). Read again only when the file's size or time changed: the editor asks on each check of a
    draft with a team or a held value."""
    from tenantdeck.sync.workspace import lockfile

    path = lockfile.lock_path(draft_path)
    try:
        stat = path.stat()
    except OSError:
        return {}
    return _lock_apps(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=2)
def _lock_apps(path: str, size: int, mtime_ns: int) -> Mapping[str, Any]:
    """:func:`_base_apps` for one version of the file (``size`` and ``mtime_ns`` are the cache's key only)."""
    from tenantdeck.sync.workspace import lockfile

    try:
        apps = (lockfile.read(Path(path)) or {}).get("apps")
    except Exception:  # an unreadable lock file is the push's to report; here it tells nothing
        return {}
    return apps if isinstance(apps, Mapping) else {}


def _service_roles_named(apps: list[Any], base_apps: Mapping[str, Any]) -> list[Problem]:
    """At each admin or moderator the draft names who is the app's owner or a developer on the service (the
    base's ``service_team``): an error for the owner (the service refuses it), a warning naming the role change for
    a developer (:func:`~tenantdeck.draft.team_view.role_change`: the Team tab's and the plan's own rule)."""
    from tenantdeck.draft import team_view as tv
    from tenantdeck.models.catalog import TEAM_LISTS

    out = []
    for i, app in enumerate(apps):
        team = app.get("team") if isinstance(app, Mapping) else None
        base = base_apps.get(app.get("id")) if isinstance(team, Mapping) and isinstance(app.get("id"), str) else None
        service = tv.service_members(base.get("app")) if isinstance(base, Mapping) else []
        for role, key in TEAM_LISTS.items() if service else ():
            emails = team.get(key) if isinstance(team, Mapping) else None
            for k, email in enumerate(emails if isinstance(emails, list) else ()):
                change = tv.role_change(email, role, service) if isinstance(email, str) else None
                if change is not None:
                    refused, words = change
                    out.append(Problem(Severity.ERROR if refused else Severity.WARNING, shown(words),
                                       ("apps", i, "team", key, k), code="service_role"))
    return out


def _not_held(problem: Problem, apps: list[Any], base_apps: Mapping[str, Any]) -> str | None:
    """Why ``problem``'s value is the draft's own change (the base holds another value, or no such resource), or
    None when the base holds it or cannot tell."""
    from tenantdeck.rules import held_reason

    path = problem.path
    i = path[1]
    app = apps[i] if isinstance(i, int) and 0 <= i < len(apps) and isinstance(apps[i], Mapping) else None
    base = base_apps.get(app.get("id")) if app is not None and isinstance(app.get("id"), str) else None
    base = base.get("app") if isinstance(base, Mapping) else None
    why = held_reason(problem)
    if not isinstance(base, Mapping) or why is None:
        return None
    rest, node, held = list(path[2:]), app, base
    if rest and rest[0] in ("widgets", "webhooks") and len(rest) >= 2 and isinstance(rest[1], int):
        items = app.get(rest[0])
        item = items[rest[1]] if isinstance(items, list) and rest[1] < len(items) else None
        rid = item.get("id") if isinstance(item, Mapping) else None
        resources = held.get(rest[0])
        if not isinstance(rid, str) or not isinstance(resources, Mapping):
            return None
        if rid not in resources:
            return f"{why} (not on the service at the last pull or push)"
        node, held, rest = item, resources[rid], rest[2:]
    for key in rest[:-1] if rest and isinstance(rest[-1], int) else rest:  # a trigger: the list, then the value
        node = node.get(key) if isinstance(node, Mapping) else None
        held = held.get(key) if isinstance(held, Mapping) else None
    if rest and rest[0] == "id":  # the resource is on the service: its id is held
        return None
    if rest and isinstance(rest[-1], int):
        value = node[rest[-1]] if isinstance(node, list) and rest[-1] < len(node) else None
        return None if isinstance(held, list) and value in held else f"{why} (added by the draft)"
    return None if node == held else f"{why} (the service holds '{shown(shortened(str(held)))}')"


def counts(problems: Iterable[Problem]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for p in problems:
        if p.is_error:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def counted(problems: Iterable[Problem]) -> str:
    """``1 error, 2 warnings``: the words validate's summary and the Problems screen both use."""
    errors, warnings = counts(problems)
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"


__all__ = ["all_problems", "counted", "counts"]
