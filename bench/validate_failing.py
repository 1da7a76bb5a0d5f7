"""Benchmark: `tenantdeck validate` on a failing draft against the same draft clean (issue 33 item 8).

In CI the run people wait on is the failing one, so locating a problem must cost what parsing costs: one problem,
or a hundred, in the 5,000-app draft of bench/validate.py (every kind, 25.5 MB) within 1.3x the wall time and the
peak memory of validating it clean. Four drafts, each run as a fresh process, alternating, R rounds (median):

- clean: as bench/validate.py writes it;
- one schema error: one app's primary colour is ``blue``;
- a hundred schema errors: that, in a hundred apps spread over the file;
- clean+policy: the clean draft with a policies file whose one rule every app keeps;
- one policy violation: the clean draft with that rule made to fail for the middle app.

The ratios (each against the clean run of the same round) are what the target is about; seconds depend on the
machine.

    .venv/bin/python bench/validate_failing.py [--apps N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import process_env, warm_bytecode
from validate import build_draft_text

TARGET = 1.3
GOOD = "primary_color: '#03A9F4'"
POLICY = """\
format: 1
policies:
  - name: middle-app-black
    select: {{names: ["Tenant {middle:05d}"]}}
    check: {{field: "widgets[*].style.primary_color", equals: "#000000"}}
    message: the middle app is black
"""


def spoil(text: str, apps: list[int]) -> str:
    """``text`` with the primary colour of each app in ``apps`` (indexes) written as ``blue``."""
    out, pos = [], 0
    for i in sorted(apps):
        at = text.index(GOOD, text.index(f"name: Tenant {i:05d}"))
        out.append(text[pos:at] + "primary_color: blue")
        pos = at + len(GOOD)
    return "".join(out) + text[pos:]


def run(draft: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one `validate` process."""
    cmd = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "tenantdeck", "validate", str(draft)]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=process_env())
    wall = time.perf_counter() - start
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apps", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    warm_bytecode()
    text = build_draft_text(args.apps)
    middle = args.apps // 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        drafts = {"clean": text, "one error": spoil(text, [middle]),
                  "100 errors": spoil(text, list(range(0, args.apps, max(1, args.apps // 100)))[:100]),
                  "clean+policy": text, "one violation": text}
        paths: dict[str, Path] = {}
        for name, body in drafts.items():
            folder = root / name.replace(" ", "-")
            folder.mkdir()
            paths[name] = folder / "tenantdeck.yaml"
            paths[name].write_text(body)
        (paths["one violation"].parent / "tenantdeck.policies.yaml").write_text(POLICY.format(middle=middle))
        passing = POLICY.format(middle=middle).replace('equals: "#000000"', 'equals: "#03A9F4"')
        (paths["clean+policy"].parent / "tenantdeck.policies.yaml").write_text(passing)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in drafts}
        for _ in range(args.rounds):
            for name, path in paths.items():
                results[name].append(run(path))
    clean_wall = statistics.median(w for w, _ in results["clean"])
    clean_mem = statistics.median(m for _, m in results["clean"])
    print(f"validate, {args.apps} apps ({len(text) / 1e6:.1f} MB), median of {args.rounds} rounds; target <= {TARGET}x")
    for name, rows in results.items():
        wall = statistics.median(w for w, _ in rows)
        mem = statistics.median(m for _, m in rows)
        ratios = f"time {wall / clean_wall:4.2f}x  memory {mem / clean_mem:4.2f}x"
        print(f"  {name:14} {wall:7.2f} s {mem:7.0f} MB   {ratios}")


if __name__ == "__main__":
    main()
