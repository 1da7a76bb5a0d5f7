"""What a request may cost the sandbox: a body-size limit enforced while the body streams.

People leave ``tenantdeck sandbox`` running, and Starlette reads a whole request body into memory before a route
sees it: a 100 MB upload cost 389 MB of RSS. :class:`BodyLimitMiddleware` is plain ASGI, outside everything that
reads the body, and refuses a body over ``max_body`` bytes with 413 in the service's error envelope:

* a ``Content-Length`` over the limit is answered without passing a byte of the body to the application;
* otherwise (chunked uploads, or a sender that lies) the bytes are counted as the application pulls them, and
  the pull that crosses the limit raises the 413 as an :class:`~tenantdeck.sandbox.errors.ApiError`, which the
  application's own handlers render (the management envelope, or the chat API's under ``/chat/``). At most
  ``max_body`` bytes plus one chunk are ever held.

Before answering, the rest of the body is read and dropped, up to :data:`DRAIN_MAX_BYTES` in all (chunk by chunk:
nothing is kept). Without that, the server closed the socket with the body still unread in it, the kernel answered
with a TCP reset, and the reset destroyed the 413 before the client read it: a 10 MB push saw "ReadError", took it
for a network failure and sent the 10 MB five more times (issue 32). A body declared larger than
:data:`DRAIN_MAX_BYTES` is answered at once (no client that made a mistake sends that much), and one that does not
arrive within :data:`DRAIN_MAX_SECONDS` is answered then. The answer carries
``Connection: close`` either way.
The nesting limit lives where the JSON is parsed (:func:`tenantdeck.sandbox.bodies.json_body`).
"""

from __future__ import annotations

from typing import Final

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tenantdeck.jsonlimits import BODY_MAX_BYTES, EXTENSION_SETTINGS_MAX_BYTES
from tenantdeck.sandbox import errors

#: The largest request body by default (``--max-body``): the service's documented bound, defined with the other
#: limits ``validate`` checks (:mod:`tenantdeck.jsonlimits`).
DEFAULT_MAX_BODY: Final = BODY_MAX_BYTES
CLOSE: Final = {"Connection": "close"}
#: How much of a refused body is read (and dropped) so that the 413 reaches the client instead of a reset: as much
#: as the largest draft tenantdeck reads (``draft.yamlsource.MAX_BYTES``), so one value of any draft fits.
DRAIN_MAX_BYTES: Final = 32 * 1024 * 1024


#: ... and for how long at most: a sender that declares more than it sends (or trickles) is answered then
DRAIN_MAX_SECONDS: float = 10.0


async def drain(receive: Receive, budget: int) -> None:
    """Read and drop the rest of a request body, at most ``budget`` more bytes and :data:`DRAIN_MAX_SECONDS` (see
    the module docstring)."""
    with anyio.move_on_after(DRAIN_MAX_SECONDS):
        while budget >= 0:
            message = await receive()
            if message["type"] != "http.request":
                return
            budget -= len(message.get("body", b""))
            if not message.get("more_body", False):
                return


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
            if int(declared) <= DRAIN_MAX_BYTES:
                await drain(receive, DRAIN_MAX_BYTES)
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
                    if message.get("more_body", False):
                        await drain(receive, DRAIN_MAX_BYTES - seen)
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


__all__ = ["CERTIFICATE_MAX_BYTES", "DEFAULT_MAX_BODY", "DRAIN_MAX_BYTES", "EXTENSION_SETTINGS_MAX_BYTES",
           "BodyLimitMiddleware", "drain"]
#: The largest push certificate upload. A .p12 bundle or a .p8 key is one to a few kilobytes; only its SHA-256,
#: size and upload time are stored, but the bytes are read (and checked) in memory first.
CERTIFICATE_MAX_BYTES: Final = 64 * 1024
