"""Webhooks and their triggers.

Webhook objects are answered as ``{id, name, webhookURL, enabled, createdAt, updatedAt}``: like the real service
(facts §7), **never the write-only fields** ``useBasicAuth``, ``username``, ``password``, ``retryOnFailure``, so
every client test meets the real shape. An update keeps every field its body leaves out (the PUT schema requires
none): a client that cannot read a field cannot be expected to echo it back. Create, get and update answer
``{"data": {...}}`` (or the reference's nested ``{"data": [{"data": {...}}]}`` when the sandbox was created with
``webhook_envelope="nested"``).
The ``X-Webhook-Version`` header is accepted and ignored: the sandbox only implements the v2 system.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import (
    ERROR_RESPONSES,
    AppIdParam,
    Options,
    StoreDep,
    WebhookIdParam,
    json_request_body,
    options,
    ref,
)
from tenantdeck.sandbox.envelopes import ok
from tenantdeck.sandbox.pagination import Paged100
from tenantdeck.sandbox.records import humanise


async def webhook_version(
    x_webhook_version: Annotated[
        int | None, Header(alias="X-Webhook-Version", description="2 selects the v2 webhook system (accepted)")
    ] = None,
) -> None:
    """Documents the header; any integer is accepted."""


router = APIRouter(tags=["Webhooks"], responses=ERROR_RESPONSES, dependencies=[Depends(webhook_version)])

OptionsDep = Annotated[Options, Depends(options)]

TRIGGER_IDS_BODY = json_request_body(
    {
        "type": "object",
        "required": ["triggerIds"],
        "properties": {"triggerIds": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    },
    "Trigger ids",
)
UPDATE_BODY = json_request_body(
    {"allOf": [ref("WebhookBody")], "description": "Same fields as create; id optional (must match the path)."},
    "The fields to change; every field left out (the password too) keeps its stored value",
)


def _single(webhook: dict[str, Any], opts: Options) -> JSONResponse:
    if opts.webhook_envelope == "nested":
        return ok([{"data": webhook}])
    return ok(webhook)


@router.post(
    "/apps/{appId}/webhooks",
    operation_id="create-webhook",
    summary="Create a webhook",
    description=(
        f"Body: WebhookBody. At most {validation.WEBHOOKS_PER_APP} per app (422 ERR_WEBHOOK_LIMIT_REACHED); "
        "a duplicate id is 409 ERR_WEBHOOK_ALREADY_EXISTS. The answer never contains the password."
    ),
    openapi_extra=json_request_body(ref("WebhookBody"), "The webhook"),
)
async def create_webhook(request: Request, appId: AppIdParam, db: StoreDep, opts: OptionsDep) -> JSONResponse:
    doc, password = validation.parse_webhook(await json_body(request))
    return _single(db.create_webhook(appId, doc, password, validation.WEBHOOKS_PER_APP), opts)


@router.get(
    "/apps/{appId}/webhooks",
    operation_id="list-webhooks",
    summary="List webhooks",
    description="Paged (`perPage` default 100, ≤ 1000); `searchKey` matches a substring of the name.",
)
async def list_webhooks(
    request: Request,
    appId: AppIdParam,
    page: Paged100,
    db: StoreDep,
    searchKey: Annotated[str | None, Query(max_length=100, description="Substring of a webhook name")] = None,
) -> JSONResponse:
    items, total = db.list_webhooks(appId, searchKey, page.per_page, page.offset)
    return ok(items, page.meta(request, total, len(items)))


@router.get("/apps/{appId}/webhooks/{webhookId}", operation_id="get-webhook", summary="Get a webhook")
async def get_webhook(appId: AppIdParam, webhookId: WebhookIdParam, db: StoreDep, opts: OptionsDep) -> JSONResponse:
    return _single(db.get_webhook(appId, webhookId), opts)


@router.put(
    "/apps/{appId}/webhooks/{webhookId}",
    operation_id="update-webhook",
    summary="Update a webhook",
    description="Sets the fields the body carries; omitted ones keep their stored values (the password too).",
    openapi_extra=UPDATE_BODY,
)
async def update_webhook(
    request: Request, appId: AppIdParam, webhookId: WebhookIdParam, db: StoreDep, opts: OptionsDep
) -> JSONResponse:
    stored = db.webhook_doc(appId, webhookId)
    doc, password = validation.parse_webhook(await json_body(request), path_id=webhookId, stored=stored)
    return _single(db.update_webhook(appId, webhookId, doc, password), opts)


@router.delete("/apps/{appId}/webhooks/{webhookId}", operation_id="delete-webhook", summary="Delete a webhook")
async def delete_webhook(appId: AppIdParam, webhookId: WebhookIdParam, db: StoreDep) -> JSONResponse:
    db.delete_webhook(appId, webhookId)
    return ok({"success": True, "message": "Deleted Webhook successfully."})


@router.post(
    "/apps/{appId}/webhooks/{webhookId}/triggers",
    operation_id="add-triggers",
    summary="Add triggers to a webhook",
    description="Answers `data.<triggerId>{success, message}`. Unknown trigger ids: 422 (nothing is added).",
    openapi_extra=TRIGGER_IDS_BODY,
)
async def add_triggers(request: Request, appId: AppIdParam, webhookId: WebhookIdParam, db: StoreDep) -> JSONResponse:
    trigger_ids = validation.parse_trigger_ids(await json_body(request))
    added = db.add_triggers(appId, webhookId, trigger_ids)
    return ok(
        {
            t: {
                "success": True,
                "message": "Triggers has been added successfully." if new else "Trigger was already added.",
            }
            for t, new in added.items()
        }
    )


@router.get(
    "/apps/{appId}/webhooks/{webhookId}/triggers",
    operation_id="list-triggers",
    summary="List a webhook's triggers",
    description="Answers `data[{id, description}]` plus `meta.pagination` (`perPage` default 100).",
)
async def list_triggers(
    request: Request, appId: AppIdParam, webhookId: WebhookIdParam, page: Paged100, db: StoreDep
) -> JSONResponse:
    ids, total = db.list_triggers(appId, webhookId, page.per_page, page.offset)
    items = [{"id": t, "description": humanise(t)} for t in ids]
    return ok(items, page.meta(request, total, len(items)))


@router.delete(
    "/apps/{appId}/webhooks/{webhookId}/triggers",
    operation_id="remove-triggers",
    summary="Remove triggers from a webhook",
    description='Body `{"triggerIds": [...]}`; ids not attached are ignored.',
    openapi_extra=TRIGGER_IDS_BODY,
)
async def remove_triggers(request: Request, appId: AppIdParam, webhookId: WebhookIdParam, db: StoreDep) -> JSONResponse:
    trigger_ids = validation.parse_trigger_ids(await json_body(request))
    db.remove_triggers(appId, webhookId, trigger_ids)
    return ok({"success": True, "message": "Removed trigger successfully."})
