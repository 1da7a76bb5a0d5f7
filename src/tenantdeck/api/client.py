"""Async client of the platform's management API (facts §2 for the paths, §3 to §10 for the shapes).

Design points, each one the answer to a way things go wrong in practice:

* **Credentials stay hidden.** ``key``/``secret`` live only in the httpx client's default headers and in a
  :class:`~tenantdeck.api.redact.Redactor`; errors never carry requests, every server text is redacted, and
  ``repr(client)`` shows ``***``.
* **Retries never duplicate.** GET, PUT, DELETE and the idempotent POSTs (extension enable/disable, trigger add,
  map-settings) are retried on connection errors, timeouts, 429 and 5xx with full-jitter backoff (``Retry-After``
  honoured).
  A create (POST) is retried directly only when it certainly did not reach the server (connect failure, 429);
  after an ambiguous failure (timeout after sending, broken connection, 5xx) the client first *looks* whether
  the object appeared, and returns it if it did (see :meth:`ManagementClient._create`).
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
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from tenantdeck import __version__
from tenantdeck.api.envelopes import Envelope, EnvelopeError, kind_of, parse_error_body, to_id
from tenantdeck.api.errors import (
    ApiError,
    ConflictError,
    MalformedResponse,
    NotFoundError,
    Operation,
    TransportError,
    build_error,
    one_line,
    too_large_hint,
)
from tenantdeck.api.models import Ping, RemoteApp, RemoteExtension, RemoteWidget
from tenantdeck.api.ratelimit import Limiter, default_ceiling
from tenantdeck.api.redact import Redactor
from tenantdeck.api.retry import RetryPolicy, is_retryable_status, parse_retry_after
from tenantdeck.jsonlimits import BODY_MAX_BYTES, json_size
from tenantdeck.models import extension_catalog
from tenantdeck.textsafe import shown

log = logging.getLogger("tenantdeck.api")
# a library's loggers say nothing unless the program asks (the CLI does, tenantdeck.cli.logs): without this, Python's
# last-resort handler would print the retry warnings below over the editor's screen
logging.getLogger("tenantdeck").addHandler(logging.NullHandler())

T = TypeVar("T")
S = TypeVar("S")
Sleep = Callable[[float], Awaitable[None]]

#: Every webhook and trigger call selects the new webhook system (facts §7); omitted, it means "legacy".
WEBHOOK_HEADERS: Mapping[str, str] = {"X-Webhook-Version": "2"}
APPS_PER_PAGE = 100
LIST_PER_PAGE = 1000  # documented maximum for extensions and webhooks
TRIGGERS_PER_PAGE = 100  # list-triggers takes no perPage; its example answers per_page 100
MAX_PAGES = 10_000  # a guard against a server that never says "last page"

#: Failures that prove the request never reached the server, so even a create can be resent.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
_APP_GONE_CODES = frozenset({"ERR_APP_NOT_FOUND", "ERR_APP_ARCHIVED"})
_SMS = "sms-notification"


def _ext_subject(ext_id: str) -> str:
    """What an operation on an extension's settings is about, in messages: SMS keeps its own word."""
    return "sms" if ext_id == _SMS else "extension settings"
_SERVER_ADDED_WIDGET_KEYS = ("appId", "widgetId")
_INCOMPLETE_HINT = (
    "nothing was changed; try again (a list that changes while it is read can come back short), and report it if "
    "it persists: acting on part of a list could delete the rest"
)
_UNCERTAIN_HINT = (
    "the create may or may not have been applied; run `tenantdeck pull` to see the service's state before retrying"
)


_TEAM_UNCERTAIN_HINT = (
    "the team change may have been applied in part; run `tenantdeck pull` to see the service's team before retrying"
)


def _seg(value: str) -> str:
    """One URL path segment; ids are user data and must not add slashes or queries."""
    return quote(str(value), safe="")


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


