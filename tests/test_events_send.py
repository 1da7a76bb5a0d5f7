"""Send test event's core (tenantdeck.events_send) against the real receiver on a loopback socket, and the
receiver's Basic Auth verdicts and listeners that the Events screen shows."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tenantdeck.events_send import (
    Endpoint,
    MissingPassword,
    NotSendable,
    TimedOut,
    TlsFailed,
    Unreachable,
    endpoint_for,
    printable,
    send_test_event,
    trigger_choices,
)
from tenantdeck.models import catalog
from tenantdeck.prefs import settings
from tenantdeck.receiver import Delivery, Receiver
from tests.test_receiver import settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"



def hook(url: str, **extra: object) -> dict[str, object]:
    return {"id": "local", "name": "Local", "webhookURL": url, **extra}


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port nobody listens on (bound, then closed)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    yield port


async def test_a_test_event_reaches_the_receiver_with_basic_auth_and_validates() -> None:
    async with Receiver(port=0, basic_auth=("hook", "s3cret")) as receiver:
        drafted = hook(f"{receiver.url}/hooks", useBasicAuth=True, username="hook", password="${HOOK_PW}")
        target = endpoint_for(drafted, env={"HOOK_PW": "s3cret"})
        assert "s3cret" not in repr(target)
        heard: list[Delivery] = []
        remove = receiver.add_listener(heard.append)
        result = await send_test_event(target, "message_sent", app_id="app1", region="eu", webhook_id="local")
        await settle(receiver, 1)
        remove()
        wrong = await send_test_event(Endpoint(target.url, "hook", "nope"), "group_created")
        await settle(receiver, 2)
    assert (result.status, result.ok, result.with_auth, result.trigger) == (200, True, True, "message_sent")
    assert result.body == '{"received": true}' and result.content_type == "application/json"
    assert result.latency_ms >= 0 and result.sent_bytes > 500
    first, second = receiver.deliveries
    assert (first.trigger, first.valid, first.auth, first.auth_user, first.path) == (
        "message_sent", True, "ok", "hook", "/hooks")
    assert first.payload["appId"] == "app1" and first.payload["region"] == "eu" and first.payload["webhook"] == "local"
    assert heard == [first]  # the listener was removed before the second one
    assert (wrong.status, wrong.ok) == (401, False)
    assert (second.auth, second.auth_user, second.status) == ("wrong", "hook", 401)


async def test_no_auth_required_records_what_the_sender_presented() -> None:
    async with Receiver(port=0) as receiver:
        await send_test_event(Endpoint(f"{receiver.url}/x", "someone", "pw"), "user_blocked")
        await send_test_event(Endpoint(f"{receiver.url}/y"), "user_unblocked")
        await settle(receiver, 2)
    assert [(d.auth, d.auth_user) for d in receiver.deliveries] == [("not required", "someone"),
                                                                     ("not required", None)]
    assert all(d.valid for d in receiver.deliveries)


async def test_a_listener_that_raises_is_dropped_and_the_receiver_goes_on() -> None:
    def broken(_: Delivery) -> None:
        raise RuntimeError("listener bug")

    async with Receiver(port=0) as receiver:
        receiver.add_listener(broken)
        for _ in range(2):
            assert (await send_test_event(Endpoint(receiver.url), "group_created")).status == 200
        await settle(receiver, 2)
    assert receiver.count == 2 and receiver._listeners == []


def test_the_password_comes_from_the_environment_and_an_unset_variable_is_said_plainly() -> None:
    drafted = hook("https://example.com/h", useBasicAuth=True, username="hook", password="${HOOK_PW}")
    with pytest.raises(MissingPassword) as caught:
        endpoint_for(drafted, env={})
    assert "${HOOK_PW}" in str(caught.value) and "not set" in str(caught.value)
    assert endpoint_for(drafted, env={"HOOK_PW": "x"}).auth == ("hook", "x")
    assert endpoint_for(hook("https://example.com/h", useBasicAuth=False, password="${NOPE}"), env={}).auth is None


@pytest.mark.parametrize(
    ("drafted", "says"),
    [
        (hook("http://hooks.example.com/h"), "plain http"),
        ({"id": "x"}, "no webhookURL"),
        (hook("ftp://127.0.0.1/h"), r"not an http\(s\) URL"),
        (hook("https://example.com/h", useBasicAuth=True, password="${P}"), "no username"),
        (hook("https://example.com/h", useBasicAuth=True, username="u"), "no password"),
    ],
)
def test_webhooks_that_cannot_be_sent_to_say_why(drafted: dict[str, object], says: str) -> None:
    with pytest.raises(NotSendable, match=says):
        endpoint_for(drafted, env={"P": "x"})


def test_loopback_http_is_allowed_like_the_drafts_rule() -> None:
    assert endpoint_for(hook("http://localhost:8788/hooks")).url == "http://localhost:8788/hooks"
    assert endpoint_for(hook("http://[::1]:8788/hooks")).url == "http://[::1]:8788/hooks"


async def test_unreachable_timeout_and_tls_failures_are_typed_with_one_sentence(closed_port: int) -> None:
    with pytest.raises(Unreachable, match=f"cannot connect to 127.0.0.1:{closed_port}"):
        await send_test_event(Endpoint(f"http://127.0.0.1:{closed_port}/"), "message_sent")
    # a socket that listens but never answers
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    try:
        with pytest.raises(TimedOut, match=r"did not answer within 0\.2 s"):
            await send_test_event(Endpoint(f"http://127.0.0.1:{silent.getsockname()[1]}/"), "message_sent",
                                  timeout=0.2)
    finally:
        silent.close()
    # https to a plain-http server: the handshake fails
    async with Receiver(port=0) as receiver:
        with pytest.raises(TlsFailed, match=r"TLS with 127\.0\.0\.1"):
            await send_test_event(Endpoint(f"https://127.0.0.1:{receiver.port}/"), "message_sent")


def test_the_picker_offers_the_webhooks_own_triggers_first_then_every_known_one_by_category() -> None:
    groups = trigger_choices(["message_sent", "legacy_trigger", "message_sent", "group_created"])
    assert groups[0] == ("this webhook's triggers", ["message_sent", "group_created"])
    rest = [t for _, ids in groups[1:] for t in ids]
    assert sorted(rest) == sorted(catalog.TRIGGER_IDS)
    assert [c for c, _ in groups[1:]] == [c for c, ids in catalog.TRIGGER_CATEGORIES.items() if ids]
    assert trigger_choices(None)[0][0] != "this webhook's triggers"


def test_a_receivers_body_is_made_printable_and_cut() -> None:
    text, cut = printable("ok\x1b[31mred\x07" + "x" * 50, limit=20)
    assert "\x1b" not in text and "\\x1b" in text and cut and len(text) == 20
    assert printable("line\nnext\ttab") == ("line\nnext\ttab", False)


def test_events_port_in_settings_is_read_checked_and_kept(tmp_path: object) -> None:
    from pathlib import Path

    config = Path(str(tmp_path))
    (config / "settings.yaml").write_text("theme: tenantdeck-light\nevents_port: 9999\n", encoding="utf-8")
    loaded = settings.load(config)
    assert (loaded.theme, loaded.events_port, loaded.problem) == ("tenantdeck-light", 9999, "")
    loaded.theme = "tenantdeck-dark"
    settings.save(config, loaded)
    assert settings.load(config).events_port == 9999
    (config / "settings.yaml").write_text("events_port: lots\n", encoding="utf-8")
    bad = settings.load(config)
    assert bad.events_port is None and "events_port: 'lots' is not a port number" in bad.problem
    settings.save(config, bad)
    assert "events_port: lots" in (config / "settings.yaml").read_text(encoding="utf-8")  # the user's line kept


async def test_an_echoing_receiver_never_gets_the_password_onto_the_screen() -> None:
    """httpbin-style receivers echo the request; the body shown hides the password and its Basic token."""
    import httpx

    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"headers": dict(request.headers), "note": "your password is s3cret-pw"})

    target = Endpoint("https://echo.example/post", "hook", "s3cret-pw")
    result = await send_test_event(target, "message_sent", transport=httpx.MockTransport(echo))
    assert result.status == 200 and "authorization" in result.body
    assert "s3cret-pw" not in result.body and "aG9vazpzM2NyZXQtcHc" not in result.body
    assert "Basic ***" in result.body and "your password is ***" in result.body
