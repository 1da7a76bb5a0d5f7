"""Print pip constraints that pin every direct dependency of pyproject.toml (test extras included) to the lowest
version its range admits, for ``scripts/drift.sh lowest``: does the package still work with what it claims to?

Only ``>=`` lower bounds are read (the project declares no other kind); a dependency without one is left free.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

_LOWER = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)")


def lowest(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    specs = [*project.get("dependencies", []), *project.get("optional-dependencies", {}).get("test", [])]
    pins = []
    for spec in specs:
        match = _LOWER.match(spec.split(";")[0])
        if match:
            pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    print("\n".join(lowest(root / "pyproject.toml")))
