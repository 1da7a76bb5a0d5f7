"""Response envelopes. The management API wraps everything in ``data``; extension endpoints double-wrap.

Extension settings replies (chat widget, SMS) look like a proxied call to an extension service:
``{"data": {"statusCode": 200, "success": true, "responseTime": <float seconds>, "body": {...}}}`` (facts §1, §3.3).
"""

from __future__ import annotations

import time
from typing import Any

from fastapi.responses import JSONResponse


def ok(data: Any, meta: dict[str, Any] | None = None, status: int = 200) -> JSONResponse:
    payload: dict[str, Any] = {"data": data}
    if meta is not None:
        payload["meta"] = meta
    return JSONResponse(payload, status_code=status)


def extension_reply(body: dict[str, Any], started: float) -> JSONResponse:
    """The double-wrapped extension envelope; ``started`` is a ``time.perf_counter()`` taken at request start."""
    return ok(
        {
            "statusCode": 200,
            "success": True,
            "responseTime": round(time.perf_counter() - started, 6),
            "body": body,
        }
    )
