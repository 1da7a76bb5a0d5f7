"""What the editor's Team tab shows and writes, as plain data: the draft's ``team`` block as rows, and the new block
each edit makes (add, switch role, remove). The TUI only renders these; the session validates what is written.

A team is one small block, so every edit writes it whole: one undo step, and the block's order kept (new emails go
at the end of their role's list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.models.team import email_refused

#: draft key of each role's list
LISTS = catalog.TEAM_LISTS


def rows(team: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(email, role)`` for each member, admins first, in the draft's order (anything not an email list is
    skipped: the session reports it)."""
    out: list[tuple[str, str]] = []
    for role, key in LISTS.items():
        values = (team or {}).get(key)
        out += [(str(v), role) for v in values if isinstance(v, str)] if isinstance(values, list) else []
    return out


def _block(members: list[tuple[str, str]], old: Mapping[str, Any]) -> dict[str, Any]:
    """The ``team`` block for ``members``, keeping any other key the draft has there (the session reports it)."""
    out = {k: v for k, v in old.items() if k not in LISTS.values()}
    for role, key in LISTS.items():
        emails = [e for e, r in members if r == role]
        if emails or key in old:
            out[key] = emails
    return out


def email_problem(email: str, team: Mapping[str, Any] | None,
                  service: Sequence[tuple[str, str]] = ()) -> str | None:
    """Why ``email`` cannot be added (not an address, already on the team, the service's owner or a developer, the
    team is full), or None. ``service``: :func:`service_members`. The owner and the developers are the service's,
    never changed by the editor: adding a developer said "a push invites them" while the push re-roled the
    developer (trial J, J11); an address in other case is the same person."""
    if (why := email_refused(email)) is not None:  # the draft's rule, the one validation applies
        return why
    if any(e.casefold() == email.casefold() for e, _ in rows(team)):
        return f"{email} is already on the team"
    held = service_role(email, service)
    if held is not None:
        return (f"{email} is this app's {held} on the service (shown above the list): that role is the service's, "
                "not the draft's; change it in the dashboard")
    if len(rows(team)) + 1 >= catalog.TEAM_PER_APP:
        return f"an app has at most {catalog.TEAM_PER_APP} collaborators, its owner included"
    return None


def added(team: Mapping[str, Any] | None, email: str, role: str) -> dict[str, Any]:
    return _block([*rows(team), (email, role)], team or {})


def switched(team: Mapping[str, Any], email: str) -> dict[str, Any]:
    """``email`` in the other role (admin <-> moderator), at the end of that role's list."""
    members = rows(team)
    role = next(r for e, r in members if e == email)
    other = "moderator" if role == "admin" else "admin"
    return _block([(e, r) for e, r in members if e != email] + [(email, other)], team)


def removed(team: Mapping[str, Any], email: str) -> dict[str, Any]:
    return _block([(e, r) for e, r in rows(team) if e != email], team)


def service_role(email: str, service: Sequence[tuple[str, str]]) -> str | None:
    """The role ``email`` has on the service (``owner``, ``developer``) among ``service`` (:func:`service_members`),
    in any letter case (an address in another case is the same person), or None."""
    return next((role for e, role in service if e.casefold() == email.casefold()), None)


def service_members(last_read: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The owner and developers as the service listed them at the last pull or push (``service_team`` in the
    base): shown read-only, never in a draft. Empty when not known."""
    listed = (last_read or {}).get("service_team")
    return [(str(m.get("email")), str(m.get("role"))) for m in listed or () if isinstance(m, Mapping)]


def kept_members(last_read: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(email, role)`` of each admin or moderator pull kept as the service holds it (an email the draft's rules
    refuse, or a case duplicate: ``verbatim.team`` in the base, the role from the base's ``team``): shown
    read-only beside the draft's members, never in the draft, never changed by a push."""
    kept = ((last_read or {}).get("verbatim") or {}).get("team")
    roles = (last_read or {}).get("team")
    roles = roles if isinstance(roles, Mapping) else {}
    return [(str(e), str(roles.get(e) or "")) for e in kept if isinstance(e, str)] if isinstance(kept, list) else []


def service_line(last_read: Mapping[str, Any] | None) -> str:
    """``Owner: a@x · developers: b@x, c@x (the service's, read-only; as of the last pull or push)``, or "" when
    the base does not say."""
    members = service_members(last_read)
    if not members:
        return ""
    owners = [e for e, r in members if r == "owner"]
    others = sorted({r for _, r in members} - {"owner"})
    parts = [f"Owner: {', '.join(owners)}"] if owners else []
    parts += [f"{role}s: {', '.join(e for e, r in members if r == role)}" for role in others]
    return " · ".join(parts) + " (the service's, read-only; as of the last pull or push)"
