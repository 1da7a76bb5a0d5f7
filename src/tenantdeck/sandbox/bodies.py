"""Reading JSON request bodies ourselves, so malformed JSON is a 400 in our envelope and never reaches a model.

Routes declare their body in /openapi.json through ``openapi_extra`` (see :mod:`tenantdeck.sandbox.openapi`)
rather than as a FastAPI parameter: validation must go through :mod:`tenantdeck.sandbox.validation` (the draft's
models plus server-only checks), and the widget PUT needs ``settings.widgetId`` removed first.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from tenantdeck.sandbox import errors


async def json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        raise errors.ApiError(400, errors.BAD_REQUEST, "The request needs a JSON body.")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise errors.ApiError(400, errors.BAD_REQUEST, "The request body is not valid JSON.") from None
