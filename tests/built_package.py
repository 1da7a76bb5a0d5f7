"""The wheel and the sdist of this tree, built once per test session and shared by every xdist worker.

Built as docs/package.md says: the PEP 517 backend (setuptools, a test dependency, offline: what ``python -m build``
does in an isolated environment), from a copy of the files a build reads (the rest of the tree is not in the
package: MANIFEST.in). The packaging, docs and CI-recipe tests each built their own (three recipes, up to seven
builds a run as xdist spread the tests over workers, ~1 s of CPU each); they read the package and never change it,
so one build of each kind serves them all. The first worker to ask builds under a lock in the session's shared
temporary directory; the others wait for it and read its result.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the files a build of the package reads
BUILD_INPUTS = ("pyproject.toml", "LICENSE", "README.md", "MANIFEST.in", "docs", "screenshots", "src")


def build(kind: str, tree: Path) -> Path:
    """The ``kind`` ("wheel" or "sdist") of a copy of this tree made in ``tree``: the path of the built file."""
    for name in BUILD_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, tree / name)
    hook = "build_sdist" if kind == "sdist" else "build_wheel"
    built = subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; "
                            f"print(build_meta.{hook}('dist'))"], cwd=tree, capture_output=True, text=True,
                           timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    return tree / "dist" / built.stdout.strip().splitlines()[-1]


def built(kind: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's ``kind`` of the package (see the module's docstring); skips without setuptools 77."""
    pytest.importorskip("setuptools", minversion="77")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # xdist: the workers' common parent
    done = shared / f"built-{kind}.path"
    with open(shared / f"built-{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
        if done.is_file():
            return Path(done.read_text(encoding="utf-8"))
        tree = shared / f"built-{kind}"
        shutil.rmtree(tree, ignore_errors=True)  # a build interrupted earlier in this session
        tree.mkdir()
        path = build(kind, tree)
        done.write_text(str(path), encoding="utf-8")
        return path
