"""The HTTP half of the management API's client: one connection, its limits, retries, errors and paging.

:class:`Transport` knows how to send a request and read its answer, and nothing of apps, widgets or webhooks:
those are the resource groups of :mod:`tenantdeck.api.resources`, which call only :meth:`Transport._call`,
:meth:`Transport._paged` and :meth:`Transport._create` (httpx keeps its transport apart from its client the same
way). :class:`~tenantdeck.api.client.ManagementClient` is the transport with every group on it.

Design points, each one the answer to a way things go wrong in practice:

* **Credentials stay hidden.** ``key``/``secret`` live only in the httpx client's default headers and in a
  :class:`~tenantdeck.api.redact.Redactor`; errors never carry requests, every server text is redacted, and
  ``repr(client)`` shows ``***``.
* **Retries never duplicate.** GET, PUT, DELETE and the idempotent POSTs (extension enable/disable, trigger add,
  map-settings) are retried on connection errors, timeouts, 429 and 5xx with full-jitter backoff (``Retry-After``
  honoured).
  A create (POST) is retried directly only when it certainly did not reach the server (connect failure, 429);
  after an ambiguous failure (timeout after sending, broken connection, 5xx) the client first *looks* whether
  the object appeared, and returns it if it did (see :meth:`Transport._create`).
* **Shared limits.** One :class:`~tenantdeck.api.ratelimit.Limiter` per client instance caps requests per second
  and requests in flight across all concurrent calls.
* **Tolerant envelopes, strict failures.** :mod:`tenantdeck.api.envelopes` accepts every documented wrapping and
  raises :class:`~tenantdeck.api.errors.MalformedResponse` for anything else.
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx

from tenantdeck import __version__
from tenantdeck.api.envelopes import Envelope, parse_error_body
from tenantdeck.api.errors import (
    ApiError,
    ConflictError,
    MalformedResponse,
    Operation,
    TransportError,
    build_error,
    one_line,
    too_large_hint,
)
from tenantdeck.api.ratelimit import Limiter, default_ceiling
from tenantdeck.api.redact import Redactor
from tenantdeck.api.retry import RetryPolicy, is_retryable_status, parse_retry_after
from tenantdeck.jsonlimits import BODY_MAX_BYTES, json_size
from tenantdeck.tls import verifying_context

log = logging.getLogger("tenantdeck.api")
# a library's loggers say nothing unless the program asks (the CLI does, tenantdeck.cli.logs): without this, Python's
# last-resort handler would print the retry warnings below over the editor's screen
logging.getLogger("tenantdeck").addHandler(logging.NullHandler())

T = TypeVar("T")
S = TypeVar("S")
Sleep = Callable[[float], Awaitable[None]]

#: Every webhook and trigger call selects the new webhook system (facts §7); omitted, it means "legacy".
WEBHOOK_HEADERS: Mapping[str, str] = {"X-Webhook-Version": "2"}
MAX_PAGES = 10_000  # a guard against a server that never says "last page"

#: Failures that prove the request never reached the server, so even a create can be resent.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
_INCOMPLETE_HINT = (
    "nothing was changed; try again (a list that changes while it is read can come back short), and report it if "
    "it persists: acting on part of a list could delete the rest"
)
#: the hint of a create whose answer was lost and whose look-up failed too (a group may say it in its own words)
UNCERTAIN_HINT = (
    "the create may or may not have been applied; run `tenantdeck pull` to see the service's state before retrying"
)


class _Ambiguous(Exception):
    """Internal: a create failed in a way that may have applied it; the caller must look before retrying."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(str(error))
        self.error = error


