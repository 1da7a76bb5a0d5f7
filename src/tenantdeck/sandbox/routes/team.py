"""Read-only views of an app's collaborators and settings (seeded data; nothing here writes)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep
from tenantdeck.sandbox.envelopes import ok

router = APIRouter(responses=ERROR_RESPONSES)


@router.get(
    "/apps/{appId}/collaborators",
    operation_id="list-collaborators",
    summary="List collaborators",
    description="Answers `data[{id, name, email, role, createdAt}]`. Read-only in the sandbox.",
    tags=["Team management"],
)
async def list_collaborators(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    return ok(db.list_collaborators(appId))


@router.get(
    "/apps/{appId}/settings",
    operation_id="list-settings",
    summary="List app settings",
    description="Answers `data{key: value}`; values are not all booleans. Read-only in the sandbox.",
    tags=["Settings"],
)
async def list_settings(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    return ok(db.app_settings(appId))
