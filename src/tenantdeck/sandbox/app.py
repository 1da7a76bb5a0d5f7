"""``create_app``: the sandbox as one FastAPI object, served by uvicorn or called in process via ASGI.

Everything expensive happens here, once: opening SQLite, creating the schema, seeding a new file. Requests then
only run a few indexed statements under the store's lock.

Middleware order (outermost first): client-disconnect logging -> body-size limit (413 while the body streams) ->
fault injection (latency, injected 429/503) -> key/secret auth -> routes.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from tenantdeck import __version__
from tenantdeck.sandbox import errors
from tenantdeck.sandbox.auth import HeaderAuthMiddleware
from tenantdeck.sandbox.deps import Options, WebhookEnvelope
from tenantdeck.sandbox.faults import FaultConfig, FaultInjectionMiddleware
from tenantdeck.sandbox.limits import DEFAULT_MAX_BODY, BodyLimitMiddleware
from tenantdeck.sandbox.messaging import CHAT_PATH_PREFIX, DeliveryConfig
from tenantdeck.sandbox.messaging import install as install_messaging
from tenantdeck.sandbox.openapi import install_openapi
from tenantdeck.sandbox.routes import apps, extension_settings, extensions, push_certificates, team, webhooks, widgets
from tenantdeck.sandbox.seed import seed as seed_sample_apps
from tenantdeck.sandbox.shared_routes import include_shared
from tenantdeck.sandbox.store import Store

DESCRIPTION = """\
A local implementation of the multi-tenant chat platform's **management API** (tenantdeck's embedded sandbox).

Same paths, bodies and envelopes as the real API. Every request needs the `key` and `secret` headers.
Errors are always `{"error": {"code": "ERR_...", "message": "...", "details": {path: [messages]}}}`.

Sandbox extras: extension list items carry `enabled` (this app's state); GET/PUT/DELETE of an extension's settings
answer 404 `ERR_SETTINGS_NOT_FOUND` when none are stored; injected faults (429/503) when started with a fail rate.
"""


def create_app(
    db_path: Path | str,
    *,
    key: str,
    secret: str,
    latency_ms: int = 0,
    fail_rate: float = 0.0,
    seed: bool = True,
    rng_seed: int | None = None,
    retry_after: int = 1,
    rate_limit: int | None = None,
    webhook_envelope: WebhookEnvelope = "object",
    delivery: DeliveryConfig | None = None,
    max_body: int = DEFAULT_MAX_BODY,
) -> FastAPI:
    """Build a sandbox on the SQLite file ``db_path`` (created if missing, seeded once if ``seed``).

    ``latency_ms`` delays every API request; ``fail_rate`` (0..1) fails that fraction with 429 (``Retry-After:
    retry_after``) or 503, chosen by ``random.Random(rng_seed)``. ``webhook_envelope`` picks the shape of
    single-webhook answers (see :class:`tenantdeck.sandbox.deps.Options`). ``delivery`` configures webhook
    deliveries of the messaging area (retry delays, timeout; see :mod:`tenantdeck.sandbox.messaging`).
    ``max_body``: larger request bodies are answered 413 (:mod:`tenantdeck.sandbox.limits`). The database file is
    made readable by its owner only (it holds webhook passwords; :func:`tenantdeck.sandbox.ddl.connect`).
    """
    if not key or not secret:
        raise ValueError("the sandbox needs a non-empty key and secret")
    store = Store(db_path)
    if seed:
        store.seed_if_new(seed_sample_apps)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await app.state.delivery.aclose()
        store.close()

    app = FastAPI(
        title="tenantdeck sandbox: management API",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.options = Options(webhook_envelope=webhook_envelope)
    app.state.faults = FaultConfig(
        latency_ms=latency_ms, fail_rate=fail_rate, retry_after=retry_after, rng=random.Random(rng_seed),
        rate_limit=rate_limit
    )
    include_shared(app, *(module.router for module in
                          (apps, extensions, widgets, extension_settings, push_certificates, webhooks, team)))
    install_messaging(app, store, delivery)
    errors.install_error_handlers(app)
    install_openapi(app)
    app.add_middleware(HeaderAuthMiddleware, key=key, secret=secret, exempt_prefixes=(CHAT_PATH_PREFIX,))
    app.add_middleware(FaultInjectionMiddleware, config=app.state.faults)
    app.add_middleware(BodyLimitMiddleware, max_body=max_body, chat_prefix=CHAT_PATH_PREFIX)
    app.add_middleware(errors.ClientDisconnectMiddleware)
    return app
