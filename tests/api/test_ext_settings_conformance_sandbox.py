"""The sandbox against the vendor's OpenAPI for extension settings and push certificates: the vendor's own example
request bodies are sent to the sandbox, and each answer must have the key paths and JSON types of the vendor's
example answer for that operation. Every operation the document declares must exist in the sandbox with the same
operationId and request content type.

The document is ``management-apis-extensions.json`` beside the core one :mod:`vendor_openapi` finds; without it
the tests skip with a reason. Where the vendor's examples cannot be taken literally, :data:`ADAPTED` and
:data:`KNOWN` say exactly what differs and why (``docs/real-service.md`` §8); nothing else may.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from vendor_openapi import extensions_document, extensions_path, resolve_in

from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, create_app

pytestmark = pytest.mark.anyio

AUTH = {"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}


def document() -> dict[str, Any]:
    return extensions_document()


def resolve(node: Any) -> Any:
    return resolve_in(extensions_document(), node)


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, template, operation) of every extension operation the document declares (the deprecated
    moderation list is not one)."""
    return [
        (method.upper(), template, op)
        for template, item in document()["paths"].items() if "/extensions/" in template
        for method, op in item.items() if isinstance(op, dict) and "operationId" in op
    ]  # fmt: skip


def _example_of(content: dict[str, Any]) -> Any:
    if "example" in content:
        return copy.deepcopy(content["example"])
    first = next(iter(content["examples"].values()))
    return copy.deepcopy(resolve(first)["value"])


def request_example(op: dict[str, Any]) -> dict[str, Any]:
    """The operation's example request body: its ``example``/``examples`` where it has one (push), else the
    ``default`` each property of its request schema gives (the way the vendor's document shows values)."""
    content = op["requestBody"]["content"]["application/json"]
    if "example" in content or "examples" in content:
        body: dict[str, Any] = _example_of(content)
        return body
    props = resolve(content["schema"])["properties"]
    inner = resolve(props["settings"])["properties"] if "settings" in props else props
    return {"settings": {key: copy.deepcopy(prop["default"]) for key, prop in inner.items() if "default" in prop}}


def response_example(op: dict[str, Any]) -> Any:
    return _example_of(op["responses"]["200"]["content"]["application/json"])


#: How a vendor example is adapted before use, by operationId, and why. Nothing else is changed.
def _stickers_request(body: dict[str, Any]) -> dict[str, Any]:
    # stickersRequestSchema has no `settings` level (facts §3.3: the schema is a copy-paste), so its properties
    # are the settings; its custom sticker's id "" is sent as it is (a new sticker: the catalog does not require one)
    return body


def _email_request(body: dict[str, Any]) -> dict[str, Any]:
    # emailNotificationRequestSchema lists sendEmailReplies as required but declares no such property, so it has
    # no default to take; the catalog's default (false, facts §3.3: the email-replies extension's field) is added
    body["settings"].setdefault("sendEmailReplies", False)
    return body


def _enveloped(example: Any) -> Any:
    # the push settings examples (components.examples) are the bare `{settings: {...}}` value with no envelope;
    # facts §3.3's pattern, which every other example follows, puts it at data.body.data
    return {"data": {"statusCode": 200, "success": True, "responseTime": 0.1, "body": {"data": example}}}


ADAPT_REQUEST = {
    "update-settings-stickers": _stickers_request,
    "store-settings-email-notification": _email_request,
    "update-settings-email-notification": _email_request,
}
ADAPT_RESPONSE = {
    "store-settings-push-notification": _enveloped,
    "update-settings-push-notification": _enveloped,
    "get-settings-push-notification": _enveloped,
}

