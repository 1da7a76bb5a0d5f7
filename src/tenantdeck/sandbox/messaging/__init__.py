"""The sandbox's second area: a chat API (users, groups, messages ...) whose actions fire webhook deliveries.

:func:`install` wires it into the management app built by :func:`tenantdeck.sandbox.app.create_app`: the chat
API served at ``/chat/{appId}/v3`` (``apikey`` auth, its own error shape and ``/openapi.json``), two
management-side extras (chat credentials, delivery log), and the delivery worker, closed with the app.
"""

from __future__ import annotations

from fastapi import FastAPI

from tenantdeck.sandbox.messaging.delivery import DeliveryConfig, DeliveryWorker
from tenantdeck.sandbox.messaging.service import ChatService
from tenantdeck.sandbox.store import Store

__all__ = ["CHAT_PATH_PREFIX", "DeliveryConfig", "DeliveryWorker", "install"]

#: Requests under this prefix authenticate with the app's ``apikey``, not the account's key and secret.
CHAT_PATH_PREFIX = "/chat/"


def install(app: FastAPI, store: Store, config: DeliveryConfig | None = None) -> DeliveryWorker:
    """Add the messaging area to ``app``; returns the worker (``app.state.delivery``) for the lifespan to close."""
    from tenantdeck.sandbox.messaging import admin
    from tenantdeck.sandbox.messaging.api import ChatAreaMiddleware, create_chat_app
    from tenantdeck.sandbox.shared_routes import include_shared

    service = ChatService(store)
    worker = DeliveryWorker(store, config)
    app.state.chat_service = service
    app.state.delivery = worker
    include_shared(app, admin.router)
    app.add_middleware(ChatAreaMiddleware, chat_app=create_chat_app(service, worker))
    return worker
