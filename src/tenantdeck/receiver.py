"""A validating webhook receiver: accepts deliveries, answers at once, checks each against the event models.

Used by ``tenantdeck listen`` and meant for the TUI's Events screen, so it is a plain async object with data out:

- :class:`Receiver` ``start()``/``stop()`` from any asyncio code (it installs no signal handlers), serves on
  loopback by default, and keeps the last ``keep`` deliveries (:attr:`Receiver.deliveries`); each is at most
  ``max_body`` bytes, so memory is bounded.
- :meth:`Receiver.subscribe` yields every new :class:`Delivery` as it arrives (each subscriber has a bounded
  queue; a subscriber that falls behind loses the oldest and :attr:`Subscription.missed` counts them);
  :meth:`Receiver.add_listener` calls a function instead (the TUI's Events screen).

Protocol: POST on any path; 401 (``WWW-Authenticate: Basic``) for missing or wrong Basic Auth, compared in
constant time; 413 above ``max_body``; otherwise **200 at once**, and validation runs after the answer. Nothing a
sender can send makes it fail: unparseable, invalid, too deeply nested and unknown-trigger deliveries are kept and
flagged.

Slow clients (slowloris) are cut without holding anyone up: a connection whose request headers are not complete
within ``header_timeout`` seconds is closed, and a body that has not fully arrived within ``body_timeout`` is
answered 408 (and recorded). Each connection waits on its own; the event loop never blocks on one.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import contextlib
import hmac
import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tenantdeck.jsonlimits import MAX_JSON_DEPTH, too_deep, too_deep_message
from tenantdeck.models.events import Inspection, inspect_delivery

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8788
DEFAULT_MAX_BODY = 1024 * 1024
DEFAULT_KEEP = 500
#: How much of an unparseable body is kept (as text) for display.
RAW_PREVIEW = 4096
#: How many idempotency keys are remembered to recognise a retried delivery (far more than a retry needs: the
#: service retries after 10 s and 30 s).
SEEN_KEYS = 10_000
#: Seconds a client may take to send its request headers, and then its body (slowloris defence).
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 10.0
#: Connections the kernel queues before the receiver accepts them: a burst of a thousand deliveries at once is
#: accepted at once instead of waiting on SYN retransmits (the kernel caps it at ``somaxconn``).
BACKLOG = 2048


@dataclass(frozen=True, slots=True)
class Delivery:
    """One request the receiver answered, as data (what ``--json`` prints and the Events screen shows)."""

    seq: int
    received_at: str
    method: str
    path: str
    status: int
    authorized: bool
    size: int
    trigger: str | None
    valid: bool
    problems: tuple[str, ...]
    payload: Any = None
    raw: str | None = None
    remote: str = ""
    #: ``"ok"`` (required and right), ``"wrong"``, ``"missing"``, or ``"not required"`` (the receiver asks none)
    auth: str = "not required"
    #: the username the sender presented (never the password), or None
    auth_user: str | None = None
    #: ``webhook|trigger|...`` as the vendor's docs define it per trigger (None: no key for this delivery)
    idempotency_key: str | None = None
    #: the ``seq`` of the first delivery with the same key: this one is a retry (or a replay) of it
    duplicate_of: int | None = None
    #: which published variant the payload follows, where several are in the wild (legacy v1 included)
    variant: str | None = None
    legacy: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "received_at": self.received_at,
            "trigger": self.trigger,
            "valid": self.valid,
            "problems": list(self.problems),
            "payload": self.payload,
            "status": self.status,
            "authorized": self.authorized,
            "method": self.method,
            "path": self.path,
            "size": self.size,
            "auth": self.auth,
            "idempotency_key": self.idempotency_key,
            "duplicate_of": self.duplicate_of,
            "variant": self.variant,
            "legacy": self.legacy,
        }
        if self.raw is not None:
            out["raw"] = self.raw
        return out

    def line(self) -> str:
        """One human line: time, trigger, verdict, first problems."""
        when = self.received_at[11:23]
        trigger = self.trigger or "-"
        if self.valid:
            verdict = "valid"
        else:
            shown = "; ".join(self.problems[:3]) + (
                f" (+{len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
            )
            verdict = f"INVALID: {shown}"
        if self.legacy:
            verdict += " [legacy v1]"
        if self.duplicate_of is not None:
            verdict += f" [DUPLICATE of #{self.duplicate_of}: {self.idempotency_key}]"
        return f"{when}  {self.status}  {trigger:<32} {self.size:>7} B  {self.path}  {verdict}"


@dataclass(eq=False)
class Subscription:
    """A subscriber's bounded queue of new deliveries; iterate it with ``async for``."""

    queue: asyncio.Queue[Delivery]
    missed: int = 0

    def __aiter__(self) -> AsyncIterator[Delivery]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[Delivery]:
        while True:
            yield await self.queue.get()

    def push(self, delivery: Delivery) -> None:
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.missed += 1
        self.queue.put_nowait(delivery)


