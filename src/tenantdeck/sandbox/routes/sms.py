"""SMS notification extension settings (legacy ``sms-notification/v1/settings``): store, update, get, delete.

POST stores (creating or replacing); PUT requires settings to exist; GET and DELETE answer 404
ERR_SETTINGS_NOT_FOUND when none are stored. As on the real API, GET returns ``twilioAuthToken`` in clear.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import errors, validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import (
    ERROR_RESPONSES,
    AppIdParam,
    StoreDep,
    json_request_body,
    ref,
    settings_wrapper,
)
from tenantdeck.sandbox.envelopes import extension_reply

router = APIRouter(tags=["SMS notification"], responses=ERROR_RESPONSES)

PATH = "/apps/{appId}/extensions/sms-notification/v1/settings"
BODY = json_request_body(settings_wrapper(ref("SmsSettings")), "The five SMS settings")


@router.post(
    PATH,
    operation_id="store-settings-sms-notification",
    summary="Store SMS notification settings",
    description="Creates or replaces the settings. Answers `data.body.success`.",
    openapi_extra=BODY,
)
async def store_sms(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    settings = validation.parse_sms(await json_body(request))
    db.store_sms(appId, settings, must_exist=False)
    return extension_reply({"success": True}, started)


@router.put(
    PATH,
    operation_id="update-settings-sms-notification",
    summary="Update SMS notification settings",
    description="Replaces stored settings (404 ERR_SETTINGS_NOT_FOUND if none). Answers `data.body.success`.",
    openapi_extra=BODY,
)
async def update_sms(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    settings = validation.parse_sms(await json_body(request))
    db.store_sms(appId, settings, must_exist=True)
    return extension_reply({"success": True}, started)


@router.get(
    PATH,
    operation_id="get-settings-sms-notification",
    summary="Get SMS notification settings",
    description="Answers `data.body.data.settings{…five fields…, appId}`; 404 ERR_SETTINGS_NOT_FOUND if none.",
)
async def get_sms(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    settings = db.get_sms(appId)
    if settings is None:
        raise errors.ApiError(404, errors.SETTINGS_NOT_FOUND, "No SMS notification settings are stored for this app.")
    return extension_reply({"data": {"settings": {**settings, "appId": appId}}}, started)


@router.delete(
    PATH,
    operation_id="delete-settings-sms-notification",
    summary="Delete SMS notification settings",
    description="Answers `data.body.success`; 404 ERR_SETTINGS_NOT_FOUND if none are stored.",
)
async def delete_sms(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    db.delete_sms(appId)
    return extension_reply({"success": True}, started)
