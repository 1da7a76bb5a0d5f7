"""Each extension's settings end to end against the sandbox over HTTP: pull writes them with ``${VAR}`` for every
secret, an immediate diff is empty, a change is pushed as one whole-object update built on the live settings (a
field someone changed in the dashboard is kept), a rotated secret is sent without ever being written down, a new
extension's settings are stored, removing them deletes only with --allow-delete, and data-masking's removed custom
masks are named in ``deleteCustomRegexData``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.sync.remote.fetch import extensions_to_read
from tenantdeck.sync.render import render_text
from tests.sync.helpers_push import app_named, call, client_for, edit_draft, live_plan, loaded, run_pull, run_push

SMS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
GIPHY_VAR = "TENANTDECK_ACME_SUPPORT_GIPHY_API_KEY"
FCM_VAR = "TENANTDECK_ACME_SUPPORT_FCM_PRIVATE_KEY"
GIPHY_KEY = "giphy-live-key-1111"
FCM_KEY = "-----BEGIN PRIVATE KEY-----\nfake\n-----END PRIVATE KEY-----\n"
ENV = {**SMS, GIPHY_VAR: GIPHY_KEY, FCM_VAR: FCM_KEY}

PUSH = {"version": 2, "pushProvider": 1, "sendNewMessageNotification": True,
        "fcmCredentials": {"project_id": "acme", "client_email": "push@acme.example", "private_key": FCM_KEY,
                           "private_key_id": "k1"}}
MASKS = {"dropMessage": False,
         "defaultRegexData": [{"id": "1", "name": "US Phone numbers", "regex": "[2-9]\\d{2}-\\d{3}-\\d{4}",
                               "enableFlag": True}],
         "customregexData": [{"id": "m1", "name": "ticket", "regex": "TICKET-\\d+"},
                             {"id": "m2", "name": "order", "regex": "ORD-\\d+"}],
         "deleteCustomRegexData": []}


def _acme_id(draft: Path) -> str:
    return str(app_named(loaded(draft), "Acme Support").id)


@pytest.fixture
def seeded(sandbox: Any, draft: Path) -> Path:
    """Acme Support with profanity-filter, gifs-giphy, push-notification and data-masking settings on the service
    (stored through the API, as the dashboard would), then pulled again."""
    acme = _acme_id(draft)
    call(sandbox, "set_extensions", acme, enabled=["profanity-filter", "gifs-giphy", "push-notification",
                                                   "data-masking"])
    call(sandbox, "store_extension_settings", acme, "profanity-filter", {"dropMessage": False, "badwords": ["darn"]})
    call(sandbox, "store_extension_settings", acme, "gifs-giphy", {"giphyApiKey": GIPHY_KEY})
    call(sandbox, "store_extension_settings", acme, "push-notification", PUSH)
    call(sandbox, "store_extension_settings", acme, "data-masking", MASKS)
    run_pull(sandbox, draft)
    return draft


def test_pull_writes_references_never_values_and_a_diff_after_it_is_empty(sandbox: Any, seeded: Path) -> None:
    text = seeded.read_text(encoding="utf-8")
    assert GIPHY_KEY not in text and "fake" not in text
    acme = app_named(loaded(seeded), "Acme Support")
    block = acme.extension_settings
    assert block.gifs_giphy.giphyApiKey == f"${{{GIPHY_VAR}}}"
    assert block.push_notification.fcmCredentials.private_key == f"${{{FCM_VAR}}}"
    assert block.profanity_filter.badwords == ["darn"]
    plan = live_plan(sandbox, seeded, ENV)
    assert plan.operations == [] and plan.drift == [] and plan.conflicts == []


def test_a_change_is_one_update_on_the_live_settings(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)
    edit_draft(seeded, lambda d: app_named(d, "Acme Support").extension_settings.profanity_filter.badwords.append(
        "heck"))
    # meanwhile, in the dashboard: drop messages instead of masking (a field the draft does not change)
    call(sandbox, "update_extension_settings", acme, "profanity-filter", {"dropMessage": True, "badwords": ["darn"]})
    plan = live_plan(sandbox, seeded, ENV)
    (step,) = plan.operations
    assert step.kind == "update_extension_settings" and step.rid == "profanity-filter"
    assert "Bad words" in render_text(plan)
    code, err = run_push(sandbox, seeded, ENV)
    assert code == exitcodes.OK, err
    live = call(sandbox, "get_extension_settings", acme, "profanity-filter")
    assert live == {"dropMessage": True, "badwords": ["darn", "heck"]}  # theirs kept, ours laid on top
    assert live_plan(sandbox, seeded, ENV).operations == []


def test_an_unchanged_secret_is_sent_back_as_the_service_has_it(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)
    call(sandbox, "update_extension_settings", acme, "gifs-giphy", {"giphyApiKey": "rotated-in-dashboard"})
    edit_draft(seeded, lambda d: app_named(d, "Acme Support").extension_settings.push_notification.__setattr__(
        "sendEditMessageNotification", True))
    code, err = run_push(sandbox, seeded, {})  # no variable set: nothing secret is needed for this change
    assert code == exitcodes.OK, err
    push = call(sandbox, "get_extension_settings", acme, "push-notification")
    assert push["sendEditMessageNotification"] is True and push["fcmCredentials"]["private_key"] == FCM_KEY
    assert call(sandbox, "get_extension_settings", acme, "gifs-giphy") == {"giphyApiKey": "rotated-in-dashboard"}


def test_a_rotated_secret_is_pushed_and_never_written(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)
    env = {**ENV, GIPHY_VAR: "giphy-new-key-2222"}
    plan = live_plan(sandbox, seeded, env)
    (step,) = plan.operations
    assert step.kind == "update_extension_settings" and "giphy-new-key-2222" not in json.dumps(plan.to_json())
    code, err = run_push(sandbox, seeded, env)
    assert code == exitcodes.OK, err
    assert "giphy-new-key-2222" not in err
    assert call(sandbox, "get_extension_settings", acme, "gifs-giphy") == {"giphyApiKey": "giphy-new-key-2222"}
    workspace = seeded.parent / ".tenantdeck"
    for path in workspace.rglob("*") if workspace.exists() else ():
        if path.is_file():
            assert b"giphy-new-key-2222" not in path.read_bytes(), path
    assert live_plan(sandbox, seeded, env).operations == []


def test_new_settings_are_stored_and_removed_ones_deleted_only_when_allowed(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)

    def add(d: Any) -> None:
        app = app_named(d, "Acme Support")
        block = app.extension_settings.model_dump()
        block["message-shortcuts"] = {"shortcuts": {"!ty": "Thank you"}}
        del block["gifs-giphy"]
        app.extension_settings = type(app.extension_settings).model_validate(block)

    edit_draft(seeded, add)
    plan = live_plan(sandbox, seeded, ENV)
    assert [s.kind for s in plan.operations] == ["store_extension_settings"]
    assert "GIFs (Giphy) settings (gifs-giphy) is not in the draft: delete skipped" in render_text(plan)
    code, err = run_push(sandbox, seeded, ENV)
    assert code == exitcodes.OK, err
    assert call(sandbox, "get_extension_settings", acme, "message-shortcuts") == {"shortcuts": {"!ty": "Thank you"}}
    assert call(sandbox, "get_extension_settings", acme, "gifs-giphy") is not None
    code, err = run_push(sandbox, seeded, ENV, allow_delete=True)
    assert code == exitcodes.OK, err
    assert call(sandbox, "get_extension_settings", acme, "gifs-giphy") is None


def test_a_removed_custom_mask_is_named_for_deletion(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)
    edit_draft(seeded, lambda d: app_named(d, "Acme Support").extension_settings.data_masking.customregexData.pop())
    plan = live_plan(sandbox, seeded, ENV)
    (step,) = plan.operations
    assert step.payload["settings"]["deleteCustomRegexData"] == ["m2"]
    code, err = run_push(sandbox, seeded, ENV)
    assert code == exitcodes.OK, err
    masks = call(sandbox, "get_extension_settings", acme, "data-masking")["customregexData"]
    assert [m["id"] for m in masks] == ["m1"]
    assert live_plan(sandbox, seeded, ENV).operations == []


def test_a_draft_without_the_block_does_not_manage_them(sandbox: Any, seeded: Path) -> None:
    edit_draft(seeded, lambda d: app_named(d, "Acme Support").__setattr__("extension_settings", None))
    plan = live_plan(sandbox, seeded, ENV)
    assert plan.operations == [] and plan.conflicts == []


def test_pull_reads_no_disabled_extensions_settings(sandbox: Any, seeded: Path) -> None:
    acme = _acme_id(seeded)
    call(sandbox, "set_extensions", acme, disabled=["gifs-giphy"])

    async def listed() -> Any:
        async with client_for(sandbox) as c:
            return await c.list_extensions(acme)

    exts = asyncio.run(listed())
    read = extensions_to_read(exts)
    assert "gifs-giphy" not in read and "profanity-filter" in read
    assert "gifs-giphy" in extensions_to_read(exts, {"gifs-giphy"})  # what the draft or base holds is read anyway