#: (operationId, key path) -> why the sandbox's answer differs from the vendor's example there.
KNOWN: dict[tuple[str, str], str] = {
    ("store-settings-push-notification", "data.body.data.settings.appId"):
        "the store/update example is the request example reused, appId and all; no other store example has appId",
    ("update-settings-push-notification", "data.body.data.settings.appId"):
        "the store/update example is the request example reused, appId and all; no other store example has appId",
    **{(f"{verb}-settings-email-notification", "data.body.data.settings.sendEmailReplies"):
       "sent because the request schema requires it (see _email_request); the examples predate the field"
       for verb in ("store", "update", "get")},
    ("get-settings-email-notification", "data.body.data.settings.appId"):
        "every other GET example reports appId (facts §3.3); the email one leaves it out",
    ("get-settings-stickers", "data.body.data.settings.dropMessage"):
        "the GET example reports data-masking's dropMessage, which no stickers request can carry (a copy-paste)",
    ("get-settings-stickers", "data.body.data.settings.defaultMasterStickersData[].stickerOrder"):
        "the request example sends stickerOrder as \"\", the GET example as a number; the sandbox reports what "
        "was sent",
    ("upload-push-notification-certificate-p12", "data.body.success"):
        "the two upload examples differ (p12 reports the certificates, p8 success); the sandbox answers both",
    ("upload-push-notification-certificate-p8", "data.body.certificate_p12"):
        "the two upload examples differ (p12 reports the certificates, p8 success); the sandbox answers both",
    ("upload-push-notification-certificate-p8", "data.body.certificate_p8"):
        "the two upload examples differ (p12 reports the certificates, p8 success); the sandbox answers both",
    ("query-push-notification-certificates", "data.body.certificate_p12"):
        "facts §2: the query reports body{certificate_p12, certificate_p8}; its example looks swapped with the "
        "p12 upload's",
    ("query-push-notification-certificates", "data.body.certificate_p8"):
        "facts §2: the query reports body{certificate_p12, certificate_p8}; its example looks swapped with the "
        "p12 upload's",
}


def shape(node: Any, path: str = "") -> dict[str, str]:
    """Key path -> JSON type. A list's items are ``path[]`` (all items merged); an empty list is ``array`` with
    no item paths, so it matches any items. ``appId`` is an ``id``: int or string (facts §3.1)."""
    out: dict[str, str] = {}
    if isinstance(node, dict):
        out[path] = "object"
        for key, value in node.items():
            out.update(shape(value, f"{path}.{key}" if path else key))
    elif isinstance(node, list):
        out[path] = "array"
        for item in node:
            out.update(shape(item, f"{path}[]"))
    elif isinstance(node, bool):
        out[path] = "boolean"
    elif isinstance(node, int | float):
        out[path] = "number"
    elif isinstance(node, str):
        out[path] = "string"
    else:
        out[path] = "null"
    if path == "appId" or path.endswith(".appId"):
        out[path] = "id"
    return out


def differences(op_id: str, ours: Any, theirs: Any) -> list[str]:
    """What differs between the sandbox's answer and the example, less the :data:`KNOWN` differences."""
    mine, example = shape(ours), shape(theirs)
    empty_lists = [p for p, t in example.items() if t == "array" and f"{p}[]" not in example]
    problems = []
    for path in sorted(mine.keys() | example.keys()):
        if (op_id, path) in KNOWN:
            continue
        if path not in mine:
            problems.append(f"{path}: in the example ({example[path]}), not in the sandbox's answer")
        elif path not in example:
            if not any(path.startswith(f"{p}[]") for p in empty_lists):
                problems.append(f"{path}: in the sandbox's answer ({mine[path]}), not in the example")
        elif mine[path] != example[path]:
            problems.append(f"{path}: the sandbox answers {mine[path]}, the example {example[path]}")
    return problems


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(tmp_path / "sandbox.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox",
                                 headers=AUTH) as client:  # fmt: skip
        yield client


async def new_app(client: httpx.AsyncClient) -> str:
    r = await client.post("/apps", json={"name": "Conformance", "region": "us", "version": "3"})
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["id"])


def settings_templates() -> list[str]:
    return sorted({t for _, t, _ in operations() if t.endswith("/v1/settings")})


