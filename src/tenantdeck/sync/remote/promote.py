"""``promote SRC DST``: what the source account has for the draft's apps, pushed to the destination after the same
review as a push.

Why not "push the draft to DST": after a change was tried on staging (and maybe adjusted there in the dashboard),
what should reach production is what staging *has*, not what the file says. So the desired state is read from SRC:

1. the draft as SRC sees it (its ids: :mod:`tenantdeck.draft.target_overrides`), and SRC's live state of those apps;
2. each app converted back to the draft's shape (:func:`tenantdeck.sync.remote_to_draft.app_from_canonical`: the
   draft's presets, references and managed sections kept), with the values SRC's section overrides set back to the
   draft's (a staging-only URL is not promoted) and the draft's own ids;
3. that document as DST sees it (DST's ids and overrides), compared three ways with DST's base and live and pushed
   with DST's workspace, journal and history (:func:`tenantdeck.sync.remote.engine.prepare_push`): a value DST
   changed in its dashboard since its base is kept, a conflict is a conflict.

Secrets are not promoted: the service never reveals a secret (SRC's are fingerprints made with SRC's key), so an
app DST already has keeps its secret values (its secret leaves cannot tell, so no change is planned) and the plan
says so; an app DST does not have yet is created with the secret references of the draft (or of DST's section),
from the environment, as a push would. Apps SRC does not have (no id there, or gone) are not promoted either.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.sync.remote.engine import Prepared, PushRefused, PushRequest, prepare_push
from tenantdeck.sync.types import UNKNOWN
from tenantdeck.sync.workspace.local import DraftInvalid, Local, load_local, load_view

if TYPE_CHECKING:
    from tenantdeck.targets import Target


#: an app's keys a promotion always carries (a draft that leaves out widgets or webhooks means none)
ALWAYS = frozenset({"name", "region", "version", "widgets", "webhooks"})


@dataclass(slots=True)
class Promoted:
    """The source's state in the draft's shape, and what was left out of the promotion (said to the user)."""

    data: dict[str, Any]
    notices: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  #: the apps promoted


def _leaves(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of the leaves of an override (mappings are walked; anything else is one leaf)."""
    if isinstance(value, Mapping) and value:
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*at, k))]
    return [at]


def _get(node: Any, path: tuple[Any, ...]) -> tuple[bool, Any]:
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _put_back(new: dict[str, Any], own: Mapping[str, Any], path: tuple[Any, ...]) -> None:
    """``new[path]`` set to ``own[path]`` (removed when ``own`` has none): the source's override is not promoted."""
    found, value = _get(own, path)
    holder: Any = new
    for part in path[:-1]:
        if not isinstance(holder, dict):
            return
        holder = holder.setdefault(part, {})
    if not isinstance(holder, dict) or not path:
        return
    if found:
        holder[path[-1]] = copy.deepcopy(value)
    else:
        holder.pop(path[-1], None)


def _by(items: Any, key: Any) -> dict[Any, dict[str, Any]]:
    return {key(item): item for item in items or [] if isinstance(item, dict)}


def _not_overridden(new: dict[str, Any], own: Mapping[str, Any], override: Mapping[str, Any] | None,
                    presets: Mapping[str, Any]) -> None:
    """Set back to the draft's value every leaf the source's section overrides."""
    from tenantdeck.draft.target_overrides import widget_name

    if not override:
        return
    for key, value in override.items():
        if key in ("id", "widgets", "webhooks"):
            continue
        for leaf in _leaves(value, (key,)):
            _put_back(new, own, leaf)
    for section, key_of in (("widgets", lambda w: widget_name(w, presets)), ("webhooks", lambda h: h.get("id"))):
        mine, theirs = _by(own.get(section), key_of), _by(new.get(section), key_of)
        for name, value in (override.get(section) or {}).items():
            if name in theirs and name in mine:
                for leaf in _leaves({k: v for k, v in value.items() if k != "id"}):
                    if leaf:
                        _put_back(theirs[name], mine[name], leaf)


