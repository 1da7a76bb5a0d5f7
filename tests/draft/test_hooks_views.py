"""The non-UI logic of the Extensions, SMS and Webhooks tabs (``draft/extension_view``, ``sms_view``,
``webhook_view``) and the catalog data they use."""

from __future__ import annotations

from typing import Any

import pytest

from tenantdeck.draft import extension_view as ev
from tenantdeck.draft import sms_view as sv
from tenantdeck.draft import webhook_view as wv
from tenantdeck.models import catalog


def test_catalog_names_every_extension_and_groups_every_trigger_once() -> None:
    assert set(catalog.EXTENSION_NAMES) == set(catalog.EXTENSION_IDS)
    grouped = [t for ids in catalog.TRIGGER_CATEGORIES.values() for t in ids]
    assert sorted(grouped) == sorted(catalog.TRIGGER_IDS)
    assert list(catalog.TRIGGER_CATEGORIES)[:5] == ["messages", "users", "groups", "calls", "meetings"]
    assert catalog.trigger_category("meeting_ended") == "meetings"
    assert catalog.trigger_category("recording_generated") == catalog.TRIGGER_OTHER


def _draft(extensions: Any = None, main: Any = None, preset_main: Any = None) -> dict[str, Any]:
    app: dict[str, Any] = {"name": "A", "region": "us", "widgets": [{"name": "W", "extends": "p", "main": main or {}}]}
    if extensions is not None:
        app["extensions"] = extensions
    return {"presets": {"p": {"main": preset_main or {}}}, "apps": [app]}


def test_extension_states_and_dependents_through_a_preset() -> None:
    data = _draft({"enabled": ["polls"], "disabled": ["stickers"]}, preset_main={"allow_creating_polls": True})
    rows = {r.id: r for r in ev.extension_rows(data, 0)}
    assert len(rows) == len(catalog.EXTENSION_IDS)
    assert (rows["polls"].state, rows["stickers"].state, rows["e2ee"].state) == ("enabled", "disabled",
                                                                                   "not managed")
    assert rows["polls"].needed_by == ("W: Enable polls",)
    assert rows["stickers"].needed_by == ("W: Show stickers",)  # on by the catalog default
    assert rows["document"].needed_by == () and rows["document"].dependents[0].toggle.key == (
        "enable_collaborative_document")


def test_an_unknown_extension_in_the_draft_is_listed_and_kept() -> None:
    rows = ev.extension_rows(_draft({"enabled": ["polls", "homebrew"]}), 0)
    assert rows[-1].id == "homebrew" and not rows[-1].known and rows[-1].state == "enabled"


@pytest.mark.parametrize(
    ("block", "state", "edits"),
    [
        (None, "enabled", [("apps[0].extensions", {"enabled": ["polls"], "disabled": []})]),
        ({"enabled": [], "disabled": ["polls"]}, "enabled",
         [("apps[0].extensions.enabled", ["polls"]), ("apps[0].extensions.disabled", [])]),
        ({"enabled": ["polls", "x"], "disabled": []}, "not managed", [("apps[0].extensions.enabled", ["x"])]),
        ({"enabled": ["polls"], "disabled": []}, "enabled", []),
    ],
)
def test_state_edits(block: Any, state: str, edits: list[Any]) -> None:
    assert ev.state_edits(_draft(block), 0, "polls", state) == edits


def test_sms_defaults_reference_and_field_checks() -> None:
    new = sv.new_settings("Acme Inc.")
    assert [k for k, _ in sv.sms_fields()] == list(new)
    assert new["twilioAuthToken"] == "${TENANTDECK_ACME_INC_TWILIO_AUTH_TOKEN}"
    assert new["messageDelay"] == catalog.SMS_DEFAULTS["messageDelay"]
    assert sv.parse_value("messageDelay", " 90 ") == 90 and sv.parse_value("messageDelay", "1.5") == 1.5
    assert sv.parse_value("messageDelay", "soon") == "soon"
    assert sv.field_problems(new, "messageDelay", "soon") == ["must be a number of seconds, such as 60"]
    assert sv.field_problems(new, "messageDelay", 90) == []
    assert sv.field_problems(new, "twilioAccountSid", "") == ["must not be empty"]


GOOD = {"id": "crm1", "name": "CRM", "webhookURL": "https://crm.example/h", "triggers": ["message_sent"]}


