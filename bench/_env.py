"""How benchmarks start tenantdeck processes: the way an installed tool runs.

Two things would otherwise skew whole-process timings against tenantdeck:
- ``PYTHONDONTWRITEBYTECODE`` (set in some shells and CI images) makes every process recompile every module from
  source, which penalises whichever command imports more modules; an installed tool has cached bytecode.
- ``TENANTDECK_*`` variables of the person running the benchmark (profiles, credentials, data dirs).
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def process_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("TENANTDECK_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env.update(extra)
    return env


def warm_bytecode() -> None:
    """Compile the package once, as pip does on install, so the first timed run is not a compile run."""
    compileall.compile_dir(str(ROOT / "src" / "tenantdeck"), quiet=1)
