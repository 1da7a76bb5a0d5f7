"""Push certificates over HTTP: multipart uploads of a .p12 and a .p8, query-certificates, the checks on the file
(empty, too large, the wrong kind), and that only a fingerprint of the bytes is ever kept."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from sandbox_helpers import MakeApp, assert_error, client_for

from tenantdeck.sandbox import samples
from tenantdeck.sandbox.limits import CERTIFICATE_MAX_BYTES

pytestmark = pytest.mark.anyio

MARK = b"SANDBOX-TEST-MARKER-0123456789"


def der_sequence(content: bytes) -> bytes:
    """A DER SEQUENCE around ``content`` (short or long length form)."""
    n = len(content)
    if n < 0x80:
        return b"\x30" + bytes([n]) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return b"\x30" + bytes([0x80 | len(size)]) + size + content


def p12(payload: bytes = MARK) -> bytes:
    """Shaped like a PKCS#12 PFX: ``SEQUENCE { INTEGER 3, OCTET STRING payload }``."""
    return der_sequence(b"\x02\x01\x03" + b"\x04" + bytes([len(payload)]) + payload)


def p8(payload: bytes = MARK, label: str = "PRIVATE KEY") -> bytes:
    text = base64.b64encode(der_sequence(payload)).decode("ascii")
    return f"-----BEGIN {label}-----\n{text}\n-----END {label}-----\n".encode("ascii")


def upload_path(app_id: str, kind: str) -> str:
    return f"/apps/{app_id}/extensions/push-notification/v1/upload-certificate-{kind}"


def query_path(app_id: str) -> str:
    return f"/apps/{app_id}/extensions/push-notification/v1/query-certificates"


def body_of(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data["statusCode"] == 200 and data["success"] is True and isinstance(data["responseTime"], float)
    return data["body"]


async def upload(client: httpx.AsyncClient, app_id: str, kind: str, content: bytes) -> httpx.Response:
    return await client.post(upload_path(app_id, kind), files={"certificate": (f"cert.{kind}", content)})


async def test_upload_and_query(make_app: MakeApp, db_path: Path) -> None:
    sandbox = make_app()
    async with client_for(sandbox) as client:
        created = await client.post("/apps", json={"name": "Push", "region": "us", "version": "3"})
        app_id = created.json()["data"]["id"]
        state = {"certificate_p12": False, "certificate_p8": False}
        assert body_of(await client.get(query_path(app_id))) == {**state, "success": True}

        content = p12()
        r = await upload(client, app_id, "p12", content)
        assert body_of(r) == {"success": True, "certificate_p12": True, "certificate_p8": False}
        r = await upload(client, app_id, "p8", p8())
        assert body_of(r) == {"success": True, "certificate_p12": True, "certificate_p8": True}
        assert body_of(await client.get(query_path(app_id))) == {"certificate_p12": True, "certificate_p8": True,
                                                                 "success": True}

        # only the fingerprint is kept, never the bytes (the marker is in both files; the WAL is searched too)
        record = sandbox.state.store.certificate_record(app_id, "p12")
        assert record == {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content),
                          "uploadedAt": record["uploadedAt"]}
        files = list(db_path.parent.glob(db_path.name + "*"))
        assert db_path in files
        for file in files:
            assert MARK not in file.read_bytes(), file
            assert base64.b64encode(der_sequence(MARK)) not in file.read_bytes(), file

        # a second upload replaces the first
        other = p12(b"another certificate")
        body_of(await upload(client, app_id, "p12", other))
        assert sandbox.state.store.certificate_record(app_id, "p12")["sha256"] == hashlib.sha256(other).hexdigest()


async def test_long_der_lengths_and_the_seed_key_pass(client: httpx.AsyncClient, app_id: str) -> None:
    body_of(await upload(client, app_id, "p12", p12(b"x" * 120)))
    body_of(await upload(client, app_id, "p12", der_sequence(b"\x02\x01\x03" + b"\x04\x82\x04\x00" + b"y" * 1024)))
    body_of(await upload(client, app_id, "p8", samples.FAKE_P8))


