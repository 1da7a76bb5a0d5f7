"""Team management against the vendor's OpenAPI: the client's requests match the declared operations, and the
client reads the vendor's own ``example`` answers (loaded from the document at test time, not copied).

Each request is checked for method, path (the declared template, with the app id in its segment), the declared
header parameters, and a JSON body whose field names are all declared request properties, each an array of
strings. The answers are exactly the examples: note the POST example gives ``moderators`` and
``collaboratorsToRemove`` as empty lists and ``admins``/``developers`` as email -> ``{success}`` objects.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from api_helpers import BASE, KEY, SECRET
from vendor_openapi import Examples, example, parameters, request_properties

from tenantdeck.api.client import ManagementClient

pytestmark = pytest.mark.anyio

TEMPLATE = "/apps/{appId}/collaborators"
APP_ID = "app-1 b"  # a space: the id must travel inside its own segment


def vendor_examples() -> Examples:
    return Examples(TEMPLATE, ("GET", "POST"))


def check_request(request: httpx.Request, method: str) -> dict[str, Any] | None:
    """The request conforms to ``METHOD TEMPLATE``; returns its JSON body (None when it has none)."""
    assert request.method == method
    assert request.url.raw_path.decode("ascii") == "/apps/app-1%20b/collaborators"
    for name, param in parameters(method, TEMPLATE, "header").items():
        if param.get("required"):
            assert request.headers.get(name), f"required header {name!r} missing"
    assert request.headers["key"] == KEY and request.headers["secret"] == SECRET
    if not request.content:
        return None
    assert request.headers["content-type"] == "application/json"
    body: dict[str, Any] = json.loads(request.content)
    declared = request_properties(method, TEMPLATE)
    assert set(body) <= set(declared), f"undeclared fields: {sorted(set(body) - set(declared))}"
    for field, value in body.items():
        assert declared[field]["type"] == "array" and declared[field]["items"]["type"] == "string"
        assert isinstance(value, list) and value and all(isinstance(v, str) for v in value), (field, value)
    return body


async def test_update_team_sends_the_declared_body_and_reads_the_example() -> None:
    handler = vendor_examples()
    answer = example("POST", TEMPLATE)
    admins = list(answer["data"]["admins"])  # the example's own emails, so its answer reports them
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        result = await client.update_team(APP_ID, admins=admins)
    [request] = handler.requests
    assert check_request(request, "POST") == {"admins": admins}
    assert result == {"admins": dict.fromkeys(admins, True), "moderators": {}, "collaboratorsToRemove": {}}


async def test_every_list_uses_a_declared_field_name() -> None:
    handler = vendor_examples()
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        result = await client.update_team(APP_ID, admins=["a@x.example"], moderators=["m@x.example"],
                                          remove=["r@x.example"])  # fmt: skip
    [request] = handler.requests
    body = check_request(request, "POST")
    assert body == {"admins": ["a@x.example"], "moderators": ["m@x.example"], "collaboratorsToRemove": ["r@x.example"]}
    assert set(body) == set(request_properties("POST", TEMPLATE))
    # the example does not report these emails (its moderators and removals are empty lists): not done
    assert result == {"admins": {"a@x.example": False}, "moderators": {"m@x.example": False},
                      "collaboratorsToRemove": {"r@x.example": False}}  # fmt: skip


async def test_list_collaborators_reads_the_example() -> None:
    handler = vendor_examples()
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        team = await client.list_collaborators(APP_ID)
    [request] = handler.requests
    assert check_request(request, "GET") is None
    expected = example("GET", TEMPLATE)["data"]
    assert [(m["id"], m["email"], m["role"]) for m in team] == [(e["id"], e["email"], e["role"]) for e in expected]
    assert all(isinstance(m["createdAt"], int) for m in team)
