"""Packaging metadata that install-time tools read: no deprecation warnings on `pip install -e .`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_is_an_spdx_string_with_a_backend_that_understands_it() -> None:
    """A ``license = {text = ...}`` table makes setuptools >= 77 print a deprecation banner on every install (three
    times in `make run`); PEP 639's SPDX string does not, but needs setuptools >= 77 to be read."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == "MIT"
    requires = pyproject["build-system"]["requires"]
    setuptools = next(r for r in requires if r.startswith("setuptools"))
    match = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", setuptools)
    assert match is not None and int(match.group(1)) >= 77, setuptools
