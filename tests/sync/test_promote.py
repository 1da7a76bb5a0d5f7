"""One draft, several accounts (issue 25, item 6): per-target ids, overrides and bases, and promotion.

Two in-process sandboxes are two accounts (staging and production, at different addresses, so their identities
differ). The draft is staging's (pushed there first); ``tenantdeck.targets.yaml`` maps its apps to production's
ids and overrides a few values there.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tenantdeck import exitcodes
from tenantdeck.cli.push_flow import PushOptions, push_flow
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.target_overrides import targets_path
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import Target
from tests.sync.helpers_push import KEY, SECRET, client_for, make_sandbox
from tests.yamltext import has_id


def draft_text() -> str:
    """The sample's presets (every widget toggle written out) and one app of ours."""
    sample = sample_text("schema.json")
    return sample[:sample.index("\napps:")] + APPS


APPS = """
apps:
  - name: Acme
    region: eu
    widgets:
      - extends: support
        name: Help desk
        main: {send_gifs: false}
    webhooks:
      - id: audit
        name: Audit
        webhookURL: https://hooks.example.com/staging/audit
        useBasicAuth: true
        username: acme
        password: ${AUDIT_PASSWORD}
        triggers: [message_sent]
"""

TARGETS = """\
# what differs in production
format: 1
targets:
  production:
    apps:
      Acme:
        webhooks:
          audit:
            webhookURL: https://hooks.example.com/prod/audit   # production's receiver
"""

ENV = {"AUDIT_PASSWORD": "staging1"}


def target(name: str, sandbox: Any) -> Target:
    """A target named as a profile, at an address of its own (two accounts, two identities)."""
    return Target(name, f"http://{name}.example", KEY, SECRET,
                  httpx.ASGITransport(app=sandbox, raise_app_exceptions=False))


def push(sandbox: Any, name: str, draft: Path, env: dict[str, str] | None = None, **kw: Any) -> tuple[int, str]:
    err = io.StringIO()
    opts = PushOptions(draft_path=draft, yes=True, retry_base_delay=0.001, report={}, **kw)
    code = asyncio.run(push_flow(target(name, sandbox), opts, env=env or ENV, err=err))
    return code, err.getvalue()


def live_apps(sandbox: Any) -> dict[str, Any]:
    """app name -> (id, widget settings by name, webhooks by id)."""

    async def go() -> dict[str, Any]:
        async with client_for(sandbox) as c:
            out = {}
            for a in await c.list_apps():
                widgets = {w.settings["name"]: (w.widget_id, w.settings) for w in await c.list_widgets(a.id)}
                hooks = {str(h["id"]): h for h in await c.list_webhooks(a.id)}
                out[a.name] = (a.id, widgets, hooks)
            return out

    return asyncio.run(go())


@pytest.fixture
def accounts(tmp_path: Path) -> tuple[Any, Any, Path]:
    """staging and production (empty), and a draft pushed to staging with the targets file beside it."""
    staging = make_sandbox(tmp_path / "staging.db", seed=False)
    production = make_sandbox(tmp_path / "production.db", seed=False)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    code, err = push(staging, "staging", draft)
    assert code == exitcodes.OK, err
    targets_path(draft).write_text(TARGETS)
    return staging, production, draft


def test_push_to_a_second_target_keeps_its_own_ids_base_and_overrides(accounts: tuple[Any, Any, Path]) -> None:
    staging, production, draft = accounts
    draft_before = draft.read_text()
    assert "id: " in draft_before  # staging's ids were written into the draft
    code, err = push(production, "production", draft)
    assert code == exitcodes.OK, err
    assert draft.read_text() == draft_before  # production's ids never go into the draft
    s_id, _s_widgets, s_hooks = live_apps(staging)["Acme"]
    p_id, p_widgets, p_hooks = live_apps(production)["Acme"]
    assert p_id != s_id
    assert p_hooks["audit"]["webhookURL"] == "https://hooks.example.com/prod/audit"
    assert s_hooks["audit"]["webhookURL"] == "https://hooks.example.com/staging/audit"
    targets = targets_path(draft).read_text()
    assert has_id(targets, p_id) and has_id(targets, p_widgets["Help desk"][0])
    assert "# production's receiver" in targets  # comments kept
    # each account its own committed base and workspace
    assert (draft.parent / "tenantdeck.production.lock.json").is_file()
    assert p_id in (draft.parent / "tenantdeck.production.lock.json").read_text()
    assert p_id not in (draft.parent / "tenantdeck.lock.json").read_text()
    assert Workspace(draft, "production").history_path.is_file()
    # a second push to either has nothing to do
    for sandbox, name in ((production, "production"), (staging, "staging")):
        code, err = push(sandbox, name, draft)
        assert code == exitcodes.OK, err
        assert "0 to create, 0 to update, 0 to delete" in err, err


