"""Apps the draft creates whose name the service already has.

The service allows two apps of one name, so creating one is never refused there: ``init`` then ``push`` against an
account that already has "Acme Support" would silently make a second one. A draft app without an id is therefore
checked against the live app list when a plan is made: an app of that name already existing is a conflict (push
refuses, diff exits 3) until the user says which they meant: adopt it (its id goes into the draft, and the draft
is compared with it), or create another of the same name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from tenantdeck.sync.types import Conflict


class _Named(Protocol):
    id: str
    name: str


def live_names(listing: Iterable[_Named]) -> dict[str, list[str]]:
    """name -> the ids of the live apps that carry it."""
    out: dict[str, list[str]] = {}
    for app in listing:
        out.setdefault(app.name, []).append(app.id)
    return out


def new_app_names(draft_apps: Iterable[Mapping[str, Any]]) -> list[str]:
    """Names of the draft's apps to be created (those without an id)."""
    return [str(a["name"]) for a in draft_apps if not a.get("id")]


def clashes(draft_apps: Iterable[Mapping[str, Any]], names: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Apps to create (by name) -> ids of live apps with the same name, for those that have any."""
    return {name: list(names[name]) for name in new_app_names(draft_apps) if names.get(name)}


def adoptable(found: Mapping[str, Sequence[str]], claimed: Iterable[str]) -> dict[str, str]:
    """The clashes that name exactly one live app no other draft app already manages: name -> that id."""
    taken = set(claimed)
    out: dict[str, str] = {}
    for name, ids in found.items():
        free = [i for i in ids if i not in taken]
        if len(free) == 1:
            out[name] = free[0]
    return out


def clash_conflicts(found: Mapping[str, Sequence[str]], target: str | None = None) -> list[Conflict]:
    """One conflict per clash, saying both ways out. ``target``: a target of the draft's targets file the draft is
    seen from; its ids belong in its section there, never in the draft (whose ids are its own account's)."""
    out: list[Conflict] = []
    for name, ids in found.items():
        shown = ", ".join(ids)
        where = (f"under targets.{target}.apps.{name!r} in the targets file (<draft>.targets.yaml)" if target
                 else "to the app")
        adopt = (f"to manage it with this draft, add `id: {ids[0]}` {where} or push with --adopt-existing"
                 if len(ids) == 1 else f"to manage one of them, add its id ({shown}) {where}")
        message = (f"the service already has {'an app' if len(ids) == 1 else f'{len(ids)} apps'} named "
                   f'"{name}" ({shown}); {adopt}; to create another app of that name, use --allow-duplicate-names')
        out.append(Conflict(name, None, "app", "", "App", "", "", "", False, message))
    return out
