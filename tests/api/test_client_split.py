"""The client is a transport with resource groups on it (issue 35), and stays so.

:mod:`tenantdeck.api.transport` sends requests (retries, limits, redaction, paging, create-then-confirm); each
module of :mod:`tenantdeck.api.resources` knows one group's paths and answers and reaches the network only
through the transport's ``_call``, ``_paged`` and ``_create``. A group that imported httpx or used the connection
itself would skip the retries, the limiter or the redaction that every other call gets.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import tenantdeck.api.resources as resources
import tenantdeck.api.transport as transport
from tenantdeck.api.client import ManagementClient
from tenantdeck.api.transport import Transport

GROUPS = Path(resources.__file__).parent
#: what a group may use of the transport: one call, every page of a list, a create that looks before it resends
THROUGH = frozenset({"_call", "_paged", "_create"})
#: what only the transport may import: the HTTP library and the rules it applies to every request
BELOW = ("httpx", "tenantdeck.api.ratelimit", "tenantdeck.api.retry", "tenantdeck.api.redact")
#: the transport's own public names: the connection's lifecycle and limits, no resource
TRANSPORT_PUBLIC = {"aclose", "limits"}


def transport_members() -> set[str]:
    """The transport's methods and properties, and every attribute it sets on ``self``."""
    names = {name for name in vars(Transport) if not name.startswith("__")}
    for node in ast.walk(ast.parse(Path(transport.__file__).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return names


def breaches(source: str) -> list[str]:
    """Where a group's source goes around the transport: an import of what only it may use, or a use of one of
    its members other than :data:`THROUGH` (``self._http``, ``self._send_once``, ``self._limiter``, ...)."""
    bypass = transport_members() - THROUGH
    found = []
    for node in ast.walk(ast.parse(source)):
        modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                   else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        found += [f"line {node.lineno}: imports {name}" for name in modules
                  if any(name == below or name.startswith(below + ".") for below in BELOW)]
        if isinstance(node, ast.Attribute) and node.attr in bypass and \
                isinstance(node.value, ast.Name) and node.value.id == "self":
            found.append(f"line {node.lineno}: uses the transport's {node.attr}")
    return sorted(found)


def group_modules() -> list[str]:
    return sorted(f"tenantdeck.api.resources.{path.stem}" for path in GROUPS.glob("*.py") if path.stem != "__init__")


def test_no_group_goes_around_the_transport() -> None:
    found = {name: breaches(Path(importlib.import_module(name).__file__ or "").read_text(encoding="utf-8"))
             for name in group_modules()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_check_sees_a_group_that_goes_around_the_transport() -> None:
    source = ("import httpx\nfrom tenantdeck.api.retry import RetryPolicy\n\n\nclass Rogue:\n"
              "    async def get(self):\n        await self._call(op, 'GET', '/x')\n"
              "        return await self._http.get('/x'), self._limiter\n")
    assert breaches(source) == ["line 1: imports httpx", "line 2: imports tenantdeck.api.retry",
                                "line 8: uses the transport's _http", "line 8: uses the transport's _limiter"]


def test_every_resource_call_comes_from_a_group_and_the_client_only_composes() -> None:
    """Each public method of the client is defined in a group module; the transport has no resource call, and
    client.py adds nothing of its own (so a call cannot be written where the groups would not find it)."""
    owners: dict[str, str] = {}
    for name, _ in inspect.getmembers(ManagementClient):
        if not name.startswith("_"):
            owner = next(cls for cls in ManagementClient.__mro__ if name in vars(cls))
            owners[name] = owner.__module__
    assert {name for name, module in owners.items() if module == transport.__name__} == TRANSPORT_PUBLIC
    strays = {name: module for name, module in owners.items()
              if name not in TRANSPORT_PUBLIC and not module.startswith(resources.__name__ + ".")}
    assert strays == {}
    assert [name for name, value in vars(ManagementClient).items() if callable(value) or isinstance(value, property)
            ] == []
    assert "list_apps" in owners and "update_team" in owners and "ping" in owners  # the walk sees the groups


def test_every_group_is_on_the_client() -> None:
    """A group module whose class the client does not compose would be calls nobody can reach."""
    groups = [cls for name in group_modules() for cls in vars(importlib.import_module(name)).values()
              if isinstance(cls, type) and issubclass(cls, Transport) and cls is not Transport
              and cls.__module__ == name]
    assert len(groups) >= 9
    assert [cls.__qualname__ for cls in groups if cls not in ManagementClient.__mro__] == []
