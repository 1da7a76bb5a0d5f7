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

from tenantdeck import exitcodes
from tenantdeck.cli.push_flow import PushOptions, push_flow
from tenantdeck.draft.overrides import targets_path
from tenantdeck.draft.sample import sample_text
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import Target
from tests.sync.helpers_push import KEY, SECRET, client_for, make_sandbox


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
    assert f"id: {p_id}" in targets and f"id: {p_widgets['Help desk'][0]}" in targets
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