@dataclass
class Receiver:
    """See the module docstring. ``basic_auth`` is ``(username, password)`` or None (no auth required)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    basic_auth: tuple[str, str] | None = field(default=None, repr=False)  # never shown: it holds the password
    max_body: int = DEFAULT_MAX_BODY
    keep: int = DEFAULT_KEEP
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    #: when a delivery is stamped as received (tests and pictures inject a fixed clock)
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC), repr=False)
    deliveries: collections.deque[Delivery] = field(init=False, repr=False)
    _subscribers: set[Subscription] = field(init=False, default_factory=set)
    _listeners: list[Callable[[Delivery], None]] = field(init=False, default_factory=list)
    _seq: int = field(init=False, default=0)
    _server: Any = field(init=False, default=None)
    _task: asyncio.Task[None] | None = field(init=False, default=None)
    _expected: bytes | None = field(init=False, default=None, repr=False)
    _seen_keys: collections.OrderedDict[str, int] = field(init=False, default_factory=collections.OrderedDict)

    def __post_init__(self) -> None:
        if self.keep < 1 or self.max_body < 1:
            raise ValueError("keep and max_body must be positive")
        if self.header_timeout <= 0 or self.body_timeout <= 0:
            raise ValueError("header_timeout and body_timeout must be positive")
        self.deliveries = collections.deque(maxlen=self.keep)
        if self.basic_auth is not None:
            user, password = self.basic_auth
            self._expected = base64.b64encode(f"{user}:{password}".encode()).strip()

    # -- lifecycle ------------------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Requests recorded since the start (the kept ones are the last :attr:`keep` of them)."""
        return self._seq

    @property
    def running(self) -> bool:
        """True between a successful :meth:`start` and :meth:`stop`."""
        return self._task is not None and not self._task.done()

    @property
    def requires_auth(self) -> bool:
        return self._expected is not None

    @property
    def auth_user(self) -> str | None:
        """The username deliveries must present (not secret), or None."""
        return self.basic_auth[0] if self.basic_auth else None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Bind and serve in the background; afterwards :attr:`port` is the real port (also for ``port=0``).

        Raises ``OSError`` when the address cannot be bound (the caller words it for the user).
        """
        import uvicorn

        if self._task is not None:
            return
        sock = _bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.asgi,
            log_level="warning",
            access_log=False,
            lifespan="off",
            interface="asgi3",
            http=_protocol_class(self.header_timeout),
            timeout_keep_alive=min(30.0, self.header_timeout),
        )
        self._server = _server_class()(config)
        self._task = asyncio.get_running_loop().create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                await self._task  # surfaces the startup error
                raise OSError(f"the receiver did not start on {self.url}")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop serving (pending requests are finished); safe to call twice."""
        if self._task is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        self._server = None

    async def __aenter__(self) -> Receiver:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def subscribe(self, maxsize: int | None = None) -> Iterator[Subscription]:
        """A queue of deliveries received from now on (bounded by ``maxsize``, default ``keep``)."""
        sub = Subscription(asyncio.Queue(maxsize=maxsize or self.keep))
        self._subscribers.add(sub)
        try:
            yield sub
        finally:
            self._subscribers.discard(sub)

    def add_listener(self, callback: Callable[[Delivery], None]) -> Callable[[], None]:
        """Call ``callback(delivery)`` for every new delivery, on the receiver's event loop; returns the function
        that removes it. For a UI that must not park a never-ending task on :meth:`subscribe` (a test waiting for
        "all work done" would wait forever). A callback that raises is removed; the receiver goes on."""
        self._listeners.append(callback)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return remove

    # -- HTTP -----------------------------------------------------------------------------------------------

    def _check_auth(self, headers: list[tuple[bytes, bytes]]) -> tuple[str, str | None]:
        """``(verdict, presented username)``: verdict ``ok``/``wrong``/``missing``/``not required``."""
        given = b""
        for name, value in headers:
            if name == b"authorization":
                given = value
        scheme, _, token = given.partition(b" ")
        if scheme.lower() != b"basic":
            token = b""
        user: str | None = None
        with contextlib.suppress(binascii.Error, ValueError):
            decoded = base64.b64decode(token.strip(), validate=True)
            token = base64.b64encode(decoded)
            if b":" in decoded:
                user = decoded.split(b":", 1)[0].decode("utf-8", "replace")
        if self._expected is None:
            return "not required", user
        if not token.strip():
            return "missing", None
        return ("ok" if hmac.compare_digest(token.strip(), self._expected) else "wrong"), user

    async def asgi(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The receiver as an ASGI app (served by uvicorn; tests may also call it through httpx.ASGITransport)."""
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        client = scope.get("client")
        remote = f"{client[0]}:{client[1]}" if client else ""
        if method != "POST":
            await _answer(send, 405, {"error": "POST only"}, [(b"allow", b"POST")])
            return
        auth, auth_user = self._check_auth(scope.get("headers", []))
        if auth in ("missing", "wrong"):
            await _answer(
                send,
                401,
                {"error": "missing or wrong Basic Auth"},
                [(b"www-authenticate", b'Basic realm="tenantdeck listen"')],
            )
            self._record(
                method,
                path,
                401,
                False,
                0,
                None,
                [f"rejected: {auth} Basic Auth (answered 401)"],
                None,
                None,
                remote,
                auth,
                auth_user,
            )
            return
        declared = _declared_length(scope.get("headers", []))
        try:
            if declared is not None and declared > self.max_body:  # said up front: no need to wait for it
                body, size, complete = b"", declared, False
            else:
                body, size, complete = await asyncio.wait_for(_read_body(receive, self.max_body),
                                                              self.body_timeout)
        except TimeoutError:
            seconds = f"{self.body_timeout:g}"
            await _answer(send, 408, {"error": f"the body did not arrive within {seconds} s"}, [_CLOSE])
            self._record(
                method,
                path,
                408,
                True,
                0,
                None,
                [f"the body did not arrive within {seconds} s (answered 408); not kept"],
                None,
                None,
                remote,
                auth,
                auth_user,
            )
            return
        if not complete:
            await _answer(send, 413, {"error": f"payload larger than {self.max_body} bytes"}, [_CLOSE])
            self._record(
                method,
                path,
                413,
                True,
                size,
                None,
                [f"payload larger than {self.max_body} bytes (answered 413); not kept"],
                None,
                None,
                remote,
                auth,
                auth_user,
            )
            return
        # Recorded before the 200 goes out: a sender that read 200 never sends the delivery again, so nothing
        # answered may exist only in flight (the check is a parse and a model validation: milliseconds at most).
        # Whatever the body, it is recorded; a problem found does not change the answer, as the spec asks.
        seen, payload, raw = _check(body)
        self._record(method, path, 200, True, size, seen.trigger, list(seen.problems), payload, raw, remote, auth,
                     auth_user, seen)
        await _answer(send, 200, {"received": True})

    def _record(
        self,
        method: str,
        path: str,
        status: int,
        authorized: bool,
        size: int,
        trigger: str | None,
        problems: list[str],
        payload: Any,
        raw: str | None,
        remote: str,
        auth: str = "not required",
        auth_user: str | None = None,
        seen: Inspection | None = None,
    ) -> None:
        self._seq += 1
        key = seen.idempotency_key if seen is not None else None
        duplicate_of = self._seen_keys.get(key) if key is not None else None
        if key is not None and duplicate_of is None:
            self._seen_keys[key] = self._seq
            if len(self._seen_keys) > SEEN_KEYS:
                self._seen_keys.popitem(last=False)
        delivery = Delivery(
            seq=self._seq,
            received_at=self.clock().astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            method=method,
            path=path,
            status=status,
            authorized=authorized,
            size=size,
            trigger=trigger,
            valid=not problems,
            problems=tuple(problems),
            payload=payload,
            raw=raw,
            remote=remote,
            auth=auth,
            auth_user=auth_user,
            idempotency_key=key,
            duplicate_of=duplicate_of,
            variant=seen.variant if seen is not None else None,
            legacy=seen.legacy if seen is not None else False,
        )
        self.deliveries.append(delivery)
        for sub in list(self._subscribers):
            sub.push(delivery)
        for callback in list(self._listeners):
            try:
                callback(delivery)
            except Exception:  # a listener's bug must not cost the sender its delivery or the others theirs
                self._listeners.remove(callback)


def _check(body: bytes) -> tuple[Inspection, Any, str | None]:
    """``(inspection, payload, raw preview)`` of an answered body; never raises, so a hostile body is kept as an
    invalid delivery instead of vanishing with a traceback after its 200."""
    too_deep_seen = Inspection(None, (too_deep_message(MAX_JSON_DEPTH) + "; not checked",))
    if too_deep(body, MAX_JSON_DEPTH):
        return too_deep_seen, None, _preview(body)
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return Inspection(None, (f"the body is not valid JSON: {exc}",)), None, _preview(body)
    except RecursionError:  # the depth check is exact for JSON; this only guards against a deeper call stack
        return too_deep_seen, None, _preview(body)
    try:
        seen = inspect_delivery(payload)
    except RecursionError:
        return too_deep_seen, None, _preview(body)
    return seen, payload, None


def _preview(body: bytes) -> str:
    return body[:RAW_PREVIEW].decode("utf-8", "replace")


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    sock.listen(BACKLOG)
    sock.setblocking(False)
    return sock


async def _read_body(receive: Any, limit: int) -> tuple[bytes, int, bool]:
    """The body up to ``limit`` bytes: ``(body, bytes seen, complete)``; stops keeping bytes past the limit."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit:
            chunks.append(chunk)
        else:
            chunks = []
            return b"", size, False
        more = message.get("more_body", False)
    return b"".join(chunks), size, True


#: sent with an answer given before the body was read to its end: the connection cannot carry another request
_CLOSE = (b"connection", b"close")


def _declared_length(headers: Any) -> int | None:
    """The ``Content-Length`` a request declares, or None (absent or not a number). A sender that declares more than
    the receiver keeps is answered 413 at once: a trial's lying `99999999999999999999` waited the whole body
    timeout, then got a 408."""
    for name, value in headers or ():
        if bytes(name).lower() == b"content-length":
            text = bytes(value).strip()
            return int(text) if text.isdigit() else None
    return None


async def _answer(
    send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def _server_class() -> Any:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn without its signal handlers: the receiver lives inside someone else's program (CLI, TUI)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer


def _protocol_class(header_timeout: float) -> type[Any]:
    """uvicorn's h11 protocol with a deadline on request headers.

    uvicorn bounds only the idle time between requests (``timeout_keep_alive``, cancelled by the first byte): a
    client that sends a byte every few seconds keeps its connection, and its slot, forever. Here every connection
    gets ``header_timeout`` seconds, from its opening and again after each answer, to complete its request's
    headers; otherwise it is closed. Requests already being answered are not touched (the body has its own
    deadline in :meth:`Receiver.asgi`).
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_timeout, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()  # the headers never completed: nothing to answer

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

    return HeaderDeadline