class ManagementClient:
    """Async client; use as ``async with ManagementClient(...) as client:`` (or call :meth:`aclose`).

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
            raise ValueError("ManagementClient needs a non-empty key and secret")
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
        )

    def __repr__(self) -> str:
        return f"ManagementClient(base_url={self.base_url!r}, key=***, secret=***)"

    @property
    def limits(self) -> Limiter:
        """The adaptive limits in force: ``limit`` (requests in flight now), ``throttled`` (429s seen) and
        ``remaining`` (the quota the service last reported), for progress displays and tests."""
        return self._limiter

    async def __aenter__(self) -> ManagementClient:
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
                raise err.with_hint(_UNCERTAIN_HINT)
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

    # --- apps ---------------------------------------------------------------------------------------------------

    def _remote_app(self, op: Operation, record: Mapping[str, Any], status: int = 200) -> RemoteApp:
        try:
            app_id = to_id(record.get("id", record.get("appId")))
        except EnvelopeError as exc:
            raise MalformedResponse(op, status=status, message=f"unexpected response: app id: {exc}") from None
        name = record.get("name")
        region = record.get("region")
        if not isinstance(region, str):
            app_region = record.get("appRegion")
            region = app_region.get("id") if isinstance(app_region, Mapping) else None
        if not isinstance(name, str) or not isinstance(region, str):
            raise MalformedResponse(
                op, status=status, message=f"unexpected response: app {app_id} lacks a name or region"
            )
        version = record.get("version")
        created_at = record.get("createdAt")
        return RemoteApp(
            id=app_id,
            name=name,
            region=region,
            version=str(version) if isinstance(version, str | int) and not isinstance(version, bool) else None,
            created_at=created_at if isinstance(created_at, int) else None,
            raw=dict(record),
        )

    async def list_apps(self, search: str | None = None) -> list[RemoteApp]:
        """All apps of the account (every page); ``search`` is the service's ``searchKey`` (id or name)."""
        op = Operation("list apps" + (f" matching {search!r}" if search else ""), subject="apps")
        records = await self._paged(
            op, "/apps", per_page=APPS_PER_PAGE, default_per_page=APPS_PER_PAGE, page_declared=True,
            params={"searchKey": search} if search else None, extract=lambda env: env.records(),
        )
        return [self._remote_app(op, r) for r in records]

    async def find_apps_by_name(self, name: str) -> list[RemoteApp]:
        """Apps whose name is exactly ``name`` (``searchKey`` also matches ids and substrings)."""
        return [app for app in await self.list_apps(search=name) if app.name == name]

    async def create_app(
        self, name: str, region: str, version: str = "3", *, skip_sample_data: bool | None = None
    ) -> RemoteApp:
        op = Operation(f"create app {name!r} in region {region}", subject="app")
        body: dict[str, Any] = {"name": name, "region": region, "version": version}
        if skip_sample_data is not None:
            body["skipSampleData"] = skip_sample_data

        async def snapshot() -> set[str]:
            return {app.id for app in await self.find_apps_by_name(name)}

        async def confirm(before: set[str] | None) -> RemoteApp | None:
            new = [app for app in await self.find_apps_by_name(name) if app.id not in (before or set())]
            if len(new) > 1:
                raise ConflictError(
                    op, message=f"{len(new)} new apps named {name!r} appeared while the create was retried",
                    hint="run `tenantdeck pull`, keep one and delete the others",
                )
            return new[0] if new else None

        return await self._create(
            op, "/apps", body,
            parse=lambda env: self._remote_app(op, env.record(), env.status),
            snapshot=snapshot, confirm=confirm,
        )

    async def delete_app(self, app_id: str) -> None:
        """Schedules the app for deletion (the service archives it for 30 days)."""
        op = Operation(f"delete app {app_id}", subject="app", app_id=app_id)
        envelope = await self._call(op, "DELETE", f"/apps/{_seg(app_id)}", gone_ok_on_retry=True)
        envelope.check_success()

    # --- extensions ---------------------------------------------------------------------------------------------

    async def list_extensions(self, app_id: str) -> list[RemoteExtension]:
        op = Operation(f"list extensions of app {app_id}", subject="extensions", app_id=app_id)
        records = await self._paged(  # list-extensions declares perPage only
            op, f"/apps/{_seg(app_id)}/extensions", per_page=LIST_PER_PAGE, default_per_page=LIST_PER_PAGE,
            page_declared=False, extract=lambda env: env.records(),
        )
        out = []
        for record in records:
            if "id" not in record:
                raise MalformedResponse(op, status=200, message="unexpected response: an extension has no id")
            enabled = record.get("enabled")
            out.append(
                RemoteExtension(
                    id=record["id"],
                    name=str(record.get("name") or record["id"]),
                    enabled=enabled if isinstance(enabled, bool) else None,
                    raw=record,
                )
            )
        return out

    async def set_extensions(
        self, app_id: str, enabled: Iterable[str] = (), disabled: Iterable[str] = ()
    ) -> dict[str, bool]:
        """Enable/disable extensions in one idempotent call; returns extension id -> success (per id)."""
        on, off = list(enabled), list(disabled)
        op = Operation(
            f"set extensions of app {app_id} (enable {', '.join(on) or '-'}; disable {', '.join(off) or '-'})",
            subject="extensions", app_id=app_id,
        )
        envelope = await self._call(
            op, "POST", f"/apps/{_seg(app_id)}/extensions", body={"enabled": on, "disabled": off}
        )
        payload = envelope.optional_obj() or {}
        result: dict[str, bool] = {}
        for group, ids in (("enabled", on), ("disabled", off)):
            reported = payload.get(group)
            reported = reported if isinstance(reported, Mapping) else {}
            for ext_id in ids:
                result[ext_id] = _success(reported.get(ext_id))
        return result

    # --- chat widget v2 -----------------------------------------------------------------------------------------

    @staticmethod
    def _widgets_path(app_id: str) -> str:
        return f"/apps/{_seg(app_id)}/extensions/widget/v2/settings"

    async def list_widgets(self, app_id: str) -> list[RemoteWidget]:
        op = Operation(f"list chat widgets of app {app_id}", subject="widget", app_id=app_id)
        envelope = await self._call(op, "GET", self._widgets_path(app_id))
        out = []
        for i, item in enumerate(envelope.items()):
            config = item.get("configuration")
            try:
                widget_id = to_id(item.get("widgetId", config.get("widgetId") if isinstance(config, Mapping) else None))
            except EnvelopeError as exc:
                raise envelope.bad(f"widget {i}: widgetId: {exc}") from None
            if not isinstance(config, Mapping):
                raise envelope.bad(f"widget {widget_id}: 'configuration' is missing or not an object")
            settings = {k: v for k, v in config.items() if k not in _SERVER_ADDED_WIDGET_KEYS}
            out.append(RemoteWidget(widget_id=widget_id, settings=settings, raw=item))
        return out

    async def create_widget(self, app_id: str, settings: Mapping[str, Any]) -> str:
        """Creates a widget and returns its ``widgetId`` (``data.body.data.widgetId``)."""
        name = settings.get("name")
        op = Operation(f"create chat widget {name!r} in app {app_id}", subject="widget", app_id=app_id)

        async def snapshot() -> set[str]:
            return {w.widget_id for w in await self.list_widgets(app_id)}

        async def confirm(before: set[str] | None) -> str | None:
            new = [w for w in await self.list_widgets(app_id) if w.widget_id not in (before or set())]
            ours = [w for w in new if w.settings.get("name") == name]
            if len(ours) > 1 or (len(new) > 1 and not ours):
                raise ConflictError(
                    op, message=f"{len(new)} new widgets appeared while the create was retried",
                    hint="run `tenantdeck pull` and check the app's widgets",
                )
            return ours[0].widget_id if ours else None

        def parse(envelope: Envelope) -> str:
            payload = envelope.obj()
            try:
                return to_id(payload.get("widgetId"))
            except EnvelopeError as exc:
                raise envelope.bad(f"widgetId: {exc}") from None

        return await self._create(
            op, self._widgets_path(app_id), {"settings": dict(settings)},
            parse=parse, snapshot=snapshot, confirm=confirm,
        )

    async def update_widget(self, app_id: str, widget_id: str, settings: Mapping[str, Any]) -> None:
        """PUT with ``settings.widgetId`` (there is no per-widget path)."""
        op = Operation(f"update chat widget {widget_id} in app {app_id}", subject="widget", app_id=app_id)
        body = {"settings": {**settings, "widgetId": widget_id}}
        envelope = await self._call(op, "PUT", self._widgets_path(app_id), body=body)
        envelope.check_success()

    # --- extension settings (``/extensions/{extId}/v1/settings``; SMS is one of them) ---------------------------

    @staticmethod
    def _ext_path(app_id: str, ext_id: str) -> str:
        return f"/apps/{_seg(app_id)}/extensions/{_seg(ext_id)}/v1/settings"

    async def get_extension_settings(self, app_id: str, ext_id: str) -> dict[str, Any] | None:
        """The extension's settings (without the server-added ``appId``; a field the GET reports under another name
        than the request's, stickers' ``customMasterStickersData``, under the request's), or None when none are
        stored (404 ERR_SETTINGS_NOT_FOUND, or an empty object). Secrets arrive in clear: the caller fingerprints
        them and drops the value."""
        op = Operation(f"get {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        try:
            envelope = await self._call(op, "GET", self._ext_path(app_id, ext_id))
        except NotFoundError as exc:
            if exc.code in _APP_GONE_CODES:
                raise
            return None
        payload = envelope.optional_obj()
        if payload is None:
            return None
        spec = extension_catalog.BY_ID.get(ext_id)
        known = {s.key for s in spec.settings} if spec is not None else set()
        # Tolerate the settings object without its `settings` wrapper.
        bare = payload if known & set(payload) else None
        settings = payload.get("settings", bare)
        if settings is None or settings == {}:
            return None
        if not isinstance(settings, Mapping):
            raise envelope.bad("'settings' is not an object")
        out = {k: v for k, v in settings.items() if k != "appId"}
        for setting in spec.settings if spec is not None else ():
            if setting.reported_as and setting.reported_as in out and setting.key not in out:
                out[setting.key] = out.pop(setting.reported_as)
        return out

    async def store_extension_settings(self, app_id: str, ext_id: str, settings: Mapping[str, Any]) -> None:
        """Create the extension's settings: ``POST``, or ``PUT`` where the API stores with it (data-masking,
        stickers). A POST whose answer was lost is read back before it is sent again."""
        spec = extension_catalog.BY_ID.get(ext_id)
        op = Operation(f"store {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        wanted = dict(settings)
        if spec is not None and spec.store == "PUT":
            (await self._call(op, "PUT", self._ext_path(app_id, ext_id), body={"settings": wanted})).check_success()
            return

        async def confirm(_: None) -> bool | None:
            current = await self.get_extension_settings(app_id, ext_id)
            if current is not None and all(current.get(k) == v for k, v in wanted.items()):
                return True
            return None

        def parse(envelope: Envelope) -> bool:
            envelope.check_success()
            return True

        await self._create(op, self._ext_path(app_id, ext_id), {"settings": wanted}, parse=parse, confirm=confirm)

    async def update_extension_settings(self, app_id: str, ext_id: str, settings: Mapping[str, Any]) -> None:
        """Replace the extension's settings (``PUT``, the whole object: the caller sends the live values it does not
        change, so a field the draft did not change keeps the service's value)."""
        op = Operation(f"update {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        envelope = await self._call(op, "PUT", self._ext_path(app_id, ext_id), body={"settings": dict(settings)})
        envelope.check_success()

    async def delete_extension_settings(self, app_id: str, ext_id: str) -> None:
        op = Operation(f"delete {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        envelope = await self._call(op, "DELETE", self._ext_path(app_id, ext_id), gone_ok_on_retry=True)
        envelope.check_success()

    # SMS (the legacy ``sms-notification`` extension) is one of them; these names are what the SMS kind calls.

    async def get_sms(self, app_id: str) -> dict[str, Any] | None:
        """The five SMS settings (without the server-added ``appId``), or None when not configured."""
        return await self.get_extension_settings(app_id, _SMS)

    async def store_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        await self.store_extension_settings(app_id, _SMS, settings)

    async def update_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        await self.update_extension_settings(app_id, _SMS, settings)

    async def delete_sms(self, app_id: str) -> None:
        await self.delete_extension_settings(app_id, _SMS)

    # --- push certificates (push-notification's APNs .p12 / .p8) ----------------------------------------------

    async def query_certificates(self, app_id: str) -> dict[str, bool]:
        """Which APNs certificates the service holds: ``{"p12": bool, "p8": bool}`` (query-certificates). A field
        the answer leaves out is False: nothing says it is there; a 404 that is not about the app is none."""
        op = Operation(f"query push certificates of app {app_id}", subject="certificates", app_id=app_id)
        path = f"/apps/{_seg(app_id)}/extensions/push-notification/v1/query-certificates"
        try:
            payload = (await self._call(op, "GET", path)).optional_obj() or {}
        except NotFoundError as exc:
            if exc.code in _APP_GONE_CODES:
                raise
            payload = {}  # like a settings read: nothing there (push notification never configured)
        return {kind: payload.get(f"certificate_{kind}") is True for kind in ("p12", "p8")}

    async def upload_certificate(self, app_id: str, kind: str, filename: str, content: bytes) -> None:
        """Upload an APNs certificate (multipart field ``certificate``, as the API declares). Uploading the same
        file twice leaves the same certificate, so a retry simply sends it again. The content never reaches a log
        or an error message: only its size is named."""
        if kind not in ("p12", "p8"):
            raise ValueError(f"certificate kind must be p12 or p8, not {kind!r}")
        op = Operation(f"upload the .{kind} push certificate of app {app_id} ({len(content)} bytes)",
                       subject="certificates", app_id=app_id)
        path = f"/apps/{_seg(app_id)}/extensions/push-notification/v1/upload-certificate-{kind}"
        envelope = await self._call(op, "POST", path, files={"certificate": (filename, content,
                                                                               "application/octet-stream")})
        envelope.check_success()

    # --- webhooks and triggers (always X-Webhook-Version: 2) ----------------------------------------------------

    @staticmethod
    def _webhook_path(app_id: str, webhook_id: str | None = None) -> str:
        base = f"/apps/{_seg(app_id)}/webhooks"
        return base if webhook_id is None else f"{base}/{_seg(webhook_id)}"

    async def list_webhooks(self, app_id: str) -> list[dict[str, Any]]:
        op = Operation(f"list webhooks of app {app_id}", subject="webhook", app_id=app_id)
        return await self._paged(  # list-webhooks declares perPage (and searchKey), not page
            op, self._webhook_path(app_id), per_page=LIST_PER_PAGE, default_per_page=LIST_PER_PAGE,
            page_declared=False, webhook=True, extract=lambda e: e.records(),
        )

    async def get_webhook(self, app_id: str, webhook_id: str) -> dict[str, Any] | None:
        """The webhook, or None when it does not exist (a missing *app* still raises)."""
        op = Operation(f"get webhook {webhook_id!r} of app {app_id}", subject="webhook", app_id=app_id)
        try:
            envelope = await self._call(op, "GET", self._webhook_path(app_id, webhook_id), webhook=True)
        except NotFoundError as exc:
            if exc.code in _APP_GONE_CODES:
                raise
            return None
        return envelope.record()

    async def create_webhook(self, app_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        webhook_id = body.get("id")
        if not isinstance(webhook_id, str) or not webhook_id:
            raise ValueError("create_webhook needs a body with a non-empty string 'id'")
        op = Operation(f"create webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)

        async def confirm(_: None) -> dict[str, Any] | None:
            current = await self.get_webhook(app_id, webhook_id)
            if current is None:
                return None
            for key in ("name", "webhookURL"):
                if key in current and key in body and current[key] != body[key]:
                    raise ConflictError(
                        op, message=f"a webhook with id {webhook_id!r} exists with a different {key}",
                        hint="run `tenantdeck pull` and review the diff",
                    )
            return current

        return await self._create(
            op, self._webhook_path(app_id), dict(body), parse=lambda env: env.record(), confirm=confirm,
            webhook=True,
        )

    async def update_webhook(self, app_id: str, webhook_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """PUT takes every field except ``id`` (facts §7)."""
        op = Operation(f"update webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)
        payload = {k: v for k, v in body.items() if k != "id"}
        envelope = await self._call(op, "PUT", self._webhook_path(app_id, webhook_id), body=payload, webhook=True)
        envelope.check_success()
        found = envelope.optional_obj()
        return envelope.normalise(found) if found is not None else {}

    async def delete_webhook(self, app_id: str, webhook_id: str) -> None:
        op = Operation(f"delete webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)
        envelope = await self._call(
            op, "DELETE", self._webhook_path(app_id, webhook_id), webhook=True, gone_ok_on_retry=True
        )
        envelope.check_success()

    async def list_triggers(self, app_id: str, webhook_id: str) -> list[str]:
        op = Operation(f"list triggers of webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)

        def extract(envelope: Envelope) -> list[str]:
            node = envelope.payload()
            if node is None:
                return []
            if not isinstance(node, list):
                raise envelope.bad("expected an array of triggers")
            ids = []
            for item in node:
                trigger = item.get("id", item.get("trigger")) if isinstance(item, Mapping) else item
                if not isinstance(trigger, str) or not trigger:
                    raise envelope.bad(f"a trigger has no id: {one_line(repr(item), 60)}")
                ids.append(trigger)
            return ids

        return await self._paged(  # list-triggers declares no paging parameter; its example pages by 100
            op, f"{self._webhook_path(app_id, webhook_id)}/triggers", per_page=None,
            default_per_page=TRIGGERS_PER_PAGE, page_declared=False, webhook=True, extract=extract,
        )

    async def add_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> dict[str, bool]:
        """Idempotent; the service reports per trigger, so partial success is possible (id -> success)."""
        wanted = list(ids)
        op = Operation(
            f"add triggers {', '.join(wanted)} to webhook {webhook_id!r} in app {app_id}",
            subject="webhook", app_id=app_id,
        )
        envelope = await self._call(
            op, "POST", f"{self._webhook_path(app_id, webhook_id)}/triggers", body={"triggerIds": wanted},
            webhook=True,
        )
        payload = envelope.optional_obj() or {}
        if payload.get("success") is True and not any(t in payload for t in wanted):
            return dict.fromkeys(wanted, True)  # a single overall success flag
        return {t: _success(payload.get(t)) for t in wanted}

    async def remove_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> None:
        """DELETE with a JSON body ``{"triggerIds": [...]}``."""
        wanted = list(ids)
        op = Operation(
            f"remove triggers {', '.join(wanted)} from webhook {webhook_id!r} in app {app_id}",
            subject="webhook", app_id=app_id,
        )
        envelope = await self._call(
            op, "DELETE", f"{self._webhook_path(app_id, webhook_id)}/triggers", body={"triggerIds": wanted},
            webhook=True,
        )
        envelope.check_success()

    # --- team -------------------------------------------------------------------------------------------------

    @staticmethod
    def _team_path(app_id: str) -> str:
        return f"/apps/{_seg(app_id)}/collaborators"

    async def list_collaborators(self, app_id: str) -> list[dict[str, Any]]:
        """``[{id, name, email, role, createdAt}]``; role is ``owner``, ``admin``, ``moderator`` or ``developer``."""
        op = Operation(f"list collaborators of app {app_id}", subject="collaborators", app_id=app_id)
        return (await self._call(op, "GET", self._team_path(app_id))).records()

    async def update_team(
        self,
        app_id: str,
        *,
        admins: Sequence[str] = (),
        moderators: Sequence[str] = (),
        remove: Sequence[str] = (),
    ) -> dict[str, dict[str, bool]]:
        """Give ``admins`` and ``moderators`` their role (inviting new emails) and remove ``remove``, in one POST.

        Returns ``{"admins": {email: ok}, "moderators": {...}, "collaboratorsToRemove": {...}}``. The service
        reports per email, so **a False is not done** and the caller must report it: an email the answer marks
        ``success: false``, or does not mention at all, is False. A group the answer gives as a list (the vendor's
        example answers ``"moderators": []``) reports nothing, so its requested emails are False too; an answer's
        ``developers`` group is not returned (no argument asks for it). Failures raise the :class:`ApiError`
        family like every call (``ERR_ALREADY_AN_OWNER``, ``ERR_NOT_A_COLLABORATOR``, validation, ...); a single
        string instead of a list is a :class:`TypeError` (it would be read as one email per character).

        The body carries only the lists that have entries: the OpenAPI requires none of the three keys, and an
        absent key cannot be read as "set this role to nobody" the way an empty list might. With nothing to do
        no request is made.

        Retries: giving a role twice is harmless, so a call without removals is resent like any idempotent one.
        A removal is not (the second attempt would find the email gone), so after a failure that may have
        landed the team is read back first: every change visible -> done; no removal visible -> sent again;
        anything in between raises :class:`ConflictError` (run ``pull`` and look).
        """
        if any(isinstance(emails, str) for emails in (admins, moderators, remove)):
            raise TypeError("update_team takes lists of emails, not a single string")
        groups = {"admins": list(admins), "moderators": list(moderators), "collaboratorsToRemove": list(remove)}
        body = {key: emails for key, emails in groups.items() if emails}
        if not body:
            return {key: {} for key in groups}
        parts = [f"{verb} {', '.join(groups[key])}" for key, verb in
                 (("admins", "admins"), ("moderators", "moderators"), ("collaboratorsToRemove", "remove"))
                 if groups[key]]  # fmt: skip
        op = Operation(f"update the team of app {app_id} ({'; '.join(parts)})", subject="collaborator",
                       app_id=app_id)  # fmt: skip

        def parse(envelope: Envelope) -> dict[str, dict[str, bool]]:
            payload = envelope.optional_obj() or {}
            out: dict[str, dict[str, bool]] = {}
            for key, wanted in groups.items():
                reported = payload.get(key)
                if reported is not None and not isinstance(reported, Mapping | list):
                    raise envelope.bad(f"{key} is {kind_of(reported)}, expected an object of emails")
                reports = reported if isinstance(reported, Mapping) else {}  # a list reports nothing
                out[key] = {email: _success(reports.get(email)) for email in wanted}
            return out

        async def confirm(_: None) -> dict[str, dict[str, bool]] | None:
            if not remove:
                return None  # only role assignments: sending them again is safe
            team = {str(c.get("email", "")).casefold(): c.get("role") for c in await self.list_collaborators(app_id)}
            gone = [email for email in remove if email.casefold() not in team]
            if not gone:
                return None  # no removal landed, so the POST can be sent again
            given = all(team.get(e.casefold()) == "admin" for e in admins) and all(
                team.get(e.casefold()) == "moderator" for e in moderators
            )
            if len(gone) == len(remove) and given:
                return {key: dict.fromkeys(emails, True) for key, emails in groups.items()}
            raise ConflictError(op, message="the team shows only part of the change", hint=_TEAM_UNCERTAIN_HINT)

        try:
            return await self._create(op, self._team_path(app_id), body, parse=parse, confirm=confirm)
        except ApiError as exc:
            if exc.hint == _UNCERTAIN_HINT:  # _create's words are about a create; say it about the team
                raise exc.with_hint(_TEAM_UNCERTAIN_HINT) from None
            raise

    # --- app settings -------------------------------------------------------------------------------------------

    async def get_app_settings(self, app_id: str) -> dict[str, Any]:
        """Key -> value; not every value is a bool (facts §3.5)."""
        op = Operation(f"get settings of app {app_id}", subject="settings", app_id=app_id)
        return (await self._call(op, "GET", f"/apps/{_seg(app_id)}/settings")).optional_obj() or {}

    async def map_settings(self, app_id: str, settings: Mapping[str, bool]) -> dict[str, bool]:
        """Set boolean settings in one ``POST {"settings": {...}}`` (map-settings); returns key -> success.

        The service answers per key, so **a False is not done**: a key marked ``success: false``, or not in the
        answer at all, is False and the caller must report it. The vendor's schema maps booleans only: any other
        value is a :class:`TypeError` before a request is made. Setting a boolean twice is harmless (the POST is
        idempotent: the same body leaves the same settings), so a retry after a 5xx, a timeout or a lost
        connection simply sends it again, with no read-back. With nothing to set no request is made. Refusals
        (a list-valued key, an unknown app, ...) raise the :class:`ApiError` family like every call."""
        wanted = dict(settings)
        wrong = sorted(key for key, value in wanted.items() if not isinstance(value, bool))
        if wrong:  # keys are data (a draft's): escaped before they can reach a terminal
            more = f" and {len(wrong) - 5} more" if wrong[5:] else ""
            named = ", ".join(shown(key[:100]) for key in wrong[:5]) + more
            raise TypeError(f"map_settings sets booleans only; not a boolean: {named}")
        if not wanted:
            return {}
        op = Operation(f"set settings of app {app_id} ({', '.join(wanted)})", subject="settings", app_id=app_id)
        envelope = await self._call(op, "POST", f"/apps/{_seg(app_id)}/settings", body={"settings": wanted})
        payload = envelope.optional_obj() or {}
        return {key: _success(payload.get(key)) for key in wanted}

    async def unmap_settings(self, app_id: str) -> None:
        """``DELETE /apps/{appId}/settings`` (unmap-settings). Which keys the real service resets is not documented
        (facts §3.5), so the sync engine never calls it; it is here for tests and for completeness."""
        op = Operation(f"unmap settings of app {app_id}", subject="settings", app_id=app_id)
        (await self._call(op, "DELETE", f"/apps/{_seg(app_id)}/settings")).check_success()

    # --- diagnostics --------------------------------------------------------------------------------------------

    async def ping(self) -> Ping:
        """One authenticated ``GET /apps?perPage=1`` without retries: reachability, credentials, server clock."""
        op = Operation("list apps (perPage=1)", subject="apps")
        envelope = await self._call(op, "GET", "/apps", params={"perPage": 1, "page": 1}, max_retries=0)
        envelope.items()  # the answer must look like the management API
        pagination = envelope.pagination()
        return Ping(
            status=envelope.status,
            elapsed=envelope.elapsed,
            server_date=_http_date(envelope.headers.get("date")),
            apps_total=pagination.total if pagination else None,
        )


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


def _success(report: Any) -> bool:
    """``{"success": true, "message": ...}`` or a bare bool; anything else counts as not confirmed."""
    if isinstance(report, Mapping):
        return report.get("success") is True
    return report is True


def _http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


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
