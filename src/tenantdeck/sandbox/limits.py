"""What a request may cost the sandbox: a body-size limit enforced while the body streams.

People leave ``tenantdeck sandbox`` running, and Starlette reads a whole request body into memory before a route
sees it: a 100 MB upload cost 389 MB of RSS. :class:`BodyLimitMiddleware` is plain ASGI, outside everything that
reads the body, and refuses a body over ``max_body`` bytes with 413 in the service's error envelope:

* a ``Content-Length`` over the limit is answered at once, before a byte of the body is read;
* otherwise (chunked uploads, or a sender that lies) the bytes are counted as the application pulls them, and
  the pull that crosses the limit raises the 413 as an :class:`~tenantdeck.sandbox.errors.ApiError`, which the
  application's own handlers render (the management envelope, or the chat API's under ``/chat/``). The rest of
  the body is never asked for, so at most ``max_body`` bytes plus one chunk are ever held.

The answer carries ``Connection: close``: the unread rest of the body cannot be followed by another request.
The nesting limit lives where the JSON is parsed (:func:`tenantdeck.sandbox.bodies.json_body`).
"""

from __future__ import annotations

from typing import Final

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tenantdeck.jsonlimits import BODY_MAX_BYTES, EXTENSION_SETTINGS_MAX_BYTES
from tenantdeck.sandbox import errors

#: The largest request body by default (``--max-body``): the service's documented bound, defined with the other
#: limits ``validate`` checks (:mod:`tenantdeck.jsonlimits`).
DEFAULT_MAX_BODY: Final = BODY_MAX_BYTES
CLOSE: Final = {"Connection": "close"}


def too_large(max_body: int) -> errors.ApiError:
    return errors.ApiError(
        413,
        errors.PAYLOAD_TOO_LARGE,
        f"The request body is larger than {max_body} bytes.",
        headers=CLOSE,
    )


class BodyLimitMiddleware:
    """See the module docstring. ``chat_prefix``: paths answered in the chat API's error shape."""

    def __init__(self, app: ASGIApp, *, max_body: int = DEFAULT_MAX_BODY, chat_prefix: str = "") -> None:
        if max_body < 1:
            raise ValueError("max_body must be positive")
        self.app = app
        self.max_body = max_body
        self.chat_prefix = chat_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.strip().isdigit() and int(declared) > self.max_body:
            await self._refuse(scope, receive, send)
            return

        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise too_large(self.max_body)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except errors.ApiError as exc:  # only when the body was read outside the application's handlers
            if exc.status != 413 or started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        exc = too_large(self.max_body)
        if self.chat_prefix and scope["path"].startswith(self.chat_prefix):
            from tenantdeck.sandbox.messaging.api import chat_error

            response = chat_error(exc.status, exc.code, exc.message, headers=exc.headers)
        else:
            response = errors.error_response(exc.status, exc.code, exc.message, headers=exc.headers)
        await response(scope, receive, send)


__all__ = ["CERTIFICATE_MAX_BYTES", "DEFAULT_MAX_BODY", "EXTENSION_SETTINGS_MAX_BYTES", "BodyLimitMiddleware"]
#: The largest push certificate upload. A .p12 bundle or a .p8 key is one to a few kilobytes; only its SHA-256,
#: size and upload time are stored, but the bytes are read (and checked) in memory first.
CERTIFICATE_MAX_BYTES: Final = 64 * 1024
