"""Apps: create, list (search + pages), delete. There is no get-one or update on the real API (facts §2)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep, json_request_body, ref
from tenantdeck.sandbox.envelopes import ok
from tenantdeck.sandbox.pagination import Paged25

router = APIRouter(tags=["Apps"], responses=ERROR_RESPONSES)


@router.post(
    "/apps",
    operation_id="create-app",
    summary="Create an app",
    description='Body: name (≤100), region (us|eu|in), version "3". Answers `data` with the new app record.',
    openapi_extra=json_request_body(ref("AppCreate"), "The app to create"),
)
async def create_app(request: Request, db: StoreDep) -> JSONResponse:
    body = validation.parse_app_create(await json_body(request))
    return ok(db.create_app(body.name, body.region, body.version))


@router.get(
    "/apps",
    operation_id="list-apps",
    summary="List apps",
    description="`searchKey` matches a substring of the id or the name (case-insensitive). Paged (`perPage` ≤ 1000).",
)
async def list_apps(
    request: Request,
    page: Paged25,
    db: StoreDep,
    searchKey: Annotated[str | None, Query(max_length=100, description="Substring of an app id or name")] = None,
) -> JSONResponse:
    items, total = db.list_apps(searchKey, page.per_page, page.offset)
    return ok(items, page.meta(request, total, len(items)))


@router.delete(
    "/apps/{appId}",
    operation_id="delete-app",
    summary="Schedule an app for deletion",
    description="The app disappears from lists at once and its subresources answer 404 ERR_APP_NOT_FOUND.",
)
async def delete_app(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    scheduled = db.delete_app(appId)
    return ok({"success": True, "scheduledToDeleteAt": scheduled})
