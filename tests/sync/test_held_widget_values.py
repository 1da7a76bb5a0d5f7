"""Issue 8, widgets and apps: listing values and names the service holds outside our rules, through the real CLI.

The sandbox (served on loopback, driven by ``tenantdeck`` commands) is seeded, behind the API's back, with what an
admin may have set elsewhere: a widget whose ``user_listing`` and ``group_listing`` are not among the documented
values and whose name is longer than 100 characters, and an app whose name is longer than 100. Pull must keep them,
``validate`` must warn (error only where the draft itself creates such a value), ``diff``/``push`` must never plan
their deletion or a change the draft did not make, and a push must send back only what the service holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tests.loopback import serve_on_loopback
from tests.models import factories
from tests.sync.helpers_push import KEY, SECRET, make_sandbox

LONG_WIDGET = "Support widget for the " + "very " * 20 + "long-named team"
LONG_APP = "Acme Holdings " + "International " * 7 + "Subsidiary"
HELD_SIDEBAR = {"user_listing": "everyone", "group_listing": "open_groups"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    store = sandbox.state.store
    acme = next(a for a in store.list_apps(None, 100, 0)[0] if a["name"] == "Acme Support")
    [(widget_id, config)] = store.list_widgets(acme["id"])
    held = {**config, "name": LONG_WIDGET, "sidebar": {**config["sidebar"], **HELD_SIDEBAR}}
    store.update_widget(acme["id"], widget_id, held)
    store.create_app(LONG_APP, "eu", "3")
    with serve_on_loopback(sandbox) as url:
        yield sandbox, url


def run(served: tuple[Any, str], tmp_path: Path, *args: str) -> Result:
    env = {"TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "TENANTDECK_BASE_URL": "",
           "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
           "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
    return CliRunner().invoke(cli, [*args, "--draft", str(tmp_path / "tenantdeck.yaml"), "--base-url", served[1]],
                              env=env, catch_exceptions=False)


def validate(path: Path) -> Result:
    return CliRunner().invoke(cli, ["validate", str(path), "--format", "json"], catch_exceptions=False)


def acme_widget(sandbox: Any) -> dict[str, Any]:
    store = sandbox.state.store
    acme = next(a for a in store.list_apps(None, 100, 0)[0] if a["name"] == "Acme Support")
    [(_, config)] = store.list_widgets(acme["id"])
    return dict(config)


@pytest.fixture
def pulled(served: tuple[Any, str], tmp_path: Path) -> Path:
    result = run(served, tmp_path, "pull")
    assert result.exit_code == 0, result.output
    return tmp_path / "tenantdeck.yaml"


def test_pull_keeps_held_values_validate_warns_and_nothing_is_planned(served: Any, pulled: Path,
                                                                      tmp_path: Path) -> None:
    draft = yaml.safe_load(pulled.read_text())
    acme = next(a for a in draft["apps"] if a["name"] == "Acme Support")
    [widget] = acme["widgets"]
    assert widget["name"] == LONG_WIDGET
    assert {k: widget["sidebar"][k] for k in HELD_SIDEBAR} == HELD_SIDEBAR
    assert any(a["name"] == LONG_APP for a in draft["apps"])

    a = next(i for i, app in enumerate(draft["apps"]) if app["name"] == "Acme Support")
    long_app = next(i for i, app in enumerate(draft["apps"]) if app["name"] == LONG_APP)
    checked = validate(pulled)
    assert checked.exit_code == exitcodes.OK, checked.output
    problems = json.loads(checked.stdout)["problems"]
    assert {p["severity"] for p in problems} == {"warning"}
    assert {(p["code"], p["path"]) for p in problems} == {
        ("held_listing", f"apps[{a}].widgets[0].sidebar.user_listing"),
        ("held_listing", f"apps[{a}].widgets[0].sidebar.group_listing"),
        ("held_name", f"apps[{a}].widgets[0].name"),
        ("held_name", f"apps[{long_app}].name"),
    }
    by_path = {p["path"]: p["message"] for p in problems}
    assert by_path[f"apps[{a}].widgets[0].sidebar.user_listing"] == (
        "'everyone' is not one of all_users, friends, none: kept as the service holds it, but a push refuses to "
        "create or set such a value")
    assert by_path[f"apps[{long_app}].name"].startswith(
        f"app name is {len(LONG_APP)} characters; at most 100 may be sent: kept")

    for args in (("diff",), ("diff", "--allow-delete")):
        result = run(served, tmp_path, *args)
        assert result.exit_code == exitcodes.OK, result.output
        assert "No changes" in result.stdout


def test_an_unrelated_edit_sends_back_exactly_what_the_service_holds(served: Any, pulled: Path,
                                                                     tmp_path: Path) -> None:
    before = acme_widget(served[0])
    text = pulled.read_text()
    assert "send_gifs: false" in text
    pulled.write_text(text.replace("send_gifs: false", "send_gifs: true", 1))
    diff = run(served, tmp_path, "diff")
    assert diff.exit_code == exitcodes.CHANGES, diff.output
    assert "refused" not in diff.output

    push = run(served, tmp_path, "push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    after = acme_widget(served[0])
    assert after["main"]["send_gifs"] is True
    assert after["name"] == LONG_WIDGET and {k: after["sidebar"][k] for k in HELD_SIDEBAR} == HELD_SIDEBAR
    assert {**after, "main": before["main"]} == before  # nothing else moved, nothing invented
    assert run(served, tmp_path, "diff").exit_code == exitcodes.OK


def test_setting_another_value_outside_the_rules_is_refused(served: Any, pulled: Path, tmp_path: Path) -> None:
    before = acme_widget(served[0])
    pulled.write_text(pulled.read_text().replace("user_listing: everyone", "user_listing: nobody", 1))
    checked = validate(pulled)
    # the lock file shows the service holds another value: the draft's own change, refused by validate as by the
    # push (trial J, J3; it was a warning and validate passed what every push refused)
    assert checked.exit_code == exitcodes.ERROR, checked.output
    (refused,) = [p["message"] for p in json.loads(checked.stdout)["problems"] if p["severity"] == "error"]
    assert "a push refuses to send it" in refused and "the service holds 'everyone'" in refused, refused

    diff = run(served, tmp_path, "diff")
    assert diff.exit_code == exitcodes.ERROR, diff.output
    assert "refused: 'nobody' is not one of all_users, friends, none" in diff.output
    push = run(served, tmp_path, "push", "--yes")
    assert push.exit_code == exitcodes.ERROR, push.output
    assert acme_widget(served[0]) == before


def test_moving_a_held_value_back_inside_the_rules_is_pushed(served: Any, pulled: Path, tmp_path: Path) -> None:
    text = pulled.read_text().replace("user_listing: everyone", "user_listing: friends", 1)
    pulled.write_text(text.replace(f"name: {LONG_WIDGET}", "name: Support", 1))
    push = run(served, tmp_path, "push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    after = acme_widget(served[0])
    assert (after["name"], after["sidebar"]["user_listing"], after["sidebar"]["group_listing"]) == (
        "Support", "friends", "open_groups")
    checked = validate(pulled)
    assert [p["code"] for p in json.loads(checked.stdout)["problems"] if "widgets" in p["path"]] == ["held_listing"]
    assert run(served, tmp_path, "diff").exit_code == exitcodes.OK


def test_values_outside_the_rules_are_errors_where_the_draft_creates_them(tmp_path: Path) -> None:
    path = tmp_path / "new.yaml"
    widget = {"name": LONG_WIDGET, "extends": "base", "sidebar": {"user_listing": "everyone"}}
    preset = factories.full_settings("Base")
    preset["sidebar"]["group_listing"] = "open_groups"
    path.write_text(yaml.safe_dump({"format": 1, "presets": {"base": preset},
                                    "apps": [{"name": LONG_APP, "region": "eu", "widgets": [widget]}]}))
    checked = validate(path)
    assert checked.exit_code == exitcodes.ERROR, checked.output
    problems = json.loads(checked.stdout)["problems"]
    errors = {(p["path"], p["code"]): p["message"] for p in problems if p["severity"] == "error"}
    assert errors[("apps[0].name", "string_too_long")] == (
        f"too long: at most 100 characters (this one has {len(LONG_APP)})")
    assert errors[("apps[0].widgets[0].name", "string_too_long")] == (
        f"too long: at most 100 characters (this one has {len(LONG_WIDGET)})")
    assert errors[("apps[0].widgets[0].sidebar.user_listing", "literal_error")] == (
        "`everyone` is not one of all_users, friends, none")
    assert errors[("presets.base.sidebar.group_listing", "literal_error")] == (
        "`open_groups` is not one of public_and_password_protected_groups, public_groups, password_protected_groups; "
        "did you mean `public_groups`?")
