"""Every extension's ``/apps/{appId}/extensions/{extId}/v1/settings``, generated from the catalog.

One loop over :func:`tenantdeck.sandbox.ext_settings.served` adds, per extension: POST (when it is the store
method: stores, creating or replacing), PUT (store-or-update where PUT is the store method, as for data-masking and
stickers; else an update, 404 ``ERR_SETTINGS_NOT_FOUND`` when nothing is stored), GET and DELETE (404
``ERR_SETTINGS_NOT_FOUND`` when nothing is stored). Answers are the double-wrapped extension envelope
``data{statusCode, success, responseTime, body}``; what ``body`` holds per operation is
:mod:`tenantdeck.sandbox.ext_settings`'s. As on the real API, a GET returns secrets in clear (the vendor's examples
do); validation messages never repeat one.

Settings are stored for an extension whether or not it is enabled on the app: the vendor documents no refusal
(``ERR_EXTENSION_INACTIVE`` exists, but no operation is said to raise it), and a client may well store settings
before it enables the extension they configure.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tenantdeck.models.extension_catalog import ExtensionSpec
from tenantdeck.models.extension_settings import request_model
from tenantdeck.sandbox import errors, ext_settings, validation
from tenantdeck.sandbox.bodies import json_body
from tenantdeck.sandbox.deps import ERROR_RESPONSES, AppIdParam, StoreDep, json_request_body, ref, settings_wrapper
from tenantdeck.sandbox.envelopes import extension_reply

router = APIRouter(tags=["Extension settings"], responses=ERROR_RESPONSES)

Endpoint = Callable[..., Awaitable[JSONResponse]]


def _writer(spec: ExtensionSpec, *, must_exist: bool) -> Endpoint:
    async def write(request: Request, appId: AppIdParam, db: StoreDep) -> JSONResponse:
        started = time.perf_counter()
        held = db.extension_settings(appId, spec.id)  # unknown keys it holds may come back unchanged
        sent = validation.parse_extension_settings(spec, await json_body(request), held)
        stored = db.write_extension_settings(
            appId, spec.id, lambda held: ext_settings.merged(spec, sent, held), must_exist=must_exist
        )
        return extension_reply(ext_settings.write_reply(spec, stored), started)

    return write


def _reader(spec: ExtensionSpec) -> Endpoint:
    async def read(appId: AppIdParam, db: StoreDep) -> JSONResponse:
        started = time.perf_counter()
        stored = db.extension_settings(appId, spec.id)
        if stored is None:
            raise errors.settings_not_found(spec.id)
        return extension_reply(ext_settings.get_reply(spec, stored, appId), started)

    return read


def _deleter(spec: ExtensionSpec) -> Endpoint:
    async def delete(appId: AppIdParam, db: StoreDep) -> JSONResponse:
        started = time.perf_counter()
        db.delete_extension_settings(appId, spec.id)
        return extension_reply(ext_settings.delete_reply(spec), started)

    return delete


def _shape(body: dict[str, Any]) -> str:
    """``{"data": {"success": True}}`` -> ``data.body.data.success``: the documented path of an answer."""
    def paths(node: Any, prefix: str) -> list[str]:
        if isinstance(node, dict) and node:
            return [p for key, value in node.items() for p in paths(value, f"{prefix}.{key}")]
        return [prefix]

    leaves = paths(body, "data.body")
    return ", ".join(f"`{leaf}`" for leaf in leaves)


def _add(spec: ExtensionSpec) -> None:
    path = f"/apps/{{appId}}{spec.path}"
    body = json_request_body(
        settings_wrapper(ref(request_model(spec.id).__name__)), f"{spec.name} settings (`{{\"settings\": {{...}}}}`)"
    )
    written = _shape(ext_settings.write_reply(spec, {"…": None}))  # an echo of the settings reads `settings.…`
    removals = "".join(
        f" `{removal}` lists ids of `{key}` items to remove; the stored `{key}` is the kept items plus the sent "
        f"ones." for key, removal in spec.removals
    )
    for method in ext_settings.methods(spec):
        op = ext_settings.operation_id(spec, method)
        if method == "POST":
            endpoint, summary = _writer(spec, must_exist=False), f"{spec.name}: store settings"
            description = f"Stores the settings, creating or replacing them. Answers {written}.{removals}"
        elif method == "PUT" and spec.store == "PUT":
            endpoint, summary = _writer(spec, must_exist=False), f"{spec.name}: store or update settings"
            description = f"Stores the settings, creating or replacing them. Answers {written}.{removals}"
        elif method == "PUT":
            endpoint, summary = _writer(spec, must_exist=True), f"{spec.name}: update settings"
            description = (f"Replaces the stored settings (404 ERR_SETTINGS_NOT_FOUND if none). Answers {written}."
                           f"{removals}")
        elif method == "GET":
            endpoint, summary = _reader(spec), f"{spec.name}: get settings"
            renamed = "".join(f" `{s.key}` is reported as `{s.reported_as}`." for s in spec.settings if s.reported_as)
            description = (f"Answers `data.body.data.settings{{…, appId}}`; 404 ERR_SETTINGS_NOT_FOUND if none."
                           f"{renamed}")
        else:
            endpoint, summary = _deleter(spec), f"{spec.name}: delete settings"
            description = (f"Answers {_shape(ext_settings.delete_reply(spec))}; 404 ERR_SETTINGS_NOT_FOUND if none "
                           "are stored.")
        router.add_api_route(
            path, endpoint, methods=[method], operation_id=op, summary=summary, description=description,
            openapi_extra=body if method in ("POST", "PUT") else None, response_class=JSONResponse,
        )


for _spec in ext_settings.served():
    _add(_spec)
