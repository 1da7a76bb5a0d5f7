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
    """Why ``email`` cannot be added (not an address, already on the team, the service's owner, the team is
    full), or None. ``service``: :func:`service_members`; an address in other case is the same person. A developer
    may be added: that is a role change (:func:`role_change`)."""
    if (why := email_refused(email)) is not None:  # the draft's rule, the one validation applies
        return why
    if any(e.casefold() == email.casefold() for e, _ in rows(team)):
        return f"{email} is already on the team"
    change = role_change(email, "", service)
    if change is not None and change[0]:
        return change[1]
    if len(rows(team)) + 1 >= catalog.TEAM_PER_APP:
        return f"an app has at most {catalog.TEAM_PER_APP} collaborators, its owner included"
    return None


def role_change(email: str, role: str, service: Sequence[tuple[str, str]]) -> tuple[bool, str] | None:
    """What naming ``email`` as ``role`` (admin, moderator; "" when not chosen yet) does to a member the service
    lists as its owner or a developer (:func:`service_members`), as ``(refused, words)``, or None for anyone else.

    The owner's role is not the draft's to change: the service refuses the owner's email in any list (422
    ``ERR_ALREADY_AN_OWNER``), so it is refused here, by ``validate`` and by the plan. A developer named as an
    admin or a moderator is a role change (issue 34: planned and shown as ``"developer" -> "admin"``): allowed, and
    said as such wherever it is made or checked (trial J, J11: the Team tab said "a push invites them"; trial K,
    K3: a hand-written one passed ``validate`` without a word). One rule for the Team tab, ``validate``/F8 and the
    plan."""
    held = service_role(email, service)
    if held is None:
        return None
    if held == "owner":
        return True, (f"{email} is this app's owner on the service: the owner's role is the service's (a push is "
                      "refused); change it in the dashboard")
    return False, f"{email} is this app's {held} on the service: {_role_changed(held, role)}"


def _role_changed(held: str, role: str) -> str:
    return f"a push changes their role from {held} to {role or 'the role you choose'}"


def added_text(email: str, role: str, service: Sequence[tuple[str, str]]) -> str:
    """What the Team tab says once ``email`` is added as ``role``: an invitation, or the role change it is."""
    held = service_role(email, service)
    return f"{email} added as {role}: " + ("a push invites them." if held is None else
                                             f"this app's {held} on the service, {_role_changed(held, role)}.")


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
