"""``key``/``secret`` header authentication, checked before anything else looks at the request.

It is ASGI middleware rather than a FastAPI dependency so that an unauthenticated caller always gets 401, even
with a malformed body (dependencies run after body parsing). Values are compared with ``hmac.compare_digest``
and never logged or echoed.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from tenantdeck.sandbox import errors

#: Paths served without credentials: the API description and its viewers.
OPEN_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


class HeaderAuthMiddleware:
    """Refuse any request (other than :data:`OPEN_PATHS`) whose ``key`` and ``secret`` headers are not the account's."""

    def __init__(self, app: ASGIApp, *, key: str, secret: str, exempt_prefixes: tuple[str, ...] = ()) -> None:
        self.app = app
        self._exempt = exempt_prefixes  # areas with their own authentication (the chat API's apikey)
        self._key = key.encode("utf-8")
        self._secret = secret.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS or scope["path"].startswith(self._exempt):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        key, secret = headers.get("key"), headers.get("secret")
        if not key or not secret:
            response = errors.error_response(401, errors.EMPTY_AUTH_HEADER, "The key and secret headers are required.")
            await response(scope, receive, send)
            return
        # Both comparisons always run (``&``, not ``and``) so timing does not tell which one failed.
        good_key = hmac.compare_digest(key.encode("utf-8", "surrogateescape"), self._key)
        good_secret = hmac.compare_digest(secret.encode("utf-8", "surrogateescape"), self._secret)
        if not (good_key & good_secret):
            response = errors.error_response(401, errors.INVALID_CREDENTIALS, "The key or secret is not valid.")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