@pytest.mark.parametrize(
    ("kind", "content", "why"),
    [
        ("p12", b"", "is empty"),
        ("p8", b"", "is empty"),
        ("p12", b"not a certificate", "does not start with a DER SEQUENCE"),
        ("p12", p12()[:-3], "was it cut short"),
        ("p12", der_sequence(b"\x02\x01\x01" + MARK), "version 3"),
        ("p12", p8(), "does not start with a DER SEQUENCE"),
        ("p8", p12(), "upload it as upload-certificate-p12"),
        ("p8", b"just some text", "holds no PEM block"),
        ("p8", b"\xff\xfe binary", "is not a PEM text file"),
        ("p8", p8(label="EC PRIVATE KEY"), "'EC PRIVATE KEY' block"),
        ("p8", b"-----BEGIN PRIVATE KEY-----\nnot*base64\n-----END PRIVATE KEY-----\n", "holds no PEM block"),
        ("p8", b"-----BEGIN PRIVATE KEY-----\nQUJD\n-----END PRIVATE KEY-----\n", "does not hold a DER structure"),
        ("p8", b"-----BEGIN PRIVATE KEY-----\nQUJ\n-----END PRIVATE KEY-----\n", "not valid base64"),
    ],
)
async def test_a_file_that_is_not_the_kind_asked_for_is_refused(
    client: httpx.AsyncClient, app_id: str, kind: str, content: bytes, why: str
) -> None:
    r = await upload(client, app_id, kind, content)
    err = assert_error(r, 400, "ERR_BAD_REQUEST")
    assert why in err["details"]["certificate"][0]
    assert MARK.decode() not in r.text
    assert body_of(await client.get(query_path(app_id)))[f"certificate_{kind}"] is False


async def test_size_bound_missing_field_and_unknown_app(client: httpx.AsyncClient, app_id: str) -> None:
    big = p12(b"z" * 100) + b"\x00" * CERTIFICATE_MAX_BYTES
    assert_error(await upload(client, app_id, "p12", big), 413, "ERR_PAYLOAD_TOO_LARGE")
    err = assert_error(await client.post(upload_path(app_id, "p8")), 422, "ERR_BAD_REQUEST")
    assert any(path.endswith("certificate") for path in err["details"])
    r = await client.post(upload_path(app_id, "p8"), files={"other": ("x.p8", p8())})
    assert_error(r, 422, "ERR_BAD_REQUEST")
    assert_error(await upload(client, "nosuchapp", "p8", p8()), 404, "ERR_APP_NOT_FOUND")
    assert_error(await client.get(query_path("nosuchapp")), 404, "ERR_APP_NOT_FOUND")


async def test_openapi_declares_the_multipart_field(make_app: MakeApp) -> None:
    async with client_for(make_app(), auth=False) as c:
        doc = (await c.get("/openapi.json")).json()
    for kind in ("p12", "p8"):
        op = doc["paths"][f"/apps/{{appId}}/extensions/push-notification/v1/upload-certificate-{kind}"]["post"]
        assert op["operationId"] == f"upload-push-notification-certificate-{kind}"
        ref = op["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]
        schema = doc["components"]["schemas"][ref]
        assert schema["required"] == ["certificate"]
        field = schema["properties"]["certificate"]
        assert field["type"] == "string" and (field.get("format") == "binary"
                                              or field.get("contentMediaType") == "application/octet-stream")
    query = doc["paths"]["/apps/{appId}/extensions/push-notification/v1/query-certificates"]["get"]
    assert query["operationId"] == "query-push-notification-certificates"


async def test_the_seed_has_a_p8(make_app: MakeApp) -> None:
    async with client_for(make_app(seed=True)) as c:
        states = [body_of(await c.get(query_path(a["id"]))) for a in (await c.get("/apps")).json()["data"]]
    assert {"certificate_p12": False, "certificate_p8": True, "success": True} in states
