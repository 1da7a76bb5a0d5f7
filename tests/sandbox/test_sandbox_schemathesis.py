"""Property-based run of the sandbox against its own OpenAPI document (schemathesis, bounded examples).

Generated requests, valid and invalid, must never crash the sandbox (no 5xx: fault injection is off) and must be
answered with documented status codes, content types and response shapes. Bounded so CI stays fast; deterministic
through derandomize.

Excluded: "positive data acceptance". The sandbox validates bodies with the draft's own models, whose rules
(non-blank names, https-only webhook URLs, Basic Auth needing credentials) go beyond what JSON Schema in the
document can say, so a schema-valid body may rightly get a 422.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
from tenantdeck.sandbox.app import create_app

_DB_DIR = Path(tempfile.mkdtemp(prefix="tenantdeck-schemathesis-"))
APP = create_app(_DB_DIR / "sandbox.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=True, rng_seed=0)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
AUTH = {"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,  # no replay of examples saved by earlier runs: the same cases every time
    suppress_health_check=list(HealthCheck),
)
def test_sandbox_honours_its_openapi_document(case: schemathesis.Case) -> None:
    case.call_and_validate(headers=AUTH, excluded_checks=[positive_data_acceptance])
