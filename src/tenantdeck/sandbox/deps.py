"""Per-app state reachable from a request: the store and the sandbox options chosen in ``create_app``.

Dependencies here (and every other one in the sandbox) are ``async def`` on purpose: FastAPI runs plain ``def``
dependencies in a worker thread, and that hop cost more than the whole rest of a request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Path, Request

from tenantdeck.sandbox.errors import ErrorBody
from tenantdeck.sandbox.store import Store

WebhookEnvelope = Literal["object", "nested"]


@dataclass(frozen=True, slots=True)
class Options:
    """Behaviour switches fixed at ``create_app`` time."""

    #: ``object``: ``{"data": {...}}`` (default). ``nested``: ``{"data": [{"data": {...}}]}``, the odd shape of the
    #: reference's get/update examples, for exercising a client's tolerance.
    webhook_envelope: WebhookEnvelope = "object"


async def store(request: Request) -> Store:
    result: Store = request.app.state.store
    return result


async def options(request: Request) -> Options:
    result: Options = request.app.state.options
    return result


StoreDep = Annotated[Store, Depends(store)]
AppIdParam = Annotated[str, Path(description="The app id", min_length=1, max_length=100)]
WebhookIdParam = Annotated[str, Path(description="The webhook id", min_length=1, max_length=100)]


def json_request_body(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """``openapi_extra`` declaring a JSON request body (bodies are read by hand; see :mod:`.bodies`)."""
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": {"schema": schema}},
        }
    }


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def settings_wrapper(inner: dict[str, Any], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Schema of ``{"settings": <inner>}``, optionally with extra properties allowed inside ``settings``."""
    settings: dict[str, Any] = inner
    if extra:
        settings = {"allOf": [inner, {"type": "object", "properties": extra}]}
    return {"type": "object", "required": ["settings"], "properties": {"settings": settings}}


#: Standard error responses for /openapi.json; every one has the :class:`~.errors.ErrorBody` shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        400: "Malformed JSON body (ERR_BAD_REQUEST)",
        401: "Missing (AUTH_ERR_EMPTY_AUTH_HEADER) or wrong (AUTH_ERR_INVALID_CREDENTIALS) key/secret",
        404: "App (ERR_APP_NOT_FOUND) or subresource not found",
        422: "Validation failed (ERR_BAD_REQUEST); error.details maps field paths to messages",
        429: "Rate limited (ERR_TOO_MANY_REQUESTS); honour Retry-After",
        503: "Temporarily unavailable (ERR_SERVICE_UNAVAILABLE)",
    }.items()
}