class _Attempts:
    """Attempt counter shared by a create's direct retries and its confirm-then-retry rounds."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class Transport:
    """The connection and its rules: use as ``async with`` (or call :meth:`aclose`).

    ``sleep`` (default :func:`asyncio.sleep`) is the wait between retries, injectable so tests do not sleep;
    ``rng`` feeds the jitter. ``auth_hint`` replaces the default 401 advice (profiles pass the exact credential
    source). ``max_retries`` counts retries, so a call makes at most ``max_retries + 1`` attempts.
    ``concurrency`` is how many requests are in flight at first; while answers stay fast and nothing is throttled
    it grows to ``max_concurrency`` (default :func:`~tenantdeck.api.ratelimit.default_ceiling`: twice the start, at
    most 64; a start of 1 stays 1), and it shrinks again when latency degrades or the service throttles
    (:class:`Limiter`).
    """

    def __init__(
        self,
        base_url: str,
        key: str,
        secret: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        max_rps: float | None = None,
        concurrency: int = 8,
        max_concurrency: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 30.0,
        max_retry_after: float = 60.0,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
        auth_hint: str | None = None,
    ) -> None:
        if not key or not secret:
            raise ValueError(f"{type(self).__name__} needs a non-empty key and secret")
        self.base_url = str(base_url).rstrip("/")
        self.timeout = float(timeout)
        self.max_rps = max_rps
        self._redact = Redactor((key, secret))
        self._auth_hint = auth_hint
        self._sleep: Sleep = sleep or asyncio.sleep
        self._policy = RetryPolicy(
            max_retries=max_retries,
            base_delay=retry_base_delay,
            max_delay=retry_max_delay,
            max_retry_after=max_retry_after,
            rng=rng or random.Random(),
        )
        self._limiter = Limiter(max_rps=max_rps, concurrency=concurrency,
                                max_concurrency=default_ceiling(concurrency) if max_concurrency is None
                                else max_concurrency)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers={
                "key": key,
                "secret": secret,
                "Accept": "application/json",
                "User-Agent": f"tenantdeck/{__version__}",
            },
            transport=transport,
            timeout=httpx.Timeout(self.timeout),
            follow_redirects=False,  # custom auth headers would follow a redirect to any host
            verify=verifying_context(),  # one context per process: 22 ms of CPU per client otherwise
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, key=***, secret=***)"

    @property
    def limits(self) -> Limiter:
        """The adaptive limits in force: ``limit`` (requests in flight now), ``throttled`` (429s seen) and
        ``remaining`` (the quota the service last reported), for progress displays and tests."""
        return self._limiter

    async def __aenter__(self) -> Self:
        await self._http.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- transport, retries, errors -----------------------------------------------------------------------------

    async def _send_once(
        self, method: str, path: str, params: Mapping[str, Any] | None, body: Any, webhook: bool,
        files: Mapping[str, Any] | None = None,
    ) -> tuple[httpx.Response, float]:
        async with self._limiter:
            started = time.perf_counter()
            response = await self._http.request(
                method,
                path,
                params=dict(params) if params else None,
                json=body,
                files=dict(files) if files else None,
                headers=WEBHOOK_HEADERS if webhook else None,
            )
            elapsed = time.perf_counter() - started
        self._limiter.observe(elapsed, throttled=response.status_code == 429 or "retry-after" in response.headers,
                              remaining=_int_header(response.headers.get("x-rate-limit-remaining")))
        return response, elapsed

    async def _call(
        self,
        op: Operation,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        webhook: bool = False,
        unsafe: bool = False,
        gone_ok_on_retry: bool = False,
        attempts: _Attempts | None = None,
        max_retries: int | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> Envelope:
        """One logical call with retries. ``unsafe`` (a create) raises :class:`_Ambiguous` instead of retrying
        when the request may have been applied. ``gone_ok_on_retry``: a 404 on a retried DELETE means the first
        attempt landed."""
        counter = attempts or _Attempts()
        limit = self._policy.max_retries if max_retries is None else max_retries
        while True:
            counter.n += 1
            failure: httpx.TransportError | None = None
            response: httpx.Response | None = None
            elapsed = 0.0
            try:
                response, elapsed = await self._send_once(method, path, params, body, webhook, files)
            except httpx.TransportError as exc:
                failure = exc  # handled below, outside the except block, so no traceback chains to httpx
            retry_after: float | None = None
            if failure is not None:
                not_sent = isinstance(failure, _NOT_SENT)
                err: ApiError = self._transport_error(op, failure, counter.n)
                failure = None
                log.debug("%s %s%s: %s (attempt %d)", method, path, _query(params), err.message, counter.n)
                assert isinstance(err, TransportError)
                if err.kind == "tls":
                    raise err
                oversized = None if not_sent else _oversized(body, files)
                if oversized is not None:  # refused for its size, the answer lost with the connection
                    raise err.with_hint("the service may have refused the body for its size and closed the "
                                        f"connection before its answer was read: {too_large_hint(oversized)}")
                if unsafe and not not_sent:
                    raise _Ambiguous(err)
            else:
                assert response is not None
                status = response.status_code
                log.debug("%s %s%s -> %d in %.3f s (attempt %d)", method, path, _query(params), status, elapsed,
                          counter.n)
                if 200 <= status < 300:
                    return Envelope.from_bytes(
                        response.content,
                        operation=op,
                        status=status,
                        content_type=response.headers.get("content-type"),
                        headers=response.headers,
                        elapsed=elapsed,
                    )
                if status == 404 and gone_ok_on_retry and counter.n > 1:
                    return Envelope(None, operation=op, status=status, headers=response.headers, elapsed=elapsed)
                err = self._status_error(op, response, counter.n)
                if not is_retryable_status(status):
                    raise err
                if unsafe and status != 429:
                    raise _Ambiguous(err)
                retry_after = parse_retry_after(response.headers.get("retry-after"))
            if counter.n > limit:
                raise err
            delay = self._policy.delay(counter.n, retry_after)
            if isinstance(err, TransportError):  # said by default: an unreachable host must not be silence
                log.warning("%s: %s; retrying (%d/%d) in %.1f s; each request waits up to %g s", op, err.message,
                            counter.n, limit, delay, self.timeout)
            else:
                log.info("%s: HTTP %s; retrying (%d/%d) in %.1f s", op, err.status, counter.n, limit, delay)
            await self._sleep(delay)

    def _transport_error(self, op: Operation, exc: httpx.TransportError, attempts: int) -> TransportError:
        url = self._http.base_url
        host = (f"{url.host}:{url.port}" if url.port else url.host) or self.base_url  # the port: which service
        reason = self._redact(one_line(str(exc) or type(exc).__name__, 160))
        if _is_tls_failure(exc):
            return TransportError(
                op, kind="tls", attempts=attempts,
                message=f"TLS certificate verification failed for {host}: {reason}",
                hint="check --base-url; certificates are always verified",
            )
        if isinstance(exc, httpx.ConnectTimeout):
            return TransportError(
                op, kind="timeout", attempts=attempts,
                message=f"could not connect to {host} within {self.timeout:g} s",
                hint="check --base-url and the network",
            )
        if isinstance(exc, httpx.TimeoutException):
            return TransportError(
                op, kind="timeout", attempts=attempts,
                message=f"the service did not answer within {self.timeout:g} s ({type(exc).__name__})",
                hint="check --base-url and the network, or try again later",
            )
        if isinstance(exc, httpx.ConnectError):
            return TransportError(
                op, kind="connect", attempts=attempts,
                message=f"could not connect to {host}: {reason}",
                hint="check --base-url and the network (is the service running?)",
            )
        return TransportError(
            op, kind="network", attempts=attempts,
            message=f"the connection to {host} failed ({type(exc).__name__}): {reason}",
            hint="check the network and try again",
        )

    def _status_error(self, op: Operation, response: httpx.Response, attempts: int) -> ApiError:
        info = parse_error_body(response.content, response.headers.get("content-type"))
        message = info.message
        status = response.status_code
        if 300 <= status < 400:
            location = response.headers.get("location", "")
            message = f"redirected to {location}" if location else (message or "redirect")
        if not message:
            message = response.reason_phrase or None
        return build_error(
            op,
            status,
            code=self._redact(info.code) if info.code else None,
            message=self._redact(message) if message else None,
            details=self._redact_value(info.details),
            attempts=attempts,
            auth_hint=self._auth_hint,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
            sent=_int_header(response.request.headers.get("content-length")),
        )

    def _redact_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, Mapping):
            return {self._redact(str(k)): self._redact_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._redact_value(v) for v in value]
        return value

    async def _create(
        self,
        op: Operation,
        path: str,
        body: Any,
        *,
        parse: Callable[[Envelope], T],
        confirm: Callable[[S | None], Awaitable[T | None]],
        snapshot: Callable[[], Awaitable[S]] | None = None,
        webhook: bool = False,
    ) -> T:
        """POST a create; after an ambiguous failure ask ``confirm(before)`` whether it landed.

        ``snapshot`` runs once before the first attempt (e.g. ids of apps with this name) so ``confirm`` can tell
        our object from one that was already there. ``confirm`` returns the created object, or None when it did
        not land (then the POST is retried after a backoff), or raises :class:`ConflictError` when it cannot tell.
        """
        before = await snapshot() if snapshot is not None else None
        attempts = _Attempts()
        while True:
            try:
                envelope = await self._call(op, "POST", path, body=body, webhook=webhook, unsafe=True,
                                            attempts=attempts)
            except _Ambiguous as amb:
                err = amb.error
            else:
                return parse(envelope)
            log.info("%s: %s; checking whether it was applied", op, err.status or err.message)
            confirm_error: ApiError | None = None
            try:
                found = await confirm(before)
            except ConflictError:
                raise
            except ApiError as exc:
                confirm_error = exc
            if confirm_error is not None:
                raise err.with_hint(UNCERTAIN_HINT)
            if found is not None:
                log.info("%s: it was applied after all", op)
                return found
            if attempts.n > self._policy.max_retries:
                raise err
            await self._sleep(self._policy.delay(attempts.n, None))

    async def _paged(
        self,
        op: Operation,
        path: str,
        *,
        per_page: int | None,
        default_per_page: int,
        page_declared: bool,
        params: Mapping[str, Any] | None = None,
        webhook: bool = False,
        extract: Callable[[Envelope], list[T]],
    ) -> list[T]:
        """Read every page of a list; a list cut short raises rather than pass for the whole account.

        * ``meta.pagination`` present: read until ``current_page`` reaches ``total_pages``.
        * No ``meta`` (the newer OpenAPI's list-apps example has none): keep reading while *full* pages come back;
          a short or empty page is the last. Stopping after the first page would hide every app past it, and a
          following ``--allow-delete`` would plan to delete them.
        * Cross-checks: a page that only repeats records already read (a server ignoring ``page``), or fewer
          records than the last ``meta`` announced, raise :class:`MalformedResponse`.

        Only the query parameters the OpenAPI declares are sent on the first request (``perPage`` when
        ``per_page`` is given, ``page`` when ``page_declared``); ``page`` is sent for later pages regardless,
        because nothing else can fetch them (the service's own ``links.next`` uses it).
        """
        out: list[T] = []
        seen: set[str] = set()
        page = 1
        size = per_page or default_per_page
        announced: int | None = None
        while True:
            query: dict[str, Any] = dict(params or {})
            if per_page is not None:
                query["perPage"] = per_page
            if page > 1 or page_declared:
                query["page"] = page
            envelope = await self._call(op, "GET", path, params=query or None, webhook=webhook)
            items = extract(envelope)
            pagination = envelope.pagination()
            if pagination is not None:
                announced = pagination.total
                size = pagination.per_page or size
            if page > 1 and pagination is not None and pagination.current_page < page:
                break  # the server ignored `page` and repeated an earlier page
            keys = [_record_key(item) for item in items]
            if page > 1 and items and all(k is not None and k in seen for k in keys):
                raise MalformedResponse(
                    op, status=envelope.status,
                    message=f"page {page} only repeats records of earlier pages (is `page` ignored?): "
                            f"the list cannot be read whole",
                    hint=_INCOMPLETE_HINT,
                )
            seen.update(k for k in keys if k is not None)
            out.extend(items)
            if not items or page >= MAX_PAGES:
                break
            if pagination is not None:
                if pagination.is_last:
                    break
            elif len(items) < size:
                break  # no meta: a short page is the last one
            page += 1
        if announced is not None and len(out) < announced:
            raise MalformedResponse(
                op, status=200,
                message=f"read {len(out)} of the {announced} records the service announced: the list is incomplete",
                hint=_INCOMPLETE_HINT,
            )
        return out


def _query(params: Mapping[str, Any] | None) -> str:
    """``?perPage=100&page=2`` for a debug line: the management API's query parameters are paging and filters,
    never credentials (those are headers, which are never logged)."""
    return "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""


def _oversized(body: Any, files: Mapping[str, Any] | None) -> int | None:
    """The size of a request body over :data:`~tenantdeck.jsonlimits.BODY_MAX_BYTES`, else None: such a body is
    never sent again after a failure (no retry makes it fit)."""
    size = json_size(body) if body is not None else 0
    for value in (files or {}).values():
        content = value[1] if isinstance(value, tuple) and len(value) > 1 else value
        size += len(content) if isinstance(content, bytes | str) else 0
    return size if size > BODY_MAX_BYTES else None


def _int_header(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _record_key(item: Any) -> str | None:
    """Identity of a listed record, to notice a page that repeats earlier ones (None when it has no id)."""
    if isinstance(item, Mapping):
        value = item.get("id")
        return None if value is None or isinstance(value, bool) else str(value)
    return item if isinstance(item, str) else None



def _is_tls_failure(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLError):
            return True
        current = current.__cause__ or current.__context__
    text = str(exc)
    return "CERTIFICATE_VERIFY_FAILED" in text or "SSL:" in text
