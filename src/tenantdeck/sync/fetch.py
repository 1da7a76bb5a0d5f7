"""Every read needed to know one app's remote state, run concurrently within an app and across apps.

One app takes four independent reads (extensions, widgets, SMS, webhooks) and then one trigger list per webhook.
Apps are fetched ``concurrency`` at a time; the client's own limiter still caps requests in flight and per
second, so this only decides how much work is queued, not how hard the service is hit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.models import RemoteApp, RemoteExtension, RemoteWidget


@dataclass(slots=True)
class RemoteAppBundle:
    """What the service holds for one app. Each webhook dict carries a ``"triggers"`` list.

    ``extensions`` is None when it could not be read; an extension whose ``enabled`` is None means the service
    does not tell per-app state (the real API), which the canonical form records as "unknown".
    ``sms`` may hold the Twilio auth token in clear: turn the bundle into canonical form (which fingerprints it)
    and drop the bundle; never log or store it.
    """

    app: RemoteApp
    extensions: list[RemoteExtension] | None
    widgets: list[RemoteWidget] = field(default_factory=list)
    sms: dict[str, Any] | None = field(default=None, repr=False)
    webhooks: list[dict[str, Any]] = field(default_factory=list)


async def fetch_remote_app(client: ManagementClient, app: RemoteApp) -> RemoteAppBundle:
    """All reads for one app; the first failure cancels the others and propagates (an ``ApiError``)."""
    try:
        async with asyncio.TaskGroup() as tg:
            extensions_t = tg.create_task(client.list_extensions(app.id))
            widgets_t = tg.create_task(client.list_widgets(app.id))
            sms_t = tg.create_task(client.get_sms(app.id))
            webhooks_t = tg.create_task(client.list_webhooks(app.id))
        webhooks = [dict(h) for h in webhooks_t.result()]
        if webhooks:
            async with asyncio.TaskGroup() as tg:
                trigger_tasks = [tg.create_task(client.list_triggers(app.id, str(h["id"]))) for h in webhooks]
            for hook, task in zip(webhooks, trigger_tasks, strict=True):
                hook["triggers"] = task.result()
    except BaseExceptionGroup as group:
        raise _first_error(group) from None
    return RemoteAppBundle(
        app=app,
        extensions=extensions_t.result(),
        widgets=widgets_t.result(),
        sms=sms_t.result(),
        webhooks=webhooks,
    )


async def fetch_remote_apps(
    client: ManagementClient,
    apps: Iterable[RemoteApp],
    concurrency: int = 8,
    *,
    on_done: Callable[[RemoteAppBundle], Awaitable[None] | None] | None = None,
) -> list[RemoteAppBundle]:
    """Fetch many apps, at most ``concurrency`` at a time; results keep the order of ``apps``.

    ``on_done`` is called as each app completes (progress reporting). The first failure cancels the rest and is
    raised as is: a partial pull would write a draft and base that disagree with each other.
    """
    apps = list(apps)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(app: RemoteApp) -> RemoteAppBundle:
        async with gate:
            bundle = await fetch_remote_app(client, app)
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
