"""Issue 8: the commands against a server answering exactly like the vendor's OpenAPI examples (real HTTP, loopback).

The fixture (``openapi_fixture``) lists apps with no ``meta`` (101 for the listing's pagination, pulled and diffed
by one test; three for the shapes of one app's webhook and widget), answers
webhooks without their write-only fields, and holds the example webhook ``test_webhook201`` (an id outside the
documented rule) with Basic Auth and retries switched on where nobody can see them.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.api.resources import apps as apps_resource
from tenantdeck.cli import cli
from tests.loopback import serve_on_loopback
from tests.sync.openapi_fixture import HIDDEN, WIDGETS_EXAMPLE, FixtureService, apps, create_fixture_app

#: the pagination account: two pages (a full page is followed, a short one ends the listing) of a page size made
#: small for the test (:data:`PAGE`; the client asks for 100 a page). It was 250, then 201 and 101 apps of pages of
#: 100: a pull of them (29 requests an app) and the diff after it were among the suite's largest CPU items (37 s,
#: 26 s, then 15 s). Paging on past a second full page is the client's unit test's
#: (tests/api/test_api_client.py, test_list_without_meta_keeps_paging_while_pages_are_full).
PAGE = 5
APPS = PAGE + 1
FEW = 3  # the shapes account: app0000 holds the example widget and webhook, app0001 is renamed; one more plain app
WRITE_ONLY = {"useBasicAuth", "username", "password", "retryOnFailure"}


@contextlib.contextmanager
def serving(count: int) -> Iterator[tuple[FixtureService, str]]:
    """The fixture server over ``count`` example apps, on a real loopback socket."""
    service = FixtureService(apps(count))
    with serve_on_loopback(create_fixture_app(service)) as url:
        yield service, url


@pytest.fixture
def served_many() -> Iterator[tuple[FixtureService, str]]:
    """Two pages of apps: only the listing's pagination needs them."""
    with serving(APPS) as served:
        yield served


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FixtureService, str]]:
    """A few apps shaped like the examples: the webhook and widget shapes live on app0000 and app0001."""
    with serving(FEW) as served:
        yield served


def reset(svc: FixtureService) -> FixtureService:
    """The state every test starts from: the example webhook and widget, app0001 named, no requests seen."""
    svc.requests.clear()
    svc.webhook = {**svc.webhook, "name": "test_webhook201", **HIDDEN}
    svc.widget = copy.deepcopy(WIDGETS_EXAMPLE["data"]["body"]["data"][0])
    svc.apps[1]["name"] = "Test App 0001"
    return svc


@pytest.fixture
def service(served: tuple[FixtureService, str]) -> FixtureService:
    return reset(served[0])


def run(served: tuple[FixtureService, str], tmp_path: Path, *args: str) -> Result:
    env = {"TENANTDECK_KEY": "fixture-key", "TENANTDECK_SECRET": "fixture-secret",
           "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
           "TENANTDECK_BASE_URL": ""}
    return CliRunner().invoke(cli, [*args, "--draft", str(tmp_path / "tenantdeck.yaml"), "--base-url", served[1]],
                              env=env, catch_exceptions=False)


@pytest.fixture
def pulled(served: tuple[FixtureService, str], service: FixtureService, tmp_path: Path) -> dict[str, Any]:
    result = run(served, tmp_path, "pull")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    return data


