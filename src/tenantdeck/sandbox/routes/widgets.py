"""Chat widget v2 settings: create, update (``settings.widgetId`` in the body), list. No delete exists (facts §8)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tenantdeck.sandbox import validation
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

router = APIRouter(tags=["Chat widget v2"], responses=ERROR_RESPONSES)

PATH = "/apps/{appId}/extensions/widget/v2/settings"


@router.post(
    PATH,
    operation_id="store-chat-widget",
    summary="Create a chat widget",
    description=(
        'Body `{"settings": WidgetSettings}`. Answers `data.body.data.widgetId`. '
        f"At most {validation.WIDGETS_PER_APP} widgets per app (422 ERR_WIDGET_LIMIT_REACHED)."
    ),
    openapi_extra=json_request_body(settings_wrapper(ref("WidgetSettings")), "The widget's settings"),
)
async def create_widget(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    _, configuration = validation.parse_widget(await json_body(request), appId, update=False)
    widget_id = db.create_widget(appId, configuration, validation.WIDGETS_PER_APP)
    return extension_reply({"data": {"widgetId": widget_id}}, started)


@router.put(
    PATH,
    operation_id="update-chat-widget",
    summary="Update a chat widget",
    description=(
        'Body `{"settings": WidgetSettings + widgetId}`; the whole configuration is replaced. '
        "Answers `data.body.data.success`. Unknown widgetId: 404 ERR_WIDGET_NOT_FOUND."
    ),
    openapi_extra=json_request_body(
        settings_wrapper(ref("WidgetSettings"), {"widgetId": {"type": "string"}}),
        "The widget's settings, with settings.widgetId naming the widget",
    ),
)
async def update_widget(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    widget_id, configuration = validation.parse_widget(
        await json_body(request), appId, update=True, stored=lambda wid: db.widget_configuration(appId, wid)
    )
    assert widget_id is not None
    db.update_widget(appId, widget_id, configuration)
    return extension_reply({"data": {"success": True}}, started)


@router.get(
    PATH,
    operation_id="list-chat-widget",
    summary="List chat widgets",
    description='Answers `data.body.data[{configuration{…, version: "v2", appId}, widgetId}]`, oldest first.',
)
async def list_widgets(appId: AppIdParam, db: StoreDep) -> JSONResponse:
    started = time.perf_counter()
    items = [
        {"configuration": {**configuration, "version": "v2", "appId": appId}, "widgetId": widget_id}
        for widget_id, configuration in db.list_widgets(appId)
    ]
    return extension_reply({"data": items}, started)
