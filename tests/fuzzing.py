"""How far the suite's generated-input tests explore: a quick default, ten times as far in the long run.

``TENANTDECK_HYPOTHESIS=long`` (a nightly job or before a release: docs/ci.md) runs the properties that do not
choose their own count with 1,000 examples (the hypothesis profile in tests/conftest.py), and every one that does,
through :func:`examples`, ten times its quick count. A count written as a bare number would stay the same in the
long run (hypothesis's profile yields to a test's own settings), so there is none: ``tests/test_fuzzing.py`` says
so. The quick counts are what a developer's ``make test`` can afford; the costly ones (the schemathesis runs, the
policies engine's fast paths, the editor's key bursts) are the suite's largest generated-input items
(docs/benchmarks.md, "The suite").
"""

from __future__ import annotations

import os

#: the long run (see the module's docstring)
LONG = os.environ.get("TENANTDECK_HYPOTHESIS") == "long"


def examples(quick: int) -> int:
    """``quick`` generated examples by default, ten times that in the long run."""
    return quick * 10 if LONG else quick