def promoted_data(source: Local, live: Mapping[str, Mapping[str, Any]], draft_data: Mapping[str, Any],
                  source_override: Mapping[str, Mapping[str, Any]], source_name: str) -> Promoted:
    """The draft's document with each app the source has replaced by the source's state of it (see the module)."""
    from tenantdeck.draft.target_overrides import widget_name
    from tenantdeck.sync.canonical import with_last_pushed
    from tenantdeck.sync.remote_to_draft import SecretNamer, app_from_canonical, reserve_draft_references

    data = copy.deepcopy(dict(draft_data))
    presets = data.get("presets") if isinstance(data.get("presets"), dict) else {}
    own_apps: list[Any] = list(data.get("apps") or [])
    draft = source.draft
    namer = SecretNamer()
    reserve_draft_references(namer, list(draft.apps))
    out = Promoted(data)
    apps: list[dict[str, Any]] = []
    for i, app in enumerate(draft.apps):
        own = own_apps[i] if i < len(own_apps) and isinstance(own_apps[i], dict) else {}
        if not app.id or app.id not in live:
            why = "it has no id there" if not app.id else f"its app {app.id} is not there"
            out.notices.append(f"app {app.name!r}: not promoted: {source_name} does not have it ({why})")
            continue
        # what the service never reports (a webhook's Basic Auth user): as tenantdeck last pushed it to the source
        state = with_last_pushed(live[app.id], source.base.get(app.id))
        out.notices += unreported_notices(app.name, state, source_name)
        conversion = app_from_canonical(state, existing=app, base=source.base.get(app.id),
                                        presets=dict(draft.presets), namer=namer)
        out.notices += conversion.notes
        if conversion.app is None:  # the draft cannot hold the source's app (its note says why)
            out.notices.append(f"app {app.name!r}: not promoted: the draft cannot hold {source_name}'s app")
            continue
        new = conversion.app.model_dump(mode="json", exclude_none=True, exclude_unset=True)
        for key in [k for k in new if k not in own and k not in ALWAYS]:
            del new[key]  # a section the draft leaves out is not managed: promotion does not start managing it
        new.pop("id", None)
        if own.get("id"):
            new["id"] = own["id"]
        own_widgets = _by(own.get("widgets"), lambda w: widget_name(w, presets))
        for widget in new.get("widgets") or []:
            widget.pop("id", None)
            mine = own_widgets.get(widget_name(widget, presets))
            if mine is not None and mine.get("id"):
                widget["id"] = mine["id"]
        _not_overridden(new, own, source_override.get(app.name), presets)
        apps.append(new)
        out.names.append(app.name)
    data["apps"] = apps
    return out


def unreported_notices(app_name: str, state: Mapping[str, Any], source_name: str) -> list[str]:
    """What the promotion carries of a webhook's fields the service never reports, and what it cannot: carried
    as tenantdeck last pushed them to the source (its base), else not promoted (the destination keeps its own)."""
    from tenantdeck.models.catalog import WEBHOOK_WRITE_ONLY
    from tenantdeck.sync.types import is_unknown

    carried, unknown = [], []
    for hook_id, hook in sorted((state.get("webhooks") or {}).items()):
        for key in (k for k in WEBHOOK_WRITE_ONLY if k != "password" and k in hook):
            (unknown if is_unknown(hook[key]) else carried).append(f"webhooks.{hook_id}.{key}")
    out = []
    if carried:
        out.append(f"app {app_name!r}: promoted as tenantdeck last pushed them to {source_name} (the service never "
                   f"reports them): {', '.join(carried)}")
    if unknown:
        out.append(f"app {app_name!r}: not promoted (the service never reports them, and tenantdeck never pushed "
                   f"them to {source_name}; the destination keeps its own): {', '.join(unknown)}")
    return out


