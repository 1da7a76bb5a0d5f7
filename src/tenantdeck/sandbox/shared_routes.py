"""Routes analysed once per process and shared by every sandbox app built in it.

FastAPI analyses an included route (its parameters, body and response models become pydantic ``TypeAdapter`` s)
per app: ``include_router`` on a new app gives it new, unanalysed route objects, and FastAPI 0.165 builds them on the
first request that walks past them. For the ~150 routes of the management and chat APIs that was ~150 ms of CPU for
every new sandbox (measured: ``create_app`` + one unmatched request, 145-164 ms; the suite builds several hundred
sandboxes, and a cProfile of the non-TUI tests put 350 of 1,000 profiled seconds there). The analysis depends only on
the routers and the include's options, never on an app's state: handlers find their store on ``request.app.state``,
``request.app`` being the app called. So the routes are included once into a host app, and each sandbox app gets
the same (already analysed) route objects appended to its own router; its state, middleware, exception handlers
and lifespan stay its own.
"""

from __future__ import annotations

import threading

from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute

_LOCK = threading.Lock()
#: routers (by identity: an APIRouter is not hashable) -> the routes an app including them gets
_SHARED: dict[tuple[int, ...], tuple[tuple[APIRouter, ...], tuple[BaseRoute, ...]]] = {}


def include_shared(app: FastAPI, *routers: APIRouter) -> None:
    """``app.include_router(router)`` for each of ``routers``, in order, with routes analysed once per process."""
    key = tuple(id(router) for router in routers)
    with _LOCK:  # two sandboxes started in two threads build the host once
        if key not in _SHARED:
            _SHARED[key] = (routers, _included(routers))  # the routers kept alive: their ids stay theirs
        routes = _SHARED[key][1]
    app.router.routes.extend(routes)


def _included(routers: tuple[APIRouter, ...]) -> tuple[BaseRoute, ...]:
    """What ``include_router`` adds to an app for ``routers``: taken from a host app that includes them."""
    host = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    before = len(host.router.routes)
    for router in routers:
        host.include_router(router)
    return tuple(host.router.routes[before:])
