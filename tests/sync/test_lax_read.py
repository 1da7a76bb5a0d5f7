"""Issue 34: whatever the service holds is read, kept and in sync after a pull; unknown is not empty; exit codes
mean what CI reads. Each test here failed before its fix (items 1, 2, 3, 6 and the exit codes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenantdeck.models import Extensions, Team
from tenantdeck.sync.render import render_text
from tests.sync.helpers_push import app_named, edit_draft, live_plan, loaded, make_sandbox, run_pull, run_push
from tests.sync.service_states import ServiceLike, hold_collaborator, hold_extension_settings

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}


def acme_id(draft: Path) -> str:
    return str(app_named(loaded(draft), "Acme Support").id)


def test_extensions_the_service_does_not_report_are_unknown_not_deleted(tmp_path: Path) -> None:
    """Item 3: the vendor's extension list has no per-app flag; right after a push, diff is in sync."""
    service = ServiceLike(make_sandbox(tmp_path / "db.sqlite3"), hide_enabled=True)
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(service, draft)

    def enable(d: Any) -> None:
        app_named(d, "Acme Support").extensions = Extensions(enabled=["polls", "reactions", "stickers"])

    edit_draft(draft, enable)
    plan = live_plan(service, draft, SECRETS)
    assert [op.kind for op in plan.operations] == ["set_extensions"]  # a draft change is still sent
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    after_push = live_plan(service, draft, SECRETS)
    assert "deleted remotely" not in render_text(after_push)
    assert after_push.operations == [] and after_push.drift == [] and not after_push.has_changes
    run_pull(service, draft)  # a pull must not turn "not reported" into "none"
    assert app_named(loaded(draft), "Acme Support").extensions == Extensions(enabled=["polls", "reactions", "stickers"])
    service.writes.clear()
    again = live_plan(service, draft, SECRETS)
    assert again.operations == [] and again.drift == []
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    assert service.writes == []


EMAIL_SETTINGS = {"sendGridApiKey": "SG.fake", "messageDelay": "120", "senderEmail": "ops@acme.example",
                  "senderName": "Acme", "sendGridTemplateId": "d-1", "sendGridUnsubscribeGroupId": 4242,
                  "useWebhook": False, "useWebhookBasicAuth": False, "sendEmailReplies": False}
MASKS = {"defaultRegexData": [{"id": 2, "name": "phones", "regex": "[0-9]{10}", "enableFlag": 1}]}


def test_settings_of_another_json_type_are_kept_and_in_sync(sandbox: Any, draft: Path) -> None:
    """Item 1: what the draft's model cannot hold (a number as text, a flag as 1; an integer id it now reads,
    tests/sync/test_lax_read_types.py): kept (the base), never a delete to skip, diff exit 0, a push sends nothing."""
    service = ServiceLike(sandbox)
    hold_extension_settings(sandbox, acme_id(draft), "email-notification", EMAIL_SETTINGS)
    hold_extension_settings(sandbox, acme_id(draft), "data-masking", MASKS)
    result = run_pull(service, draft)
    kept = [n for n in result.notes if "kept as the service holds it" in n]
    assert len(kept) == 2 and "messageDelay" in " ".join(kept)
    plan = live_plan(service, draft, SECRETS)
    assert plan.operations == [] and plan.notes == [] and plan.skipped_deletions == 0 and not plan.has_changes
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    assert service.writes == []
    stored = sandbox.state.store.extension_settings(acme_id(draft), "email-notification")
    assert stored["sendGridUnsubscribeGroupId"] == 4242 and stored["messageDelay"] == "120"


def test_a_team_email_our_model_refuses_is_kept_not_a_traceback(sandbox: Any, draft: Path) -> None:
    """Item 2: ``raj@localhost`` on the service: pull says it kept it; nothing plans its removal."""
    service = ServiceLike(sandbox)
    hold_collaborator(sandbox, acme_id(draft), "raj@localhost", "admin")
    result = run_pull(service, draft)
    assert any("raj@localhost" in n for n in result.notes)
    assert app_named(loaded(draft), "Acme Support").team == Team(moderators=["raj@acme.example"])
    plan = live_plan(service, draft, SECRETS)
    assert plan.operations == [] and not plan.has_changes

    def promote(d: Any) -> None:  # a later draft edit still plans only what it changes
        app_named(d, "Acme Support").team = Team(admins=["raj@acme.example"])

    edit_draft(draft, promote)
    (step,) = live_plan(service, draft, SECRETS).operations
    assert step.payload == {"admins": ["raj@acme.example"], "moderators": [], "collaboratorsToRemove": []}


def test_a_skipped_delete_alone_is_exit_0_and_allowed_it_is_2(sandbox: Any, draft: Path) -> None:
    """Exit codes mean what CI reads: 2 only when a push would send something."""
    from click.testing import CliRunner

    from tenantdeck import exitcodes
    from tenantdeck.cli import cli

    edit_draft(draft, lambda d: app_named(d, "Acme Support").webhooks.pop(0))
    runner = CliRunner()
    skipped = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft)], env=SECRETS)
    assert skipped.exit_code == exitcodes.OK, skipped.output
    assert "deletion skipped (use --allow-delete)" in skipped.stdout
    allowed = runner.invoke(cli, ["diff", "--offline", "--allow-delete", "--draft", str(draft)], env=SECRETS)
    assert allowed.exit_code == exitcodes.CHANGES, allowed.output
