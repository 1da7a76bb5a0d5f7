"""A delivery answered 2xx is on record before the answer leaves (issue 34 item 4, the receiver's half).

The vendor never sends again what was answered 200, so the receiver must not keep a delivery only in flight while
the answer goes out: a receiver stopped (or a process killed) right after the sender read its 200 would have lost
it. `test_listen_first_delivery` covers the other half (the printer attached before the port accepts); this holds
the order inside the ASGI app itself, for any body a sender may post, by looking at the record at the very moment
the status line is sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.models.event_samples import sample_payload
from tenantdeck.receiver import Receiver
from tests.fuzzing import examples

_SAMPLE = json.dumps(sample_payload("message_sent")).encode()

bodies = st.one_of(
    st.just(_SAMPLE),
    st.binary(max_size=256),
    st.text(max_size=64).map(str.encode),
    st.builds(lambda extra: json.dumps({**json.loads(_SAMPLE), "extra": extra}).encode(), st.text(max_size=16)),
)


def _post(receiver: Receiver, body: bytes) -> list[tuple[int, int]]:
    """Post ``body`` straight to the ASGI app; return ``(status, deliveries recorded then)`` per status line sent."""
    seen: list[tuple[int, int]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            seen.append((message["status"], receiver.count))

    scope = {"type": "http", "method": "POST", "path": "/hook", "headers": [(b"content-type", b"application/json")],
             "client": ("127.0.0.1", 5000)}
    asyncio.run(receiver.asgi(scope, receive, send))
    return seen


@settings(max_examples=examples(60), deadline=None)
@given(posts=st.lists(bodies, min_size=1, max_size=4))
def test_every_2xx_is_recorded_before_its_status_line_is_sent(posts: list[bytes]) -> None:
    receiver = Receiver(port=0, max_body=1024)
    for n, body in enumerate(posts, start=1):
        answers = _post(receiver, body)
        assert [status for status, _ in answers] == [200]
        # the n-th delivery is already counted (and kept) when its 200 goes out
        assert answers[0][1] == n
        assert receiver.deliveries[-1].seq == n
