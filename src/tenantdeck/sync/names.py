"""Apps the draft creates whose name the service already has.

The service allows two apps of one name, so creating one is never refused there: ``init`` then ``push`` against an
account that already has "Acme Support" would silently make a second one. A draft app without an id is therefore
checked against the live app list when a plan is made: an app of that name already existing is a conflict (push
refuses, diff exits 3) until the user says which they meant: adopt it (its id goes into the draft, and the draft
is compared with it), or create another of the same name.

Adopting an app adopts what it holds too (:func:`adoptable_widgets`, :func:`webhook_clashes`): a widget the draft
creates whose name one of the app's widgets carries is that widget (the API has no widget delete, so a second one
could only be removed in the dashboard); a webhook the draft names with another id than the app's webhook of the
same name is refused, saying so, rather than created beside it. Settings and extension settings are keyed by the
service's own names, so they can only ever be updated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from tenantdeck.sync.types import Conflict, new_name


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


def adoptable_widgets(draft_app: Mapping[str, Any], live_app: Mapping[str, Any]) -> dict[str, str]:
    """Widgets of an adopted app: name of a widget the draft creates -> the id of the one live widget of that name
    (none when two live widgets carry it, or a draft widget already manages it)."""
    draft_widgets: Mapping[str, Any] = draft_app.get("widgets") or {}
    live_widgets: Mapping[str, Any] = live_app.get("widgets") or {}
    by_name: dict[str, list[str]] = {}
    for wid, settings in live_widgets.items():
        if wid not in draft_widgets and isinstance(settings, Mapping):
            by_name.setdefault(str(settings.get("name")), []).append(wid)
    wanted = [name for key in draft_widgets if (name := new_name(key)) is not None]
    return {name: ids[0] for name in wanted if len(ids := by_name.get(name, [])) == 1}


def webhook_clashes(draft_app: Mapping[str, Any], live_app: Mapping[str, Any]) -> list[Conflict]:
    """Webhooks of an adopted app the draft would create beside a live one of the same name (another id): one
    refusal each, naming both ids (webhook ids are the draft's own, so tenantdeck does not rewrite them)."""
    draft_hooks: Mapping[str, Any] = draft_app.get("webhooks") or {}
    live_hooks: Mapping[str, Any] = live_app.get("webhooks") or {}
    live_by_name = {str(h.get("name")): hid for hid, h in live_hooks.items() if isinstance(h, Mapping)}
    out: list[Conflict] = []
    for hid, hook in draft_hooks.items():
        name = str(hook.get("name")) if isinstance(hook, Mapping) else ""
        other = live_by_name.get(name)
        if hid in live_hooks or other is None or other in draft_hooks:
            continue
        message = (f'refused: the adopted app already has a webhook named "{name}" (id {other}); to manage it, '
                   f"write `id: {other}` for it in the draft; to add another, give this one another name")
        out.append(Conflict(str(draft_app.get("name")), str(draft_app.get("id") or "") or None, "webhook", "",
                            "Webhook", "", hid, other, False, message, "webhook", hid))
    return out
