"""The vendor's management OpenAPI, read at test time: operations, declared parameters and ``example`` bodies.

Conformance tests answer with the vendor's own examples instead of copies written by hand, so an example that
changes (or a shape a copy got wrong) shows up as a failing test. The document lives outside the repository (the
shared reference, `shared/reference/vendor-openapi/`); ``TENANTDECK_VENDOR_OPENAPI`` names another copy, and
without one the tests that need it are skipped with a reason rather than passing on nothing.
(Unique module name: tests/api is not a package.)
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest

_RELATIVE = Path("shared/reference/vendor-openapi/management-apis-core.json")
_CHECKOUT = Path(__file__).resolve().parents[2]
#: ``../shared`` beside the repository, as CI and the team's checkouts have it
DEFAULT_PATH = _CHECKOUT.parent / _RELATIVE


def _main_checkout(checkout: Path) -> Path | None:
    """The main checkout of a linked ``git worktree`` (whose ``.git`` is a file naming
    ``<main>/.git/worktrees/<name>``), or None. A worktree usually lives elsewhere than its main checkout, so
    without this its ``../shared`` is missing and every conformance test would be skipped, not run."""
    marker = checkout / ".git"
    if not marker.is_file():
        return None
    text = marker.read_text(encoding="utf-8", errors="replace").strip()
    if not text.startswith("gitdir:"):
        return None
    gitdir = (checkout / text.removeprefix("gitdir:").strip()).resolve()
    if gitdir.parent.name != "worktrees":
        return None
    return gitdir.parent.parent.parent  # <main>/.git/worktrees/<name> -> <main>


def document_path() -> Path:
    """``TENANTDECK_VENDOR_OPENAPI`` if set; else ``../shared`` beside this checkout, or beside the main checkout
    when this one is a linked worktree."""
    if "TENANTDECK_VENDOR_OPENAPI" in os.environ:
        return Path(os.environ["TENANTDECK_VENDOR_OPENAPI"])
    main = _main_checkout(_CHECKOUT)
    if not DEFAULT_PATH.is_file() and main is not None and (main.parent / _RELATIVE).is_file():
        return main.parent / _RELATIVE
    return DEFAULT_PATH


@cache
def _load(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def document() -> dict[str, Any]:
    """The parsed document; skips the calling test when no copy is reachable."""
    path = document_path()
    if not path.is_file():
        pytest.skip(f"the vendor OpenAPI is not at {path} (set TENANTDECK_VENDOR_OPENAPI)")
    return _load(path)


def extensions_path() -> Path:
    """The second subset (extension settings, push certificates), kept beside the core one."""
    return document_path().with_name("management-apis-extensions.json")


def extensions_document() -> dict[str, Any]:
    """The parsed extensions subset; skips the calling test when no copy is reachable."""
    path = extensions_path()
    if not path.is_file():
        pytest.skip(f"the vendor's extensions OpenAPI is not at {path} (set TENANTDECK_VENDOR_OPENAPI)")
    return _load(path)


def resolve_in(doc: dict[str, Any], node: Any) -> Any:
    """``node`` with its ``$ref`` (a ``#/...`` pointer into ``doc``) followed; anything else as it is."""
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target: Any = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return target
    return node


def operation(method: str, template: str) -> dict[str, Any]:
    """The operation object of ``METHOD template`` (``template`` as the document writes it)."""
    op: dict[str, Any] = document()["paths"][template][method.lower()]
    return op


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    return dict(resolve_in(document(), node))


def parameters(method: str, template: str, where: str) -> dict[str, dict[str, Any]]:
    """Declared parameters of one kind (``header``, ``path``, ``query``), by name, ``$ref`` resolved."""
    out = {}
    for raw in operation(method, template).get("parameters", []):
        param = _resolve(raw)
        if param.get("in") == where:
            out[str(param["name"])] = param
    return out


def request_properties(method: str, template: str) -> dict[str, dict[str, Any]]:
    """The JSON request body's declared properties (empty when the operation declares no body)."""
    body = operation(method, template).get("requestBody", {})
    schema = body.get("content", {}).get("application/json", {}).get("schema", {})
    props: dict[str, dict[str, Any]] = _resolve(schema).get("properties", {})
    return props


def example(method: str, template: str, status: str = "200") -> Any:
    """The response ``example`` of ``METHOD template`` for ``status``, as the document gives it."""
    content = operation(method, template)["responses"][status]["content"]["application/json"]
    return content["example"]


def path_pattern(template: str) -> re.Pattern[str]:
    """``/apps/{appId}/x`` -> a pattern matching a concrete (percent-encoded) path, one segment per parameter."""
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$")


class Examples:
    """An ``httpx.MockTransport`` handler answering each declared operation of one path template with the
    document's own example, and recording every request (conformance tests check them)."""

    def __init__(self, template: str, methods: tuple[str, ...]) -> None:
        self.template, self.methods = template, methods
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.raw_path.decode("ascii").split("?", 1)[0]
        assert path_pattern(self.template).match(path), f"{request.method} {path} is not {self.template}"
        assert request.method in self.methods, f"{request.method} is not declared on {self.template}"
        return httpx.Response(200, json=example(request.method, self.template))
