"""The client's extension-settings and push-certificate calls against the vendor's OpenAPI: every request matches
a declared operation (method, path with the app id in its own segment, the declared body fields), and every answer
the client reads is the vendor's own ``example`` for that operation (loaded from the document at test time).

The requests are built from the catalog (each field's sample value), not from the examples, so a field name the
catalog got wrong is a failing test. Two readings were needed (``docs/real-service.md`` §8): stickers' request schema
has no ``settings`` wrapper (facts §3.3's generic ``{"settings": {...}}`` is followed, and its fields are checked
against the schema's top level), and the certificate examples look swapped (the query's example reports no
certificate, so the client reads "none present" from it, never "present").
"""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest
from api_helpers import BASE, KEY, SECRET
from vendor_openapi import extensions_document, path_pattern, resolve_in

from tenantdeck.api.client import ManagementClient
from tenantdeck.models.extension_catalog import BY_ID, Setting, sample_value

pytestmark = pytest.mark.anyio

APP_ID = "app-1 b"  # a space: the id must travel inside its own segment
SETTINGS = "/apps/{appId}/extensions/%s/v1/settings"


def document() -> dict[str, Any]:
    return extensions_document()


def _resolve(node: Any) -> Any:
    return resolve_in(extensions_document(), node)


def operation(method: str, template: str) -> dict[str, Any]:
    op: dict[str, Any] = document()["paths"][template][method.lower()]
    return op


def example(method: str, template: str) -> Any:
    """The operation's 200 example: its ``example``, or the first of its ``examples`` (push-notification's are
    references to ``components.examples``)."""
    content = operation(method, template)["responses"]["200"]["content"]["application/json"]
    if "example" in content:
        return copy.deepcopy(content["example"])
    if content.get("examples"):
        return copy.deepcopy(_resolve(next(iter(content["examples"].values())))["value"])
    return None


def declared_settings(method: str, template: str) -> set[str]:
    """The request's declared fields of ``settings``: its properties and its ``required`` list (email-notification
    requires two fields it does not describe)."""
    schema = _resolve(operation(method, template)["requestBody"]["content"]["application/json"]["schema"])
    wrapped = schema.get("properties", {}).get("settings")
    node = _resolve(wrapped) if wrapped else schema
    return set(node.get("properties", {})) | set(node.get("required", []))


def documented() -> list[str]:
    """The extensions whose settings path the vendor's document declares (and the catalog describes)."""
    return sorted(t.split("/")[4] for t in document()["paths"] if t.endswith("/v1/settings") and t.split("/")[4]
                  in BY_ID)


class Vendor:
    """Answers each request with the document's example of its operation, recording the requests."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.raw_path.decode("ascii")
        assert path_pattern(self.template).match(path), f"{request.method} {path} is not {self.template}"
        assert "/app-1%20b/" in path
        answer = example(request.method, self.template)
        assert answer is not None, f"no example for {request.method} {self.template}"
        return httpx.Response(200, json=answer)


def sample(ext: str) -> dict[str, Any]:
    """Every field of the extension's settings with a value of its type (the catalog's sample)."""

    def one(setting: Setting) -> Any:
        if setting.type == "object":
            return {f.key: one(f) for f in setting.fields}
        if setting.type == "objects":
            return [{f.key: one(f) for f in setting.fields}]
        value = sample_value(setting)
        return value or ("x" if setting.type == "string" else value)

    return {s.key: one(s) for s in BY_ID[ext].settings}


def test_the_document_declares_the_extensions_the_issue_names() -> None:
    assert {"profanity-filter", "data-masking", "push-notification", "email-notification", "e2ee", "stickers",
            "report-user", "report-message", "gifs-giphy"} <= set(documented())


@pytest.mark.parametrize("ext", ["profanity-filter", "data-masking", "push-notification", "email-notification",
                                 "e2ee", "stickers", "report-user", "report-message", "gifs-giphy"])
async def test_store_update_get_delete_match_the_declared_operations(ext: str) -> None:
    template = SETTINGS % ext
    declared = {m.upper() for m in document()["paths"][template] if m in ("get", "post", "put", "delete")}
    handler = Vendor(template)
    body = sample(ext)
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        await client.store_extension_settings(APP_ID, ext, body)
        if "PUT" in declared:
            await client.update_extension_settings(APP_ID, ext, body)
        got = await client.get_extension_settings(APP_ID, ext) if example("GET", template) is not None else None
        await client.delete_extension_settings(APP_ID, ext)
    methods = [r.method for r in handler.requests]
    assert set(methods) <= declared, f"undeclared: {set(methods) - declared}"
    assert methods[0] == BY_ID[ext].store  # stickers and data-masking store with PUT: they declare no POST
    for request in handler.requests:
        if request.method in ("POST", "PUT"):
            assert request.headers["content-type"] == "application/json"
            sent = json.loads(request.content)
            assert set(sent) == {"settings"}
            fields = declared_settings(request.method, template)
            extra = set(sent["settings"]) - fields
            assert not extra, f"{ext}: fields the document does not declare: {sorted(extra)}"
    if got is not None:
        doc = example("GET", template)
        answer = doc["data"]["body"]["data"]["settings"] if "data" in doc else doc["settings"]  # push: bare
        expected = {k: v for k, v in answer.items() if k != "appId"}
        for setting in BY_ID[ext].settings:  # the GET may report a field under another name (stickers)
            if setting.reported_as and setting.reported_as in expected:
                expected[setting.key] = expected.pop(setting.reported_as)
        assert got == expected


async def test_every_secret_the_vendor_reports_is_read_in_clear_for_fingerprinting() -> None:
    """The GET examples report secrets in clear (Giphy's key, e2ee's app key, email's passwords): the client hands
    them to the sync engine, which fingerprints them at once (tests/sync/test_extension_settings.py)."""
    handler = Vendor(SETTINGS % "gifs-giphy")
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        got = await client.get_extension_settings(APP_ID, "gifs-giphy")
    assert got == {"giphyApiKey": example("GET", SETTINGS % "gifs-giphy")["data"]["body"]["data"]["settings"][
        "giphyApiKey"]}


@pytest.mark.parametrize("kind", ["p12", "p8"])
async def test_a_certificate_upload_is_the_declared_multipart_field(kind: str) -> None:
    template = f"/apps/{{appId}}/extensions/push-notification/v1/upload-certificate-{kind}"
    schema = operation("POST", template)["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert schema["required"] == ["certificate"]
    handler = Vendor(template)
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        await client.upload_certificate(APP_ID, kind, f"acme.{kind}", b"0\x82certificate-bytes")
    [request] = handler.requests
    assert request.method == "POST" and request.headers["content-type"].startswith("multipart/form-data; boundary=")
    content = request.read()
    assert b'name="certificate"; filename="acme.' + kind.encode() + b'"' in content
    assert b"0\x82certificate-bytes" in content


async def test_the_query_example_is_read_as_no_certificate_present() -> None:
    template = "/apps/{appId}/extensions/push-notification/v1/query-certificates"
    handler = Vendor(template)
    async with ManagementClient(BASE, KEY, SECRET, transport=httpx.MockTransport(handler)) as client:
        assert await client.query_certificates(APP_ID) == {"p12": False, "p8": False}
    [request] = handler.requests
    assert request.method == "GET" and not request.content
