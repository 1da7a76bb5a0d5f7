"""Event lab end to end on loopback: a webhook from a draft is pushed with `tenantdeck push`, a message is sent
through the sandbox's chat API, and `tenantdeck listen` receives a valid `message_sent` with the right Basic Auth.

Three real processes/servers, all on 127.0.0.1: the sandbox (uvicorn, in a thread), `tenantdeck push` and
`tenantdeck listen` (subprocesses).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest

from tenantdeck import exitcodes
from tenantdeck.sandbox import create_app
from tests import procs
from tests.loopback import serve_on_loopback

KEY, SECRET, PASSWORD = "e2e-key", "e2e-secret", "HookPw55"


def lines(stream: IO[str]) -> queue.Queue[str]:
    """Lines of ``stream`` as they come, read by a thread, so the test can wait with a timeout."""
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            out.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return out


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[str]:
    with serve_on_loopback(create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, seed=False)) as url:
        yield url


def env() -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    return {**base, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "HOOK_PW": PASSWORD}


@pytest.mark.e2e
def test_pushed_webhook_fires_and_listen_receives_a_valid_message_sent(sandbox: str, tmp_path: Path) -> None:
    listen = procs.tenantdeck("listen", "--port", "0", "--json", "--basic-auth", "hook:${HOOK_PW}",
                              env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stopped = False
    try:
        assert listen.stderr is not None and listen.stdout is not None
        banner = listen.stderr.readline()
        assert "receiving on http://127.0.0.1:" in banner and "Basic Auth as hook" in banner, banner
        port = int(banner.split("127.0.0.1:")[1].split()[0].rstrip(";"))
        deliveries = lines(listen.stdout)

        draft = tmp_path / "tenantdeck.yaml"
        draft.write_text(
            "format: 1\napps:\n  - name: Event Lab\n    region: eu\n    version: \"3\"\n    webhooks:\n"
            f"      - id: lab\n        name: Lab\n        webhookURL: http://127.0.0.1:{port}/hooks\n"
            "        useBasicAuth: true\n        username: hook\n        password: ${HOOK_PW}\n"
            "        enabled: true\n        retryOnFailure: true\n        triggers: [message_sent, group_created]\n",
            encoding="utf-8",
        )
        push = subprocess.run(
            [sys.executable, "-m", "tenantdeck", "push", "--yes", "--draft", str(draft), "--base-url", sandbox],
            env=env(), capture_output=True, text=True, timeout=120,
        )
        assert push.returncode == 0, push.stdout + push.stderr
        assert PASSWORD not in push.stdout + push.stderr

        with httpx.Client(base_url=sandbox, headers={"key": KEY, "secret": SECRET}, timeout=30) as admin:
            [app] = admin.get("/apps").json()["data"]
            chat = admin.get(f"/apps/{app['id']}/chat-api").json()["data"]
            with httpx.Client(base_url=chat["baseUrl"], headers={"apikey": chat["apiKey"]}, timeout=30) as c:
                for uid in ("alice", "bob"):
                    assert c.post("/users", json={"uid": uid, "name": uid.title()}).status_code == 200
                sent = c.post("/messages", headers={"onBehalfOf": "alice"}, json={
                    "receiver": "bob", "receiverType": "user", "category": "message", "type": "text",
                    "data": {"text": "hello from the event lab"}})
                assert sent.status_code == 200, sent.text

            received = json.loads(deliveries.get(timeout=30))
            assert received["trigger"] == "message_sent"
            assert received["valid"] is True and received["problems"] == [] and received["authorized"] is True
            message = received["payload"]["data"]["message"]
            assert message["id"] == sent.json()["data"]["id"]
            assert message["data"]["text"] == "hello from the event lab"
            assert received["payload"]["appId"] == app["id"] and received["payload"]["region"] == "eu"
            assert received["payload"]["webhook"] == "lab" and received["path"] == "/hooks"

            # the receiver prints a delivery as soon as it answered; the sandbox records the answer just after
            deadline = time.monotonic() + 30
            log = admin.get(f"/apps/{app['id']}/webhook-deliveries").json()["data"]
            while any(d["status"] == "pending" for d in log) and time.monotonic() < deadline:
                time.sleep(0.02)
                log = admin.get(f"/apps/{app['id']}/webhook-deliveries").json()["data"]
            assert [(d["trigger"], d["status"], d["attempts"]) for d in log] == [("message_sent", "delivered", 1)]
        out, err = procs.stop(listen)
        stopped = True
    finally:
        if not stopped:
            listen.kill()
            listen.communicate(timeout=10)
    assert listen.returncode == exitcodes.TERMINATED, err
    assert "stopped; 1 deliveries printed, 0 invalid" in err
    assert "Traceback" not in err and PASSWORD not in out + err + banner


@pytest.mark.e2e
@pytest.mark.parametrize("ctrl_c", [False, True], ids=["background-job", "terminal"])
def test_listen_stops_cleanly_on_sigterm_and_on_ctrl_c_only_where_ctrl_c_reaches_it(ctrl_c: bool) -> None:
    """As a background job (SIGINT ignored, as CI runners and `&` start it) SIGINT leaves it running and SIGTERM
    stops it; on a terminal Ctrl-C stops it. Either way it prints its summary and names the signal in its code."""
    listen = procs.tenantdeck("listen", "--port", "0", env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, ctrl_c=ctrl_c)
    try:
        assert listen.stderr is not None
        assert "receiving on http://127.0.0.1:" in listen.stderr.readline()
        listen.send_signal(signal.SIGINT)
        if ctrl_c:
            _, err = listen.communicate(timeout=20)
            assert listen.returncode == exitcodes.INTERRUPTED, err
        else:
            with pytest.raises(subprocess.TimeoutExpired):
                listen.wait(1.0)
            _, err = procs.stop(listen)
            assert listen.returncode == exitcodes.TERMINATED, err
    finally:
        if listen.poll() is None:
            listen.kill()
            listen.communicate(timeout=10)
    assert "stopped; 0 deliveries printed, 0 invalid" in err and "Traceback" not in err
