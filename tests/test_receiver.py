"""The receiver behind `tenantdeck listen`, on a real loopback socket: answers, validation, bounds, flags."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.cli.listen_cmd import parse_basic_auth
from tenantdeck.models.event_samples import sample_payload
from tenantdeck.receiver import Receiver

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def settle(receiver: Receiver, count: int) -> None:
    """Validation runs after the answer: wait (briefly, in small steps) until ``count`` deliveries are kept."""
    for _ in range(500):
        if receiver.count >= count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"only {receiver.count} deliveries recorded")


async def test_valid_invalid_malformed_oversized_and_unauthorized_deliveries_are_all_flagged() -> None:
    async with Receiver(port=0, basic_auth=("hook", "Pw123"), max_body=4096) as receiver:
        with receiver.subscribe() as live:
            async with httpx.AsyncClient(base_url=receiver.url, auth=("hook", "Pw123")) as c:
                assert (await c.post("/any/path", json=sample_payload("group_created"))).status_code == 200
                broken = sample_payload("message_sent")
                del broken["data"]["message"]["sender"]
                assert (await c.post("/", json=broken)).status_code == 200
                assert (await c.post("/", content=b"{not json")).status_code == 200
                assert (await c.post("/", content=b"[" + b"1," * 5000 + b"1]")).status_code == 413
                assert (await c.post("/", json={"trigger": "made_up"})).status_code == 200
                assert (await c.post("/", json=sample_payload("call_ended"), auth=("hook", "nope"))).status_code == 401
                assert (await c.post("/", json={}, auth=None)).status_code == 401
                assert (await c.get("/")).status_code == 405
                # still serving after all that
                assert (await c.post("/", json=sample_payload("meeting_ended"))).status_code == 200
            await settle(receiver, 8)
            got = [await live.queue.get() for _ in range(8)]
    assert [(d.trigger, d.valid, d.status) for d in got] == [
        ("group_created", True, 200),
        ("message_sent", False, 200),
        (None, False, 200),
        (None, False, 413),
        ("made_up", False, 200),
        (None, False, 401),
        (None, False, 401),
        ("meeting_ended", True, 200),
    ]
    assert got[1].problems == ("data.message.sender: is required",)
    assert got[2].raw == "{not json" and "not valid JSON" in got[2].problems[0]
    assert "larger than 4096 bytes" in got[3].problems[0] and got[3].payload is None
    assert "unknown trigger 'made_up'" in got[4].problems[-1]
    assert not got[5].authorized and got[5].payload is None
    line = got[1].to_json()
    assert {"trigger", "valid", "problems", "received_at", "payload"} <= set(line)
    assert line["received_at"].endswith("Z")


async def test_memory_is_bounded_and_a_slow_subscriber_only_misses_the_oldest() -> None:
    async with Receiver(port=0, keep=3) as receiver:
        with receiver.subscribe(maxsize=2) as slow:
            async with httpx.AsyncClient(base_url=receiver.url) as c:
                for i in range(5):
                    payload = sample_payload("message_sent")
                    payload["data"]["message"]["id"] = str(i)
                    await c.post("/", json=payload)
            await settle(receiver, 5)
            assert [d.payload["data"]["message"]["id"] for d in receiver.deliveries] == ["2", "3", "4"]
            assert slow.missed == 3 and slow.queue.qsize() == 2


async def test_start_stop_from_async_code_and_port_zero() -> None:
    receiver = Receiver(port=0, basic_auth=("hook", "NeverShown9"))
    assert "NeverShown9" not in repr(receiver)
    await receiver.start()
    port = receiver.port
    assert port > 0
    await receiver.stop()
    await receiver.stop()
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as c:
            await c.post(f"http://127.0.0.1:{port}/", json={})


def test_basic_auth_password_only_from_an_environment_variable() -> None:
    assert parse_basic_auth("hook:${HOOK_PW}", {"HOOK_PW": "s3cret"}) == ("hook", "s3cret")
    runner = CliRunner()
    result = runner.invoke(cli, ["listen", "--basic-auth", "hook:LiteralPassw0rd"])
    assert result.exit_code == 64 and "USER:${ENV_VAR}" in result.output and "LiteralPassw0rd" not in result.output
    result = runner.invoke(cli, ["listen", "--basic-auth", "hook:${UNSET_FOR_TEST_12}"], env={})
    assert result.exit_code == 64 and "UNSET_FOR_TEST_12 is not set" in result.output
    result = runner.invoke(cli, ["listen", "--host", "0.0.0.0"])
    assert result.exit_code == 64 and "loopback only" in result.output


async def test_published_examples_are_valid_deliveries_and_a_repeat_is_a_duplicate_of_the_first() -> None:
    """Posted over HTTP like the service does: the receiver accepts the vendor's examples, labels the variant and
    legacy deliveries, and marks the second delivery of one idempotency key as a duplicate of the first."""
    import json
    from pathlib import Path

    fixtures = Path(__file__).parent / "fixtures" / "events"
    sent = json.loads((fixtures / "message_sent.json").read_text(encoding="utf-8"))
    ringing = json.loads((fixtures / "call_initiated.json").read_text(encoding="utf-8"))
    legacy = json.loads((fixtures / "legacy.after_message.json").read_text(encoding="utf-8"))
    other = json.loads((fixtures / "message_sent.json").read_text(encoding="utf-8"))
    other["data"]["message"]["id"] = "2"
    async with Receiver(port=0) as receiver, httpx.AsyncClient(base_url=receiver.url) as c:
        for payload in (sent, ringing, sent, legacy, other):
            assert (await c.post("/hooks", json=payload)).status_code == 200
        await settle(receiver, 5)
    got = list(receiver.deliveries)
    assert [(d.valid, d.duplicate_of) for d in got] == [(True, None), (True, None), (True, 1), (True, None),
                                                        (True, None)]
    assert got[2].idempotency_key == got[0].idempotency_key == "<webhookID>|message_sent|1"
    assert got[1].variant == "ringing page: by and on only" and got[3].legacy
    assert "[DUPLICATE of #1: <webhookID>|message_sent|1]" in got[2].line() and "[legacy v1]" in got[3].line()
    line = got[2].to_json()
    assert (line["idempotency_key"], line["duplicate_of"], line["variant"]) == ("<webhookID>|message_sent|1", 1,
                                                                                  None)
