"""Property-based run of the sandbox against its own OpenAPI document (schemathesis, bounded examples).

Generated requests, valid and invalid, must never crash the sandbox (no 5xx: fault injection is off) and must be
answered with documented status codes, content types and response shapes. Bounded so CI stays fast (a few fuzzed
cases per operation by default, ten times as many under ``TENANTDECK_HYPOTHESIS=long``); deterministic through
derandomize.

The team POST (add-collaborator) gets a run of its own on top: generated app ids almost never name an app, so the
general run mostly meets 404s there; the extra run fixes ``appId`` to a real app so generated bodies reach the
store's checks (owner, unknown removals, the 25 limit) and its writes. The settings POST (map-settings) and DELETE
(unmap-settings) get one the same way, on an app of their own: generated keys and booleans reach the store (the
list-valued key, the per-app bound) and its writes, and unmap resets what they wrote.

Every extension's settings writes (POST/PUT of ``/extensions/{extId}/v1/settings``, generated from the catalog)
and the push certificate uploads get such a run too, on an app of their own with fewer examples per operation
(there are dozens of them): generated bodies reach the catalog's request models, the secret checks, data-masking's
merge and the size bound, and generated multipart files reach the certificate checks.

Excluded: "positive data acceptance". The sandbox validates bodies with the draft's own models, whose rules
(non-blank names, https-only webhook URLs, Basic Auth needing credentials) go beyond what JSON Schema in the
document can say, so a schema-valid body may rightly get a 422.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, reject, settings
from schemathesis.core.parameters import ParameterLocation
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET
from tenantdeck.sandbox.app import create_app
from tenantdeck.sandbox.store import Store
from tests.fuzzing import LONG, examples

#: tens of seconds of generated requests: started first (tests/conftest.py)
pytestmark = pytest.mark.slow

#: what the runs on real apps write to: one app each, made with the sandbox (see :func:`sandbox`)
REAL_APPS = ("team", "settings", "extensions")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, str]]:
    """The seeded sandbox every run of this file calls, and the ids of its three apps for the real-app runs (their
    own, so the seeded apps stay as seeded for the general run).

    Built by a fixture, not at import: every xdist worker imports this file to collect it, and the schemas below
    are lazy (``schemathesis.pytest.from_fixture``) for the same reason. Parametrized at import, schemathesis drew
    the examples and coverage cases of all 200 operations in every worker before its first test, ~5.5 s of CPU
    each; now only the worker that runs a test draws its cases.
    """
    db = tmp_path_factory.mktemp("schemathesis") / "sandbox.sqlite3"
    app = create_app(db, key=DEFAULT_KEY, secret=DEFAULT_SECRET, seed=True, rng_seed=0)
    store = Store(db)
    try:
        ids = {name: store.create_app(f"Schemathesis {name}", "us", "3")["id"] for name in REAL_APPS}
    finally:
        store.close()
    return app, ids


@pytest.fixture(scope="module")
def sandbox_schema(sandbox: tuple[Any, dict[str, str]]) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_asgi("/openapi.json", sandbox[0])


@pytest.fixture
def real_apps(sandbox: tuple[Any, dict[str, str]]) -> dict[str, str]:
    return sandbox[1]


@pytest.fixture(scope="module")
def session(sandbox: tuple[Any, dict[str, str]]) -> Iterator[requests.Session]:
    """One in-process client for every request of the file, which reads no proxy settings from the environment.

    Without a session, schemathesis opens a client per request, and ``requests`` then looks for proxy variables in
    ``os.environ`` (every variable, lower-cased, per request): 8 s of a 99 s profile of this file, for a transport
    that never leaves the process. The application and its lifespan are the same either way.
    """
    with asgi.get_client(sandbox[0]) as client:
        client.trust_env = False
        yield client


schema = schemathesis.pytest.from_fixture("sandbox_schema")
AUTH = {"key": DEFAULT_KEY, "secret": DEFAULT_SECRET}
#: every extension's settings operations (93 of the document's 114), run in two tests so no one test holds a
#: worker for long; the rest of the document is a third
EXTENSION_SETTINGS = r"/extensions/[^/]+/v1/"
TEAM_POST = schema.include(path="/apps/{appId}/collaborators", method="POST")
SETTINGS_WRITES = schema.include(path="/apps/{appId}/settings", method=["POST", "DELETE"])
#: every extension's settings writes and both certificate uploads
EXTENSION_WRITE_PATHS = r"^/apps/\{appId\}/extensions/[^/]+/v1/(settings|upload-certificate-p12|upload-certificate-p8)$"
EXTENSION_WRITES = schema.include(path_regex=EXTENSION_WRITE_PATHS, method=["POST", "PUT"])

def fuzzed(quick: int) -> int:
    """Generated cases per operation: ``quick`` by default, ten times that in the long run (tests/fuzzing.py).

    Only the fuzzing phase counts them; schemathesis's examples and coverage phases (each operation's documented
    examples and its boundary and negative values, ~80 cases for an extension write) run in full wherever they run
    (every test but the general run of the catalog's operations by default: :data:`GENERATED`). The quick counts
    are a third of what this file used before issue 35 (12, 40, 8, 6); the long run's are above them, so the
    nightly run covers everything the old default did.
    """
    return examples(quick)


#: the general run's settings: a few fuzzed cases per operation, on top of its examples and coverage cases
GENERAL = settings(
    max_examples=fuzzed(4),
    deadline=None,
    derandomize=True,
    database=None,  # no replay of examples saved by earlier runs: the same cases every time
    suppress_health_check=list(HealthCheck),
)


def honours_the_document(case: schemathesis.Case, session: requests.Session) -> requests.Response:
    return case.call_and_validate(session=session, headers=AUTH, excluded_checks=[positive_data_acceptance])


@schema.exclude(path_regex=EXTENSION_SETTINGS).parametrize()
@GENERAL
def test_sandbox_honours_its_openapi_document(case: schemathesis.Case, session: requests.Session) -> None:
    honours_the_document(case, session)


#: the general run of the 93 operations generated from the extension catalog: fuzzed cases only, by default. The
#: documented examples and the coverage phase's boundary and negative cases are what made these two tests a third of
#: the file's CPU, and they exercise nothing the other runs do not: their bad app ids and headers meet the same
#: dependencies (``AppIdParam``, the key check) as every other operation of the general run, which keeps those
#: phases, and on a made-up app id their bodies stop at the 404 before any check of their own; the bodies' boundary
#: cases run where they reach the checks, on a real app (:func:`test_extension_writes_on_a_real_app`, every phase).
#: The long run keeps every phase here too.
GENERATED = GENERAL if LONG else settings(GENERAL, phases=[Phase.generate])


@schema.include(path_regex=EXTENSION_SETTINGS, method=["POST", "PUT"]).parametrize()
@GENERATED
def test_sandbox_honours_its_openapi_document_on_extension_settings_writes(case: schemathesis.Case,
                                                                           session: requests.Session) -> None:
    honours_the_document(case, session)


@schema.include(path_regex=EXTENSION_SETTINGS, method=["GET", "DELETE"]).parametrize()
@GENERATED
def test_sandbox_honours_its_openapi_document_on_extension_settings_reads_and_deletes(
        case: schemathesis.Case, session: requests.Session) -> None:
    honours_the_document(case, session)


def test_the_general_run_covers_every_operation(sandbox_schema: schemathesis.BaseSchema) -> None:
    """The three tests above split the document by path and method; together they must be all of it."""
    import re

    operations = [op.ok() for op in sandbox_schema.get_all_operations()]
    settings_ops = [op for op in operations if re.search(EXTENSION_SETTINGS, op.path)]
    assert len(operations) > 100 and len(settings_ops) > 80
    assert {op.method.upper() for op in settings_ops} <= {"POST", "PUT", "GET", "DELETE"}


#: the runs on a real app: fixed examples (derandomized), no deadline, every health check off (the body is the point)
ON_A_REAL_APP = settings(max_examples=fuzzed(15), deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck))


def test_the_team_post_is_in_the_document(sandbox_schema: schemathesis.BaseSchema) -> None:
    """The general run covers every operation of the document; this one must be among them."""
    operation = sandbox_schema["/apps/{appId}/collaborators"]["POST"]
    assert operation.definition.raw["operationId"] == "add-collaborator"


@TEAM_POST.parametrize()
@ON_A_REAL_APP
def test_team_post_on_a_real_app(case: schemathesis.Case, real_apps: dict[str, str],
                                 session: requests.Session) -> None:
    # As for the settings writes below: a case negative only in its path or headers is valid once the real app id
    # and the credentials replace them, and would be "accepted negative data"; it is dropped. Which examples reach
    # here depended on what ran before in the process (a flake seen under xdist).
    if case.meta is not None and any(
        case.meta.is_negative_at(where) for where in (ParameterLocation.PATH, ParameterLocation.HEADER)
    ):
        reject()
    case.path_parameters = {**(case.path_parameters or {}), "appId": real_apps["team"]}
    honours_the_document(case, session)


def test_the_settings_writes_are_in_the_document(sandbox_schema: schemathesis.BaseSchema) -> None:
    operations = sandbox_schema["/apps/{appId}/settings"]
    assert operations["POST"].definition.raw["operationId"] == "map-settings"
    assert operations["DELETE"].definition.raw["operationId"] == "unmap-settings"


@SETTINGS_WRITES.parametrize()
@ON_A_REAL_APP
def test_settings_writes_on_a_real_app(case: schemathesis.Case, real_apps: dict[str, str],
                                      session: requests.Session) -> None:
    # The real app id and the credentials replace what was generated for the path and headers, so a case made
    # invalid only there has become a valid request: it is dropped (the general run covers bad ids and headers).
    # What is exercised here is the body, on an app that exists.
    if case.meta is not None and any(
        case.meta.is_negative_at(where) for where in (ParameterLocation.PATH, ParameterLocation.HEADER)
    ):
        reject()
    case.path_parameters = {**(case.path_parameters or {}), "appId": real_apps["settings"]}
    response = honours_the_document(case, session)
    assert response.status_code < 500


def test_the_extension_writes_are_in_the_document(sandbox_schema: schemathesis.BaseSchema) -> None:
    """The run below covers every generated extension write and both uploads (and so cannot pass on nothing)."""
    writes = sandbox_schema.include(path_regex=EXTENSION_WRITE_PATHS, method=["POST", "PUT"])
    ids = {op.ok().definition.raw["operationId"] for op in writes.get_all_operations()}
    assert {"store-settings-gifs-giphy", "store-or-update-settings-data-masking", "update-settings-stickers",
            "store-settings-sms-notification", "upload-push-notification-certificate-p12",
            "upload-push-notification-certificate-p8"} <= ids
    assert not any(i.startswith(("get-", "delete-")) for i in ids)


@EXTENSION_WRITES.parametrize()
@settings(max_examples=fuzzed(3), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_extension_writes_on_a_real_app(case: schemathesis.Case, real_apps: dict[str, str],
                                        session: requests.Session) -> None:
    if case.meta is not None and any(
        case.meta.is_negative_at(where) for where in (ParameterLocation.PATH, ParameterLocation.HEADER)
    ):
        reject()  # as for the settings writes: the body is what this run exercises
    case.path_parameters = {**(case.path_parameters or {}), "appId": real_apps["extensions"]}
    response = honours_the_document(case, session)
    assert response.status_code < 500


# -- the vendor's own document -----------------------------------------------------------------------------------

#: the vendor's extensions OpenAPI (the subset kept in ../shared, see tests/api/vendor_openapi.py), when reachable
_VENDOR_DOC = (Path(__file__).resolve().parents[2].parent
               / "shared/reference/vendor-openapi/management-apis-extensions.json")


@pytest.fixture(scope="module")
def vendor_schema(sandbox: tuple[Any, dict[str, str]]) -> schemathesis.BaseSchema:
    """The vendor's document, pointed at the sandbox: its extension-settings and certificate operations only (the
    deprecated moderation list is not served), on the app of its own."""
    import json

    if not _VENDOR_DOC.is_file():
        pytest.skip(f"the vendor OpenAPI is not at {_VENDOR_DOC}")
    doc = json.loads(_VENDOR_DOC.read_text(encoding="utf-8"))
    doc["servers"] = [{"url": "/"}]
    doc["paths"] = {p: item for p, item in doc["paths"].items() if "/extensions/" in p}
    loaded = schemathesis.openapi.from_dict(doc)
    loaded.app = sandbox[0]
    return loaded


def test_the_vendor_document_has_the_new_paths(vendor_schema: schemathesis.BaseSchema) -> None:
    ids = {op.ok().definition.raw["operationId"] for op in vendor_schema.get_all_operations()}
    assert {"store-settings-gifs-giphy", "store-or-update-settings-data-masking", "adds-settings-profanity-filter",
            "upload-push-notification-certificate-p8", "query-push-notification-certificates"} <= ids


@schemathesis.pytest.from_fixture("vendor_schema").parametrize()
@settings(max_examples=fuzzed(2), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_the_vendors_own_schema_never_gets_a_server_error(case: schemathesis.Case, real_apps: dict[str, str],
                                                          session: requests.Session) -> None:
    """Requests generated from the vendor's document (its odd schemas included: stickers without a settings
    level, email's undeclared required fields) on a real app: the sandbox may refuse them, never fail."""
    case.path_parameters = {**(case.path_parameters or {}), "appId": real_apps["extensions"]}
    response = case.call(session=session, headers=AUTH)
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text[:300])
