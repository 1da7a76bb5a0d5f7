"""Issue 34, the docs-only trial's findings, through the real commands (``tenantdeck pull``, ``diff``, ``push``)
against the in-process sandbox (the ``local`` profile, its store holding what the real service may hold and its
writes recorded). Each test failed before its fix: an app setting of another JSON type crashed ``pull`` with a
pydantic traceback (and printed a key's raw ESC), one odd widget value dropped the whole widget, and the team note
named the valid original instead of the case duplicate kept verbatim."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck import targets as profiles
from tests.sync.helpers_push import KEY, SECRET, call, make_sandbox
from tests.sync.service_states import ServiceLike, hold_app_settings, hold_collaborator, hold_widget_values

ENV = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
ODD_SETTINGS = {"core.limits.maxGroupSize": 100, "core.number": 5, "core.ratio": 0.5, "core.mode": "strict",
                "core.nothing": None, "core.items": [1, "two"], "core.object": {"a": 1}, "core.\x1b[31mred": True,
                "core.threads.updateOnMessageActions": ["a switch held as a list"]}


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServiceLike]:
    """The ``local`` profile answered by a seeded sandbox wrapped to record every write."""
    wrapped = ServiceLike(make_sandbox(tmp_path / "db.sqlite3"))

    def local(env: Any = None, **_: Any) -> profiles.Target:
        return profiles.Target(profiles.LOCAL, profiles.LOCAL_BASE_URL, KEY, SECRET,
                               httpx.ASGITransport(app=wrapped, raise_app_exceptions=False))

    monkeypatch.setattr(profiles, "local_target", local)
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE", "TENANTDECK_KEY", "TENANTDECK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    yield wrapped


def run(*args: str) -> Result:
    from tenantdeck.cli import cli

    return CliRunner().invoke(cli, [*args, "--profile", "local", "--draft", "tenantdeck.yaml"], env=ENV)


def acme(service: ServiceLike) -> str:
    return next(a.id for a in call(service.app, "list_apps") if a.name == "Acme Support")


def base_app(tmp_path: Path, app_id: str) -> dict[str, Any]:
    """The base snapshot pull wrote for ``app_id`` (what the service held as last read)."""
    docs = (json.loads(p.read_text())["app"] for p in (tmp_path / ".tenantdeck").rglob("base/*.json"))
    return next(doc for doc in docs if doc.get("id") == app_id)


def assert_in_sync_and_push_sends_nothing(service: ServiceLike) -> None:
    diff = run("diff")
    assert diff.exit_code == exitcodes.OK, diff.output
    service.writes.clear()
    push = run("push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    assert service.writes == []


def assert_terminal_safe(result: Result) -> None:
    assert "Traceback" not in result.output and "validation error" not in result.output
    assert "\x1b" not in result.output


def test_app_settings_of_any_json_type_are_kept_and_in_sync(service: ServiceLike, tmp_path: Path) -> None:
    """Item 1: numbers, strings, null, objects, a list of non-text and a key with ESC on the service: pull exits
    0 and names them (escaped), the draft keeps what it can hold, diff exit 0, push sends nothing."""
    app_id = acme(service)
    hold_app_settings(service.app, app_id, ODD_SETTINGS)
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert_terminal_safe(pulled)
    assert "core.limits.maxGroupSize: holds a number" in pulled.stderr
    assert "core.\\x1b[31mred" in pulled.stderr
    draft = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    settings = next(a for a in draft["apps"] if a["name"] == "Acme Support")["settings"]
    assert not set(ODD_SETTINGS) & set(settings) and settings  # the booleans and lists are still in the draft
    assert_in_sync_and_push_sends_nothing(service)
    held = service.app.state.store.app_settings(app_id)
    assert {k: held[k] for k in ODD_SETTINGS} == ODD_SETTINGS  # as held, in its JSON type
    assert base_app(tmp_path, app_id)["settings"]["core.limits.maxGroupSize"] == 100


def test_a_setting_the_draft_writes_again_is_validated_strictly(service: ServiceLike, tmp_path: Path) -> None:
    """Strict on write: the user writing a number for a setting is an error before any request."""
    hold_app_settings(service.app, acme(service), {"core.limits.maxGroupSize": 100})
    assert run("pull").exit_code == exitcodes.OK
    path = tmp_path / "tenantdeck.yaml"
    text = path.read_text()
    path.write_text(text.replace("    settings:\n", "    settings:\n      core.limits.maxGroupSize: 200\n", 1))
    checked = CliRunner().invoke(__import__("tenantdeck.cli", fromlist=["cli"]).cli, ["validate", str(path)])
    assert checked.exit_code == exitcodes.ERROR, checked.output
    assert "maxGroupSize" in checked.output


def test_the_team_note_names_the_case_duplicate_not_the_original(service: ServiceLike, tmp_path: Path) -> None:
    """Item 3: the service lists raj@acme.example (the seed's moderator) and later Raj@acme.example: the draft keeps
    the original, and the note names the duplicate it kept verbatim; in sync after."""
    hold_collaborator(service.app, acme(service), "Raj@acme.example", "admin")
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    (note,) = [line for line in pulled.stderr.splitlines() if "team: kept as the service holds them" in line]
    assert note.endswith(": Raj@acme.example")
    draft = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    assert next(a for a in draft["apps"] if a["name"] == "Acme Support")["team"] == {
        "admins": [], "moderators": ["raj@acme.example"]}
    assert_in_sync_and_push_sends_nothing(service)


EVIL_COLOUR = "red; background:url(http://evil.example/)"


def test_one_odd_widget_value_keeps_the_widget_and_holds_only_that_field(service: ServiceLike,
                                                                         tmp_path: Path) -> None:
    """Item 2: a primary colour our model refuses: the widget stays in the draft without that field (a note says
    so), diff exit 0 (no "widget is gone"), push sends nothing, and the service keeps its value."""
    app_id = acme(service)
    widget_id = hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert f"widget {widget_id}: style.primary_color kept as the service holds it" in pulled.stderr
    draft = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    (widget,) = next(a for a in draft["apps"] if a["name"] == "Acme Support")["widgets"]
    assert widget["id"] == widget_id and "primary_color" not in widget["style"] and widget["main"]
    diff = run("diff")
    assert "gone" not in diff.output and "dashboard" not in diff.output
    assert_in_sync_and_push_sends_nothing(service)
    assert service.app.state.store.widget_configuration(app_id, widget_id)["style"]["primary_color"] == EVIL_COLOUR
    assert base_app(tmp_path, app_id)["verbatim"]["widgets"] == {widget_id: ["style.primary_color"]}


def test_a_held_widget_field_the_user_writes_is_theirs_and_strict(service: ServiceLike, tmp_path: Path) -> None:
    """Strict on write: writing the field again is a change the push sends (and only it); an invalid value the
    user writes is an error before any request."""
    app_id = acme(service)
    widget_id = hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    assert run("pull").exit_code == exitcodes.OK
    path = tmp_path / "tenantdeck.yaml"
    text = path.read_text()
    path.write_text(text.replace("        style:\n", f"        style:\n          primary_color: '{EVIL_COLOUR}'\n", 1))
    refused = run("diff")
    assert refused.exit_code == exitcodes.ERROR and "primary_color" in refused.output, refused.output
    path.write_text(text.replace("        style:\n", "        style:\n          primary_color: '#03A9F4'\n", 1))
    diff = run("diff")
    assert diff.exit_code == exitcodes.CHANGES, diff.output
    service.writes.clear()
    push = run("push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    assert len(service.writes) == 1 and "/widget/" in service.writes[0][1], service.writes
    assert service.app.state.store.widget_configuration(app_id, widget_id)["style"]["primary_color"] == "#03A9F4"
    assert run("diff").exit_code == exitcodes.OK


def test_audit_reads_the_same_account_without_a_traceback(service: ServiceLike, tmp_path: Path) -> None:
    """``audit`` converts the live account like pull: the same odd settings, widget value and team email are read,
    and the rules are checked (exit 9 for the rule every app breaks), never a pydantic traceback."""
    app_id = acme(service)
    hold_app_settings(service.app, app_id, ODD_SETTINGS)
    hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    hold_collaborator(service.app, app_id, "raj@localhost", "admin")
    assert run("pull").exit_code == exitcodes.OK
    rule = {"name": "named-x", "check": {"field": "name", "equals": "x"}, "message": "every app is called x"}
    (tmp_path / "tenantdeck.policies.yaml").write_text(yaml.safe_dump({"format": 1, "policies": [rule]}))
    audit = run("audit")
    assert audit.exit_code == exitcodes.VIOLATIONS, audit.output
    assert_terminal_safe(audit)
    assert 'app "Acme Support": every app is called x' in audit.output


def test_a_refused_field_the_widget_cannot_do_without_keeps_the_whole_widget(service: ServiceLike,
                                                                             tmp_path: Path) -> None:
    """A required field (no default) cannot be left out of a complete widget: the whole widget is kept as the
    service holds it (out of the draft, in the base), and that is not read as a delete."""
    app_id = acme(service)
    widget_id = hold_widget_values(service.app, app_id, {"style": {"docked_layout_icon_background": 5}})
    pulled = run("pull")
    assert pulled.exit_code == exitcodes.OK, pulled.output
    assert f"widget {widget_id}: kept as the service holds it" in pulled.stderr
    draft = yaml.safe_load((tmp_path / "tenantdeck.yaml").read_text())
    assert next(a for a in draft["apps"] if a["name"] == "Acme Support")["widgets"] == []
    diff = run("diff")
    assert "gone" not in diff.output and "dashboard" not in diff.output, diff.output
    assert_in_sync_and_push_sends_nothing(service)
    assert base_app(tmp_path, app_id)["verbatim"]["widgets"] == {widget_id: []}


def test_another_change_to_a_widget_holding_an_odd_value_is_pushed(service: ServiceLike, tmp_path: Path) -> None:
    """A second trial: once the service held an odd colour, every later change to that widget failed with 422,
    push after push (the update sends the held value back, and the sandbox refused it). Sent back unchanged, it is
    accepted, as on the real service; the toggle lands and the colour stays the service's."""
    app_id = acme(service)
    widget_id = hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    assert run("pull").exit_code == exitcodes.OK
    path = tmp_path / "tenantdeck.yaml"
    text = path.read_text()
    assert "send_gifs: false" in text
    path.write_text(text.replace("send_gifs: false", "send_gifs: true", 1))
    push = run("push", "--yes")
    assert push.exit_code == exitcodes.OK, push.output
    stored = service.app.state.store.widget_configuration(app_id, widget_id)
    assert stored["main"]["send_gifs"] is True and stored["style"]["primary_color"] == EVIL_COLOUR
    assert_in_sync_and_push_sends_nothing(service)


def test_the_sandbox_refuses_an_odd_widget_value_that_is_new_or_changed(service: ServiceLike) -> None:
    """Held values pass only as sent back: a new odd value, or a held one changed to another odd one, is a 422."""
    from tenantdeck.sandbox.errors import ApiError
    from tenantdeck.sandbox.validation import parse_widget

    app_id = acme(service)
    widget_id = hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    held = service.app.state.store.widget_configuration(app_id, widget_id)

    def body(colour: str) -> dict[str, Any]:
        return {"settings": {**held, "widgetId": widget_id, "style": {**held["style"], "primary_color": colour}}}

    _, doc = parse_widget(body(EVIL_COLOUR), app_id, update=True, stored={widget_id: held}.get)
    assert doc["style"]["primary_color"] == EVIL_COLOUR
    for colour in (EVIL_COLOUR + " ", "blue; x"):
        with pytest.raises(ApiError):
            parse_widget(body(colour), app_id, update=True, stored={widget_id: held}.get)
    with pytest.raises(ApiError):  # a create holds nothing yet
        parse_widget({"settings": {k: v for k, v in body(EVIL_COLOUR)["settings"].items() if k != "widgetId"}},
                     app_id, update=False, stored={widget_id: held}.get)


def test_audit_judges_the_values_pull_keeps_verbatim(service: ServiceLike, tmp_path: Path) -> None:
    """A second trial: a brand-colour rule passed while the live widget's colour (held verbatim) broke it, and
    `team.admins count >= 2` saw 0 admins where the service held three. What pull keeps as the service holds it is
    the service's all the same: the rules judge it."""
    app_id = acme(service)
    hold_widget_values(service.app, app_id, {"style": {"primary_color": EVIL_COLOUR}})
    for email in ("[b]x[/b]@x.example", "Raj@acme.example"):
        hold_collaborator(service.app, app_id, email, "admin")
    hold_app_settings(service.app, app_id, {"core.limits.maxGroupSize": 100})
    assert run("pull").exit_code == exitcodes.OK
    rules = [{"name": "brand", "select": {"names": ["Acme Support"]},
              "check": {"field": "widgets[*].style.primary_color", "one_of": ["#03A9F4"]}, "message": "brand"},
             {"name": "two-admins", "select": {"names": ["Acme Support"]},
              "check": {"field": "team.admins", "count": {"min": 2}}, "message": "two admins"},
             {"name": "small-groups", "select": {"names": ["Acme Support"]},
              "check": {"cel": "!('core.limits.maxGroupSize' in app.settings)"}, "message": "no group limit"}]
    (tmp_path / "tenantdeck.policies.yaml").write_text(yaml.safe_dump({"format": 1, "policies": rules}))
    audit = run("audit", "--format", "json")
    broken = {v["rule"] for v in json.loads(audit.stdout)["violations"]}
    assert broken == {"brand", "small-groups"}, audit.output  # the held colour and setting seen; 2 admins held
    assert_terminal_safe(audit)
