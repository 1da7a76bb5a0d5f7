"""Helpers for draft I/O tests: load text and pick out problems."""

from __future__ import annotations

import textwrap

import pytest

from tenantdeck.draft import LoadResult, load_text
from tenantdeck.problems import Problem

MINIMAL = """\
format: 1
apps:
  - name: Acme
    region: eu
    version: "3"
"""


def load(text: str) -> LoadResult:
    return load_text(textwrap.dedent(text), "d.yaml")


def only(result: LoadResult, code: str | None = None) -> Problem:
    """The single problem (of ``code``, if given); fails with the full list otherwise."""
    found = [p for p in result.problems if code is None or p.code == code]
    assert len(found) == 1, [p.render() for p in result.problems]
    return found[0]


@pytest.fixture
def minimal() -> str:
    return MINIMAL
