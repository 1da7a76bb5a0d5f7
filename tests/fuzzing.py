"""How far the suite's generated-input tests explore: a quick default, ten times as far in the long run.

``TENANTDECK_HYPOTHESIS=long`` (a nightly job or before a release: docs/ci.md) runs the properties that do not
choose their own count with 1,000 examples (the hypothesis profile in tests/conftest.py), and those that do, through
:func:`examples`, ten times their quick count: the schemathesis runs and the policies engine's fast paths, the
suite's largest generated-input items (docs/benchmarks.md, "The suite").
"""

from __future__ import annotations

import os

#: the long run (see the module's docstring)
LONG = os.environ.get("TENANTDECK_HYPOTHESIS") == "long"


def examples(quick: int) -> int:
    """``quick`` generated examples by default, ten times that in the long run."""
    return quick * 10 if LONG else quick
