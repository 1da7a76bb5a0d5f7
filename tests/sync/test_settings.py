"""The app-settings kind end to end against the sandbox over HTTP: pull writes what the service reports, a changed
boolean is pushed alone (one map-settings call), a key the draft leaves out is the service's, a list value the API
cannot set is refused before any request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenantdeck import exitcodes
from tenantdeck.sync.render import render_text
from tests.sync.helpers_push import app_named, call, edit_draft, live_plan, loaded, run_pull, run_push

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
REPLIES = "core.conversations.updateOnReplies"
INCLUDED = "core.notifications.push.advanced.included"


def test_pull_writes_every_setting_and_a_diff_after_it_is_empty(sandbox: Any, draft: Path) -> None:
    acme = app_named(loaded(draft), "Acme Support")
    assert acme.settings is not None and acme.settings[REPLIES] is False and isinstance(acme.settings[INCLUDED], list)
    plan = live_plan(sandbox, draft, SECRETS)
    assert plan.operations == [] and plan.drift == []


def test_a_changed_boolean_is_pushed_alone(sandbox: Any, draft: Path) -> None:
    edit_draft(draft, lambda d: app_named(d, "Acme Support").settings.__setitem__(REPLIES, True))
    acme_id = app_named(loaded(draft), "Acme Support").id
    plan = live_plan(sandbox, draft, SECRETS)
    (step,) = plan.operations
    assert step.kind == "map_settings" and step.payload == {"settings": {REPLIES: True}}
    assert "Conversations update on replies (core.conversations.updateOnReplies): false -> true" in render_text(plan)
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    assert call(sandbox, "get_app_settings", acme_id)[REPLIES] is True
    assert live_plan(sandbox, draft, SECRETS).operations == []


def test_a_key_left_out_is_the_services_and_a_change_there_is_drift(sandbox: Any, draft: Path) -> None:
    edit_draft(draft, lambda d: app_named(d, "Acme Support").settings.pop(REPLIES))
    acme_id = app_named(loaded(draft), "Acme Support").id
    call(sandbox, "map_settings", acme_id, {REPLIES: True, "core.threads.updateOnMessageActions": True})
    plan = live_plan(sandbox, draft, SECRETS)
    assert plan.operations == []
    assert [d.path for d in plan.drift] == ["core.threads.updateOnMessageActions"]  # managed: drift, kept
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    assert call(sandbox, "get_app_settings", acme_id)[REPLIES] is True


def test_a_list_the_api_cannot_set_is_refused_before_any_request(sandbox: Any, draft: Path) -> None:
    edit_draft(draft, lambda d: app_named(d, "Acme Support").settings.__setitem__(INCLUDED, ["templates"]))
    plan = live_plan(sandbox, draft, SECRETS)
    assert plan.operations == [] and any("cannot set it" in c.message for c in plan.conflicts)
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.ERROR, err  # a draft value a push refuses: an invalid draft


def test_re_pull_keeps_the_drafts_order(sandbox: Any, draft: Path) -> None:
    text = draft.read_text(encoding="utf-8")
    run_pull(sandbox, draft)
    assert draft.read_text(encoding="utf-8") == text
