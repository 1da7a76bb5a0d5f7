"""The receiver under load and hostile bodies (issue 19, item 9), on real loopback sockets.

`listen --json` is the record of what was accepted: every delivery answered 200 is written, however many arrive at
once and however slowly stdout is read; a slow stdout never holds up the answers; a body nested too deep is kept as
an invalid delivery; a client that trickles its headers or body is cut without delaying anyone else.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from typing import Any

import httpx
import pytest

from tenantdeck import exitcodes
from tenantdeck.jsonlimits import MAX_JSON_DEPTH
from tenantdeck.models.event_samples import sample_payload
from tenantdeck.receiver import Receiver
from tests import procs

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def start_listen(*args: str) -> tuple[subprocess.Popen[Any], str]:
    """A child `tenantdeck listen --port 0 ARGS` and its URL (read off the banner on stderr)."""
    proc = procs.tenantdeck("listen", "--port", "0", *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    banner = proc.stderr.readline()
    assert "receiving on http://127.0.0.1:" in banner, banner
    port = int(banner.split("127.0.0.1:")[1].split()[0].rstrip(";"))
    return proc, f"http://127.0.0.1:{port}"


def numbered(i: int, pad: int = 0) -> dict[str, Any]:
    payload = sample_payload("message_sent")
    payload["data"]["message"]["id"] = str(i)
    if pad:
        payload["data"]["message"]["data"]["text"] = "x" * pad
    return payload


async def post_all(url: str, count: int, pad: int = 0) -> list[int]:
    """``count`` deliveries at once, each on its own connection."""
    limits = httpx.Limits(max_connections=count, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as c:
        answers = await asyncio.gather(*(c.post("/", json=numbered(i, pad)) for i in range(count)))
    return [a.status_code for a in answers]


@pytest.mark.e2e
async def test_listen_json_writes_every_one_of_300_concurrent_deliveries_with_keep_50() -> None:
    listen, url = start_listen("--json", "--keep", "50")
    try:
        assert await post_all(url, 300) == [200] * 300
        out, err = procs.stop(listen)
    finally:
        if listen.poll() is None:
            listen.kill()
            listen.communicate(timeout=10)
    printed = [json.loads(line) for line in out.splitlines()]
    assert sorted(int(d["payload"]["data"]["message"]["id"]) for d in printed) == list(range(300))
    assert sorted(d["seq"] for d in printed) == list(range(1, 301))
    assert listen.returncode == exitcodes.TERMINATED, err
    assert "stopped; 300 deliveries printed, 0 invalid" in err and "not printed" not in err, err


@pytest.mark.e2e
async def test_a_listen_whose_stdout_nobody_reads_still_answers_and_writes_everything_later() -> None:
    """Nobody reads the pipe while 200 deliveries of ~4 KB arrive (far more than a pipe holds): each is still
    answered 200, and once the pipe is read every one of them is there."""
    listen, url = start_listen("--format", "json")
    try:
        for _ in range(4):  # in waves, so the pipe is certainly full while later ones arrive
            assert await post_all(url, 50, pad=4000) == [200] * 50
        out, err = procs.stop(listen)
    finally:
        if listen.poll() is None:
            listen.kill()
            listen.communicate(timeout=10)
    assert len(out.splitlines()) == 200
    assert "stopped; 200 deliveries printed, 0 invalid" in err, err


async def settle(receiver: Receiver, count: int) -> None:
    for _ in range(2000):
        if receiver.count >= count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"only {receiver.count} deliveries recorded")


async def test_a_body_nested_1500_deep_is_kept_as_one_invalid_delivery() -> None:
    async with Receiver(port=0) as receiver:
        async with httpx.AsyncClient(base_url=receiver.url) as c:
            assert (await c.post("/", content=b"[" * 1500 + b"]" * 1500)).status_code == 200
            assert (await c.post("/", content=b'{"a":' * 1500 + b"1" + b"}" * 1500)).status_code == 200
            # deep but within the limit, with brackets inside strings that must not count
            shallow = b"[" * (MAX_JSON_DEPTH - 1) + b'"[[[[{{{{"' + b"]" * (MAX_JSON_DEPTH - 1)
            assert (await c.post("/", content=shallow)).status_code == 200
            assert (await c.post("/", json=sample_payload("group_created"))).status_code == 200
        await settle(receiver, 4)
    deep, deep_map, shallow_one, fine = receiver.deliveries
    for d in (deep, deep_map):
        assert not d.valid and d.status == 200 and d.payload is None
        assert d.problems == (f"the body is nested more than {MAX_JSON_DEPTH} levels deep; not checked",)
        assert d.raw is not None and len(d.raw) <= 4096
    assert shallow_one.payload is not None and "nested" not in " ".join(shallow_one.problems)
    assert fine.valid


def raw_connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """True when the server closed the connection (reads up to the end; a timeout means it did not)."""
    try:
        while chunk := sock.recv(65536):
            del chunk
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


async def test_a_client_trickling_its_headers_is_cut_and_does_not_delay_a_normal_delivery() -> None:
    async with Receiver(port=0, header_timeout=3.0, body_timeout=3.0) as receiver:
        slow = raw_connect(receiver.url)
        try:
            slow.sendall(b"POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
            async with httpx.AsyncClient(base_url=receiver.url, timeout=30) as c:
                answer = await c.post("/", json=sample_payload("group_created"))
            assert answer.status_code == 200
            slow.setblocking(False)
            with pytest.raises(BlockingIOError):  # answered while the slow client is still connected
                slow.recv(1)
            slow.setblocking(True)
            slow.settimeout(30)
            assert await asyncio.to_thread(closed_by_server, slow)
        finally:
            slow.close()
        await settle(receiver, 1)
    assert [d.path for d in receiver.deliveries] == ["/"]


async def test_a_client_trickling_its_body_is_answered_408_and_recorded() -> None:
    async with Receiver(port=0, header_timeout=3.0, body_timeout=3.0) as receiver:
        slow = raw_connect(receiver.url)
        try:
            slow.sendall(b"POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"trigger\":")
            async with httpx.AsyncClient(base_url=receiver.url, timeout=30) as c:
                assert (await c.post("/", json=sample_payload("group_created"))).status_code == 200
            reply = await asyncio.to_thread(slow.recv, 65536)
            assert reply.startswith(b"HTTP/1.1 408 "), reply
            assert await asyncio.to_thread(closed_by_server, slow)
        finally:
            slow.close()
        await settle(receiver, 2)
    fine, cut = receiver.deliveries
    assert fine.valid and cut.status == 408 and cut.path == "/slow" and not cut.valid
    assert cut.problems == ("the body did not arrive within 3 s (answered 408); not kept",)


async def test_a_declared_length_over_the_limit_is_answered_413_without_waiting_for_the_body() -> None:
    """A trial's `Content-Length: 99999999999999999999` with no body waited the whole body timeout for a 408; the
    declared size alone says 413 (the timeout here is longer than the socket's, so waiting would fail the test)."""
    async with Receiver(port=0, header_timeout=3.0, body_timeout=120.0) as receiver:
        liar = raw_connect(receiver.url)
        try:
            liar.sendall(b"POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999\r\n\r\n")
            reply = await asyncio.to_thread(liar.recv, 65536)
            assert reply.startswith(b"HTTP/1.1 413 "), reply
        finally:
            liar.close()
        await settle(receiver, 1)
    (cut,) = receiver.deliveries
    assert cut.status == 413 and cut.path == "/big" and not cut.valid
