"""Every read needed to know one app's remote state, run concurrently within an app and across apps.

One app takes six independent reads (extensions, widgets, SMS, webhooks, team, settings); each webhook's trigger
list follows its webhook list, and one settings read per extension that matters (:func:`extensions_to_read`)
follows the extension list, each as soon as that list is in.
Apps are fetched ``concurrency`` at a time; the client's own limiter still caps requests in flight and per
second, so this only decides how much work is queued, not how hard the service is hit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.models import RemoteApp, RemoteExtension
from tenantdeck.models.extension_catalog import DRAFT_EXTENSIONS
from tenantdeck.sync.kinds import KINDS, canonical_app_from_remote
from tenantdeck.sync.types import RemoteAppBundle

if TYPE_CHECKING:
    from tenantdeck.sync.workspace.local import Local


_PUSH = "push-notification"  #: its certificates are read with its settings


def extensions_to_read(listed: list[RemoteExtension] | None, wanted: Iterable[str] = ()) -> list[str]:
    """Whose settings one app's read covers: ``wanted`` (what the draft or the base holds settings for, so a
    comparison never takes "not read" for "none"), plus every extension with settings the service says is enabled.
    A disabled extension's settings are not read. When the service does not say which are enabled (the real API's
    list has no per-app flag, facts §3.2), every extension with documented settings is read: the cost of not
    knowing, rather than a pull that silently leaves settings out."""
    ids = set(wanted)
    for ext in listed or ():
        if str(ext.id) not in DRAFT_EXTENSIONS:
            continue
        if ext.enabled is None:
            return sorted(set(DRAFT_EXTENSIONS) | ids)
        if ext.enabled:
            ids.add(str(ext.id))
    return sorted(ids & set(DRAFT_EXTENSIONS))


async def fetch_remote_app(client: ManagementClient, app: RemoteApp,
                           wanted_extensions: Iterable[str] = ()) -> RemoteAppBundle:
    """All reads for one app; the first failure cancels the others and propagates (an ``ApiError``).

    Each read starts as soon as what it needs is known: the settings reads as soon as the extension list is in,
    the trigger lists as soon as the webhook list is in, with no barrier between the first reads and the second,
    so one slow answer holds up only the reads that need it (and every read waits in the client's one limiter)."""

    async def extensions_and_settings() -> tuple[list[RemoteExtension], dict[str, Any], Any]:
        listed = await client.list_extensions(app.id)
        ext_ids = extensions_to_read(listed, wanted_extensions)
        certs = client.query_certificates(app.id) if _PUSH in ext_ids else _none()
        *settings, certificates = await _gather(*(client.get_extension_settings(app.id, e) for e in ext_ids), certs)
        return listed, dict(zip(ext_ids, settings, strict=True)), certificates

    async def webhooks_and_triggers() -> list[dict[str, Any]]:
        hooks = [dict(h) for h in await client.list_webhooks(app.id)]
        triggers = await _gather(*(client.list_triggers(app.id, str(h["id"])) for h in hooks))
        for hook, ids in zip(hooks, triggers, strict=True):
            hook["triggers"] = ids
        return hooks

    try:
        async with asyncio.TaskGroup() as tg:
            extensions_t = tg.create_task(extensions_and_settings())
            widgets_t = tg.create_task(client.list_widgets(app.id))
            sms_t = tg.create_task(client.get_sms(app.id))
            webhooks_t = tg.create_task(webhooks_and_triggers())
            team_t = tg.create_task(client.list_collaborators(app.id))
            settings_t = tg.create_task(client.get_app_settings(app.id))
    except BaseExceptionGroup as group:
        raise _first_error(group) from None
    extensions, extension_settings, certificates = extensions_t.result()
    return RemoteAppBundle(
        app=app,
        extensions=extensions,
        widgets=widgets_t.result(),
        sms=sms_t.result(),
        webhooks=webhooks_t.result(),
        team=team_t.result(),
        settings=settings_t.result(),
        extension_settings=extension_settings,
        certificates=certificates,
    )


async def _none() -> None:
    return None


async def _gather(*aws: Coroutine[Any, Any, Any]) -> list[Any]:
    """Run concurrently; the first failure cancels the rest and is raised as is (not wrapped in a group)."""
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(aw) for aw in aws]
    except BaseExceptionGroup as group:
        raise _first_error(group) from None
    return [t.result() for t in tasks]


