"""App settings against the vendor's OpenAPI: the client's requests match the declared operations (method, path,
headers, body field names and value types), and the client reads the vendor's own ``example`` answers, loaded from
the document at test time."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from api_helpers import BASE, KEY, SECRET
from vendor_openapi import Examples, example, parameters, request_properties

from tenantdeck.api.client import ManagementClient

pytestmark = pytest.mark.anyio

TEMPLATE = "/apps/{appId}/settings"
APP_ID = "app-1 b"  # a space: the id must travel inside its own segment


def vendor_examples() -> Examples:
    return Examples(TEMPLATE, ("GET", "POST", "DELETE"))


def check_request(request: httpx.Request, method: str) -> dict[str, Any] | None:
    assert request.method == method
    assert request.url.raw_path.decode("ascii") == "/apps/app-1%20b/settings"
    for name, param in parameters(method, TEMPLATE, "header").items():
        if param.get("required"):
            assert request.headers.get(name), f"required header {name!r} missing"
    if not request.content:
        return None
    body: dict[str, Any] = json.loads(request.content)
    declared = request_properties(method, TEMPLATE)
    assert set(body) <= set(declared), f"undeclared fields: {sorted(set(body) - set(declared))}"
    allowed = declared["settings"]["additionalProperties"]["type"]
    assert allowed == "boolean" and all(isinstance(v, bool) for v in body["settings"].values())
    return body


async def test_get_reads_the_example_with_its_list_value() -> None:
    handler = vendor_examples()
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        settings = await client.get_app_settings(APP_ID)
    [request] = handler.requests
    assert check_request(request, "GET") is None
    assert settings == example("GET", TEMPLATE)["data"]
    assert isinstance(settings["core.notifications.push.advanced.included"], list)


async def test_map_sends_the_declared_body_and_reads_the_examples_answer() -> None:
    handler = vendor_examples()
    key = next(iter(example("POST", TEMPLATE)["data"]))  # the example's own key, so its answer reports it
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        result = await client.map_settings(APP_ID, {key: True, "core.threads.updateOnMessageActions": False})
    [request] = handler.requests
    assert check_request(request, "POST") == {"settings": {key: True, "core.threads.updateOnMessageActions": False}}
    assert result == {key: True, "core.threads.updateOnMessageActions": False}  # not in the answer: not done


async def test_unmap_reads_the_examples_answer() -> None:
    handler = vendor_examples()
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        await client.unmap_settings(APP_ID)
    [request] = handler.requests
    assert check_request(request, "DELETE") is None
