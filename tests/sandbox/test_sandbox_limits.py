"""The sandbox as a server people leave running (issue 19, item 10): a body-size limit enforced while the body
streams (nothing large is buffered), a nesting limit answered like the service's validation errors, and a
database that only its owner can read (it holds webhook passwords)."""

from __future__ import annotations

import socket
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sandbox_helpers import MakeApp, assert_error, client_for

from tenantdeck.jsonlimits import MAX_JSON_DEPTH
from tenantdeck.sandbox import create_app
from tenantdeck.sandbox.limits import DEFAULT_MAX_BODY, DRAIN_MAX_BYTES
from tenantdeck.targets import SANDBOX_DB, local_target
from tests.loopback import serve_on_loopback

pytestmark = pytest.mark.anyio

CHUNK = 64 * 1024


async def test_a_body_over_the_limit_announced_by_content_length_is_413_before_it_is_read(
    client: httpx.AsyncClient,
) -> None:
    big = b'{"name": "' + b"x" * (DEFAULT_MAX_BODY + 10) + b'", "region": "us", "version": "3"}'
    r = await client.post("/apps", content=big, headers={"content-type": "application/json"})
    error = assert_error(r, 413, "ERR_PAYLOAD_TOO_LARGE")
    assert f"{DEFAULT_MAX_BODY} bytes" in error["message"]
    assert r.headers["connection"] == "close"
    assert (await client.get("/apps")).json()["data"] == []


async def test_a_streamed_body_is_cut_at_the_limit_and_drained_only_so_far(make_app: MakeApp) -> None:
    """Over the limit, the rest is read and dropped (so the client reads the 413, not a reset: issue 32), but only
    up to DRAIN_MAX_BYTES: a sender of 100 MiB is not read to its end."""
    sent = 0

    async def endless() -> AsyncIterator[bytes]:  # no Content-Length: only counting can stop it
        nonlocal sent
        yield b'{"name": "'
        for _ in range(1600):  # 100 MiB if it were all read
            sent += CHUNK
            yield b"x" * CHUNK

    async with client_for(make_app(max_body=1024 * 1024)) as c:
        r = await c.post("/apps", content=endless(), headers={"content-type": "application/json"})
    assert_error(r, 413, "ERR_PAYLOAD_TOO_LARGE")
    assert DRAIN_MAX_BYTES <= sent <= DRAIN_MAX_BYTES + 2 * CHUNK < 1600 * CHUNK


async def test_the_chat_area_answers_413_in_its_own_error_shape(client: httpx.AsyncClient, app_id: str) -> None:
    creds = (await client.get(f"/apps/{app_id}/chat-api")).json()["data"]
    r = await client.post(
        f"/chat/{app_id}/v3/users",
        content=b'{"uid": "' + b"u" * (DEFAULT_MAX_BODY + 1) + b'"}',
        headers={"apikey": creds["apiKey"], "content-type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["error"]["source"] == "chat-api"
    assert r.json()["error"]["code"] == "ERR_PAYLOAD_TOO_LARGE"


async def test_json_nested_deeper_than_the_limit_is_a_400_not_a_500(client: httpx.AsyncClient, app_id: str) -> None:
    deep = b'{"name": ' + b"[" * 1500 + b"]" * 1500 + b', "region": "us", "version": "3"}'
    r = await client.post("/apps", content=deep, headers={"content-type": "application/json"})
    error = assert_error(r, 400, "ERR_BAD_REQUEST")
    assert f"nested more than {MAX_JSON_DEPTH} levels" in error["message"]

    creds = (await client.get(f"/apps/{app_id}/chat-api")).json()["data"]
    r = await client.post(
        f"/chat/{app_id}/v3/users",
        content=b'{"uid": "a", "name": "A", "metadata": ' + b'{"a":' * 1500 + b"1" + b"}" * 1500 + b"}",
        headers={"apikey": creds["apiKey"], "content-type": "application/json"},
    )
    assert r.status_code == 400 and r.json()["error"]["source"] == "chat-api", r.text
    assert "nested more than" in r.json()["error"]["message"]
    # still serving
    assert (await client.get("/apps")).status_code == 200


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_is_0600_in_a_0700_directory(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "sandbox.sqlite3"
    create_app(db, key="k", secret="s", seed=True)
    assert mode(db.parent) == 0o700
    for f in db.parent.iterdir():  # the WAL and shared-memory files hold the same data
        assert mode(f) == 0o600, f


def test_an_existing_world_readable_database_is_made_private(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    create_app(db, key="k", secret="s", seed=False)
    db.chmod(0o644)
    chosen = mode(tmp_path)
    create_app(db, key="k", secret="s", seed=False)
    assert mode(db) == 0o600
    assert mode(tmp_path) == chosen  # a directory the user chose (--db) is theirs: left as it is


def test_the_local_profile_keeps_its_data_directory_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    local_target({"TENANTDECK_DATA_DIR": str(data), "TENANTDECK_CONFIG_DIR": str(tmp_path / "cfg")})
    assert mode(data) == 0o700 and mode(data / SANDBOX_DB) == 0o600


@pytest.mark.e2e
def test_over_loopback_a_100_mb_upload_is_refused_from_its_headers(tmp_path: Path) -> None:
    app = create_app(tmp_path / "db.sqlite3", key="k", secret="s", seed=False)
    with serve_on_loopback(app) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(
                b"POST /apps HTTP/1.1\r\nHost: sandbox\r\nkey: k\r\nsecret: s\r\nContent-Type: application/json\r\n"
                b"Content-Length: 104857600\r\n\r\n" + b'{"name": "' + b"x" * CHUNK
            )
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = sock.recv(65536)
                assert chunk, reply
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 413 "), reply
        assert b"ERR_PAYLOAD_TOO_LARGE" in reply or b"content-length" in reply.lower()
        with httpx.Client(base_url=url, headers={"key": "k", "secret": "s"}) as c:
            assert c.get("/apps").json()["data"] == []


@pytest.mark.e2e
def test_over_loopback_a_sender_that_declares_more_than_it_sends_is_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 413 waits for the rest of the body (issue 32: so the client reads it instead of a reset), but not for a
    rest that never comes: after DRAIN_MAX_SECONDS it is answered anyway."""
    from tenantdeck.sandbox import limits

    monkeypatch.setattr(limits, "DRAIN_MAX_SECONDS", 0.5)
    app = create_app(tmp_path / "db.sqlite3", key="k", secret="s", seed=False)
    with serve_on_loopback(app) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(
                b"POST /apps HTTP/1.1\r\nHost: sandbox\r\nkey: k\r\nsecret: s\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {2 * DEFAULT_MAX_BODY}\r\n\r\n".encode() + b'{"name": "' + b"x" * CHUNK
            )
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = sock.recv(65536)
                assert chunk, reply
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 413 "), reply