def _unknown_secrets(value: Any, at: str, found: list[str]) -> Any:
    """``value`` (a canonical app) with every secret state (a fingerprint, an unset reference) made unknown: a side
    that cannot tell, so the comparison plans no change to it (:func:`tenantdeck.sync.compare.compare_leaves`)."""
    if isinstance(value, dict):
        if set(value) in ({"fingerprint"}, {"ref"}):
            found.append(at)
            return dict(UNKNOWN)
        return {k: _unknown_secrets(v, f"{at}.{k}" if at else str(k), found) for k, v in value.items()}
    return value


async def prepare_promote(source: Target, dest: Target, request: PushRequest,
                          env: Mapping[str, str]) -> Prepared | PushRefused:
    """Read what ``source`` has for the draft's apps and return the plan that makes ``dest`` match it (or why
    nothing can be pushed), prepared as :func:`~tenantdeck.sync.remote.engine.prepare_push` prepares a push.
    A service error names the account it came from (two accounts are read: "could not connect" alone does not
    say which)."""
    from tenantdeck.api.errors import ApiError

    reading = [source]
    try:
        return await _prepare_promote(source, dest, request, env, reading)
    except ApiError as exc:
        at = reading[-1]
        return PushRefused("service_error", f"{at.name} ({at.base_url}) could not be read: {exc}; nothing was "
                           "pushed")


