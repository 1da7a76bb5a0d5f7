"""Sandbox extras on the management API for the messaging area: an app's chat credentials and the delivery log.

``GET /apps/{appId}/chat-api`` answers the four message-API properties the spec lists (appId, apiKey, region,
baseUrl); the real service shows them on its dashboard. ``GET /apps/{appId}/webhook-deliveries`` is the
delivery log (status, attempts, latency), newest first; the real service has no such endpoint.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam
from tenantdeck.sandbox.envelopes import ok
from tenantdeck.sandbox.messaging.delivery import DeliveryWorker
from tenantdeck.sandbox.messaging.service import ChatService
from tenantdeck.sandbox.pagination import Paged100

#: Left out of the management API's /openapi.json: that document describes the vendor's API (and drives the
#: schemathesis run); these two extras are documented in docs/event-lab.md.
router = APIRouter(tags=["Sandbox messaging"], responses=ERROR_RESPONSES, include_in_schema=False)


@router.get(
    "/apps/{appId}/chat-api",
    operation_id="get-chat-api-credentials",
    summary="Sandbox extra: the app's chat API base URL and apikey",
)
async def chat_api(request: Request, appId: AppIdParam) -> JSONResponse:
    service: ChatService = request.app.state.chat_service
    key = service.api_key(appId)
    base = str(request.base_url).rstrip("/")
    return ok({"appId": appId, "apiKey": key, "region": service.region(appId), "baseUrl": f"{base}/chat/{appId}/v3"})


@router.get(
    "/apps/{appId}/webhook-deliveries",
    operation_id="list-webhook-deliveries",
    summary="Sandbox extra: the webhook delivery log (newest first)",
)
async def deliveries(
    request: Request,
    appId: AppIdParam,
    page: Paged100,
    webhookId: Annotated[str | None, Query(max_length=100)] = None,
    trigger: Annotated[str | None, Query(max_length=100)] = None,
    status: Annotated[Literal["pending", "delivered", "failed", "blocked", "cancelled"] | None, Query()] = None,
) -> JSONResponse:
    service: ChatService = request.app.state.chat_service
    service.region(appId)  # 404 for an unknown app
    worker: DeliveryWorker = request.app.state.delivery
    items, total = worker.list_deliveries(
        appId, webhook_id=webhookId, trigger=trigger, status=status, limit=page.per_page, offset=page.offset
    )
    return ok(items, page.meta(request, total, len(items)))
