"""Event and message models: every trigger's sample validates; the spec's rules are enforced, extras allowed."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tenantdeck.models import catalog
from tenantdeck.models.event_samples import sample_payload
from tenantdeck.models.events import LEGACY_TRIGGERS, TRIGGERS, check_delivery
from tenantdeck.models.messages import (
    BUTTON_ACTION_TYPES,
    ELEMENT_TYPES,
    FormFields,
    MessageBody,
    interactive_problems,
)


@pytest.mark.parametrize("trigger", catalog.TRIGGER_IDS)
def test_every_triggers_sample_payload_validates(trigger: str) -> None:
    payload = sample_payload(trigger, app_id="a1", region="eu", webhook_id="h1")
    assert check_delivery(payload) == (trigger, [])
    assert payload["appId"] == "a1" and payload["webhook"] == "h1" and payload["region"] == "eu"


def test_every_described_trigger_is_in_the_catalog_or_legacy() -> None:
    assert {t for t, spec in TRIGGERS.items() if not spec.legacy} <= set(catalog.TRIGGER_IDS)
    assert {t for t, spec in TRIGGERS.items() if spec.legacy} == set(LEGACY_TRIGGERS) == {"before_message",
                                                                                          "after_message"}
    assert len(TRIGGERS) == 43  # 41 with a published example + the two legacy ones
    assert "user_mentioned" in catalog.TRIGGER_IDS


def test_unknown_extra_fields_are_allowed_missing_required_ones_are_problems() -> None:
    payload = sample_payload("message_sent")
    payload["addedByService"] = {"x": 1}
    payload["data"]["message"]["somethingNew"] = True
    assert check_delivery(payload)[1] == []
    del payload["data"]["message"]["sentAt"]
    del payload["webhook"]
    assert check_delivery(payload) == ("message_sent", ["webhook: is required", "data.message.sentAt: is required"])


def test_types_are_strict_and_timestamp_units_are_checked() -> None:
    payload = sample_payload("message_sent")
    payload["data"]["message"]["sentAt"] = "1700000000"
    assert any("sentAt" in p for p in check_delivery(payload)[1])
    payload["data"]["message"]["sentAt"] = 1_700_000_000_000
    assert check_delivery(payload)[1] == ["data.message.sentAt: looks like milliseconds; this timestamp is in seconds"]
    status = sample_payload("user_connection_status_changed")
    status["data"]["currentConnection"]["connectedAt"] = 1_700_000_000
    assert check_delivery(status)[1] == [
        "data.currentConnection.connectedAt: looks like seconds; this timestamp is in milliseconds"
    ]


def test_call_flags_are_the_strings_true_and_false_and_the_envelope_type_is_checked() -> None:
    payload = sample_payload("meeting_participant_joined")
    assert payload["type"] == "meet"
    payload["data"]["initial_config"]["is_audio_muted"] = False
    payload["type"] = "call"
    problems = check_delivery(payload)[1]
    assert "type: must be 'meet' for meeting_participant_joined" in problems
    assert any(p.startswith("data.initial_config.is_audio_muted") for p in problems)
    recording = sample_payload("recording_generated")
    assert "type" not in recording
    recording["type"] = "call"
    assert check_delivery(recording)[1] == ["type: recording_generated carries no type key"]


def test_edited_deleted_mention_and_owner_rules() -> None:
    edited = sample_payload("message_edited")
    del edited["data"]["message"]["data"]["entities"]["on"]["entity"]["editedBy"]
    assert check_delivery(edited)[1] == ["data.message.data.entities.on.entity.editedBy: is required"]
    deleted = sample_payload("message_deleted")
    deleted["data"]["message"]["data"]["action"] = "edited"
    assert check_delivery(deleted)[1] == ["data.message.data.action: Input should be 'deleted'"]
    mention = sample_payload("user_mentioned")
    mention["data"]["message"]["data"]["mentions"] = {}
    assert check_delivery(mention)[1] == ["data.message.data.mentions: has no entry for ['bob']"]
    owner = sample_payload("group_owner_transferred")
    del owner["data"]["group"]["oldOwner"]
    assert check_delivery(owner)[1] == ["data.group.oldOwner: is required"]


@pytest.mark.parametrize(
    "payload, problem",
    [
        ([1, 2], "the payload must be a JSON object, not an array"),
        ("text", "the payload must be a JSON object, not a string"),
        ({"trigger": "no_such_trigger", "data": {}, "appId": "a", "region": "us", "webhook": "w"},
         "trigger: unknown trigger 'no_such_trigger'"),
        ({"data": {}}, "trigger: is required"),
    ],
)
def test_malformed_payloads_become_problems_never_exceptions(payload: Any, problem: str) -> None:
    assert problem in check_delivery(payload)[1]


def test_message_data_over_10_kb_is_refused_attachment_properties_count() -> None:
    body = {"receiver": "bob", "receiverType": "user", "category": "message", "type": "image",
            "data": {"attachments": [{"url": "https://x.invalid/" + "a" * 10_300, "size": 99_000_000}]}}
    with pytest.raises(ValueError, match="at most 10240 bytes"):
        MessageBody.model_validate(body)
    body["data"]["attachments"][0]["url"] = "https://x.invalid/a.png"
    assert MessageBody.model_validate(body).data["attachments"][0]["size"] == 99_000_000
    sent = sample_payload("message_sent")
    sent["data"]["message"]["data"]["blob"] = "é" * 5200  # 10 400 bytes of UTF-8
    assert "data.message.data: data is" in check_delivery(sent)[1][0]


def test_tags_at_most_25_of_at_most_100_characters() -> None:
    base = {"receiver": "bob", "receiverType": "user", "category": "message", "type": "text", "data": {"text": "x"}}
    MessageBody.model_validate({**base, "tags": ["t" * 100] * 25})
    with pytest.raises(ValueError, match="at most 25"):
        MessageBody.model_validate({**base, "tags": ["t"] * 26})
    with pytest.raises(ValueError, match="at most 100"):
        MessageBody.model_validate({**base, "tags": ["t" * 101]})


ALL_ELEMENTS: list[dict[str, Any]] = [
    {"elementType": "label", "elementId": "l1", "text": "Your order"},
    {"elementType": "textInput", "elementId": "t1", "label": "Name", "maxLines": 2, "placeholder": {"text": "Ann"}},
    {"elementType": "button", "elementId": "b1", "buttonText": "Open", "disableAfterInteracted": True,
     "action": {"actionType": "urlNavigation", "url": "https://x.invalid"}},
    {"elementType": "checkbox", "elementId": "c1", "label": "Extras", "defaultValue": ["a"],
     "options": [{"value": "a", "label": "A"}]},
    {"elementType": "dropdown", "elementId": "d1", "label": "Size", "defaultValue": "m",
     "options": [{"value": "m", "label": "M"}]},
    {"elementType": "radio", "elementId": "r1", "label": "Pay", "options": [{"value": "card", "label": "Card"}]},
    {"elementType": "singleSelect", "elementId": "s1", "label": "Speed", "options": [{"value": "f", "label": "F"}]},
    {"elementType": "dateTime", "elementId": "dt", "label": "When", "mode": "date", "timezoneCode": "Europe/Paris",
     "dateTimeFormat": "yyyy-MM-dd", "from": "2024-01-01", "to": "2024-12-31"},
]


def test_all_eight_element_types_with_the_spec_defaults() -> None:
    assert set(ELEMENT_TYPES) == {e["elementType"] for e in ALL_ELEMENTS}
    fields = FormFields.model_validate({"formFields": ALL_ELEMENTS}).formFields
    assert fields[1].optional is True  # textInput: default true
    assert fields[3].optional is True  # checkbox: default true
    assert fields[4].optional is None  # dropdown: no default in the spec


@pytest.mark.parametrize(
    "action, ok",
    [
        ({"actionType": "apiAction", "url": "https://x.invalid", "method": "POST", "payload": {}, "headers": {},
          "dataKey": "k"}, True),
        ({"url": "https://x.invalid"}, False),  # actionType is required to tell the kinds apart
        ({"actionType": "urlNavigation"}, False),  # url required
        ({"actionType": "deepLinkAction", "url": "app://x"}, True),
        ({"actionType": "customAction"}, True),
        ({"actionType": "customAction", "url": "x"}, False),  # customAction carries actionType only
    ],
)
def test_the_four_button_action_types(action: dict[str, Any], ok: bool) -> None:
    assert len(BUTTON_ACTION_TYPES) == 4
    data = {"interactiveData": {"formFields": [{"elementType": "button", "elementId": "b", "action": action}]}}
    assert (interactive_problems("form", data) == []) is ok


def test_required_element_fields_and_bad_time_zone_are_located() -> None:
    elements = copy.deepcopy(ALL_ELEMENTS)
    del elements[0]["text"]
    del elements[3]["label"]
    elements[7]["timezoneCode"] = "Mars/Olympus"
    problems = dict(interactive_problems("form", {"interactiveData": {"formFields": elements}}))
    assert set(problems) == {
        ("interactiveData", "formFields", 0, "text"),
        ("interactiveData", "formFields", 3, "label"),
        ("interactiveData", "formFields", 7, "timezoneCode"),
    }
    missing = (("interactiveData", "formFields"), "is required for an interactive form")
    assert interactive_problems("form", {}) == [missing]
