"""Benchmark: rules that cannot hang (issue 32, items 3 and 4), through the real commands as separate processes.

A pulled sandbox account (the ``local`` profile, in a temporary data directory) whose first webhook a dashboard
user renamed to ``"a" * 5000 + "!"`` (pulled again: the draft holds it too). For each rules file, ``validate``,
``audit`` and ``policy list`` run as ``python -m tenantdeck``, each timed with its peak RSS (``/usr/bin/time``):

- ``baseline``: only the rule every app breaks (what the commands cost here anyway);
- ``regex``: ``matches: "^(a+)+$"`` on every webhook's name (Python's ``re`` would not return), beside a rule every
  app breaks;
- ``cel-1e8``: eight nested ``[0,...,9].all(...)`` (10^8 steps), beside the same two;
- ``cel-per-app``: a check fine on a small app, over budget on the app holding the long name.

    PYTHONPATH=src python bench/hostile_rules.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import process_env, warm_bytecode

NAME = "a" * 5000 + "!"
DIGITS = "[0,1,2,3,4,5,6,7,8,9]"
PLAIN = {"name": "named-x", "check": {"field": "name", "equals": "x"}, "message": "m"}
REGEX = {"name": "plain-names", "check": {"field": "webhooks[*].name", "matches": "^(a+)+$"}, "message": "m"}


def nested(depth: int, body: str = "true") -> str:
    for i in range(depth):
        body = f"{DIGITS}.all(x{i}, {body})"
    return body


CASES = {
    "baseline": [PLAIN],
    "regex": [REGEX, PLAIN],
    "cel-1e8": [PLAIN, {"name": "ten-to-the-eight", "check": {"cel": nested(8)}, "message": "m"}, REGEX],
    "cel-per-app": [{"name": "names-not-x", "check": {"cel": "app.webhooks.all(w, " + nested(4, "w.name != 'x'") + ")"},
                     "message": "m"}, PLAIN],
}


def tenantdeck(env: dict[str, str], cwd: Path, *args: str) -> tuple[int, float, int]:
    """(exit code, wall seconds, peak RSS in MB) of one command."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", sys.executable, "-m", "tenantdeck", *args],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    wall, rss = done.stderr.strip().splitlines()[-1].split()
    return done.returncode, float(wall), int(rss) // 1024


def main() -> None:
    from tenantdeck.sandbox.store import KEEP_PASSWORD, Store

    warm_bytecode()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = process_env(TENANTDECK_DATA_DIR=str(root / "data"), TENANTDECK_CONFIG_DIR=str(root / "config"))
        draft = root / "d.yaml"
        assert tenantdeck(env, root, "pull", "--draft", str(draft))[0] == 0
        app = next(a for a in yaml.safe_load(draft.read_text())["apps"] if a.get("webhooks"))
        store = Store(root / "data" / "sandbox.sqlite3")
        hook = next(h for h in store.list_webhooks(app["id"], None, 100, 0)[0] if h["id"] == app["webhooks"][0]["id"])
        body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt", "password")}
        store.update_webhook(app["id"], hook["id"], {**body, "name": NAME}, KEEP_PASSWORD)
        assert tenantdeck(env, root, "pull", "--draft", str(draft))[0] == 0
        print(f"{'case':<12} {'command':<12} {'exit':>4} {'wall s':>7} {'peak MB':>8}")
        for case, rules in CASES.items():
            draft.with_name("d.policies.yaml").write_text(yaml.safe_dump({"format": 1, "policies": rules}))
            for command in (["validate", str(draft)], ["audit", str(draft)], ["policy", "list", str(draft)]):
                code, wall, rss = tenantdeck(env, root, *command)
                print(f"{case:<12} {' '.join(command[:-1]):<12} {code:>4} {wall:>7.2f} {rss:>8}")


if __name__ == "__main__":
    main()
