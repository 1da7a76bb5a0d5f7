"""The recipes of docs/policies.md against the sandbox, as a team would live them: the rules file is the page's own
block; each rule is checked offline (validate), before a push (refused, or let through with a reason the history
keeps), on the live account after a change made behind tenantdeck's back through the service's API (audit), and
fixed by `policy fix` where the fix is obvious."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.draft.session import DraftSession
from tests.workspaces import copy_workspace

ROOT = Path(__file__).resolve().parents[2]
RULES = ["profanity-filter-on", "https-webhooks", "brand-colour", "two-admins", "sms-needs-a-provider",
         "gold-tier-settings"]


def recipes() -> str:
    page = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    recipe = page.split("## Recipes", 1)[1]
    return re.search(r"```yaml\n(.*?)```", recipe, flags=re.S).group(1)  # type: ignore[union-attr]


#: The compliant fleet, built once per process (per xdist worker) and copied into each test's folder.
_BUILT: dict[str, Path] = {}


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pulled account made to comply with every recipe, pushed; returns the draft.

    Built once, then copied whole (draft, rules file, workspace state, config and the local sandbox's database)
    into this test's own folder: each test still starts from the same fleet and changes only its own copy.
    """
    if "fleet" not in _BUILT:
        folder = tmp_path_factory.mktemp("fleet")
        _work_in(folder, monkeypatch)
        _build_fleet(folder)
        _BUILT["fleet"] = folder
    copy_workspace(_BUILT["fleet"], tmp_path)
    _work_in(tmp_path, monkeypatch)
    return tmp_path / "d.yaml"