async def test_every_vendor_operation_is_served_under_its_operation_id(sandbox: httpx.AsyncClient) -> None:
    ours = (await sandbox.get("/openapi.json")).json()["paths"]
    declared = operations()
    assert len(declared) >= 37  # the subset's 38 operations less the deprecated moderation list
    for method, template, op in declared:
        assert template in ours, template
        mine = ours[template].get(method.lower())
        assert mine is not None, f"{method} {template}"
        assert mine["operationId"] == op["operationId"], f"{method} {template}"
        if "requestBody" in op:
            assert set(mine["requestBody"]["content"]) == set(op["requestBody"]["content"]), op["operationId"]
        else:
            assert "requestBody" not in mine, op["operationId"]
    for template in settings_templates():  # and no method the vendor does not declare (stickers has no POST)
        theirs = {m.lower() for m, t, _ in declared if t == template}
        assert set(ours[template]) == theirs, template


@pytest.mark.parametrize("template", settings_templates() if extensions_path().is_file() else ["(no document)"])
async def test_the_vendors_examples_round_trip_with_its_answer_shapes(
    sandbox: httpx.AsyncClient, template: str
) -> None:
    if template == "(no document)":
        document()  # skips, saying where the document was looked for
    app_id = await new_app(sandbox)
    url = template.replace("{appId}", app_id)
    ops = {m: op for m, t, op in operations() if t == template}
    order = [m for m in ("POST", "PUT", "GET", "DELETE") if m in ops]
    if "POST" not in ops:  # PUT stores (data-masking, stickers): store, then read, then delete
        order = ["PUT", "GET", "DELETE"]
    problems: list[str] = []
    for method in order:
        op = ops[method]
        op_id = op["operationId"]
        body = None
        if "requestBody" in op:
            body = ADAPT_REQUEST.get(op_id, lambda b: b)(request_example(op))
        r = await sandbox.request(method, url, json=body)
        assert r.status_code == 200, f"{op_id}: {r.status_code} {r.text}"
        expected = ADAPT_RESPONSE.get(op_id, lambda e: e)(response_example(op))
        problems += [f"{op_id}: {p}" for p in differences(op_id, r.json(), expected)]
    assert not problems, "\n".join(problems)


def _p12() -> bytes:
    content = b"\x02\x01\x03\x04\x08conform!"
    return b"\x30" + bytes([len(content)]) + content


def _p8() -> bytes:
    der = b"\x30\x08conform!"
    return b"-----BEGIN PRIVATE KEY-----\n" + base64.b64encode(der) + b"\n-----END PRIVATE KEY-----\n"


async def test_certificates_answer_with_the_vendors_shapes(sandbox: httpx.AsyncClient) -> None:
    app_id = await new_app(sandbox)
    declared = {op["operationId"]: (m, t, op) for m, t, op in operations()}
    problems: list[str] = []
    for op_id, content in (("upload-push-notification-certificate-p12", _p12()),
                           ("upload-push-notification-certificate-p8", _p8()),
                           ("query-push-notification-certificates", None)):  # fmt: skip
        method, template, op = declared[op_id]
        url = template.replace("{appId}", app_id)
        if content is None:
            r = await sandbox.request(method, url)
        else:
            field = resolve(op["requestBody"]["content"]["multipart/form-data"]["schema"])["required"][0]
            r = await sandbox.request(method, url, files={field: ("cert", content)})
        assert r.status_code == 200, f"{op_id}: {r.text}"
        problems += [f"{op_id}: {p}" for p in differences(op_id, r.json(), response_example(op))]
    assert not problems, "\n".join(problems)
    body = r.json()["data"]["body"]
    assert body["certificate_p12"] is True and body["certificate_p8"] is True


def test_every_known_difference_is_still_one() -> None:
    """A :data:`KNOWN` entry whose operation is gone from the document is stale, and would hide nothing."""
    ids = {op["operationId"] for _, _, op in operations()}
    assert {op_id for op_id, _ in KNOWN} <= ids
    assert set(ADAPT_REQUEST) | set(ADAPT_RESPONSE) <= ids