def check(values: dict[str, Any], original: Any = None, others: Any = (), env: Any = None) -> dict[str, list[str]]:
    got = wv.check_webhook(values, original=original, other_ids=others, env=env or {})
    return {k: [f"{p.severity}: {p.message}" for p in ps] for k, ps in got.items()}


def test_webhook_checks_use_the_model_and_rules() -> None:
    assert check(GOOD) == {}
    assert "error: must use https://" in check({**GOOD, "webhookURL": "http://crm.example"})["webhookURL"][0]
    loopback = check({**GOOD, "webhookURL": "http://127.0.0.1:9/h"})["webhookURL"]
    assert loopback[0].startswith("warning: plain http to a loopback host")
    assert "too long" in check({**GOOD, "webhookURL": "https://e.example/" + "a" * 300})["webhookURL"][0]
    assert check({**GOOD, "name": "n" * 51})["name"][0].startswith("error: webhook name is 51 characters")
    assert check(GOOD, others={"crm1"})["id"] == ["error: another webhook of this app has this id"]


def test_webhook_id_rule_applies_to_new_ids_only() -> None:
    held = {**GOOD, "id": "test_webhook201"}
    assert check(held)["id"][0].startswith("error:")
    assert check(held, original=held)["id"][0].startswith("warning:")
    assert check(held, original={**held, "id": "other"})["id"][0].startswith("error:")


def test_basic_auth_and_password_reference() -> None:
    on = {**GOOD, "useBasicAuth": True}
    got = check(on)
    assert "required when Basic Auth is on" in got["username"][0] and "password" in got
    assert "${ENV_VAR} reference" in check({**on, "username": "ops", "password": "hunter2"})["password"][0]
    ref = {**on, "username": "ops", "password": "${P}"}
    assert check(ref) == {"password": ["warning: P is not set here; set it where you push"]}
    assert check(ref, env={"P": "good1"}) == {}
    bad = check(ref, env={"P": "not ok!"})["password"][0]
    assert bad.startswith("error: the value of ${P} breaks the password rule") and "not ok" not in bad
    assert "pattern" in check({**on, "username": "o p", "password": "${P}"}, env={"P": "x"})["username"][0]


def test_an_unknown_trigger_already_there_is_a_warning() -> None:
    held = {**GOOD, "triggers": ["legacy_trigger"]}
    assert check(held, original=held)["triggers"][0].startswith("warning: 'legacy_trigger' is not a documented")


def test_candidate_leaves_unset_fields_out() -> None:
    values = {**GOOD, "useBasicAuth": None, "username": "", "password": "", "enabled": False, "retryOnFailure": None}
    assert wv.candidate(values) == {**{k: GOOD[k] for k in ("id", "name", "webhookURL")}, "enabled": False,
                                    "triggers": ["message_sent"]}


def test_webhook_edits_touch_only_what_changed() -> None:
    original = {"id": "a", "name": "x", "webhookURL": "https://e.example", "username": "u"}
    new = {"id": "a", "name": "y", "webhookURL": "https://e.example", "triggers": []}
    assert wv.webhook_edits("apps[0].webhooks[1]", original, new) == [
        ("set", "apps[0].webhooks[1].name", "y"), ("delete", "apps[0].webhooks[1].username", None)]


def test_trigger_groups_filter_and_keep_unknown() -> None:
    groups = dict(wv.trigger_groups({"meeting_ended", "legacy"}, "meet"))
    assert list(groups) == ["meetings"]
    assert ("meeting_ended", True) in groups["meetings"]
    everything = dict(wv.trigger_groups({"legacy"}))
    assert everything["not in the catalog (kept)"] == [("legacy", True)]
    assert dict(wv.trigger_groups(set(), "calls"))["calls"][0] == ("call_initiated", False)  # by category name


def test_row_cells() -> None:
    cells = wv.row_cells({"id": "a", "name": "n", "webhookURL": "u", "enabled": True, "triggers": ["x"]}, (0, 2))
    assert cells == ("a", "n", "u", "yes", "-", "-", "1", "2 warn")
    assert wv.row_cells({"id": "a"}, (1, 2))[-1] == "1 err 2 warn"  # an error beside it does not hide a warning
    assert wv.row_cells({"id": "a"}, (0, 0))[-1] == "ok"
