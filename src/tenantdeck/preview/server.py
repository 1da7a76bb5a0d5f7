"""The preview server: the page of :mod:`.page` for one app of an open draft, on loopback, behind a random token,
pushing every change of the draft to open pages as server-sent events.

It follows a :class:`~tenantdeck.draft.session.DraftSession`: the session's change broadcast (every edit, undo,
save and reload, so also a save by another editor once the draft watcher has reloaded it) wakes the server, which
renders the widget again and sends it to each page whose widget changed. It runs uvicorn (the stack of the
sandbox and of ``tenantdeck listen``) on its own thread and event loop: the editor's loop never waits for a page,
and a page never waits for the editor's next frame. The broadcast's listener only schedules that wake-up; the
server reads the draft through :meth:`DraftSession.get` (under the session's lock, a copy of one app).

Who may read it: the server binds loopback only (an admin on SSH forwards the port), answers only under
``/<token>/`` (a random 32-character token compared in constant time; any other path, ``/`` included, is 403:
a page that guesses learns nothing from a 404 it could tell apart) and only to a ``Host`` that names loopback
(a DNS-rebinding page cannot ask it). Every answer forbids caching and referrers (the token is in the URL).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Final

from tenantdeck.hosts import is_loopback_host
from tenantdeck.preview import page
from tenantdeck.preview.model import AppRef, WidgetPreview, widget_preview

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from tenantdeck.draft.session import Change, DraftSession

DEFAULT_HOST: Final = "127.0.0.1"
#: a comment line this often keeps a page's connection alive through proxies and SSH forwards
HEARTBEAT_SECONDS: Final = 15.0
#: how soon a page's EventSource tries again after the connection dropped (ms)
RETRY_MS: Final = 500


class PreviewServer:
    """See the module docstring. :meth:`start` and :meth:`stop` may be called from any thread."""

    def __init__(self, session: DraftSession, ref: AppRef, *, host: str = DEFAULT_HOST, port: int = 0,
                 allow_network: bool = False, token: str | None = None) -> None:
        if not is_loopback_host(host):
            raise ValueError(f"the preview serves loopback only, not {host!r}")
        self.session = session
        self.ref = ref
        self.host = host
        self.port = port
        self.allow_network = allow_network
        self.token = token or secrets.token_urlsafe(24)
        self.version = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tick: asyncio.Event | None = None
        self._closing: asyncio.Event | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._last_good: dict[int, WidgetPreview] = {}
        #: a field being typed in the editor and not yet written to the draft (parts of its path, its text)
        self._typing: tuple[tuple[str | int, ...], str] | None = None

    # -- lifecycle ----------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/{self.token}/"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Bind (``OSError`` when the port is taken) and serve on a thread of its own; returns once it accepts."""
        from tenantdeck.receiver import _bind

        if self.running:
            return
        sock = _bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, args=(sock, ready, failed), name="preview-server",
                                        daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed or not ready.is_set():
            self.stop()
            raise OSError(f"the preview server did not start on {self.url}: {failed[0] if failed else 'timeout'}")
        self._unsubscribe = self.session.subscribe(self._changed)

    def stop(self) -> None:
        """Close every page's stream and stop serving; safe to call twice, from any thread."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(self._shutdown)
            thread.join(10)
        self._thread = None

    def _run(self, sock: Any, ready: threading.Event, failed: list[BaseException]) -> None:
        import uvicorn

        from tenantdeck.receiver import _server_class

        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._tick = asyncio.Event()
        self._closing = asyncio.Event()
        config = uvicorn.Config(self.asgi(), log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=2)
        self._server = _server_class()(config)

        async def serve() -> None:
            task = asyncio.create_task(self._server.serve(sockets=[sock]))
            while not self._server.started and not task.done():
                await asyncio.sleep(0.005)
            ready.set()
            await task

        try:
            loop.run_until_complete(serve())
        except BaseException as exc:  # reported by start(); the thread must end quietly
            failed.append(exc)
            ready.set()
        finally:
            sock.close()
            loop.close()

    def _shutdown(self) -> None:
        if self._closing is not None:
            self._closing.set()
        if self._server is not None:
            self._server.should_exit = True

    # -- following the draft --------------------------------------------------------------------------------------

    def _changed(self, change: Change | None = None) -> None:
        """The session's listener (any thread, under the session's lock): only wake the server's loop."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._bump)

    def _bump(self) -> None:
        self.version += 1
        if self._tick is not None:
            old, self._tick = self._tick, asyncio.Event()
            old.set()

    def follow(self, ref: AppRef) -> None:
        """Show another app (the editor's App screen that asked); open pages follow."""
        self.ref = ref
        self._changed()

    def typing(self, path: tuple[str | int, ...] | None, text: str = "") -> None:
        """Show ``text`` at ``path`` (a draft path's parts) over the draft while it is typed and not yet written
        (the editor writes a code field's text when the field is left: one visit, one undo step); None when it is
        written or abandoned. Only the page sees it: the draft is never changed here."""
        self._typing = None if path is None else (tuple(path), text)
        self._changed()

    def set_allow_network(self, allow: bool) -> None:
        """Let the page load the draft's images (or stop it); open pages load again under the new policy."""
        self.allow_network = allow
        self._last_good.clear()
        self._changed()

    def preview(self, widget: int) -> WidgetPreview:
        """The widget as the draft has it now; while the draft cannot be read, the last version that could, with
        a note saying so."""
        session = self.session
        if session.read_only or session.data is None:
            last = self._last_good.get(widget)
            why = session.problems[0].render() if session.problems else "the draft cannot be read"
            note = f"the draft cannot be read ({why}): showing the last version that could"
            if last is None:
                return widget_preview(None, self.ref, widget, allow_network=self.allow_network)
            return dataclasses.replace(last, notes=(note, *last.notes))
        result = widget_preview(self._data(), self.ref, widget, allow_network=self.allow_network)
        self._last_good[widget] = result
        return result

    def _data(self) -> dict[str, Any]:
        """The part of the draft one page needs (the followed app, the presets), copied under the session's lock:
        a 5,000-app draft is not copied whole for each render."""
        session, ref = self.session, self.ref
        if ref.name is None:  # by index: no need to look at the other apps
            index: int | None = ref.index or 0
        else:
            index = ref.find([{"name": r.name} for r in session.app_rows()])
        app = session.get(f"apps[{index}]", None) if index is not None else None
        apps: list[Any] = [{}] * index + [app] if index is not None and app is not None else []
        data = {"apps": apps, "presets": session.get("presets", None)}
        if self._typing is not None:
            _overlay(data, *self._typing)
        return data

    # -- HTTP ------------------------------------------------------------------------------------------------------

    def asgi(self) -> Any:
        """The server's ASGI app (uvicorn serves it; tests may call it through ``httpx.ASGITransport``)."""
        from starlette.applications import Starlette
        from starlette.routing import Route

        return Starlette(routes=[Route("/{token}/", self._page), Route("/{token}/events", self._events),
                                 Route("/{rest:path}", self._elsewhere)])

    def _refused(self, request: Request) -> Response | None:
        from starlette.responses import PlainTextResponse

        if not is_loopback_host(request.url.hostname):
            return PlainTextResponse("the preview answers on loopback only", 403)
        given = request.path_params.get("token", "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return PlainTextResponse("wrong or missing token: use the URL tenantdeck printed", 403)
        return None

    async def _elsewhere(self, request: Request) -> Response:
        """Any other path, the root included: 403, as docs/preview.md says, unless the token is right (then the
        page simply has no such path: 404). A trial found ``GET /`` answering 404 where the doc promised 403."""
        from starlette.responses import PlainTextResponse

        token, _, _ = request.path_params.get("rest", "").partition("/")
        request.path_params["token"] = token
        refused = self._refused(request)
        return refused if refused is not None else PlainTextResponse("no such page", 404, headers=self._headers())

    def _headers(self) -> dict[str, str]:
        return {"content-security-policy": page.content_security_policy(self.allow_network),
                "cache-control": "no-store", "referrer-policy": "no-referrer", "x-content-type-options": "nosniff",
                "x-frame-options": "DENY"}

    async def _page(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        refused = self._refused(request)
        if refused is not None:
            return refused
        body = page.page(self.preview(_widget_of(request)), self.version, self.allow_network)
        return HTMLResponse(body, headers=self._headers())

    async def _events(self, request: Request) -> Response:
        from starlette.responses import StreamingResponse

        refused = self._refused(request)
        if refused is not None:
            return refused
        headers = {**self._headers(), "x-accel-buffering": "no"}
        return StreamingResponse(self._stream(_widget_of(request)), media_type="text/event-stream",
                                 headers=headers)

    async def _stream(self, widget: int) -> AsyncIterator[bytes]:
        """An update now (the page may be older than the draft), then one after each change that alters it."""
        assert self._tick is not None and self._closing is not None
        yield f"retry: {RETRY_MS}\n\n".encode()
        last: str | None = None
        closing, network = self._closing, self.allow_network
        while not closing.is_set():
            if self.allow_network != network:  # the page's policy says otherwise: it loads again
                yield page.event({"reload": True})
                return
            tick, version = self._tick, self.version
            payload = page.update(self.preview(widget), version, self.allow_network)
            same = _without_version(payload)
            if same != last:
                last = same
                yield page.event(payload)
            if not await _either(tick, closing, HEARTBEAT_SECONDS):
                yield b": heartbeat\n\n"


async def _either(first: asyncio.Event, second: asyncio.Event, timeout: float) -> bool:
    """Wait until either event is set (True) or ``timeout`` passes (False); leaves no task behind."""
    waiters = {asyncio.ensure_future(first.wait()), asyncio.ensure_future(second.wait())}
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        return bool(done)
    finally:
        for waiter in waiters:
            waiter.cancel()


def _widget_of(request: Request) -> int:
    value = request.query_params.get("widget", "0")
    return int(value) if value.isdigit() and len(value) < 6 else 0


def _without_version(payload: dict[str, Any]) -> str:
    import json

    return json.dumps({k: v for k, v in payload.items() if k != "version"}, sort_keys=True)


def _overlay(data: dict[str, Any], parts: tuple[str | int, ...], text: str) -> None:
    """Put ``text`` at ``parts`` in ``data`` (the page's copy), creating missing mappings on the way as a write
    would; nothing when the path goes through something else (another app, a list index out of range, a scalar)."""
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(part, int):
            if not isinstance(node, list) or not 0 <= part < len(node) or last:
                return
            node = node[part]
        elif isinstance(node, dict):
            if last:
                node[part] = text
                return
            if node.get(part) is None:
                node[part] = {}
            node = node[part]
        else:
            return
