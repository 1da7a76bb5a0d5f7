"""Issue 8: values the service holds outside our rules are kept and never deleted; new ones are refused; write-only
fields round-trip through a push; the widget PUT keeps the sidebar fields its schema omits. All against the sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tenantdeck import exitcodes
from tenantdeck.sync.remote.fetch import fetch_live
from tenantdeck.sync.workspace.local import compare_local, load_local, plan_local
from tests.models import factories
from tests.sync.helpers_push import app_named, call, client_for, edit_draft, loaded, run_pull, run_push

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000", "ORDERS_PW": "OrdersPwQ7"}


def live_plan(sandbox: Any, draft: Path, *, allow_delete: bool = False) -> Any:
    local = load_local(draft, SECRETS)

    async def go() -> Any:
        async with client_for(sandbox) as c:
            return await fetch_live(c, local.app_ids(), secret_key=local.secret_key)

    return plan_local(local, compare_local(local, asyncio.run(go())), allow_delete=allow_delete)


def acme_id(draft: Path) -> str:
    return str(app_named(loaded(draft), "Acme Support").id)


def test_service_held_ids_and_triggers_are_pulled_and_never_deleted(sandbox: Any, tmp_path: Path) -> None:
    store = sandbox.state.store
    app_id = call(sandbox, "list_apps")[0].id
    store.create_webhook(app_id, {"id": "test_webhook201", "name": "n" * 60, "webhookURL": "https://e.example/t",
                                  "enabled": True}, None, 25)
    store.add_triggers(app_id, "test_webhook201", ["message_sent", "group_member_removed"])  # no catalog id
    path = tmp_path / "tenantdeck.yaml"
    result = run_pull(sandbox, path)

    assert not [n for n in result.notes if "test_webhook201" in n]
    app = next(a for a in loaded(path).apps if a.id == app_id)
    hook = next(h for h in app.webhooks if h.id == "test_webhook201")
    assert hook.name == "n" * 60 and hook.triggers == ["group_member_removed", "message_sent"]
    codes = {p.code for p in result.problems}
    assert {"held_webhook_id", "held_webhook_name", "held_trigger"} <= codes

    plan = live_plan(sandbox, path, allow_delete=True)
    assert plan.operations == [] and plan.conflicts == [] and plan.skipped_deletions == 0


def test_creating_or_adding_values_outside_the_rules_is_refused(sandbox: Any, draft: Path) -> None:
    def change(d: Any) -> None:
        acme = app_named(d, "Acme Support")
        acme.webhooks.append(factories_webhook("new_hook"))
        acme.webhooks[1].triggers = [*acme.webhooks[1].triggers, "group_member_removed"]

    edit_draft(draft, change)
    plan = live_plan(sandbox, draft)
    messages = [c.message for c in plan.conflicts]
    assert any("refused: webhook id 'new_hook' is not letters and digits" in m for m in messages), messages
    assert any("refused: group_member_removed: not documented" in m for m in messages), messages
    assert [op.kind for op in plan.operations] == []  # neither the create nor its triggers nor the bad trigger
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.ERROR, err  # an invalid draft, not a conflict
    assert call(sandbox, "get_webhook", acme_id(draft), "new_hook") is None


def factories_webhook(hook_id: str) -> Any:
    from tenantdeck.models import Webhook

    return Webhook.model_validate(factories.webhook(hook_id, useBasicAuth=False, username=None, password=None))


def test_write_only_fields_round_trip_through_push_and_pull(sandbox: Any, draft: Path) -> None:
    """What the draft sets is sent; the base remembers it; a re-pull writes it back (the service never says)."""

    def basic_auth(d: Any) -> None:
        hook = app_named(d, "Acme Support").webhooks[0]
        hook.useBasicAuth, hook.username, hook.password, hook.retryOnFailure = True, "ops", "${ORDERS_PW}", True

    edit_draft(draft, basic_auth)
    plan = live_plan(sandbox, draft)
    [op] = plan.operations
    assert op.kind == "update_webhook" and {"useBasicAuth", "username", "password", "retryOnFailure"} <= set(op.payload)
    assert "OrdersPwQ7" not in str(op.payload)
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    stored = sandbox.state.store.webhook_doc(acme_id(draft), "orders")
    assert (stored["useBasicAuth"], stored["username"], stored["retryOnFailure"]) == (True, "ops", True)

    run_pull(sandbox, draft)
    assert live_plan(sandbox, draft).operations == []
    text = draft.read_text()
    assert "useBasicAuth: true" in text and "username: ops" in text and "password: ${ORDERS_PW}" in text
    assert "not reported by the service: useBasicAuth, username, retryOnFailure, password (one the draft leaves" in text
    assert "OrdersPwQ7" not in text

    # and a later rename sends none of them
    edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").webhooks[0], "name", "Orders v2"))
    [op] = live_plan(sandbox, draft).operations
    assert set(op.payload) == {"name", "webhookURL", "enabled"}


def test_widget_update_keeps_the_sidebar_fields_the_put_schema_omits(sandbox: Any, draft: Path) -> None:
    """docs/real-service.md: start_a_new_conversation and group_listing are sent with the live values."""
    app_id = acme_id(draft)
    (widget,) = call(sandbox, "list_widgets", app_id)
    remote = {**widget.settings, "sidebar": {**widget.settings["sidebar"], "group_listing": "public_groups"}}
    call(sandbox, "update_widget", app_id, widget.widget_id, remote)  # changed on the service, not in the draft
    edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").widgets[0].main, "send_gifs", True))
    [op] = live_plan(sandbox, draft).operations
    sidebar = op.payload["settings"]["sidebar"]
    assert sidebar["group_listing"] == "public_groups" and sidebar["start_a_new_conversation"] == "all_chats"


def test_the_write_only_note_stays_true_after_a_password_is_added(sandbox: Any, draft: Path) -> None:
    """The pulled note said "password unknown (left out ...)" and stayed so above a password added in the editor
    (the session keeps comments as they are): it now says only what no edit can make false."""
    from tenantdeck.draft.session import DraftSession

    run_pull(sandbox, draft)
    session = DraftSession.open(draft)
    i = next(n for n, a in enumerate(session.get(("apps",))) if a["name"] == "Acme Support")
    j = next(n for n, h in enumerate(session.get(("apps", i, "webhooks"))) if h["id"] == "orders")
    for key, value in (("username", "ops"), ("password", "${ORDERS_PW}"), ("useBasicAuth", True)):
        assert session.set(("apps", i, "webhooks", j, key), value) == []
    session.save()
    line = next(x for x in draft.read_text().splitlines() if "- id: orders" in x)
    assert "not reported by the service: " in line and "password" in line, line
    assert "unknown" not in line and "last pushed" not in line, line