async def fetch_remote_apps(
    client: ManagementClient,
    apps: Iterable[RemoteApp],
    concurrency: int = 8,
    *,
    on_done: Callable[[RemoteAppBundle], Awaitable[None] | None] | None = None,
    wanted_extensions: Mapping[str, set[str]] | None = None,
) -> list[RemoteAppBundle]:
    """Fetch many apps, at most ``concurrency`` at a time; results keep the order of ``apps``.

    ``on_done`` is called as each app completes (progress reporting). The first failure cancels the rest and is
    raised as is: a partial pull would write a draft and base that disagree with each other.
    """
    apps = list(apps)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(app: RemoteApp) -> RemoteAppBundle:
        async with gate:
            bundle = await fetch_remote_app(client, app, (wanted_extensions or {}).get(app.id, ()))
        if on_done is not None:
            result = on_done(bundle)
            if result is not None:
                await result
        return bundle

    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(one(app)) for app in apps]
    except BaseExceptionGroup as group:
        raise _first_error(group) from None
    return [t.result() for t in tasks]


def _first_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """TaskGroup wraps failures in a group; callers want the one error a user should read."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_error(exc)
        return exc
    return group  # pragma: no cover - a group is never empty


# -- the live side of a comparison ------------------------------------------------------------------------------


async def list_known_apps(client: ManagementClient, ids: set[str],
                          listing: list[RemoteApp] | None = None) -> dict[str, RemoteApp]:
    """The service's apps among ``ids`` (one paged list call, or ``listing`` when the caller already made it; an
    id missing from the answer is gone)."""
    if not ids:
        return {}
    if listing is None:
        listing = await client.list_apps()
    return {app.id: app for app in listing if app.id in ids}


async def fetch_live(client: ManagementClient, ids: set[str], *, secret_key: bytes,
                     concurrency: int = 16, listing: list[RemoteApp] | None = None,
                     wanted_extensions: Mapping[str, set[str]] | None = None) -> dict[str, dict[str, Any]]:
    """Canonical live state of the apps among ``ids`` that exist on the service (``wanted_extensions``: app id ->
    the extensions whose settings must be read whatever the service says is enabled: :func:`managed_extensions`)."""
    known = await list_known_apps(client, ids, listing)
    out: dict[str, dict[str, Any]] = {}

    def keep(bundle: Any) -> None:
        out[bundle.app.id] = canonical_app_from_remote(bundle, secret_key=secret_key)

    await fetch_remote_apps(client, list(known.values()), concurrency, on_done=keep,
                            wanted_extensions=wanted_extensions)
    return out


def managed_extensions(local: Local) -> dict[str, set[str]]:
    """App id -> the extensions whose settings its draft or its base holds: a comparison needs their live value
    even when the service calls the extension disabled (else a base entry would look deleted remotely)."""
    return managed_extensions_of([*((a.get("id"), a) for a in local.apps), *local.base.items()])


def managed_extensions_of(apps: Iterable[tuple[str | None, Mapping[str, Any] | None]]) -> dict[str, set[str]]:
    """:func:`managed_extensions` of ``(app id, canonical app)`` pairs (a pull passes its old base)."""
    out: dict[str, set[str]] = {}
    for app_id, app in apps:
        if app_id and app:
            wanted = out.setdefault(app_id, set())
            wanted.update(app.get("extension_settings") or {})
            if app.get("push_certificates") is not None:
                wanted.add(_PUSH)  # its certificates are read with it
    return out


async def fetch_live_for_push(client: ManagementClient, local: Local, *, concurrency: int = 16,
                              listing: list[RemoteApp] | None = None,
                              sections: Collection[str] = ()) -> dict[str, dict[str, Any]]:
    """Like :func:`fetch_live`, but reads only what this push can act on, and ``sections`` of every app (what the
    fleet policies read: the gate judges the account as the push leaves it, drift included).

    A push applies local changes (base -> draft) and refuses conflicts, which need a local change too. A section of
    an app (extensions, widgets, SMS, webhooks) whose draft equals its base therefore yields no operation and no
    conflict whatever the live side says, so unless the policies read it, it is not read: its live value is taken
    from the base, which makes it compare as in sync. An app with no local change at all costs no request beyond
    the one paged app list when no policy reads it. On a 1,000-app account where one toggle changed, that is one
    widget read per app instead of four or five. ``diff`` keeps reading everything, to report remote drift.
    """
    import copy

    known = await list_known_apps(client, local.app_ids(), listing)
    drafts = {a["id"]: a for a in local.apps if a.get("id")}
    gate = asyncio.Semaphore(max(1, concurrency))
    out: dict[str, dict[str, Any]] = {}

    async def one(app_id: str) -> None:
        d, b = drafts.get(app_id), local.base.get(app_id)
        changed = _locally_changed_sections(d, b)
        needed = changed | set(sections)
        if b is not None and not needed:
            out[app_id] = copy.deepcopy(b)
            return
        d = d or {}
        want_ext = ("extensions" in changed and d.get("extensions") is not None) or "extensions" in sections
        want_settings = (set(d.get("extension_settings") or {}) | set((b or {}).get("extension_settings") or {})
                         if "extension_settings" in changed else set())
        async with gate:
            live = await read_sections(client, known[app_id], needed, want_ext=want_ext,
                                       want_settings=want_settings, secret_key=local.secret_key,
                                       every_setting="extension_settings" in sections)
        if b is not None:
            for section in _SECTIONS:
                if section not in needed or (section == "extensions" and not want_ext):
                    live[section] = copy.deepcopy(b.get(section))
        out[app_id] = live

    await asyncio.gather(*(one(app_id) for app_id in known))
    return out


async def read_sections(client: ManagementClient, app: RemoteApp, sections: Collection[str], *,
                        want_ext: bool = True, want_settings: Iterable[str] = (), every_setting: bool = False,
                        secret_key: bytes) -> dict[str, Any]:
    """One app's canonical state as far as ``sections`` (canonical section names) are read; the others as
    :func:`canonical_app_from_remote` makes them of nothing read (the caller fills them in, or nothing reads them).
    ``want_settings``: the extensions whose settings to read; ``every_setting``: those and every one that matters
    (:func:`extensions_to_read`, which needs the extension list first: the whole app is read)."""
    if every_setting:
        bundle = await fetch_remote_app(client, app, want_settings)
        return canonical_app_from_remote(bundle, secret_key=secret_key)
    app_id = app.id
    want_settings = sorted(want_settings)

    async def none() -> Any:
        return None

    ext, widgets, sms, hooks, team, settings, certs, *ext_settings = await asyncio.gather(
        client.list_extensions(app_id) if want_ext else none(),
        client.list_widgets(app_id) if "widgets" in sections else none(),
        client.get_sms(app_id) if "sms" in sections else none(),
        client.list_webhooks(app_id) if "webhooks" in sections else none(),
        client.list_collaborators(app_id) if "team" in sections else none(),
        client.get_app_settings(app_id) if "settings" in sections else none(),
        client.query_certificates(app_id) if "push_certificates" in sections else none(),
        *(client.get_extension_settings(app_id, e) for e in want_settings),
    )
    hooks = [dict(h) for h in hooks or []]
    triggers = await asyncio.gather(*(client.list_triggers(app_id, str(h["id"])) for h in hooks))
    for hook, ids in zip(hooks, triggers, strict=True):
        hook["triggers"] = ids
    bundle = RemoteAppBundle(app=app, extensions=ext, widgets=widgets or [], sms=sms, webhooks=hooks, team=team,
                             settings=settings, extension_settings=dict(zip(want_settings, ext_settings, strict=True)),
                             certificates=certs)
    return canonical_app_from_remote(bundle, secret_key=secret_key)


async def fetch_rest(client: ManagementClient, listing: list[RemoteApp], have: Mapping[str, Any],
                     sections: Collection[str], *, secret_key: bytes,
                     concurrency: int = 16) -> dict[str, dict[str, Any]]:
    """The canonical state of every app in ``listing`` that ``have`` lacks, read as far as ``sections``: the rest
    of the account, for the fleet policies (which judge every app of it, as ``audit`` does)."""
    gate = asyncio.Semaphore(max(1, concurrency))
    out: dict[str, dict[str, Any]] = {}

    async def one(app: RemoteApp) -> None:
        async with gate:
            out[app.id] = await read_sections(client, app, sections, want_ext="extensions" in sections,
                                              every_setting="extension_settings" in sections, secret_key=secret_key)

    await asyncio.gather(*(one(app) for app in listing if app.id not in have))
    return out


#: resource kind of the comparison -> the canonical section that holds it (the app's own fields have none)
_SECTION_OF = {k.name: k.section for k in KINDS if k.section is not None}
_SECTIONS = tuple(dict.fromkeys(_SECTION_OF.values()))


def _locally_changed_sections(draft: dict[str, Any] | None, base: dict[str, Any] | None) -> set[str]:
    """Sections of one app with a local change (base -> draft), by the comparison's own rules.

    Raw equality would not do: the base records what the service reports (every known extension, fields it does
    not return as unknown), which the draft's canonical form never matches. Offline, live is the base, so
    every non-"in sync" resource is a local change.
    """
    from tenantdeck.sync.compare import compare_app

    if base is None or draft is None:
        return set(_SECTIONS)
    diff = compare_app(draft, base, base, offline=True)
    return {_SECTION_OF[r.kind] for r in diff.resources if r.status != "in_sync" and r.kind in _SECTION_OF}
