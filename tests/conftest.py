"""Suite-wide settings.

Hypothesis explores randomly on developers' machines (that is how it found ``5e-324`` and ``\\x85`` breaking a
save/load round trip, and a page number overflowing SQLite). In CI (``CI`` set) it runs derandomized with no
example database, so a run is reproducible and a green CI cannot turn red on a newly drawn example.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

# caches (parse cache, theme verdicts) of tests that do not choose their own: never the user's ~/.cache
os.environ.setdefault("TENANTDECK_CACHE_DIR", tempfile.mkdtemp(prefix="tenantdeck-test-cache-"))

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
