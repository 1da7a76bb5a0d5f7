"""Issue 33 items 1, 2, 3 and 5 through the real commands against the sandbox: what `diff`, `push` and `audit`
judge. The account before a push is the account after it: the draft's values for what the push writes, the
service's for everything else (drift the push keeps included); `audit` judges the service alone; a schema error in
one app hides no violation of another."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import yaml

from tenantdeck import exitcodes
from tests.policies.test_policy_fleet import RULES, app_index, edit, fleet, run  # noqa: F401 (fleet: a fixture)


def by_name(draft: Path) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in yaml.safe_load(draft.read_text())["apps"]}


def six_dashboard_changes(draft: Path) -> None:
    """Behind the draft's back, through the service's own API: one change breaking each recipe rule."""
    from tenantdeck.sync.workspace.binding import resolve_for_draft

    apps = by_name(draft)
    acme, globex, initech = apps["Acme Support"], apps["Globex Community"], apps["Initech Field Chat"]
    key = "core.conversations.updateOnCallActivity"

    async def dashboard() -> None:
        async with resolve_for_draft(draft).client() as client:
            await client.set_extensions(initech["id"], disabled=["profanity-filter"])
            hook = await client.get_webhook(acme["id"], acme["webhooks"][0]["id"])
            assert hook is not None
            body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt")}
            await client.update_webhook(acme["id"], hook["id"], {**body, "webhookURL": "http://127.0.0.1:9/h"})
            widget = (await client.list_widgets(acme["id"]))[0]
            style = {**widget.settings["style"], "primary_color": "#FF0000"}
            await client.update_widget(acme["id"], widget.widget_id, {**widget.settings, "style": style})
            await client.update_team(globex["id"], remove=[globex["team"]["admins"][1]])
            await client.set_extensions(globex["id"], enabled=["sms-notification"])
            settings = await client.get_app_settings(globex["id"])
            await client.map_settings(globex["id"], {key: not settings[key]})

    asyncio.run(dashboard())


def policy_notes(result: Any) -> set[tuple[str, str]]:
    notes = json.loads(result.stdout)["notes"]
    return {(n["extra"]["rule"], n["app"]) for n in notes if n.get("code", n.get("kind")) == "policy"
            and "rule" in (n.get("extra") or {})}


def audited(draft: Path) -> set[tuple[str, str]]:
    doc = json.loads(run("audit", str(draft), "--format", "json").stdout)
    return {(v["rule"], v["app"]) for v in doc["violations"]}


SIX = {("profanity-filter-on", "Initech Field Chat"), ("https-webhooks", "Acme Support"),
       ("brand-colour", "Acme Support"), ("two-admins", "Globex Community"),
       ("sms-needs-a-provider", "Globex Community"), ("gold-tier-settings", "Globex Community")}


def test_diff_sees_the_drift_the_push_keeps(fleet: Path) -> None:  # noqa: F811
    """Item 1: six live violations behind a clean draft: `diff` lists each (the push keeps drift as it is)."""
    six_dashboard_changes(fleet)
    assert audited(fleet) >= SIX
    shown = run("diff", "--draft", str(fleet), "--format", "json")
    assert shown.exit_code in (exitcodes.OK, exitcodes.CHANGES), shown.stderr
    assert policy_notes(shown) == audited(fleet)


def test_push_judges_the_service_not_the_base(fleet: Path) -> None:  # noqa: F811
    """Item 2: a push of an unrelated change is refused while the account after it breaks error rules; let
    through, the audit right after finds exactly what the gate named."""
    six_dashboard_changes(fleet)
    edit(fleet, ("apps", app_index(fleet, "Initech Field Chat"), "team", "moderators"), ["mod@example.test"])
    refused = run("push", "--draft", str(fleet), "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.VIOLATIONS, refused.stdout
    lines = json.loads(refused.stdout)["refusal"]["lines"]
    named = {(line.split(":")[0].removeprefix("policy "), line.split('"')[1]) for line in lines}
    let = run("push", "--draft", str(fleet), "--yes", *(a for r in RULES for a in ("--allow-violation", r)),
              "--reason", "dashboard drift, tracked")
    assert let.exit_code == 0, let.stderr
    assert named == audited(fleet) >= SIX


def test_audit_judges_only_what_the_service_holds(fleet: Path) -> None:  # noqa: F811
    """Item 3: a webhook added to the draft and not pushed is not on the service: `audit` does not report it."""
    i = app_index(fleet, "Acme Support")
    hooks = by_name(fleet)["Acme Support"]["webhooks"]
    edit(fleet, ("apps", i, "webhooks"), [*hooks, {"id": "draft-only", "name": "draft only",
                                                   "webhookURL": "http://127.0.0.1:8788/x", "triggers": []}])
    assert run("validate", str(fleet)).exit_code == exitcodes.ERROR  # the draft breaks the rule ...
    result = run("audit", str(fleet), "--format", "json")
    assert result.exit_code == exitcodes.OK, result.stdout  # ... the service does not
    assert json.loads(result.stdout)["violations"] == []


def test_a_schema_error_hides_no_other_apps_violation(fleet: Path) -> None:  # noqa: F811
    """Item 5: one app with a schema error, another breaking a rule: `validate` reports both."""
    bad, other = app_index(fleet, "Globex Community"), app_index(fleet, "Acme Support")
    edit(fleet, ("apps", bad, "region"), 42)
    edit(fleet, ("apps", other, "widgets", 0, "style", "primary_color"), "#FF0000")
    checked = run("validate", str(fleet), "--format", "json")
    assert checked.exit_code == exitcodes.ERROR
    problems = json.loads(checked.stdout)["problems"]
    assert any(p["path"].startswith(f"apps[{bad}]") and p["code"] != "policy" for p in problems)
    policy = [p for p in problems if p["code"] == "policy"]
    assert [(p["path"], p["message"].split(":")[0]) for p in policy] == [
        (f"apps[{other}].widgets[0].style.primary_color", "policy brand-colour")]
    assert policy[0]["line"] > 0


def test_a_webhook_created_with_no_trigger_is_judged_not_a_crash(fleet: Path) -> None:  # noqa: F811
    """The tutorial's new webhook (the editor's form writes `triggers: []`): the account after the push holds it
    with no trigger; `diff` and `push` judged it with a TypeError (the view read its missing triggers as None)."""
    i = app_index(fleet, "Acme Support")
    hooks = by_name(fleet)["Acme Support"]["webhooks"]
    edit(fleet, ("apps", i, "webhooks"), [*hooks, {"id": "alerts", "name": "Alerts",
                                                   "webhookURL": "https://alerts.example/hook", "triggers": []}])
    result = run("diff", str(fleet))
    assert result.exit_code == exitcodes.CHANGES, result.output
    assert 'create webhook "Alerts"' in result.output
    allow = [arg for rule in RULES for arg in ("--allow-violation", rule)]
    pushed = run("push", "--draft", str(fleet), "--yes", *allow, "--reason", "a test")
    assert pushed.exit_code == exitcodes.OK, pushed.output


def test_offline_and_live_notes_name_the_drafts_index(fleet: Path) -> None:  # noqa: F811
    """A trial: before `r` (offline, the base standing in for the service) the review's policy note said
    `webhooks[0]` for the draft's `webhooks[1]`; after `r` it said `webhooks[1]`. Both name the draft's index."""
    import os

    from tenantdeck.policies.gate import gate_for
    from tenantdeck.sync.remote.engine import plan_draft
    from tenantdeck.sync.workspace.binding import resolve_for_draft

    hooks = by_name(fleet)["Acme Support"]["webhooks"]
    assert len(hooks) >= 2 and sorted(h["id"] for h in hooks) != [h["id"] for h in hooks]  # base order differs
    last = len(hooks) - 1
    fleet.with_name("d.policies.yaml").write_text(yaml.safe_dump({"format": 1, "policies": [
        {"name": "hook-names", "select": {"names": ["Acme Support"]},
         "check": {"field": "webhooks[*].name", "one_of": [h["name"] for h in hooks[:last]]},
         "message": "not that name"}]}))

    def notes(online: bool) -> list[str]:
        target = resolve_for_draft(fleet, None) if online else None
        plan = asyncio.run(plan_draft(fleet, os.environ, text=fleet.read_text(), target=target,
                                      gate=gate_for(fleet)))
        return [n.message for n in plan.notes if n.kind == "policy"]

    offline, live = notes(False), notes(True)
    assert offline == live and len(offline) == 1 and f"(webhooks[{last}].name:" in offline[0], (offline, live)
