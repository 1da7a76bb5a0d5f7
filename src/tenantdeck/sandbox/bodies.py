"""Reading JSON request bodies ourselves, so malformed JSON is a 400 in our envelope and never reaches a model.

Routes declare their body in /openapi.json through ``openapi_extra`` (see :mod:`tenantdeck.sandbox.openapi`)
rather than as a FastAPI parameter: validation must go through :mod:`tenantdeck.sandbox.validation` (the draft's
models plus server-only checks), and the widget PUT needs ``settings.widgetId`` removed first.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from tenantdeck.jsonlimits import MAX_JSON_DEPTH, too_deep, too_deep_message
from tenantdeck.sandbox import errors


async def json_body(request: Request) -> Any:
    """The parsed body; 400 for no body, text that is not JSON, or JSON nested deeper than any API body (Python's
    parser recurses per level: a few thousand ``[`` would otherwise be a ``RecursionError`` and a 500)."""
    raw = await request.body()
    if not raw.strip():
        raise errors.ApiError(400, errors.BAD_REQUEST, "The request needs a JSON body.")
    if too_deep(raw, MAX_JSON_DEPTH):
        raise errors.ApiError(400, errors.BAD_REQUEST, too_deep_message(MAX_JSON_DEPTH).capitalize() + ".")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise errors.ApiError(400, errors.BAD_REQUEST, "The request body is not valid JSON.") from None
    except RecursionError:  # only if the stack was already deep: the check above is exact for JSON
        raise errors.ApiError(400, errors.BAD_REQUEST, too_deep_message(MAX_JSON_DEPTH).capitalize() + ".") from None