def test_a_profile_without_a_section_is_still_the_wrong_account(accounts: tuple[Any, Any, Path]) -> None:
    _, production, draft = accounts
    code, err = push(production, "qa", draft)
    assert code == exitcodes.WRONG_TARGET, err


def test_a_bad_targets_file_is_a_located_error(accounts: tuple[Any, Any, Path]) -> None:
    _, production, draft = accounts
    path = targets_path(draft)
    path.write_text("format: 1\ntargets:\n  production:\n    apps:\n      Acme:\n        region: mars\n"
                    "      Nobody: {}\n")
    code, err = push(production, "production", draft)
    assert code == exitcodes.ERROR, err
    assert f"{path}:6:" in err and "region" in err, err
    path.write_text("format: 1\ntargets:\n  production:\n    apps:\n      Nobody: {}\n")
    code, err = push(production, "production", draft)
    assert code == exitcodes.ERROR, err
    assert f"{path}:5:" in err and "no app named 'Nobody'" in err, err
    # an overridden value the draft's models refuse is placed in the targets file, at its line
    path.write_text("format: 1\ntargets:\n  production:\n    apps:\n      Acme:\n        widgets:\n"
                    "          Help desk:\n            style: {primary_color: red}\n")
    code, err = push(production, "production", draft)
    assert code == exitcodes.ERROR, err
    assert f"{path}:8:" in err and "primary_color" in err, err
    assert live_apps(production) == {}


# --- promote ------------------------------------------------------------------------------------------------------


def promote(source: Any, dest: Any, draft: Path, env: dict[str, str] | None = None,
            names: tuple[str, str] = ("staging", "production"), **kw: Any) -> tuple[int, str, dict]:
    """``promote staging production --yes``; returns (exit code, stderr, the JSON report)."""
    err = io.StringIO()
    report: dict[str, Any] = {}
    opts = PushOptions(draft_path=draft, yes=True, retry_base_delay=0.001, report=report,
                       source=target(names[0], source), **kw)
    code = asyncio.run(push_flow(target(names[1], dest), opts, env=env or ENV, err=err))
    return code, err.getvalue(), report


def dashboard(sandbox: Any, app_name: str, widget: str, change: Any) -> None:
    """Change a widget on the service, as someone in that account's dashboard would."""

    async def go() -> None:
        async with client_for(sandbox) as c:
            (app,) = [a for a in await c.list_apps() if a.name == app_name]
            (found,) = [w for w in await c.list_widgets(app.id) if w.settings["name"] == widget]
            settings = found.settings
            change(settings)
            await c.update_widget(app.id, found.widget_id, settings)

    asyncio.run(go())


def widget_of(sandbox: Any, app: str = "Acme", name: str = "Help desk") -> dict[str, Any]:
    return live_apps(sandbox)[app][1][name][1]


@pytest.fixture
def both(accounts: tuple[Any, Any, Path]) -> tuple[Any, Any, Path]:
    """staging and production both have the draft's apps (production through its section)."""
    staging, production, draft = accounts
    code, err = push(production, "production", draft)
    assert code == exitcodes.OK, err
    return staging, production, draft


def test_promote_pushes_what_staging_has_and_keeps_what_production_changed(both: tuple[Any, Any, Path]) -> None:
    staging, production, draft = both
    # staging gets a change through the draft, and one in its dashboard
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    code, err = push(staging, "staging", draft)
    assert code == exitcodes.OK, err
    dashboard(staging, "Acme", "Help desk", lambda s: s["main"].update(share_location=False))
    # meanwhile someone changed another value in production's dashboard
    dashboard(production, "Acme", "Help desk", lambda s: s["sidebar"].update(calls=True))
    targets_before = targets_path(draft).read_text()
    code, err, report = promote(staging, production, draft)
    assert code == exitcodes.OK, err
    ops = report["plan"]["operations"]
    assert [op["kind"] for op in ops] == ["update_widget"], ops
    after = widget_of(production)
    assert after["main"]["send_gifs"] is True  # the draft's change, as staging has it
    assert after["main"]["share_location"] is False  # staging's dashboard change
    assert after["sidebar"]["calls"] is True  # production's own change: kept (three-way)
    hooks = live_apps(production)["Acme"][2]
    assert hooks["audit"]["webhookURL"] == "https://hooks.example.com/prod/audit"  # staging's URL is staging's
    assert "password" in err and "not promoted" in err, err  # said, not silently skipped
    assert targets_path(draft).read_text() == targets_before
    assert "staging1" not in err and "staging1" not in str(report)
    # production's base advanced: promoting again has nothing to do
    code, err, report = promote(staging, production, draft)
    assert code == exitcodes.OK, err
    assert report["plan"]["operations"] == []


