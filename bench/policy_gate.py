"""Benchmark: what the policy gate's reads cost a push (issue 33): ``prepare_push`` with the recipes' rules against
the same without a rules file, in the same run, on the same account.

Before a push, the gate judges the account after it (``tenantdeck.policies.account.account_after_push``): the
service's current values of every section the rules read, for every app, with the plan laid over them. Without
rules a push reads only the sections the draft changed (``fetch_live_for_push``); with rules it also reads what
the rules read. This measures that difference where it is largest: a push that changes little.

Setup (not timed): N apps (one widget and two webhooks each; widget, polls, reactions, stickers and the profanity
filter enabled) in a sandbox under uvicorn on 127.0.0.1 with ``latency_ms`` per request; ``pull`` into a draft;
docs/policies.md's six recipe rules beside it (they read extensions, widgets, webhooks, team, SMS and settings).

Timed, in process, best of ``--rounds``, the two contenders alternating: ``prepare_push`` (read what the push
needs, compare, plan, and with rules the gate's reads and verdict; nothing is sent) for
(a) one toggle changed in one app, (b) one toggle changed in every app. Requests are the server's own count.

    .venv/bin/python bench/policy_gate.py [--apps N] [--latency-ms L] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import warm_bytecode
from pull import KEY, SECRET, served, start_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from tenantdeck.api.client import ManagementClient  # noqa: E402
from tenantdeck.draft import load_draft, save_draft  # noqa: E402
from tenantdeck.sandbox.bulk import populate  # noqa: E402
from tenantdeck.sync.remote.pull import pull  # noqa: E402

TOGGLE = "send_gifs"


def recipes() -> str:
    page = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml\n(.*?)```", page.split("## Recipes", 1)[1], flags=re.S)
    assert found is not None
    return found.group(1)


def flip(draft: Path, every: bool) -> None:
    """``send_gifs`` switched in the first app's widget, or in every app's."""
    result = load_draft(draft)
    assert result.draft is not None
    for app in result.draft.apps if every else result.draft.apps[:1]:
        for widget in app.widgets:
            assert widget.main is not None
            setattr(widget.main, TOGGLE, not getattr(widget.main, TOGGLE))
    save_draft(draft, result.draft, original_text=result.doc.text, backup=False)


async def prepare(base: str, draft: Path, policies: Any) -> tuple[float, int, int, int]:
    """One ``prepare_push``: wall seconds, requests served, operations planned, violations the gate found."""
    from tenantdeck.sync.remote.engine import PushRefused, PushRequest, prepare_push
    from tenantdeck.targets import Target

    target = Target("bench", base, KEY, SECRET, None)
    from tenantdeck.policies.gate import push_gate

    request = PushRequest(draft_path=draft, gate=push_gate(policies), allow_violations=tuple(
        r.name for r in policies.rules) if policies else (), violation_reason="bench")
    since = time.time()
    started = time.perf_counter()
    prepared = await prepare_push(target, request, {})
    wall = time.perf_counter() - started
    requests = served(base, since, time.time())
    assert not isinstance(prepared, PushRefused), (prepared.kind, prepared.summary, prepared.lines[:3])
    return wall, requests, len(prepared.plan.operations), len(prepared.allowed_violations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    warm_bytecode()
    from tenantdeck.policies.checks import policies_for

    with tempfile.TemporaryDirectory(prefix="tenantdeck-bench-gate-") as tmp:
        db, draft = Path(tmp) / "sandbox.sqlite3", Path(tmp) / "tenantdeck.yaml"
        populate(db, args.apps, enabled_extensions=("widget", "polls", "reactions", "stickers", "profanity-filter"))
        proc, base = start_server(db, args.latency_ms)
        try:
            async def first_pull() -> None:
                async with ManagementClient(base, KEY, SECRET, concurrency=64) as client:
                    await pull(client, draft, profile="bench", base_url=base, concurrency=64)

            asyncio.run(first_pull())
            (Path(tmp) / "tenantdeck.policies.yaml").write_text(recipes())
            rules = policies_for(draft)
            assert rules.rules and not rules.problems
            rows = []
            for label, every in (("one app changed", False), ("every app changed", True)):
                flip(draft, every)
                best: dict[str, tuple[float, int, int, int]] = {}
                for _ in range(args.rounds):
                    for name, policies in (("without rules", None), ("with the recipes", rules)):
                        got = asyncio.run(prepare(base, draft, policies))
                        if name not in best or got[0] < best[name][0]:
                            best[name] = got
                flip(draft, every)  # back as pulled
                rows.append((label, best))
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    load = os.getloadavg()[0]
    print(f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load {load:.1f}; {args.apps} apps, latency {args.latency_ms} ms, best of {args.rounds}")
    print("| push | without rules | with the recipes | ratio | requests without / with | operations | violations |")
    print("|---|---|---|---|---|---|---|")
    for label, best in rows:
        off, on = best["without rules"], best["with the recipes"]
        print(f"| {label} | {off[0]:.2f} s | {on[0]:.2f} s | **{on[0] / off[0]:.1f}x** | {off[1]:,} / {on[1]:,} | "
              f"{on[2]:,} | {on[3]:,} |")


if __name__ == "__main__":
    main()
