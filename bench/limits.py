"""Benchmark (issue 32, item 6): `tenantdeck validate` and `diff --offline` on drafts the service cannot hold.

Three drafts, each the init sample with its first app's profanity word list replaced: "10MB-word" (one bad word of
10,000,000 characters), "100000-words" (100,000 short words, 1.3 MB of JSON) and, for scale, "sample" (the init
sample as it is). Each command runs as a fresh process, ``--rounds`` times; the table gives the median wall time,
the median CPU time (user + system: what the command costs, whatever else the machine runs) and the largest peak
RSS (``ru_maxrss`` of the child). Both hostile drafts must be refused (exit 1) in bounded time
and memory: seconds and tens of megabytes.

    .venv/bin/python bench/limits.py [--rounds R] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import process_env, warm_bytecode

ROOT = Path(__file__).resolve().parent.parent
TOOL = [sys.executable, "-m", "tenantdeck"]
SAMPLE_WORDS = 'badwords: ["darn", "heck"]'


def drafts(folder: Path) -> dict[str, Path]:
    subprocess.run([*TOOL, "init", str(folder / "sample.yaml")], env=process_env(), check=True,
                   capture_output=True)
    text = (folder / "sample.yaml").read_text(encoding="utf-8")
    assert SAMPLE_WORDS in text
    variants = {
        "10MB-word": f'badwords: ["darn", "{"x" * 10_000_000}"]',
        "100000-words": "badwords:\n" + "".join(f"          - word{i:06d}\n" for i in range(100_000)),
    }
    out = {"sample": folder / "sample.yaml"}
    for name, words in variants.items():
        out[name] = folder / f"{name}.yaml"
        out[name].write_text(text.replace(SAMPLE_WORDS, words, 1), encoding="utf-8")
    return out


def measure(args: list[str], cwd: Path) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MB, exit code) of one fresh process (``ru_maxrss``: KiB on Linux)."""
    started = time.perf_counter()
    proc = subprocess.Popen([*TOOL, *args], cwd=cwd, env=process_env(TENANTDECK_DATA_DIR=str(cwd / "data"),
                                                                    TENANTDECK_CONFIG_DIR=str(cwd / "cfg")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="write the drafts here and keep them")
    opts = parser.parse_args()
    warm_bytecode()
    folder = opts.keep or Path(tempfile.mkdtemp(prefix="tenantdeck-bench-limits-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = drafts(folder)
    print(f"load average {os.getloadavg()[0]:.1f}; {opts.rounds} rounds, median wall and CPU, max peak RSS")
    print("| draft | command | exit | wall (s) | CPU (s) | peak RSS (MB) |")
    print("|---|---|---|---|---|---|")
    for name, path in paths.items():
        for command in (["validate", path.name], ["diff", "--offline", path.name]):
            runs = [measure(command, folder) for _ in range(opts.rounds)]
            codes = {run[3] for run in runs}
            wall = statistics.median(run[0] for run in runs)
            cpu = statistics.median(run[1] for run in runs)
            rss = max(run[2] for run in runs)
            print(f"| {name} ({path.stat().st_size / 1e6:.2f} MB) | {' '.join(command[:-1])} | "
                  f"{'/'.join(map(str, sorted(codes)))} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
