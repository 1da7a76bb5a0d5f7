"""Issue 34 item 6: a service developer listed as an admin in the draft is a role change, planned and shown as
one (``~ developer -> admin``), never an addition (``+``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenantdeck.models import Team
from tenantdeck.sync.render import render_text
from tests.sync.helpers_push import app_named, call, edit_draft, live_plan, loaded, run_push

SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}


def test_a_developer_made_admin_is_a_visible_role_change(sandbox: Any, draft: Path) -> None:
    def promote(d: Any) -> None:
        app_named(d, "Acme Support").team = Team(admins=["ana@acme.example"], moderators=["raj@acme.example"])

    edit_draft(draft, promote)
    plan = live_plan(sandbox, draft, SECRETS)
    (step,) = plan.operations
    assert step.payload == {"admins": ["ana@acme.example"], "moderators": [], "collaboratorsToRemove": []}
    (change,) = step.changes
    assert (change.before, change.after) == ("developer", "admin")
    text = render_text(plan)
    assert 'Team role (ana@acme.example): "developer" -> "admin"' in text, text
    assert "+ Team role" not in text
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == 0, err
    app_id = app_named(loaded(draft), "Acme Support").id
    roles = {c["email"]: c["role"] for c in call(sandbox, "list_collaborators", app_id)}
    assert roles["ana@acme.example"] == "admin"
    assert live_plan(sandbox, draft, SECRETS).operations == []
