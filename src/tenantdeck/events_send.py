"""Send one test event to a webhook: the core of the TUI's "Send test event" (no Textual here).

An admin wants to know, before a push, whether *their* receiver accepts what the service will send. So this POSTs
a sample delivery (:func:`tenantdeck.models.event_samples.sample_payload`) to the webhook's URL with its Basic
Auth, exactly as the service would, and returns what came back as data: status, latency and a bounded, printable
preview of the body. Everything that can go wrong is a :class:`SendError` with one human sentence; the password
(resolved from the draft's ``${ENV_VAR}`` reference at the moment of sending) is never part of any message.

Same URL rule as the draft's: https, or plain http to a loopback host (``hosts.is_loopback_host``) so a local
receiver (``tenantdeck listen``, the Events screen) can be the target.
"""

from __future__ import annotations

import base64
import os
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from tenantdeck.api.redact import Redactor
from tenantdeck.hosts import is_loopback_host
from tenantdeck.models import catalog
from tenantdeck.models.events import dumps
from tenantdeck.models.secrets import MissingSecret, reference_name, resolve
from tenantdeck.tls import verifying_context

#: How much of the receiver's answer is kept for display (characters, after making it printable).
BODY_PREVIEW = 2000
DEFAULT_TIMEOUT = 10.0


class SendError(Exception):
    """A test event that could not be sent or answered; ``str()`` is one sentence for the user, no secret."""


class NotSendable(SendError):
    """The webhook as drafted cannot be used: no URL, a URL the rules refuse, a password variable unset."""


class MissingPassword(NotSendable):
    """Basic Auth is on and the password's ``${VAR}`` is not set in this environment."""

    def __init__(self, variable: str) -> None:
        super().__init__(f"the Basic Auth password comes from ${{{variable}}}, which is not set in the environment "
                         f"tenantdeck runs in; set {variable} and start tenantdeck again (nothing was sent)")
        self.variable = variable


class Unreachable(SendError):
    """Connection refused, DNS failure, network unreachable."""


class TimedOut(SendError):
    """No answer within the timeout."""


class TlsFailed(SendError):
    """The TLS handshake or the certificate check failed."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to send: the URL and the resolved Basic Auth (``repr`` never shows the password)."""

    url: str
    username: str | None = None
    password: str | None = None

    def __repr__(self) -> str:
        auth = f", username={self.username!r}, password=<hidden>" if self.username is not None else ""
        return f"Endpoint(url={self.url!r}{auth})"

    @property
    def auth(self) -> tuple[str, str] | None:
        return (self.username, self.password) if self.username is not None and self.password is not None else None


