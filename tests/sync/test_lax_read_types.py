"""Issue 34 item 1, per case: a value the service holds in another JSON type that carries the same meaning is read
into the draft, kept in the type the service sent, round-trips unchanged and is planned only when the draft changes
it. What the draft's model cannot hold (a number as text, a value outside our enum) keeps the whole entry as the
service holds it, with a note; `pull` then `diff` is in sync either way (docs/real-service.md §9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenantdeck.models.extension_settings import settings_of
from tests.sync.helpers_push import app_named, edit_draft, live_plan, loaded, run_pull, run_push
from tests.sync.service_states import ServiceLike, hold_extension_settings

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000",
           "TENANTDECK_ACME_SUPPORT_SENDGRID_API_KEY": "SG.fake"}
EMAIL = {"sendGridApiKey": "SG.fake", "messageDelay": 120, "senderEmail": "ops@acme.example",
         "senderName": "Acme", "sendGridTemplateId": "d-1", "sendGridUnsubscribeGroupId": 4242,
         "useWebhook": False, "useWebhookBasicAuth": False, "sendEmailReplies": False}
MASKS = {"dropMessage": False,
         "defaultRegexData": [{"id": 2, "name": "Emails", "regex": "[a-z]+@[a-z]+", "enableFlag": True}],
         "customregexData": [{"id": 7, "name": "Orders", "regex": "ORD-[0-9]{6}"},
                             {"id": "8", "name": "Tickets", "regex": "TCK-[0-9]{4}"}]}


def acme(draft: Path) -> str:
    return str(app_named(loaded(draft), "Acme Support").id)


def pulled_settings(draft: Path) -> dict[str, dict[str, Any]]:
    return settings_of(app_named(loaded(draft), "Acme Support").extension_settings)


def in_sync(service: ServiceLike, draft: Path) -> None:
    """diff has nothing to push and a push sends no write."""
    plan = live_plan(service, draft, SECRETS)
    assert plan.operations == [] and plan.conflicts == [] and not plan.has_changes, plan.operations
    service.writes.clear()
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    assert service.writes == []


def set_setting(draft: Path, ext: str, key: str, value: Any) -> None:
    def change(d: Any) -> None:
        app = app_named(d, "Acme Support")
        block = settings_of(app.extension_settings)
        block[ext][key] = value
        app.extension_settings = type(app.extension_settings).model_validate(block)

    edit_draft(draft, change)


def test_an_integer_id_is_read_kept_an_integer_and_sent_back_as_one(sandbox: Any, draft: Path) -> None:
    """``sendGridUnsubscribeGroupId: 4242`` (the vendor's example has a string; SendGrid's ids are integers)."""
    service = ServiceLike(sandbox)
    hold_extension_settings(sandbox, acme(draft), "email-notification", EMAIL)
    result = run_pull(service, draft)
    assert not [n for n in result.notes if "email-notification" in n]
    assert pulled_settings(draft)["email-notification"]["sendGridUnsubscribeGroupId"] == 4242
    assert "sendGridUnsubscribeGroupId: 4242\n" in draft.read_text()  # an integer in the YAML, not "4242"
    in_sync(service, draft)
    set_setting(draft, "email-notification", "senderName", "Acme Support")  # another field changes
    (step,) = live_plan(service, draft, SECRETS).operations
    assert step.payload["settings"]["sendGridUnsubscribeGroupId"] == 4242
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    stored = sandbox.state.store.extension_settings(acme(draft), "email-notification")
    assert stored["sendGridUnsubscribeGroupId"] == 4242 and stored["senderName"] == "Acme Support"
    in_sync(service, draft)


def test_integer_mask_ids_are_read_and_a_removal_names_the_id_in_its_type(sandbox: Any, draft: Path) -> None:
    """data-masking ``defaultRegexData[].id: 2``; a custom mask with id 7 removed is ``deleteCustomRegexData: [7]``."""
    service = ServiceLike(sandbox)
    hold_extension_settings(sandbox, acme(draft), "data-masking", MASKS)
    result = run_pull(service, draft)
    assert not [n for n in result.notes if "data-masking" in n]
    masks = pulled_settings(draft)["data-masking"]
    assert masks["defaultRegexData"][0]["id"] == 2 and [m["id"] for m in masks["customregexData"]] == [7, "8"]
    in_sync(service, draft)
    set_setting(draft, "data-masking", "customregexData", masks["customregexData"][1:])
    (step,) = live_plan(service, draft, SECRETS).operations
    assert step.payload["settings"]["deleteCustomRegexData"] == [7]
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    stored = sandbox.state.store.extension_settings(acme(draft), "data-masking")
    assert [m["id"] for m in stored["customregexData"]] == ["8"] and stored["defaultRegexData"][0]["id"] == 2
    in_sync(service, draft)


def test_a_key_the_catalog_does_not_know_is_kept_and_sent_back(sandbox: Any, draft: Path) -> None:
    """An extra key (top level and inside an object): the entry is in the draft without it, with a note; a push
    of another change sends it back as the service holds it."""
    service = ServiceLike(sandbox)
    held = {**EMAIL, "sendGridUnsubscribeGroupId": "g-1", "legacyDigest": {"hour": 9}}
    hold_extension_settings(sandbox, acme(draft), "email-notification", held)
    result = run_pull(service, draft)
    (note,) = [n for n in result.notes if "email-notification" in n]
    assert "legacyDigest kept as the service holds it" in note
    assert "legacyDigest" not in pulled_settings(draft)["email-notification"]
    in_sync(service, draft)
    set_setting(draft, "email-notification", "messageDelay", 300)
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    stored = sandbox.state.store.extension_settings(acme(draft), "email-notification")
    assert stored["legacyDigest"] == {"hour": 9} and stored["messageDelay"] == 300
    in_sync(service, draft)


def test_a_missing_optional_key_stays_missing(sandbox: Any, draft: Path) -> None:
    service = ServiceLike(sandbox)
    held = {k: v for k, v in EMAIL.items() if k != "sendGridApiKey"} | {"sendGridUnsubscribeGroupId": "g-1"}
    hold_extension_settings(sandbox, acme(draft), "email-notification", held)
    run_pull(service, draft)
    assert "sendGridApiKey" not in pulled_settings(draft)["email-notification"]
    in_sync(service, draft)
    assert "sendGridApiKey" not in sandbox.state.store.extension_settings(acme(draft), "email-notification")


@pytest.mark.parametrize(("ext", "held", "field"), [
    ("email-notification", {**EMAIL, "messageDelay": "120"}, "messageDelay"),  # a number as text
    ("push-notification", {"version": 7, "pushProvider": 2, "keyId": "K", "teamId": "T", "bundleId": "B"},
     "version"),  # outside our enum
])
def test_what_the_draft_cannot_hold_keeps_the_entry_verbatim(sandbox: Any, draft: Path, ext: str,
                                                             held: dict[str, Any], field: str) -> None:
    service = ServiceLike(sandbox)
    hold_extension_settings(sandbox, acme(draft), ext, held)
    result = run_pull(service, draft)
    (note,) = [n for n in result.notes if f"extension_settings.{ext}" in n]
    assert "kept as the service holds it" in note and field in note
    in_sync(service, draft)
    assert sandbox.state.store.extension_settings(acme(draft), ext)[field] == held[field]


UNKNOWN_SECRET = "uNkNoWn-s3cr3t-7f9a2c"


@pytest.mark.parametrize("held_extra", [
    {"legacyWebhookSecret": UNKNOWN_SECRET},
    {"legacyDigest": {"hour": 9, "apiToken": UNKNOWN_SECRET}},
    {"relayPassword": UNKNOWN_SECRET, "clientApiKey": UNKNOWN_SECRET + "-2"},
])
def test_a_key_the_catalog_does_not_know_that_names_a_secret_is_kept_but_never_written(
        sandbox: Any, draft: Path, held_extra: dict[str, Any]) -> None:
    """A key the catalog does not know whose name says it is a secret (secret, password, token, api key...): the
    service's value is sent back as it holds it, but it is never written anywhere by tenantdeck (the base beside a
    committed lock file, the journal, a note), only its fingerprint, as for a known secret."""
    import os

    service = ServiceLike(sandbox)
    hold_extension_settings(sandbox, acme(draft), "email-notification", {**EMAIL, **held_extra})
    result = run_pull(service, draft)
    assert not [n for n in result.notes if UNKNOWN_SECRET in n]
    in_sync(service, draft)
    set_setting(draft, "email-notification", "messageDelay", 300)
    code, err = run_push(service, draft, SECRETS)
    assert code == 0 and UNKNOWN_SECRET not in err, err
    stored = sandbox.state.store.extension_settings(acme(draft), "email-notification")
    assert {k: stored[k] for k in held_extra} == held_extra and stored["messageDelay"] == 300
    in_sync(service, draft)
    roots = [draft.parent, *(Path(os.environ[v]) for v in ("TENANTDECK_DATA_DIR", "TENANTDECK_CONFIG_DIR")
                             if os.environ.get(v))]
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.name.startswith("db.sqlite3"):
                assert UNKNOWN_SECRET.encode() not in path.read_bytes(), path
