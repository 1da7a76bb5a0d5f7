"""Every property's count of generated examples goes through :func:`tests.fuzzing.examples`, so the long run
(``TENANTDECK_HYPOTHESIS=long``, docs/ci.md) explores each one ten times as far: a bare number in a test's own
``settings`` overrides hypothesis's long profile and would stay at its quick count there, unseen."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_property_fixes_its_count_of_examples_with_a_bare_number() -> None:
    bare = [f"{path.relative_to(TESTS.parent)}:{text[:match.start()].count(chr(10)) + 1}"
            for path in sorted(TESTS.rglob("*.py")) if "__pycache__" not in path.parts
            for text in [path.read_text(encoding="utf-8")]
            for match in re.finditer(r"max_examples\s*=\s*\d", text)
            if path.name != "conftest.py"]  # the profiles themselves
    assert not bare, f"count through tests.fuzzing.examples(...): {bare}"
