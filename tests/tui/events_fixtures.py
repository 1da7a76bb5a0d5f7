"""Fixtures of the Events screen and Send test event, shared with ``scripts/screenshots.py``.

Deterministic pictures: the receiver is not started (no port in the picture depends on the machine); deliveries
reach it through its own ASGI app (``httpx.ASGITransport(app=receiver.asgi)``, the real receiver code, no
socket) with a fixed clock and fixed sample timestamps, and the test event's latency is read off a ticking clock.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import DataTable

from tenantdeck.events_send import Endpoint
from tenantdeck.models.event_samples import sample_payload
from tenantdeck.receiver import Receiver
from tenantdeck.tui.event_lab import EventLab
from tests.tui.pilot import settle

DRAFT = "events-demo"  # safety-demo plus a webhook "local" to http://127.0.0.1:8788/hooks with Basic Auth
USER = "hook"
PASSWORD = "events-demo-pw"  # only ever in tests: the draft says ${EVENTS_DEMO_HOOK_PW}
NOW = 1795443740  # the sample payloads' timestamps
START = datetime(2026, 11, 23, 15, 20, 1, 123000, tzinfo=UTC)
LOCAL_HOOK = "apps[0].webhooks[2]"


def fixed_clock(step: timedelta = timedelta(seconds=2, milliseconds=250)) -> Callable[[], datetime]:
    """A received-at clock that starts at :data:`START` and advances ``step`` per delivery."""
    ticks = itertools.count()
    return lambda: START + next(ticks) * step


def ticking(step: float = 0.012) -> Callable[[], float]:
    """A perf_counter stand-in: each reading ``step`` seconds after the previous (a latency of 12 ms)."""
    ticks = itertools.count()
    return lambda: next(ticks) * step


def make_lab(*, autostart: bool = False) -> EventLab:
    return EventLab(8788, basic_auth=(USER, PASSWORD), clock=fixed_clock(), autostart=autostart)


def broken_message() -> dict[str, Any]:
    """A message_sent with the sender missing and sentAt a string: two problems, one of them a missing node."""
    payload = sample_payload("message_sent", app_id="f14dfbf002c61e70", webhook_id="local", now=NOW)
    del payload["data"]["message"]["sender"]
    payload["data"]["message"]["sentAt"] = "yesterday"
    return payload


async def inject(receiver: Receiver) -> None:
    """Five requests through the receiver's own ASGI app: valid, invalid, not JSON, unknown trigger, wrong auth."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=receiver.asgi), base_url=receiver.url,
                                 auth=(USER, PASSWORD)) as client:
        await client.post("/hooks", json=sample_payload("group_created", app_id="f14dfbf002c61e70",
                                                        webhook_id="local", now=NOW))
        await client.post("/hooks", json=broken_message())
        await client.post("/hooks", content=b'{"trigger": "message_sent",')
        await client.post("/other", json={"trigger": "made_up_trigger", "data": {}, "appId": "x", "region": "us",
                                          "webhook": "local"})
        await client.post("/hooks", json={}, auth=(USER, "wrong"))


async def events_scene(pilot: Pilot[None]) -> None:
    """The Events screen with five deliveries, the invalid one selected (newest first: it is the fourth row)."""
    await settle(pilot)
    lab = make_lab()
    await inject(lab.receiver)
    pilot.app.event_lab = lab  # type: ignore[attr-defined]
    await pilot.press("f3")
    await settle(pilot)
    pilot.app.screen.query_one(DataTable).move_cursor(row=3)
    await settle(pilot)


async def send_test_scene(pilot: Pilot[None]) -> None:
    """Send test event from the Webhooks tab to the (in-process) receiver: the 200 answer shown."""
    from tenantdeck.tui.tabs.send_test_event import SendTestEvent

    await settle(pilot)
    lab = make_lab()
    pilot.app.event_lab = lab  # type: ignore[attr-defined]
    pilot.app.open_app(0, "webhooks")  # type: ignore[attr-defined]
    await settle(pilot)
    hook = pilot.app.editor.get(LOCAL_HOOK)  # type: ignore[attr-defined]
    target = Endpoint(hook["webhookURL"], USER, PASSWORD)
    pilot.app.push_screen(SendTestEvent(hook, target, app_id="f14dfbf002c61e70", region="us",
                                        transport=httpx.ASGITransport(app=lab.receiver.asgi), clock=ticking(),
                                        now=NOW))
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


def scenes() -> dict[str, tuple[str, bool, Callable[[Pilot[None]], Awaitable[None]]]]:
    """The scenes ``scripts/screenshots.py`` adds to the safety fixtures' (same shape: draft, recovery, how)."""
    return {"events": (DRAFT, False, events_scene), "send-test-event": (DRAFT, False, send_test_scene)}
