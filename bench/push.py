"""Benchmark: `tenantdeck push` of one toggle changed in every app, versus a sequential loop of the same PUTs.

Setup (not timed): a sandbox populated with N apps (one widget each, no webhooks, so the only change is the toggle)
under uvicorn in a subprocess on 127.0.0.1 (ephemeral port) with ``latency_ms`` per request; ``tenantdeck pull``
into a draft; ``send_gifs`` switched on in every widget (comment-preserving save).

(1) ``python -m tenantdeck push --yes --base-url ...`` as a fresh process: reads all N apps, compares three ways,
    plans N ``update_widget`` operations and runs them ``--concurrency`` apps at a time, journaling each one and
    rewriting the app's base file. Timed end to end (interpreter start-up included).
(2) The same N PUTs (widget settings with the toggle on) with a plain ``httpx.Client``, one after another. At 50 ms
    per request that takes about a minute for 1,000 apps, so ``--baseline-apps M`` times the first M and
    extrapolates linearly (the output says so).
(3) Offline planning: ``tenantdeck diff --offline`` on the (now pushed) 1,000-app draft with its base, against
    ``tenantdeck validate`` of the same draft, both as whole processes, best of ``--rounds``.

    .venv/bin/python bench/push.py [--apps N] [--baseline-apps M] [--latency-ms L] [--concurrency C]
                                   [--rounds R] [--record docs/benchmarks.md]

Targets: (1) at least 5x faster than (2); (3) diff --offline <= 1.2x validate. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import process_env, warm_bytecode  # noqa: E402
from pull import KEY, SECRET, served, start_server  # noqa: E402  (bench/pull.py: the same loopback sandbox server)

from tenantdeck.api.client import ManagementClient  # noqa: E402
from tenantdeck.draft import load_draft, save_draft  # noqa: E402
from tenantdeck.sandbox.bulk import populate  # noqa: E402
from tenantdeck.sync.remote.pull import pull  # noqa: E402

TOGGLE = "send_gifs"


def tool_env(base: str) -> dict[str, str]:
    return process_env(TENANTDECK_KEY=KEY, TENANTDECK_SECRET=SECRET)


def prepare_draft(base: str, draft: Path) -> None:
    async def go() -> None:
        async with ManagementClient(base, KEY, SECRET, concurrency=64) as client:
            await pull(client, draft, profile="bench", base_url=base, concurrency=64)

    asyncio.run(go())
    result = load_draft(draft)
    assert result.draft is not None, [p.render() for p in result.problems[:5]]
    for app in result.draft.apps:
        for widget in app.widgets:
            assert widget.main is not None
            setattr(widget.main, TOGGLE, True)
    save_draft(draft, result.draft, original_text=result.doc.text, backup=False)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    return time.perf_counter() - started, done


HEADERS = {"key": KEY, "secret": SECRET, "Accept": "application/json"}


def widget_bodies(base: str, max_apps: int, value: bool) -> list[tuple[str, dict[str, Any]]]:
    """One widget PUT per app (path, body) setting the toggle to ``value``, read before any clock starts."""
    with httpx.Client(base_url=base, headers=HEADERS, timeout=30.0) as http:
        apps = []
        page = 1
        while len(apps) < max_apps:
            doc = http.get("/apps", params={"perPage": 100, "page": page}).raise_for_status().json()
            if not doc["data"]:
                break
            apps.extend(doc["data"])
            page += 1
        bodies = []
        for app in apps[:max_apps]:
            path = f"/apps/{app['id']}/extensions/widget/v2/settings"
            for item in http.get(path).raise_for_status().json()["data"]["body"]["data"]:
                settings = {k: v for k, v in item["configuration"].items() if k != "appId"}
                settings["main"] = {**settings["main"], TOGGLE: value}
                bodies.append((path, {"settings": {**settings, "widgetId": item["widgetId"]}}))
    return bodies


def baseline(base: str, max_apps: int) -> tuple[float, int]:
    """The same PUTs, sequential, plain httpx. The bodies are prepared before the clock starts."""
    bodies = widget_bodies(base, max_apps, False)  # toggled back: a real change each time
    with httpx.Client(base_url=base, headers=HEADERS, timeout=30.0) as http:
        started = time.perf_counter()
        for path, body in bodies:
            http.put(path, json=body).raise_for_status()
        return time.perf_counter() - started, len(bodies)


def bare_concurrent(base: str, apps: int, concurrency: int) -> tuple[float, int]:
    """The floor of this machine: the same PUTs and nothing else (no read before or after, no journal, no base), a
    plain ``httpx.AsyncClient`` keeping ``concurrency`` in flight. Bodies are prepared before the clock starts."""
    bodies = widget_bodies(base, apps, True)

    async def go() -> float:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=30.0, limits=limits) as http:
            queue = iter(bodies)

            async def worker() -> None:
                for path, body in queue:
                    (await http.put(path, json=body)).raise_for_status()

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return time.perf_counter() - started

    return asyncio.run(go()), len(bodies)


def write_phase(draft: Path) -> tuple[int, float, float]:
    """(operations done, time of the ``start`` line, time of the last ``done`` line) of the newest push journal:
    the write phase, from before the first request of the first operation to the last operation's answer."""
    from tenantdeck.sync.workspace.journal import read_journal
    from tenantdeck.sync.workspace.state import Workspace

    journal = sorted(Workspace(draft).journal_dir.glob("*.jsonl"))[-1]
    records = list(read_journal(journal))
    done = [float(r["ts"]) for r in records if r.get("event") == "done"]
    return len(done), float(records[0]["ts"]), max(done)


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a running process (the bench server), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def best_of(rounds: int, cmd: list[str], env: dict[str, str], ok: tuple[int, ...]) -> tuple[float, list[float]]:
    runs = []
    for _ in range(rounds):
        wall, done = timed(cmd, env)
        if done.returncode not in ok:
            raise SystemExit(f"{' '.join(cmd[2:5])} exited {done.returncode}: {done.stderr[-2000:]}")
        runs.append(wall)
    return min(runs), runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--baseline-apps", type=int, default=None,
                        help="time the sequential baseline on the first M apps and extrapolate (default: all)")
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of diff --offline and validate")
    parser.add_argument("--record", type=Path, default=None, help="append the result to this markdown file")
    args = parser.parse_args()
    warm_bytecode()
    baseline_apps = min(args.baseline_apps or args.apps, args.apps)

    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-push-") as tmp:
        db = Path(tmp) / "sandbox.sqlite3"
        populate(db, args.apps, webhooks_per_app=0, enabled_extensions=("widget", "polls", "reactions", "stickers"))
        proc, base = start_server(db, args.latency_ms)
        try:
            draft = Path(tmp) / "tenantdeck.yaml"
            prepare_draft(base, draft)
            env = tool_env(base)
            push = [sys.executable, "-m", "tenantdeck", "push", "--yes", "--draft", str(draft), "--base-url", base,
                    "--concurrency", str(args.concurrency)]
            server_cpu = cpu_of(proc.pid)
            child = resource.getrusage(resource.RUSAGE_CHILDREN)
            push_started = time.time()
            wall, done = timed(push, env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            push_cpu = after.ru_utime + after.ru_stime - child.ru_utime - child.ru_stime
            server_cpu = cpu_of(proc.pid) - server_cpu
            if done.returncode != 0:
                raise SystemExit(f"push exited {done.returncode}: {done.stderr[-3000:]}")
            summary = next((line for line in done.stderr.splitlines() if line.startswith("Push ")), "?")
            ops = int(summary.split(":")[1].split()[0]) if summary.startswith("Push complete") else 0
            phase_ops, phase_start, phase_end = write_phase(draft)
            phase = phase_end - phase_start
            phase_requests = served(base, phase_start, phase_end)
            push_requests = served(base, push_started)
            bare_wall, bare_ops = bare_concurrent(base, args.apps, args.concurrency)
            base_wall, timed_apps = baseline(base, baseline_apps)
        finally:
            proc.terminate()
            proc.wait(timeout=10)

        diff_cmd = [sys.executable, "-m", "tenantdeck", "diff", "--offline", "--draft", str(draft)]
        validate_cmd = [sys.executable, "-m", "tenantdeck", "validate", str(draft)]
        env = tool_env("")
        def forget_cache() -> None:
            for stale in draft.parent.glob(".tenantdeck/*/insync.json"):
                stale.unlink()

        cold_runs = []
        for _ in range(args.rounds):  # cold: no in-sync cache, every app canonicalised, loaded and compared
            forget_cache()
            cold_runs.append(timed(diff_cmd, env)[0])
        cold_best = min(cold_runs)
        diff_best, diff_runs = best_of(args.rounds, diff_cmd, env, (0, 2))  # warm: the cache the cold runs left
        val_best, val_runs = best_of(args.rounds, validate_cmd, env, (0,))

        size = draft.stat().st_size

    scale = args.apps / timed_apps if timed_apps else 1.0
    est = base_wall * scale
    speedup = est / wall
    plan_ratio = diff_best / val_best
    bound = args.concurrency / (args.latency_ms / 1000) if args.latency_ms else float("inf")  # requests/s
    per_op = phase_requests / phase_ops if phase_ops else 0.0
    lines = [
        f"push: {args.apps} apps, one toggle ({TOGGLE}) changed in each widget; latency {args.latency_ms} ms, "
        f"concurrency {args.concurrency}",
        f"  tenantdeck push (whole process: read {args.apps} apps, plan, {ops} PUTs, journal, base)"
        f": {wall:7.2f} s  {ops / wall:6.1f} ops/s end to end; {push_requests} requests; CPU: push "
        f"{push_cpu:.2f} s ({push_cpu / max(ops, 1) * 1000:.1f} ms per PUT), sandbox {server_cpu:.2f} s "
        f"({server_cpu / max(push_requests, 1) * 1000:.2f} ms per request)",
        f"  write phase (journal: start line to last done line): {phase_ops} PUTs in {phase:.2f} s = "
        f"{phase_ops / phase:.1f} PUT/s, {phase_requests} requests ({per_op:.2f} per PUT) = "
        f"{phase_requests / phase:.0f} req/s",
        f"    round-trip bound at c={args.concurrency}: {bound:.0f} req/s, i.e. {bound / max(per_op, 1):.0f} PUT/s at "
        f"{per_op:.2f} requests per PUT: {phase_requests / phase / bound:.0%} of it; "
        f"{phase_ops / phase / bound:.0%} of {bound:.0f} PUT/s (the bound at one request per PUT)",
        f"  bare PUTs (plain httpx.AsyncClient, {args.concurrency} in flight, nothing else): {bare_wall:7.2f} s  "
        f"{bare_ops / bare_wall:6.1f} PUT/s ({bare_ops / bare_wall / bound:.0%} of the bound)",
        f"  sequential httpx PUT loop: {est:7.2f} s  {timed_apps / base_wall:6.1f} ops/s"
        + (f"  (timed on {timed_apps} apps: {base_wall:.2f} s, extrapolated linearly x{scale:.1f})"
           if timed_apps < args.apps else ""),
        f"  ratio: push is {speedup:.1f}x faster than the sequential loop (target >= 5x)",
        f"offline planning of the same {args.apps}-app draft ({size / 1e6:.1f} MB) with its base, whole processes, "
        f"best of {args.rounds}:",
        f"  tenantdeck diff --offline, warm: {diff_best:.3f} s  (runs: {', '.join(f'{r:.2f}' for r in diff_runs)})"
        "  [in-sync cache present, as after pull or any earlier diff]",
        f"  tenantdeck diff --offline, cold: {cold_best:.3f} s  (runs: {', '.join(f'{r:.2f}' for r in cold_runs)})"
        "  [cache deleted before each run]",
        f"  tenantdeck validate            : {val_best:.3f} s  (runs: {', '.join(f'{r:.2f}' for r in val_runs)})",
        f"  ratio warm: {plan_ratio:.2f} (target <= 1.2); cold: {cold_best / val_best:.2f}",
    ]
    print("\n".join(lines))
    if args.record is not None:
        record(args.record, lines, args)
    if speedup < 5 or plan_ratio > 1.2:
        sys.exit(1)


def record(path: Path, lines: list[str], args: argparse.Namespace) -> None:
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} CPUs"
    command = (f"bench/push.py --apps {args.apps}" + (f" --baseline-apps {args.baseline_apps}"
                                                     if args.baseline_apps else "")
               + f" --latency-ms {args.latency_ms} --concurrency {args.concurrency} --rounds {args.rounds}")
    text: Any = path.read_text(encoding="utf-8") if path.exists() else ""
    section = (
        ("" if not text or text.endswith("\n\n") else "\n")
        + "## push\n\n"
        + f"`.venv/bin/python {command}` ({when}; {machine}). The sandbox runs under uvicorn in a subprocess on "
        "127.0.0.1 with the given latency per request; each app has one widget. The push is timed as a whole "
        "process (reads, three-way compare, plan, the PUTs, journal fsyncs and per-app base rewrites); the "
        "baseline only sends the same PUTs one after another.\n\n"
        + "```\n" + "\n".join(lines) + "\n```\n"
    )
    with path.open("a", encoding="utf-8") as handle:  # append: other benchmarks share the file
        if not text:
            handle.write("# Benchmarks\n")
        handle.write(section)


if __name__ == "__main__":
    main()