def _work_in(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands' data, config and working folder are ``folder``'s (the local sandbox lives in its data)."""
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(folder / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(folder / "config"))
    monkeypatch.chdir(folder)


def _build_fleet(tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    assert run("pull", "--draft", str(draft)).exit_code == 0
    (tmp_path / "d.policies.yaml").write_text(recipes())
    session = DraftSession.open(draft)
    apps = session.data["apps"]
    names = [a["name"] for a in apps]
    with session.transaction():
        for i, app in enumerate(apps):
            team = app.get("team") or {}
            session.set(("apps", i, "team"), {"admins": [f"lead{i}@example.test", f"ops{i}@example.test"],
                                              "moderators": list(team.get("moderators") or [])})
            enabled = list((app.get("extensions") or {}).get("enabled") or [])
            if "profanity-filter" not in enabled:
                session.set(("apps", i, "extensions", "enabled"), [*enabled, "profanity-filter"])
        for i in range(len(apps)):  # gold-tier-settings: every app is gold and takes Acme's settings
            session.set(("apps", i, "labels"), {"tier": "gold"})
            session.set(("apps", i, "settings"), dict(apps[names.index("Acme Support")]["settings"]))
    session.save()
    fixed = run("policy", "fix", str(draft))
    assert fixed.exit_code == 0, fixed.stderr
    checked = run("validate", str(draft), "--format", "json")
    assert checked.exit_code == 0, checked.stdout
    assert [p for p in json.loads(checked.stdout)["problems"] if p["code"] == "policy"] == []
    pushed = run("push", "--draft", str(draft), "--yes")
    assert pushed.exit_code == 0, pushed.stderr
    assert run("audit", str(draft)).exit_code == 0


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def edit(draft: Path, path: tuple[Any, ...], value: Any) -> None:
    session = DraftSession.open(draft)
    session.set(path, value)
    session.save()


def app_index(draft: Path, name: str) -> int:
    return [a["name"] for a in yaml.safe_load(draft.read_text())["apps"]].index(name)


def policy_rules(result: Result) -> set[str]:
    return {p["message"].split(":")[0].removeprefix("policy ") for p in json.loads(result.stdout)["problems"]
            if p["code"] == "policy"}


#: rule -> (app, key path inside it, a value that breaks the rule there)
BREAKS: dict[str, tuple[str, tuple[Any, ...], Any]] = {
    "profanity-filter-on": ("Initech Field Chat", ("extensions",),
                            {"enabled": ["push-notification"], "disabled": ["profanity-filter"]}),
    "https-webhooks": ("Acme Support", ("webhooks", 0, "webhookURL"), "http://127.0.0.1:8788/hooks"),
    "brand-colour": ("Acme Support", ("widgets", 0, "style", "primary_color"), "#FF0000"),
    "two-admins": ("Globex Community", ("team", "admins"), ["lead1@example.test"]),
    "sms-needs-a-provider": ("Initech Field Chat", ("extensions", "enabled"),
                             ["profanity-filter", "push-notification", "sms-notification"]),
    "gold-tier-settings": ("Globex Community", ("settings", "core.conversations.updateOnCallActivity"), "FLIP"),
}


def test_the_recipes_are_the_rules_the_issue_names() -> None:
    assert [r["name"] for r in yaml.safe_load(recipes())["policies"]] == RULES


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_offline_and_before_a_push(fleet: Path, rule: str) -> None:
    name, path, value = BREAKS[rule]
    i = app_index(fleet, name)
    if value == "FLIP":
        value = not yaml.safe_load(fleet.read_text())["apps"][i]["settings"][path[1]]
    edit(fleet, ("apps", i, *path), value)
    checked = run("validate", str(fleet), "--format", "json")
    assert checked.exit_code == exitcodes.ERROR and policy_rules(checked) == {rule}, checked.stdout
    located = next(p for p in json.loads(checked.stdout)["problems"] if p["code"] == "policy")
    assert located["file"] == str(fleet) and located["line"] > 0 and located["path"].startswith(f"apps[{i}]")

    refused = run("push", "--draft", str(fleet), "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.VIOLATIONS, refused.stderr
    doc = json.loads(refused.stdout)
    assert doc["result"] is None and doc["refusal"]["kind"] == "policy_violations"
    assert all(line.startswith(f"policy {rule}: ") for line in doc["refusal"]["lines"])
    # the engine's summary names no command line (the editor says its own way); the CLI adds its flags
    assert "--" not in doc["refusal"]["summary"] and "--allow-violation RULE --reason TEXT" in refused.stderr
    assert run("audit", str(fleet)).exit_code == 0  # nothing reached the service

    let = run("push", "--draft", str(fleet), "--yes", "--allow-violation", rule, "--reason", "pilot tenant")
    assert let.exit_code == 0, let.stderr
    record = json.loads(run("history", "--draft", str(fleet), "--format", "json").stdout)["pushes"][-1]
    assert record["violation_reason"] == "pilot tenant"
    assert {v["rule"] for v in record["allowed_violations"]} == {rule}
    audited = run("audit", str(fleet), "--format", "json")
    assert audited.exit_code == exitcodes.VIOLATIONS
    assert {v["rule"] for v in json.loads(audited.stdout)["violations"]} == {rule}


def test_a_dashboard_change_breaks_a_rule_and_the_audit_sees_it(fleet: Path) -> None:
    """Behind tenantdeck's back (the service's own API): the profanity filter switched off in one app, a webhook
    moved to plain http in another. The draft still complies; the live account does not."""
    from tenantdeck.sync.workspace.binding import resolve_for_draft

    data = yaml.safe_load(fleet.read_text())
    by_name = {a["name"]: a for a in data["apps"]}
    target = resolve_for_draft(fleet)

    async def dashboard() -> None:
        async with target.client() as client:
            await client.set_extensions(by_name["Globex Community"]["id"], disabled=["profanity-filter"])
            acme = by_name["Acme Support"]
            hook = await client.get_webhook(acme["id"], acme["webhooks"][0]["id"])
            assert hook is not None
            body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt")}
            await client.update_webhook(acme["id"], hook["id"], {**body, "webhookURL": "http://127.0.0.1:9/h"})

    asyncio.run(dashboard())
    assert run("validate", str(fleet)).exit_code == 0
    audited = run("audit", str(fleet), "--format", "json")
    assert audited.exit_code == exitcodes.VIOLATIONS
    doc = json.loads(audited.stdout)
    found = {(v["rule"], v["app"]) for v in doc["violations"]}
    assert found == {("profanity-filter-on", "Globex Community"), ("https-webhooks", "Acme Support")}
    assert {r["name"]: r["violations"] for r in doc["rules"]}["https-webhooks"] == 1


def test_policy_fix_settles_the_obvious_and_lists_the_rest(fleet: Path) -> None:
    i, j = app_index(fleet, "Acme Support"), app_index(fleet, "Globex Community")
    key = "core.conversations.updateOnCallActivity"
    flipped = not yaml.safe_load(fleet.read_text())["apps"][j]["settings"][key]
    edit(fleet, ("apps", i, "widgets", 0, "style", "primary_color"), "#FF0000")
    edit(fleet, ("apps", j, "settings", key), flipped)
    edit(fleet, ("apps", i, "webhooks", 0, "webhookURL"), "http://127.0.0.1:8788/hooks")
    before = fleet.read_text()
    dry = run("policy", "fix", str(fleet), "--dry-run")
    assert fleet.read_text() == before and dry.exit_code == exitcodes.VIOLATIONS
    fixed = run("policy", "fix", str(fleet))
    assert fixed.exit_code == exitcodes.VIOLATIONS  # the https rule has no obvious fix: still broken
    assert "primary_color: set to '#03A9F4' (policy brand-colour)" in fixed.stdout
    assert "not fixed: error: policy https-webhooks" in fixed.stderr
    after = yaml.safe_load(fleet.read_text())["apps"]
    assert after[i]["widgets"][0]["style"]["primary_color"] == "#03A9F4"
    gold = {after[i]["settings"][key], after[j]["settings"][key]}
    assert len(gold) == 1  # one set of settings again
    assert policy_rules(run("validate", str(fleet), "--format", "json")) == {"https-webhooks"}
