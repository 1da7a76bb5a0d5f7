"""The window a whole-object update leaves open, measured: from the fresh read a widget PUT is built on to the PUT.

The API has no precondition header, so a push reads each widget, SMS or webhook right before writing it
(``sync/remote/fresh.py``). Another writer's whole-object write that lands between that read and our write is
overwritten by ours (and seen only by a verifying read). This measures that window for real pushes (one widget
toggle, through the engine) against a loopback sandbox (uvicorn in a subprocess, ``latency_ms`` per request), and
prints it as a ratio to a plain GET round trip measured in the same run: the claim is "about one round trip".

    .venv/bin/python bench/write_window.py [--latency-ms 0 50 400] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pull import KEY, SECRET, start_server

from tenantdeck.api.client import ManagementClient
from tenantdeck.sync.remote.engine import PushRefused, PushRequest, prepare_push, push
from tenantdeck.sync.remote.pull import pull
from tenantdeck.targets import Target

WIDGETS = "/extensions/widget/v2/settings"


class Stamps(httpx.AsyncBaseTransport):
    """Records when each widget GET was sent and when each widget PUT was sent."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.gets: list[float] = []
        self.puts: list[float] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(WIDGETS):
            (self.puts if request.method == "PUT" else self.gets).append(time.perf_counter())
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def round_trip(base: str, rounds: int) -> float:
    async with ManagementClient(base, KEY, SECRET) as c:
        [app] = [a for a in await c.list_apps() if a.name == "Acme Support"]
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            await c.list_widgets(app.id)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


async def one_window(base: str, draft: Path, flip: bool) -> float:
    """Push one Main toggle change; the server handles our read at t_get + latency and our PUT at t_put + latency,
    so the window on the server's clock is t_put - t_get (the fresh read is the last widget GET before the PUT)."""
    text = draft.read_text(encoding="utf-8")
    old, new = ("send_gifs: false", "send_gifs: true") if flip else ("send_gifs: true", "send_gifs: false")
    draft.write_text(text.replace(old, new, 1), encoding="utf-8")
    stamps = Stamps()
    target = Target("bench", base, KEY, SECRET, stamps)
    prepared = await prepare_push(target, PushRequest(draft_path=draft), {})
    assert not isinstance(prepared, PushRefused), prepared
    result = await push(prepared, target)
    assert result.complete and stamps.puts, result.summary()
    put = stamps.puts[0]
    read = max(t for t in stamps.gets if t < put)
    return put - read


async def measure(base: str, draft: Path, rounds: int) -> tuple[float, float]:
    async with ManagementClient(base, KEY, SECRET) as c:
        await pull(c, draft, profile="bench", base_url=base)
    windows = [await one_window(base, draft, flip=(i % 2 == 0)) for i in range(rounds)]
    return statistics.median(windows), await round_trip(base, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=int, nargs="+", default=[0, 50, 400])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'latency':>8} {'window (median)':>16} {'GET round trip':>15} {'window / RTT':>13}")
    for latency in args.latency_ms:
        with tempfile.TemporaryDirectory() as tmp:
            proc, base = start_server(Path(tmp) / "db.sqlite3", latency)
            try:
                window, rtt = asyncio.run(measure(base, Path(tmp) / "tenantdeck.yaml", args.rounds))
            finally:
                proc.kill()
                proc.wait(10)
        print(f"{latency:>6}ms {window * 1000:>14.1f}ms {rtt * 1000:>13.1f}ms {window / rtt:>12.2f}x")


if __name__ == "__main__":
    main()