@dataclass(frozen=True, slots=True)
class SendResult:
    """What the receiver answered. ``body`` is printable and at most :data:`BODY_PREVIEW` characters."""

    trigger: str
    url: str
    status: int
    reason: str
    latency_ms: float
    body: str
    truncated: bool
    content_type: str
    sent_bytes: int
    with_auth: bool

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def endpoint_for(hook: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Endpoint:
    """The send target of a drafted webhook (a plain mapping, valid or not): URL checked, Basic Auth resolved.

    Raises :class:`NotSendable` (:class:`MissingPassword` for an unset variable) with the reason.
    """
    url = hook.get("webhookURL")
    if not isinstance(url, str) or not url.strip():
        raise NotSendable("this webhook has no webhookURL in the draft")
    url = url.strip()
    check_url(url)
    if hook.get("useBasicAuth") is not True:
        return Endpoint(url)
    username = hook.get("username")
    password = hook.get("password")
    if not isinstance(username, str) or not username:
        raise NotSendable("Basic Auth is on but the webhook has no username in the draft")
    if not isinstance(password, str) or not password:
        raise NotSendable("Basic Auth is on but the webhook has no password in the draft (write it as ${VAR})")
    try:
        secret = resolve(password, env)
    except MissingSecret as exc:
        raise MissingPassword(exc.variable) from None
    if reference_name(password) is not None and not secret:
        raise MissingPassword(reference_name(password) or "")
    return Endpoint(url, username, secret)


def check_url(url: str) -> None:
    """The draft's URL rule: https with a host, or http to a loopback host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotSendable(f"{url!r} is not an http(s) URL with a host")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise NotSendable(f"{url} uses plain http; only https, or http to a loopback host such as 127.0.0.1, "
                          "is sent to")


def trigger_choices(own: list[Any] | tuple[Any, ...] | None) -> list[tuple[str, list[str]]]:
    """What a trigger picker offers: the webhook's own (known) triggers first, then every catalog trigger by
    category (:data:`catalog.TRIGGER_CATEGORIES` order). Ids the catalog does not know cannot be sampled, so they
    are left out here (the caller may say so)."""
    mine = [t for t in dict.fromkeys(own or []) if isinstance(t, str) and t in catalog.TRIGGER_IDS]
    groups: list[tuple[str, list[str]]] = []
    if mine:
        groups.append(("this webhook's triggers", mine))
    groups += [(category, list(ids)) for category, ids in catalog.TRIGGER_CATEGORIES.items() if ids]
    return groups


def printable(text: str, limit: int = BODY_PREVIEW) -> tuple[str, bool]:
    """``text`` with control characters (escape sequences included) made visible, cut to ``limit``."""
    cleaned = "".join(c if c in "\n\t" or (c.isprintable() and c != "\x1b") else f"\\x{ord(c):02x}" for c in text)
    if len(cleaned) > limit:
        return cleaned[:limit], True
    return cleaned, False


async def send_test_event(
    target: Endpoint,
    trigger: str,
    *,
    app_id: str = "sampleapp",
    region: str = "us",
    webhook_id: str = "samplehook",
    timeout: float = DEFAULT_TIMEOUT,
    transport: httpx.AsyncBaseTransport | None = None,
    now: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SendResult:
    """POST a sample ``trigger`` delivery to ``target`` and return the answer; :class:`SendError` otherwise.

    The body is what the service sends (compact JSON envelope) with ``Content-Type: application/json``; redirects
    are not followed (the service does not follow them either, and a 3xx is worth seeing). ``transport`` and
    ``clock`` (seconds, for the latency) are for pictures and tests that must not depend on a network or on time.
    """
    from tenantdeck.models.event_samples import sample_payload

    check_url(target.url)
    payload = sample_payload(trigger, app_id=app_id, region=region, webhook_id=webhook_id, now=now)
    body = dumps(payload).encode("utf-8")
    headers = {"content-type": "application/json", "user-agent": "tenantdeck-test-event"}
    parts = urlsplit(target.url)
    host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)  # never user:password@
    try:
        async with httpx.AsyncClient(timeout=timeout, transport=transport, follow_redirects=False,
                                     trust_env=False, verify=verifying_context(trust_env=False)) as client:
            started = clock()
            response = await client.post(target.url, content=body, headers=headers, auth=target.auth)
            latency = (clock() - started) * 1000
    except httpx.TimeoutException:
        raise TimedOut(f"{host} did not answer within {timeout:g} s") from None
    except httpx.ConnectError as exc:
        if _is_tls(exc):
            raise TlsFailed(f"TLS with {host} failed: {_reason(exc)}") from None
        raise Unreachable(f"cannot connect to {host}: {_reason(exc)}") from None
    except httpx.HTTPError as exc:
        raise Unreachable(f"sending to {host} failed: {_reason(exc)}") from None
    text, truncated = printable(_redactor(target)(response.text))
    return SendResult(
        trigger=trigger,
        url=target.url,
        status=response.status_code,
        reason=response.reason_phrase,
        latency_ms=latency,
        body=text,
        truncated=truncated,
        content_type=response.headers.get("content-type", ""),
        sent_bytes=len(body),
        with_auth=target.auth is not None,
    )


def _redactor(target: Endpoint) -> Redactor:
    """A receiver may echo the request (httpbin-style): hide the password and the Basic token it came in."""
    values: list[str] = []
    if target.password:
        values.append(target.password)
    if target.auth is not None:
        token = base64.b64encode(f"{target.username}:{target.password}".encode()).decode()
        values += [token, token.rstrip("=")]
    return Redactor(values)


def _is_tls(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError) or "SSL" in type(seen).__name__ or "CERTIFICATE" in str(seen).upper():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _reason(exc: BaseException) -> str:
    """The innermost readable reason: an OS error by its errno (``connection refused``), else the message."""
    seen: BaseException | None = exc
    text = ""
    while seen is not None:
        if isinstance(seen, OSError) and isinstance(seen.errno, int) and seen.errno > 0:
            text = os.strerror(seen.errno)
        elif isinstance(seen, OSError) and seen.strerror:
            text = seen.strerror
        elif str(seen) and not text:
            text = str(seen)
        seen = seen.__cause__ or seen.__context__
    text = text or type(exc).__name__
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text
