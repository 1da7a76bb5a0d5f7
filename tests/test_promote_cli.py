"""``push --profile``, ``promote`` and the targets file through the CLI, as a user types them, against two
sandboxes served on loopback (two accounts named in profiles.yaml: staging and production)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tests.loopback import Sandbox
from tests.sync.test_promote import draft_text
from tests.test_json_output import check_head
from tests.yamltext import has_id

#: the sandboxes :func:`two_accounts` serves, by profile (a test that restarts one puts the new process here)
RUNNING: dict[str, Any] = {}


@pytest.fixture
def two_accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Two empty sandboxes, and the environment of a user whose profiles.yaml names them."""
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    staging, production = Sandbox(tmp_path / "staging.sqlite3"), Sandbox(tmp_path / "production.sqlite3")
    s_values, p_values = staging.values, production.values
    RUNNING.update(staging=staging, production=production)
    try:
        config = tmp_path / "config"
        config.mkdir()
        (config / "profiles.yaml").write_text(
            "profiles:\n"
            f"  staging: {{base_url: '{s_values['TENANTDECK_BASE_URL']}', key_env: S_KEY, secret_env: S_SECRET}}\n"
            f"  production: {{base_url: '{p_values['TENANTDECK_BASE_URL']}', key_env: P_KEY, secret_env: P_SECRET}}\n")
        env = {"TENANTDECK_CONFIG_DIR": str(config), "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
               "TENANTDECK_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1", "AUDIT_PASSWORD": "pw1",
               "S_KEY": s_values["TENANTDECK_KEY"], "S_SECRET": s_values["TENANTDECK_SECRET"],
               "P_KEY": p_values["TENANTDECK_KEY"], "P_SECRET": p_values["TENANTDECK_SECRET"]}
        monkeypatch.chdir(tmp_path)
        yield env
    finally:
        for served in RUNNING.values():
            served.stop()
        RUNNING.clear()


def run(env: dict[str, str], *args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_staging_then_production_then_promote(two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    # production is a target of the draft: an empty section (no ids yet: its first push creates the apps)
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    before = draft.read_text()
    pushed = run(env, "push", "--profile", "production", "--yes", "--format", "json")
    assert pushed.exit_code == 0, pushed.stderr
    doc = json.loads(pushed.stdout)
    assert doc["profile"] == "production" and doc["result"]["created_apps"]
    assert draft.read_text() == before
    (new_id,) = doc["result"]["created_apps"].values()
    assert has_id((tmp_path / "tenantdeck.targets.yaml").read_text(), new_id)
    assert (tmp_path / "tenantdeck.production.lock.json").is_file()
    history = json.loads(run(env, "history", "--profile", "production", "--format", "json").stdout)["pushes"]
    assert [(h["profile"], h["result"]) for h in history] == [("production", "complete")]
    assert all(h["profile"] == "staging" for h in json.loads(run(env, "history", "--format", "json").stdout)["pushes"])
    diff = run(env, "diff", "--profile", "production")
    assert diff.exit_code == 0 and "No changes" in diff.stderr + diff.stdout, diff.stderr
    # a pull from a target would write its values over the shared draft: refused, with what to do instead
    pulled = run(env, "pull", "--profile", "production")
    assert pulled.exit_code == exitcodes.ERROR and "tenantdeck promote production" in pulled.stderr
    assert draft.read_text() == before
    # a change reaches staging through the draft, then production by promotion
    draft.write_text(before.replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    promoted = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert promoted.exit_code == 0, promoted.stderr
    doc = json.loads(promoted.stdout)
    check_head(doc, "promote", 0)  # the keys docs/json-output.md documents
    assert (doc["source"], doc["profile"]) == ("staging", "production")
    assert [op["kind"] for op in doc["plan"]["operations"]] == ["update_widget"]
    assert "Promoting staging -> production" in promoted.stderr
    again = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert json.loads(again.stdout)["plan"]["operations"] == []
    # a saved plan for a target is pushed to that target, from its own base
    draft.write_text(draft.read_text().replace("main: {send_gifs: true}", "main: {send_gifs: false}"))
    planned = run(env, "plan", "--profile", "production", "-o", "production.plan.json")
    assert planned.exit_code == exitcodes.CHANGES, planned.stderr
    applied = run(env, "push", "production.plan.json", "--profile", "production", "--yes", "--format", "json")
    assert applied.exit_code == 0, applied.stderr
    assert [op["status"] for op in json.loads(applied.stdout)["result"]["operations"]] == ["applied"]
    # no confirmation without a terminal, as push
    draft.write_text(before.replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    asked = run(env, "promote", "staging", "production")
    assert asked.exit_code == exitcodes.USAGE and "pass --yes" in asked.stderr


def test_schema_of_the_targets_file(two_accounts: dict[str, str]) -> None:
    result = run(two_accounts, "schema", "--targets")
    schema: dict[str, Any] = json.loads(result.stdout)
    assert schema["title"].startswith("tenantdeck targets file")
    assert "targets" in schema["properties"]


def test_validate_checks_the_targets_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    env = {"TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "NO_COLOR": "1"}
    assert run(env, "validate").exit_code == 0
    targets = tmp_path / "tenantdeck.targets.yaml"
    targets.write_text("format: 1\ntargets:\n  production:\n    apps:\n      Acme:\n        webhooks:\n"
                       "          audit: {webhookURL: 'ftp://nope'}\n")
    result = run(env, "validate", "--format", "json")
    assert result.exit_code == exitcodes.ERROR
    (problem,) = [p for p in json.loads(result.stdout)["problems"] if p["severity"] == "error"]
    assert (problem["file"], problem["line"], problem["path"]) == (
        targets.name, 7, "targets.production.apps.Acme.webhooks.audit.webhookURL"), problem
