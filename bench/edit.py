"""Benchmark: interactive edits of an open draft (tenantdeck.draft.session.DraftSession), in process.

On the 1,000-app draft of bench/validate.py and a 5,000-app one of the same shape: the median time of
(1) ``set`` of one toggle + ``save()``, (2) inserting a webhook + ``save()``, (3) the incremental re-validation of
the edited app alone. Baselines measured in the same run, since the machines are noisy: a bare
``yaml.load(CSafeLoader)`` of the same file, and the old save path (``draft.save.merge_text``, a ruamel.yaml round
trip) on a 100-app draft.

    .venv/bin/python bench/edit.py [--apps 1000 5000] [--rounds R]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from validate import build_draft_text  # noqa: E402

from tenantdeck.draft.session import DraftSession  # noqa: E402

TARGETS = {1000: 0.050, 5000: 0.150}
REVALIDATE_TARGET = 0.005


def median_of(rounds: int, step: Callable[[int], None]) -> tuple[float, list[float]]:
    times: list[float] = []
    for i in range(rounds):
        start = time.perf_counter()
        step(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def bare_parse(path: Path, rounds: int) -> float:
    def step(_: int) -> None:
        with open(path, encoding="utf-8") as fh:
            yaml.load(fh, Loader=yaml.CSafeLoader)

    return median_of(max(3, rounds // 4), step)[0]


def old_save(tmp: Path, rounds: int) -> float:
    """The ruamel path a toggle cost before the session: load the text, flip a toggle, merge_text."""
    from tenantdeck.draft import load_text
    from tenantdeck.draft.save import merge_text

    text = build_draft_text(100)
    draft = load_text(text).draft
    assert draft is not None

    def step(i: int) -> None:
        draft.apps[0].widgets[0].main.send_gifs = bool(i % 2)
        (tmp / "old.yaml").write_text(merge_text(text, draft), encoding="utf-8")

    return median_of(max(2, rounds // 10), step)[0]


def run(apps: int, rounds: int, tmp: Path) -> dict[str, float]:
    path = tmp / f"draft-{apps}.yaml"
    path.write_text(build_draft_text(apps), encoding="utf-8")
    start = time.perf_counter()
    session = DraftSession.open(path, validate=False)
    opened = time.perf_counter() - start
    start = time.perf_counter()
    assert session.validate_all() == [], session.problems[:3]
    validated = time.perf_counter() - start
    middle = apps // 2

    def toggle(i: int) -> None:
        session.set(f"apps[{middle}].widgets[0].main.send_gifs", bool(i % 2 == 0))
        session.save()

    def webhook(i: int) -> None:
        hooks = session.get(f"apps[{middle}].webhooks")
        if len(hooks) >= 20:
            session.delete(f"apps[{middle}].webhooks[2]")
        session.insert(
            f"apps[{middle}].webhooks",
            {
                "id": f"bench{i}",
                "name": f"Bench {i}",
                "webhookURL": f"https://hooks.example.com/bench/{i}",
                "enabled": True,
                "triggers": ["message_sent"],
            },
        )
        session.save()

    def revalidate(_: int) -> None:
        session.recheck(f"apps[{middle}]")

    toggle_t, _ = median_of(rounds, toggle)
    assert session.save().method == "unchanged"
    webhook_t, _ = median_of(rounds, webhook)
    reval_t, _ = median_of(rounds, revalidate)
    parse_t = bare_parse(path, rounds)
    return {
        "size": path.stat().st_size,
        "open": opened,
        "validate_all": validated,
        "toggle": toggle_t,
        "webhook": webhook_t,
        "revalidate": reval_t,
        "parse": parse_t,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"libyaml {yaml.__with_libyaml__}, {dt.date.today()}; median of {args.rounds} rounds"
    )
    ok = True
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old = old_save(tmp, args.rounds)
        print(f"baseline: old save path (ruamel merge_text) of one toggle, 100 apps: {old * 1000:.0f} ms")
        for apps in args.apps:
            r = run(apps, args.rounds, tmp)
            target = TARGETS.get(apps)
            print(
                f"\n{apps} apps, {r['size'] / 1e6:.1f} MB: open (parse + layout) {r['open']:.2f} s, "
                f"validate_all {r['validate_all']:.2f} s; bare yaml.load(CSafeLoader) {r['parse']:.2f} s"
            )
            for name, label in (("toggle", "set toggle + save"), ("webhook", "insert webhook + save")):
                verdict = ""
                if target is not None:
                    verdict = f"target <= {target * 1000:.0f} ms: {'OK' if r[name] <= target else 'OVER'}"
                    ok &= name != "toggle" or r[name] <= target
                print(
                    f"  {label:<24} {r[name] * 1000:7.1f} ms   = {r[name] / r['parse']:.3f}x the bare parse, "
                    f"{old / r[name]:.0f}x faster than the old 100-app save   {verdict}"
                )
            ok &= r["revalidate"] <= REVALIDATE_TARGET
            print(
                f"  {'re-validate one app':<24} {r['revalidate'] * 1000:7.2f} ms   "
                f"= {r['revalidate'] / r['parse']:.4f}x the bare parse   target <= {REVALIDATE_TARGET * 1000:.0f} ms: "
                f"{'OK' if r['revalidate'] <= REVALIDATE_TARGET else 'OVER'}"
            )
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
