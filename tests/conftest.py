"""Suite-wide settings.

Hypothesis explores randomly on developers' machines (that is how it found ``5e-324`` and ``\\x85`` breaking a
save/load round trip, and a page number overflowing SQLite). In CI (``CI`` set) it runs derandomized with no
example database, so a run is reproducible and a green CI cannot turn red on a newly drawn example.

``TENANTDECK_HYPOTHESIS=long`` (a nightly job, or before a release) explores ten times as far: 1,000 examples for
every property that does not choose its own count (the ones that do keep theirs; the service-state invariant has
``TENANTDECK_INVARIANT_EXAMPLES``). The default stays hypothesis's 100: the properties are about 1% of the suite's
time (docs/benchmarks.md, "The suite"), so fewer examples would buy little and check less.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

# caches (parse cache, theme verdicts) of tests that do not choose their own: never the user's ~/.cache
os.environ.setdefault("TENANTDECK_CACHE_DIR", tempfile.mkdtemp(prefix="tenantdeck-test-cache-"))

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile("long" if os.environ.get("TENANTDECK_HYPOTHESIS") == "long" else "ci" if os.environ.get("CI")
                      else "dev")
