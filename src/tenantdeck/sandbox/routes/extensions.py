"""Extensions of an app: the catalogue with each one's state, and enable/disable in one call."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep, json_request_body, ref
from tenantdeck.sandbox.envelopes import ok
from tenantdeck.sandbox.extension_info import extension_item
from tenantdeck.sandbox.pagination import Paged25

router = APIRouter(tags=["Extensions"], responses=ERROR_RESPONSES)


@router.get(
    "/apps/{appId}/extensions",
    operation_id="list-extensions",
    summary="List extensions",
    description=(
        "The extension catalogue, paged (`perPage` default 25, ≤ 1000). **Sandbox extra:** every item carries "
        "`enabled: bool` for this app; the real API has no per-app flag, so clients must treat it as optional."
    ),
)
async def list_extensions(request: Request, appId: AppIdParam, page: Paged25, db: StoreDep) -> JSONResponse:
    states = db.extension_states(appId)
    ids = validation.EXTENSION_IDS
    chunk = ids[page.offset : page.offset + page.per_page]
    items = [extension_item(ext_id, states.get(ext_id, False)) for ext_id in chunk]
    return ok(items, page.meta(request, len(ids), len(items)))


@router.post(
    "/apps/{appId}/extensions",
    operation_id="enable-extension",
    summary="Enable and disable extensions",
    description=(
        'Body `{"enabled": [ids], "disabled": [ids]}`. Answers `data.enabled.<id>` and `data.disabled.<id>` '
        "as `{success, message}`. Any unknown id fails the whole call with 404 ERR_EXTENSION_NOT_FOUND."
    ),
    openapi_extra=json_request_body(ref("Extensions"), "Extension ids to enable and to disable"),
)
async def enable_extensions(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    body = validation.parse_extension_toggle(await json_body(request))
    db.set_extensions(appId, body.enabled, body.disabled)
    return ok(
        {
            "enabled": {e: {"success": True, "message": "Extension enabled successfully."} for e in body.enabled},
            "disabled": {d: {"success": True, "message": "Extension disabled successfully."} for d in body.disabled},
        }
    )