async def _prepare_promote(source: Target, dest: Target, request: PushRequest, env: Mapping[str, str],
                           reading: list[Target]) -> Prepared | PushRefused:
    from tenantdeck.draft import load_draft
    from tenantdeck.draft.target_overrides import (
        TargetOverridesInvalid,
        has_section,
        read_target_overrides,
        section_apps_data,
    )
    from tenantdeck.sync.remote.fetch import fetch_live, managed_extensions
    from tenantdeck.sync.workspace.binding import WrongTarget, check_identity, identity_of

    path = request.draft_path or Path("tenantdeck.yaml")
    if identity_of(source).get("account") == identity_of(dest).get("account") and \
            source.base_url.rstrip("/") == dest.base_url.rstrip("/"):
        return PushRefused("wrong_target", "nothing was pushed", lines=[
            f"{source.name} and {dest.name} are the same account: promotion copies from one account to another"])
    try:
        src = load_local(path, env, key=source.fingerprint_key(), profile=source.name)
        overrides = read_target_overrides(path)
        dest_is_view = has_section(path, dest.name)
    except DraftInvalid as exc:
        return PushRefused("invalid_draft", f"{path} is not valid; nothing was pushed", problems=exc.problems)
    except TargetOverridesInvalid as exc:
        return PushRefused("invalid_draft", "the targets file is not valid; nothing was pushed", problems=exc.problems)
    from tenantdeck.sync.remote.rekey import check_key

    keyed = await check_key(source, src.workspace)
    if keyed.refused:
        return PushRefused("credentials_refused", "nothing was pushed", lines=[keyed.refused])
    try:
        check_identity(src.workspace, identity_of(source))
    except WrongTarget as exc:
        return PushRefused("wrong_target", f"nothing was pushed: {source.name} is another account than the one "
                           "this draft's base for it was taken from", lines=[exc.text(rebind=False)])
    ids = {a["id"] for a in src.apps if a.get("id")}
    async with source.client(concurrency=max(request.concurrency * 4, 16)) as client:
        live = await fetch_live(client, ids, secret_key=src.secret_key, concurrency=request.concurrency * 4,
                                listing=await client.list_apps(), wanted_extensions=managed_extensions(src))
    own = load_draft(path)
    section = overrides.section(source.name) if overrides is not None else None
    promoted = promoted_data(src, live, own.doc.data, section_apps_data(section), source.name)
    key = dest.fingerprint_key()
    kept: list[str] = []  #: secrets not promoted, as the last build found them

    def build(env: Mapping[str, str]) -> Local:
        local = load_view(path, dest.name, env, key=key, data=promoted.data, keep_ids=not dest_is_view)
        kept.clear()
        apps = []
        for app in local.apps:
            if app.get("id"):  # DST has it: its secrets stay as they are there
                found: list[str] = []
                app = _unknown_secrets(app, "", found)
                kept.extend(f"app {app.get('name')!r}: {where}" for where in found)
            apps.append(app)
        local.apps = apps
        wanted = {a["id"] for a in apps if a.get("id")}
        local.base = {app_id: b for app_id, b in local.base.items() if app_id in wanted}  # only the promoted apps
        local.rebuild = build
        return local

    try:
        local = build(env)
    except DraftInvalid as exc:
        # each problem is placed at the draft's line for the value, which may say otherwise (a dashboard change)
        return PushRefused("invalid_draft", f"what {source.name} has is not valid for {dest.name}; nothing was "
                           "pushed", problems=exc.problems, lines=[
                               f"the values are {source.name}'s as its service reports them (its dashboard's changes "
                               "included), each placed at the draft's line for it: fix them in its dashboard, or "
                               f"`tenantdeck pull --profile {source.name}`, fix the draft and push it there, then "
                               "promote again"])
    head = [f"Promoting {source.name} -> {dest.name}: {len(promoted.names)} app(s) "
            f"({', '.join(repr(n) for n in promoted.names) or 'none'})", *promoted.notices,
            *([keyed.notice] if keyed.notice else [])]
    if kept:
        head.append(f"not promoted (the service never reveals a secret, so {source.name}'s cannot be read; "
                    f"{dest.name} keeps its own): " + "; ".join(kept))
    reading.append(dest)
    keyed = await check_key(dest, local.workspace)
    if keyed.refused:
        return PushRefused("credentials_refused", "nothing was pushed", lines=[keyed.refused], notices=head)
    head += [keyed.notice] if keyed.notice else []
    try:
        check_identity(local.workspace, identity_of(dest))
    except WrongTarget as exc:
        if not dest_is_view:  # the usual cause on a first promotion: DEST is no target of this draft yet
            return PushRefused("wrong_target", f"nothing was pushed: {dest.name} is not a target of this draft yet",
                               lines=[_not_a_target(path, dest.name)], notices=head)
        return PushRefused("wrong_target", f"nothing was pushed: {dest.name} is another account than the one this "
                           "draft's base for it was taken from", lines=[exc.text(rebind=False)], notices=head)
    prepared = await prepare_push(dest, request, env, local=local)
    prepared.notices[:0] = head
    if isinstance(prepared, PushRefused) and prepared.kind == "conflicts":
        prepared.summary = (f"{len(prepared.plan.conflicts) if prepared.plan else 0} conflict(s): {source.name} and "
                            f"{dest.name} changed the same settings differently since {dest.name}'s base; nothing "
                            f"was pushed. Keep {source.name}'s value with --take-mine KEY, or {dest.name}'s with "
                            f"--take-theirs KEY (written in its section of the targets file, so later promotions "
                            "keep it too)")
    return prepared


def _not_a_target(path: Path, dest: str) -> str:
    """What to write when DEST has no section in the targets file: without one, a promotion reads DEST as the
    draft's own account (whose base is SOURCE's), and a trial's first promote stopped at "another account" with no
    word of the file that would have made it work."""
    from tenantdeck.draft.target_overrides import targets_path

    file = targets_path(path)
    where = f"{file.name} has no section for it" if file.exists() else f"there is no {file.name} beside the draft"
    return (f"{dest} is not a target of this draft ({where}), so it was read as the draft's own account, whose base "
            f"is another's: add it, `targets: {{{dest}: {{}}}}` under `format: 1` (its apps' ids there too when {dest} "
            "already has them), then promote again (docs/ci.md)")
