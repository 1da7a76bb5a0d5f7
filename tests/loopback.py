"""A real HTTP server for end-to-end tests: uvicorn on 127.0.0.1 with an ephemeral port, in a thread.

Only loopback: tests never send traffic anywhere else.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


@contextlib.contextmanager
def serve_on_loopback(app: Any, *, port: int = 0, start_timeout: float = 10.0) -> Iterator[str]:
    """Serve ``app`` until the block ends (on ``port``, or an ephemeral one); yields its base URL
    (``http://127.0.0.1:PORT``)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        thread.join(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        assert not thread.is_alive(), "uvicorn did not stop"


class Sandbox:
    """The embedded sandbox on a SQLite file, served from this process on a loopback port until :meth:`stop`.

    What ``tenantdeck sandbox --port 0 --db DB`` serves (the same ``create_app``), for tests whose subject is the
    client's side: a new process spends ~0.7 s of CPU importing FastAPI and the sandbox before it answers, and the
    promotion tests start two per test (about 40 s of the suite's CPU). The ``tenantdeck sandbox`` command itself is
    tested as a process (tests/sandbox/test_sandbox_cli.py), and so is everything where the process matters.
    ``values`` holds the variables of its export line (base URL, key, secret).
    """

    def __init__(self, db: Any, *, seed: bool = False, key: str | None = None, secret: str | None = None,
                 port: int = 0, latency_ms: int = 0) -> None:
        from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
        from tenantdeck.sandbox.app import create_app

        key, secret = key or DEFAULT_KEY, secret or DEFAULT_SECRET
        app = create_app(db, key=key, secret=secret, seed=seed, latency_ms=latency_ms)
        self._served = contextlib.ExitStack()
        url = self._served.enter_context(serve_on_loopback(app, port=port))
        self.values = {"TENANTDECK_BASE_URL": url, "TENANTDECK_KEY": key, "TENANTDECK_SECRET": secret}

    def stop(self) -> None:
        """Stop serving (the database stays, to be served again: a restart with another key)."""
        self._served.close()