def test_promote_creates_an_app_production_lacks_and_records_its_id(both: tuple[Any, Any, Path]) -> None:
    staging, production, draft = both
    draft.write_text(draft.read_text() + "  - name: Beta\n    region: us\n")
    code, err = push(staging, "staging", draft)
    assert code == exitcodes.OK, err
    draft_before = draft.read_text()
    code, err, report = promote(staging, production, draft)
    assert code == exitcodes.OK, err
    assert [op["kind"] for op in report["plan"]["operations"]] == ["create_app"], report["plan"]
    beta_id = live_apps(production)["Beta"][0]
    assert beta_id != live_apps(staging)["Beta"][0]
    # read as YAML: a hex id such as 1e22048950191211 is also a float to YAML, so the file quotes it
    assert yaml.safe_load(targets_path(draft).read_text())["targets"]["production"]["apps"]["Beta"]["id"] == beta_id
    assert draft.read_text() == draft_before


def test_promote_refuses_a_conflict_and_changes_nothing(both: tuple[Any, Any, Path]) -> None:
    staging, production, draft = both
    dashboard(staging, "Acme", "Help desk", lambda s: s["style"].update(primary_color="#222222"))
    dashboard(production, "Acme", "Help desk", lambda s: s["style"].update(primary_color="#111111"))
    before = live_apps(production)
    code, err, report = promote(staging, production, draft)
    assert code == exitcodes.CONFLICT, err
    assert report["refusal"]["kind"] == "conflicts"
    assert live_apps(production) == before


def test_promote_from_an_account_the_draft_was_not_taken_from_is_refused(both: tuple[Any, Any, Path]) -> None:
    _staging, production, draft = both
    err = io.StringIO()
    opts = PushOptions(draft_path=draft, yes=True, report={}, source=target("qa", production))
    code = asyncio.run(push_flow(target("production", production), opts, env=ENV, err=err))
    assert code == exitcodes.WRONG_TARGET, err.getvalue()


def stored_password(db: Path, hook: str = "audit") -> str:
    """The webhook's password as the sandbox stores it (the API never returns it)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        (value,) = conn.execute("SELECT password FROM webhooks WHERE webhook_id = ?", (hook,)).fetchone()
    return str(value)


def test_promote_never_sends_the_source_secret(tmp_path: Path) -> None:
    """A webhook change is promoted; its password is production's before and after, whatever the job's
    environment holds (the source's secret cannot be read, and the draft's reference is not a rotation)."""
    staging = make_sandbox(tmp_path / "staging.db", seed=False)
    production = make_sandbox(tmp_path / "production.db", seed=False)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    assert push(staging, "staging", draft, {"AUDIT_PASSWORD": "stagingpw"})[0] == exitcodes.OK
    targets_path(draft).write_text(TARGETS)
    assert push(production, "production", draft, {"AUDIT_PASSWORD": "productionpw"})[0] == exitcodes.OK
    assert stored_password(tmp_path / "production.db") == "productionpw"

    async def rename() -> None:  # staging's dashboard renames the webhook
        async with client_for(staging) as c:
            (app,) = await c.list_apps()
            await c.update_webhook(app.id, "audit", {"name": "Audit trail"})

    asyncio.run(rename())
    code, err, report = promote(staging, production, draft, {"AUDIT_PASSWORD": "stagingpw"})
    assert code == exitcodes.OK, err
    assert [op["kind"] for op in report["plan"]["operations"]] == ["update_webhook"], report["plan"]
    assert live_apps(production)["Acme"][2]["audit"]["name"] == "Audit trail"
    assert stored_password(tmp_path / "production.db") == "productionpw"
    assert "webhooks.audit.password" in err and "not promoted" in err, err


def test_promote_back_to_the_drafts_own_account(both: tuple[Any, Any, Path]) -> None:
    """From a target to the draft's own account: the draft's ids, production's overrides not carried over."""
    staging, production, draft = both
    dashboard(production, "Acme", "Help desk", lambda s: s["main"].update(send_gifs=True))
    before = draft.read_text()
    code, err, report = promote(production, staging, draft, names=("production", "staging"))
    assert code == exitcodes.OK, err
    assert [op["kind"] for op in report["plan"]["operations"]] == ["update_widget"], report["plan"]
    assert widget_of(staging)["main"]["send_gifs"] is True
    hooks = live_apps(staging)["Acme"][2]
    assert hooks["audit"]["webhookURL"] == "https://hooks.example.com/staging/audit"  # production's stays there
    assert draft.read_text() == before
