"""The account a command judges: what the service holds now (``audit``), and the account after this push (``diff``,
``plan``, ``push``'s gate, the editor's review), both in the one form every rule reads.

Why one view, built here: a gate that judges one picture of the account and an audit that judges another let
through what the audit flags a second later (issue 33). The account after a push is the service's current values
for everything, with the values the push *writes* laid over them: for each step of the plan, the draft's value of
each field that step changes (a created resource: all of it; a deleted one: gone). Drift the push keeps (a colour
changed in the dashboard, a section the draft does not change) stays as the service has it, because the push
leaves it so. Each app, after or now, is then written as a draft would write it by the same conversion ``pull``
uses, with nothing of the draft but its labels (which the service never holds): a webhook the draft adds and does
not push is not on the service, so no rule sees it.

Everything here is pure: the reads are :mod:`tenantdeck.sync.remote.fetch`'s (as far as :func:`sections_read`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tenantdeck.policies.model import PolicySet

if TYPE_CHECKING:
    from tenantdeck.models.app import App
    from tenantdeck.sync.types import Step
    from tenantdeck.sync.workspace.local import Local

#: the canonical app's sections (what one read each fetches); the app's own fields come with the app list
SECTIONS = ("extensions", "widgets", "sms", "extension_settings", "push_certificates", "webhooks", "team", "settings")
#: fields of the normalised app no read of the service gives (the draft's own, or the app list's)
_NO_READ = frozenset({"labels", "id", "name", "region", "version"})


def sections_read(policies: PolicySet) -> frozenset[str]:
    """The canonical sections the rules of ``policies`` can read (every section when a check reads the app whole
    or a field this cannot tell): what must be read of each app to judge it. Empty without rules."""
    from tenantdeck.policies.celview import needs

    out: set[str] = set()
    for rule in policies.rules:
        if rule.check.kind == "cel":
            need = needs(rule.check.cel or "")
            if need.whole or need.items is not None or need.size:
                return frozenset(SECTIONS)
            tops: Iterable[Any] = need.keys
        else:
            parts = policies.paths.get(rule.name, ())
            tops = parts[:1] if parts else SECTIONS
        for top in tops:
            if top in SECTIONS:
                out.add(str(top))
            elif top not in _NO_READ:
                return frozenset(SECTIONS)
    return frozenset(out)


def service_app(canonical: Mapping[str, Any], labels: Mapping[str, Any] | None,
                presets: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical app (what the service holds, or will) as the plain data a draft would write for it: the form
    every rule reads. Of the draft only ``labels`` (the draft's own, never on the service) and the presets a
    widget is written against: no webhook, widget or setting the draft holds and the service does not."""
    from tenantdeck.sync.remote_to_draft import SecretNamer, app_from_canonical

    conversion = app_from_canonical(_with_ids(canonical), existing=None, base=None, presets=dict(presets),
                                    namer=SecretNamer())
    # an app kept out of the draft as a whole (a name the draft refuses) is still the service's: judged as it is
    converted = conversion.app if conversion.app is not None else conversion.unchecked
    assert converted is not None
    app = converted.model_dump(mode="json", exclude_none=True, by_alias=True, warnings=False)
    _with_held(app, canonical, conversion.verbatim)
    if canonical.get("id") is None:
        app.pop("id", None)
    for item in [*app.get("widgets", ()), *app.get("webhooks", ())]:
        if str(item.get("id", "")).startswith(_NEW):
            del item["id"]  # a resource the push creates: its id is the service's to give
    if labels is not None:
        app["labels"] = dict(labels)
    return app


def _with_held(app: dict[str, Any], canonical: Mapping[str, Any], verbatim: Mapping[str, Any]) -> None:
    """Lay over ``app`` what the conversion kept out of the draft as the service holds it (a colour our model
    refuses, a team email, an app setting of another type): those are the service's values all the same, and the
    rules judge the service. A second trial saw a brand-colour rule pass over a live widget whose colour broke it,
    and `team.admins` count 0 admins where the service held three."""
    from tenantdeck.models import catalog
    from tenantdeck.sync.types import value_at

    widgets = canonical.get("widgets") if isinstance(canonical.get("widgets"), Mapping) else {}
    for widget_id, paths in (verbatim.get("widgets") or {}).items():
        raw = widgets.get(widget_id)
        if not isinstance(raw, Mapping):
            continue
        shown = next((w for w in app.get("widgets", ()) if w.get("id") == widget_id), None)
        if shown is None:  # the whole widget kept: the service's, as it holds it
            app.setdefault("widgets", []).append({"id": widget_id, **copy.deepcopy(dict(raw))})
            continue
        for path in paths:
            *parents, last = str(path).split(".")
            value = value_at(raw, str(path))
            node = shown
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = copy.deepcopy(value)
    roles = canonical.get("team") if isinstance(canonical.get("team"), Mapping) else {}
    for email in verbatim.get("team") or ():
        key = dict(catalog.TEAM_LISTS).get(str(roles.get(email)))
        if key is not None:
            app.setdefault("team", {}).setdefault(key, []).append(email)
    settings = canonical.get("settings") if isinstance(canonical.get("settings"), Mapping) else {}
    for key in verbatim.get("settings") or ():
        if key in settings:
            app.setdefault("settings", {})[key] = copy.deepcopy(settings[key])


_NEW = "new:"
#: stands in for the id of an app the push creates, while it is converted (the conversion needs a text)
_NEW_APP_ID = "new-app"


