"""The team kind end to end against the sandbox over HTTP: pull, edit, push, pull again; three-way (a teammate
added on the service is kept), an app without a ``team`` block is never touched, owner and developers never
appear in a draft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tenantdeck import exitcodes
from tenantdeck.draft import load_draft
from tenantdeck.models import Team
from tenantdeck.sync.render import render_text
from tests.sync.helpers_push import app_named, call, edit_draft, live_plan, loaded, run_pull, run_push

#: the seeded SMS token as it is on the service: no rotation mixed into the plans below
SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}


def roles(sandbox: Any, app_id: str) -> dict[str, str]:
    return {c["email"]: c["role"] for c in call(sandbox, "list_collaborators", app_id)}


def test_pull_writes_admins_and_moderators_only(sandbox: Any, draft: Path) -> None:
    acme = app_named(loaded(draft), "Acme Support")
    assert acme.team == Team(moderators=["raj@acme.example"])  # the seeded developer and the owner are not in it
    assert app_named(loaded(draft), "Globex Community").team is None  # nobody but the owner: nothing to manage
    plan = live_plan(sandbox, draft, SECRETS)
    assert plan.operations == [] and plan.drift == [] and plan.conflicts == []


def test_edit_push_and_pull_again(sandbox: Any, draft: Path) -> None:
    def change(d: Any) -> None:
        app_named(d, "Acme Support").team = Team(admins=["zoe@acme.example", "ana@acme.example"])

    edit_draft(draft, change)
    acme_id = app_named(loaded(draft), "Acme Support").id
    before = roles(sandbox, acme_id)
    plan = live_plan(sandbox, draft, SECRETS)
    (step,) = plan.operations
    assert step.kind == "update_team" and step.payload == {
        "admins": ["ana@acme.example", "zoe@acme.example"], "moderators": [],
        "collaboratorsToRemove": ["raj@acme.example"]}
    text = render_text(plan)
    assert "  ~ update team" in text and 'Team role (zoe@acme.example): "admin"' in text

    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    after = roles(sandbox, acme_id)
    owner = next(e for e, r in before.items() if r == "owner")
    assert after == {owner: "owner", "ana@acme.example": "admin", "zoe@acme.example": "admin"}
    assert live_plan(sandbox, draft, SECRETS).operations == []

    run_pull(sandbox, draft)
    assert app_named(loaded(draft), "Acme Support").team == Team(admins=["zoe@acme.example", "ana@acme.example"])
    assert live_plan(sandbox, draft, SECRETS).operations == []


def test_a_teammate_added_on_the_service_is_kept(sandbox: Any, draft: Path) -> None:
    acme_id = app_named(loaded(draft), "Acme Support").id
    call(sandbox, "update_team", acme_id, moderators=["kim@acme.example"])  # another admin, in the dashboard

    def change(d: Any) -> None:
        app_named(d, "Acme Support").team = Team(admins=["zoe@acme.example"], moderators=["raj@acme.example"])

    edit_draft(draft, change)
    plan = live_plan(sandbox, draft, SECRETS)
    (step,) = plan.operations
    assert step.payload["collaboratorsToRemove"] == []  # kim is drift: not in the base, so not the draft's to drop
    assert [d.path for d in plan.drift] == ["kim@acme.example"]
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    assert roles(sandbox, acme_id)["kim@acme.example"] == "moderator"


def test_an_app_without_a_team_block_is_not_managed(sandbox: Any, draft: Path) -> None:
    def change(d: Any) -> None:
        app_named(d, "Acme Support").team = None

    edit_draft(draft, change)
    acme_id = app_named(loaded(draft), "Acme Support").id
    before = roles(sandbox, acme_id)
    plan = live_plan(sandbox, draft, SECRETS)
    assert plan.operations == [] and not [d for d in plan.drift if d.kind == "team"]
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    assert roles(sandbox, acme_id) == before


def test_a_team_mistake_is_located(tmp_path: Path) -> None:
    path = tmp_path / "tenantdeck.yaml"
    head = "format: 1\napps:\n  - name: One\n    region: us\n    team:\n"
    path.write_text(head + "      admins: [ana@x.io, nope]\n", encoding="utf-8")
    messages = {(p.key_path, p.line): p.message for p in load_draft(path).problems}
    assert messages == {("apps[0].team.admins[1]", 6): "must be an email address, such as ana@example.com"}
    path.write_text(head + "      admins: [ana@x.io]\n      moderators: [Ana@x.io]\n", encoding="utf-8")
    (problem,) = load_draft(path).problems
    assert problem.key_path == "apps[0].team" and "ana@x.io: in admins and in moderators" in problem.message


@pytest.mark.parametrize("email", ["[b]evil[/b]@x.example", "a b@x.io", "ana@localhost", "ana@x", '"q"@x.io',
                                   "ana@@x.io", "ana@-x.io", "ana@x..io", "<ana>@x.io"])
def test_what_no_mail_system_delivers_is_not_an_email(tmp_path: Path, email: str) -> None:
    """The team's email rule is email-validator's syntax: the old "x@y.z" pattern let markup and specials through."""
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(yaml.safe_dump({"format": 1, "apps": [{"name": "One", "region": "us", "team": {
        "admins": ["ana@x.io", email], "moderators": ["zoë@exämple.com", "ops+oncall@acme.example"]}}]}),
        encoding="utf-8")
    assert [(p.key_path, p.message) for p in load_draft(path).problems] == [
        ("apps[0].team.admins[1]", "must be an email address, such as ana@example.com")]


def test_the_owner_and_developers_are_kept_beside_the_team_never_compared(sandbox: Any, draft: Path) -> None:
    """Pull records who the service keeps (the editor shows them read-only); a diff never plans them."""
    from tenantdeck.draft import team_view as tv
    from tenantdeck.sync.workspace.offline import AppStates
    from tenantdeck.sync.workspace.state import Workspace

    acme = app_named(loaded(draft), "Acme Support")
    base = Workspace(draft).load_base()[acme.id]
    assert {m["role"] for m in base["service_team"]} == {"owner", "developer"}
    assert "ana@acme.example" in tv.service_line(base) and "Owner: " in tv.service_line(base)
    assert "ana@acme.example" not in (acme.team.admins + acme.team.moderators)
    assert live_plan(sandbox, draft, SECRETS).operations == []
    data = load_draft(draft).doc.data
    assert set(AppStates(draft).compute(data, env=SECRETS).values()) == {"in sync"}