def test_two_pages_of_apps_without_meta_all_arrive_and_a_diff_after_the_pull_exits_0(
        served_many: tuple[FixtureService, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app of both pages is pulled, and a diff over both pages right after finds nothing (a diff that missed a
    page would plan the missing apps). The client asks for :data:`PAGE` apps a page (it is told so, as the CLI runs
    in this process), so two pages are six apps, not 101. One test, with its own server: xdist hands adjacent tests
    to different workers, each of which made a module-wide pull again."""
    monkeypatch.setattr(apps_resource, "APPS_PER_PAGE", PAGE)
    service = served_many[0]
    pulled = run(served_many, tmp_path, "pull")
    assert pulled.exit_code == 0, pulled.output
    data: dict[str, Any] = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    assert len(data["apps"]) == APPS
    assert {a["id"] for a in data["apps"]} == {a["id"] for a in service.apps}
    pages = [query.get("page") for method, path, query, _ in service.requests if method == "GET" and path == "/apps"]
    assert pages == ["1", "2"]  # 5, 1: a short page ends the listing
    sizes = {query.get("perPage") for method, path, query, _ in service.requests if method == "GET" and path == "/apps"}
    assert sizes == {str(PAGE)}
    result = run(served_many, tmp_path, "diff")
    assert result.exit_code == exitcodes.OK, result.output
    assert "No changes" in result.stdout and "unknown" not in result.stdout


def test_example_webhook_is_pulled_shown_and_never_planned_for_deletion(
    served: Any, service: FixtureService, pulled: dict[str, Any], tmp_path: Path
) -> None:
    text = (tmp_path / "tenantdeck.yaml").read_text()
    [hook] = pulled["apps"][0]["webhooks"]
    assert hook["id"] == "test_webhook201" and hook["triggers"] == ["message_delivery_receipt", "message_read_receipt"]
    # nothing invented for what the service does not report, and the draft says so
    assert not (WRITE_ONLY | {"enabled"}) & set(hook)
    assert "not reported by the service: useBasicAuth, username, enabled, retryOnFailure, password" in text

    validate = CliRunner().invoke(cli, ["validate", str(tmp_path / "tenantdeck.yaml")])
    assert validate.exit_code == 0, validate.output
    assert "warning: apps[0].webhooks[0].id: webhook id 'test_webhook201' is not letters and digits" in validate.output

    result = run(served, tmp_path, "diff", "--allow-delete", "--format", "json")
    assert result.exit_code == exitcodes.OK, result.output
    plan = json.loads(result.stdout)
    assert plan["operations"] == [] and plan["summary"]["delete"] == 0
    assert service.sent("DELETE") == []


def test_rename_sends_no_write_only_field_the_draft_does_not_set(
    served: Any, service: FixtureService, pulled: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(path.read_text().replace("name: test_webhook201", "name: Renamed hook", 1))
    diff = run(served, tmp_path, "diff")
    assert diff.exit_code == exitcodes.CHANGES, diff.output
    assert 'Name (name): "test_webhook201" -> "Renamed hook"' in diff.stdout

    push = run(served, tmp_path, "push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    [body] = service.sent("PUT", "/webhooks/test_webhook201")
    assert body["name"] == "Renamed hook"
    assert not (WRITE_ONLY | {"enabled"}) & set(body), body
    # so what the admin set in the dashboard is still in force
    assert {k: service.webhook[k] for k in HIDDEN} == HIDDEN

    again = run(served, tmp_path, "diff")
    assert again.exit_code == exitcodes.OK, again.output


def test_a_write_only_field_the_draft_sets_is_sent_and_remembered(
    served: Any, service: FixtureService, pulled: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(path.read_text().replace("name: test_webhook201\n", "name: test_webhook201\n"
                                             "        retryOnFailure: false\n", 1))
    diff = run(served, tmp_path, "diff")
    assert "Retry on failure (retryOnFailure): (not reported by the service) -> false" in diff.stdout
    assert run(served, tmp_path, "push", "--yes").exit_code == exitcodes.OK
    [body] = service.sent("PUT", "/webhooks/test_webhook201")
    assert body["retryOnFailure"] is False and not (WRITE_ONLY - {"retryOnFailure"}) & set(body)

    # the service still does not report it, but the base remembers what was pushed: a re-pull keeps it, says so
    assert run(served, tmp_path, "pull").exit_code == 0
    text = path.read_text()
    assert "        retryOnFailure: false\n" in text and "not reported by the service: useBasicAuth" in text
    assert run(served, tmp_path, "diff").exit_code == exitcodes.OK


def test_listing_values_and_long_names_the_service_holds_are_kept_and_sent_back_as_they_are(
    served: Any, service: FixtureService, tmp_path: Path
) -> None:
    """A widget holding listing values outside the documented ones and a 120-character name, and an app whose name
    is longer than 100: pulled, shown, warned about, never planned; an unrelated change sends them back unchanged."""
    config = service.widget["configuration"]
    config["name"] = "W" * 120
    config["sidebar"].update(user_listing="everyone", recent_chat_listing="favourites")
    service.apps[1]["name"] = "A" * 120
    path = tmp_path / "tenantdeck.yaml"
    assert run(served, tmp_path, "pull").exit_code == 0
    pulled = {app["id"]: app for app in yaml.safe_load(path.read_text())["apps"]}
    [widget] = pulled["app0000"]["widgets"]
    assert widget["name"] == "W" * 120 and widget["sidebar"]["user_listing"] == "everyone"
    assert widget["sidebar"]["recent_chat_listing"] == "favourites" and pulled["app0001"]["name"] == "A" * 120
    at = {app_id: i for i, app_id in enumerate(pulled)}

    validate = CliRunner().invoke(cli, ["validate", str(path)])
    assert validate.exit_code == 0, validate.output
    main, long_named = at["app0000"], at["app0001"]
    for where in (f"apps[{main}].widgets[0].name", f"apps[{main}].widgets[0].sidebar.user_listing",
                  f"apps[{main}].widgets[0].sidebar.recent_chat_listing", f"apps[{long_named}].name"):
        assert f"warning: {where}: " in validate.output, validate.output
    assert ": error: " not in validate.output

    result = run(served, tmp_path, "diff", "--allow-delete", "--format", "json")
    assert result.exit_code == exitcodes.OK, result.output
    assert json.loads(result.stdout)["operations"] == []

    path.write_text(path.read_text().replace("send_gifs: false", "send_gifs: true", 1))
    push = run(served, tmp_path, "push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    [body] = service.sent("PUT", "/widget/v2/settings")
    sent = body["settings"]
    assert sent["main"]["send_gifs"] is True and sent["name"] == "W" * 120
    assert sent["sidebar"] == {k: v for k, v in config["sidebar"].items()}  # as held, nothing invented
