"""Helpers for the client tests: a scripted MockTransport and a sleep that records instead of waiting.

(Unique module name: tests/api is not a package, like tests/sandbox.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from tenantdeck.api.client import ManagementClient

KEY = "test-key-0123456789"
SECRET = "test-secret-abcdefghij"
BASE = "https://mgmt.example.test"

Responder = Callable[[httpx.Request], httpx.Response]


def ok(data: Any, meta: Any = None, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    doc: dict[str, Any] = {"data": data}
    if meta is not None:
        doc["meta"] = meta
    return httpx.Response(status, json=doc, headers=headers)


def err(status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
        ) -> httpx.Response:
    inner: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        inner["details"] = details
    return httpx.Response(status, json={"error": inner}, headers=headers)


def proxied(body: Any) -> dict[str, Any]:
    """The extension-proxy envelope's ``data`` (statusCode/success/responseTime/body)."""
    return {"statusCode": 200, "success": True, "responseTime": 0.0421, "body": body}


def pagination(current: int, total_pages: int, total: int, per_page: int) -> dict[str, Any]:
    return {"pagination": {"total": total, "count": per_page, "per_page": per_page, "current_page": current,
                           "total_pages": total_pages, "links": {}}}


def _raw_path(request: httpx.Request) -> str:
    """The path as sent (still percent-encoded), so tests can check escaping."""
    return request.url.raw_path.decode("ascii").split("?", 1)[0]


class Script:
    """A MockTransport handler answering from a list of steps, recording every request.

    Each step is a Response, an exception to raise, or a callable(request) -> Response. A route-keyed dict of
    steps lets tests script different endpoints independently: keys are ``"METHOD /path"``.
    """

    def __init__(self, routes: dict[str, list[Any]]) -> None:
        self.routes = {k: list(v) for k, v in routes.items()}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        route = f"{request.method} {_raw_path(request)}"
        steps = self.routes.get(route)
        if not steps:
            raise AssertionError(f"unexpected request {route} (scripted: {sorted(self.routes)})")
        step = steps.pop(0) if len(steps) > 1 else steps[0]
        if isinstance(step, BaseException):
            raise step
        if callable(step) and not isinstance(step, httpx.Response):
            return step(request)
        assert isinstance(step, httpx.Response)
        return step

    def calls(self, route: str) -> list[httpx.Request]:
        method, path = route.split(" ", 1)
        return [r for r in self.requests if r.method == method and _raw_path(r) == path]

    @staticmethod
    def body(request: httpx.Request) -> Any:
        return json.loads(request.content) if request.content else None


class Sleeps:
    """An injectable ``sleep`` that records delays and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_client(script: Script, sleeps: Sleeps | None = None, **kw: Any) -> ManagementClient:
    kw.setdefault("retry_base_delay", 0.01)
    return ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(script), sleep=sleeps or Sleeps(), **kw)