def _with_ids(canonical: Mapping[str, Any]) -> Mapping[str, Any]:
    return canonical if canonical.get("id") is not None else {**canonical, "id": _NEW_APP_ID}


def after_steps(now: Mapping[str, Any] | None, desired: Mapping[str, Any] | None,
                steps: Sequence[Step]) -> dict[str, Any] | None:
    """One canonical app after ``steps`` (its part of a plan) ran on ``now`` (what the service holds; None: the
    push creates it), ``desired`` being the draft's canonical app: each step writes the draft's value of each field
    it changes and leaves every other field as the service has it. None: the push deletes the app."""
    from tenantdeck.sync import kinds

    if any(step.kind == "delete_app" for step in steps):
        return None
    if now is None:
        post = copy.deepcopy(dict(desired or {}))
        for hook in (post.get("webhooks") or {}).values():
            hook.update({name: {"unknown": True} for name in _WRITE_ONLY if name in hook})
        return post
    post = copy.deepcopy(dict(now))
    for step in steps:
        kind = kinds.kind_of_step(step.kind)
        if kind.section is None:
            _write(kind, post, desired or {}, step, created=False)
        elif kinds.step_kind(step.kind).effect == "delete" and kind.parent is None:
            _remove(post, kind.section, step.rid)
        else:
            _write(kind, post, desired or {}, step, created=step.rid not in kind.resources(post))
    return post


#: webhook fields the service never reports: after a create, the service's answer does not have them either
_WRITE_ONLY: tuple[str, ...] = ("useBasicAuth", "username", "password", "retryOnFailure")


def _write(kind: Any, post: dict[str, Any], desired: Mapping[str, Any], step: Step, *, created: bool) -> None:
    """The draft's value of each field ``step`` changes (every field of a resource it creates) over ``post``."""
    from tenantdeck.sync.types import ABSENT, cannot_tell

    now = kind.resources(post).get(step.rid)
    want = kind.resources(desired).get(step.rid)
    leaves = dict(kind.leaves(now)) if now is not None and not cannot_tell(now) else {}
    draft = dict(kind.leaves(want)) if want is not None and not cannot_tell(want) else {}
    for path in (draft if created else {c.path for c in step.changes}):
        value = draft.get(path, ABSENT)
        if value is ABSENT or value is None:
            leaves.pop(path, None)
        elif not cannot_tell(leaves.get(path)):  # a value the service does not report stays unreported
            leaves[path] = value
    if created and kind.name == "webhook":
        leaves.update({name: {"unknown": True} for name in _WRITE_ONLY if name in leaves})
    kind.put(post, step.rid, leaves)


def _remove(post: dict[str, Any], section: str, rid: str) -> None:
    held = post.get(section)
    if not rid or not isinstance(held, dict):
        post[section] = None
    else:
        post[section] = {k: v for k, v in held.items() if k != rid}


def account_after_push(local: Local, steps: Sequence[Step], now: Mapping[str, Mapping[str, Any]],
                       order: Sequence[str]) -> list[dict[str, Any]]:
    """THE account after this push, every app of it, as the rules read it: the draft's values for what the
    ``steps`` write, the service's current values (``now``: canonical apps by id, read as far as the rules read;
    ``order``: the service's app list) for everything else. Apps in the service's order, then the apps the push
    creates in the plan's; an app the push deletes is gone."""
    from tenantdeck.sync.types import app_key_for

    data = local.result.doc.data if isinstance(local.result.doc.data, Mapping) else {}
    presets = data.get("presets") or {}
    labels = _labels(local.draft.apps)
    desired = {app_key_for(a.get("id"), a.get("name", "")): a for a in local.apps}
    by_app: dict[str, list[Step]] = {}
    for step in steps:
        by_app.setdefault(step.app_key, []).append(step)
    keys = [i for i in order if i in now] + [k for k in by_app if k not in now and k in desired]
    out = []
    for key in keys:
        post = after_steps(now.get(key), desired.get(key), by_app.get(key, ()))
        if post is not None:
            out.append(service_app(_in_draft_order(post, desired.get(key)), labels.get(key), presets))
    return out


def _in_draft_order(post: Mapping[str, Any], desired: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``post``'s widgets and webhooks in the draft's order (then any the draft does not name): a rule's note
    names an item by its index, and the review shows it beside the draft. Offline the base's order stood in (its
    ids sorted), so a note said `webhooks[0]` for the draft's `webhooks[1]`."""
    if desired is None:
        return post
    out = dict(post)
    for section in ("widgets", "webhooks"):
        have, want = post.get(section), desired.get(section)
        if isinstance(have, Mapping) and isinstance(want, Mapping):
            ordered = {k: have[k] for k in want if k in have}
            out[section] = {**ordered, **{k: v for k, v in have.items() if k not in ordered}}
    return out


def account_now(canonicals: Iterable[Mapping[str, Any]], draft_apps: Sequence[App],
                presets: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The account as the service holds it now (``audit``): each canonical app with the labels the draft gives it
    (matched by id), nothing else of the draft."""
    labels = _labels(draft_apps)
    return [service_app(c, labels.get(str(c.get("id"))), presets) for c in canonicals]


def _labels(apps: Sequence[App]) -> dict[str, Mapping[str, Any]]:
    """App key (id, or ``new:<name>``) -> the labels the draft gives it."""
    from tenantdeck.sync.types import app_key_for

    return {app_key_for(a.id, a.name): dict(a.labels) for a in apps if a.labels is not None}


__all__ = ["SECTIONS", "account_after_push", "account_now", "after_steps", "sections_read", "service_app"]
