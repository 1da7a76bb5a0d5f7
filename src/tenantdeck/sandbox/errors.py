"""One error type and one error envelope for the whole sandbox.

The real management API does not document its error bodies; the vendor's chat API uses
``{"error": {"code": "ERR_...", "message": "...", "details": {field: [messages]}}}``, and the client is written to
that shape. Every failure the sandbox produces (our own checks, FastAPI's request validation, unknown routes,
unexpected crashes) is funnelled through :func:`error_response` so a client never sees a second shape.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("tenantdeck.sandbox")

# Error codes. The reference's codes are used where it has one; the others follow its naming.
APP_NOT_FOUND = "ERR_APP_NOT_FOUND"
WEBHOOK_NOT_FOUND = "ERR_WEBHOOK_NOT_FOUND"
EXTENSION_NOT_FOUND = "ERR_EXTENSION_NOT_FOUND"
BAD_REQUEST = "ERR_BAD_REQUEST"
EMPTY_AUTH_HEADER = "AUTH_ERR_EMPTY_AUTH_HEADER"
INVALID_CREDENTIALS = "AUTH_ERR_INVALID_CREDENTIALS"
WIDGET_NOT_FOUND = "ERR_WIDGET_NOT_FOUND"
SETTINGS_NOT_FOUND = "ERR_SETTINGS_NOT_FOUND"
WEBHOOK_ALREADY_EXISTS = "ERR_WEBHOOK_ALREADY_EXISTS"
WEBHOOK_LIMIT_REACHED = "ERR_WEBHOOK_LIMIT_REACHED"
WIDGET_LIMIT_REACHED = "ERR_WIDGET_LIMIT_REACHED"
TOO_MANY_REQUESTS = "ERR_TOO_MANY_REQUESTS"
SERVICE_UNAVAILABLE = "ERR_SERVICE_UNAVAILABLE"
NOT_FOUND = "ERR_NOT_FOUND"
METHOD_NOT_ALLOWED = "ERR_METHOD_NOT_ALLOWED"
INTERNAL = "ERR_INTERNAL"
PAYLOAD_TOO_LARGE = "ERR_PAYLOAD_TOO_LARGE"
# Team management: the reference's three codes (facts §5) plus a limit code named like the widget/webhook ones.
ALREADY_AN_OWNER = "ERR_ALREADY_AN_OWNER"
NOT_A_COLLABORATOR = "ERR_NOT_A_COLLABORATOR"
COLLABORATOR_LIMIT_REACHED = "ERR_COLLABORATOR_LIMIT_REACHED"


class ApiError(Exception):
    """A failure with an HTTP status and a stable code, raised anywhere in the sandbox and rendered once.

    The data layer raises these directly: the code is part of the API contract, and keeping it next to the check
    that produces it avoids a mapping table that could drift.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers


class ErrorInfo(BaseModel):
    """The inner object of an error body (documented in /openapi.json)."""

    code: str
    message: str
    details: dict[str, list[str]] | None = None


class ErrorBody(BaseModel):
    """``{"error": {...}}``: the only error shape the sandbox emits."""

    error: ErrorInfo


def error_payload(code: str, message: str, details: dict[str, list[str]] | None = None) -> dict[str, Any]:
    inner: dict[str, Any] = {"code": code, "message": message}
    if details:
        inner["details"] = details
    return {"error": inner}


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, list[str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(error_payload(code, message, details), status_code=status, headers=headers)


def not_found_app(app_id: str) -> ApiError:
    return ApiError(404, APP_NOT_FOUND, f"The app {app_id!r} does not exist or has been deleted.")


def not_found_webhook(webhook_id: str) -> ApiError:
    return ApiError(404, WEBHOOK_NOT_FOUND, f"The webhook {webhook_id!r} does not exist in this app.")


def settings_not_found(ext_id: str) -> ApiError:
    return ApiError(404, SETTINGS_NOT_FOUND, f"No settings of the {ext_id!r} extension are stored for this app.")


def validation_error(details: dict[str, list[str]], message: str = "The request body is not valid.") -> ApiError:
    return ApiError(422, BAD_REQUEST, message, details=details)


def _loc_to_path(loc: tuple[Any, ...] | list[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


async def _api_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


async def _request_validation_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's own validation (query and path parameters) in our envelope; inputs are never echoed."""
    assert isinstance(exc, RequestValidationError)
    details: dict[str, list[str]] = {}
    for err in exc.errors():
        details.setdefault(_loc_to_path(err.get("loc", ())), []).append(str(err.get("msg", "invalid")))
    return error_response(422, BAD_REQUEST, "The request is not valid.", details)


async def _http_exception_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        return error_response(404, NOT_FOUND, f"No such endpoint: {request.method} {request.url.path}")
    if exc.status_code == 405:
        allow = ", ".join(_allowed_methods(request))
        return error_response(
            405, METHOD_NOT_ALLOWED, f"{request.method} is not allowed on {request.url.path}", headers={"Allow": allow}
        )
    return error_response(exc.status_code, f"ERR_HTTP_{exc.status_code}", str(exc.detail), headers=exc.headers)


def _allowed_methods(request: Request) -> list[str]:
    """Every method the API serves at this path, read off the app's own OpenAPI paths.

    Starlette's own 405 lists only the first route that matched the path, but GET and POST of one path are
    separate routes here, and HTTP requires ``Allow`` to name all of them.
    """
    import re

    path = request.url.path
    methods: set[str] = set()
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = "^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            methods |= {m.upper() for m in operations}
    return sorted(methods)


async def _unexpected_handler(request: Request, exc: Exception) -> JSONResponse:
    log.exception("sandbox: unexpected error on %s %s", request.method, request.url.path)
    return error_response(500, INTERNAL, "The sandbox hit an unexpected error; see its log.")


class ClientDisconnectMiddleware:
    """A client that goes away before its request body arrived is one log line, not two tracebacks.

    Starlette raises ``ClientDisconnect`` from ``request.body()``; left alone, the catch-all handler below logs it
    as an unexpected error and uvicorn logs it again as "Exception in ASGI application". There is nobody left to
    answer, so the request just ends. (A client that leaves while the answer is being sent is already silent:
    uvicorn drops writes to a closed connection.)
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import ClientDisconnect

        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            if scope.get("type") != "http":
                raise
            log.warning("sandbox: client disconnected before its %s %s request was complete; nothing was done",
                        scope.get("method"), scope.get("path"))


def install_error_handlers(app: FastAPI) -> None:
    """Route every failure through :func:`error_response` (including FastAPI's default 422 and 404/405)."""
    app.add_exception_handler(ApiError, _api_error_handler)
    app.add_exception_handler(RequestValidationError, _request_validation_handler)
    app.add_exception_handler(StarletteHTTPException, _http_exception_handler)
    app.add_exception_handler(Exception, _unexpected_handler)
