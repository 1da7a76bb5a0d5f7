"""Issue 38 item 7: what a CI log shows. Each line a job needs is there: located problems, the port of a service
that cannot be reached, the exit code in every JSON document, a refusal that says why (a held lock, no --yes),
a closing line and a report after SIGTERM, and the account a failed promotion could not reach."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tenantdeck import exitcodes
from tests import procs, test_promote_cli
from tests.loopback import Sandbox
from tests.sync.test_promote import draft_text
from tests.sync.test_workspace_lock import HOLDER
from tests.test_promote_cli import run

two_accounts = test_promote_cli.two_accounts  # the fixture: two sandboxes, two profiles


def test_validate_json_locates_each_error_on_stderr(tmp_path: Path, monkeypatch: object) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text().replace("region: eu", "region: mars"))
    result = run({"TENANTDECK_CONFIG_DIR": str(tmp_path), "NO_COLOR": "1"}, "validate", "--format", "json",
                 str(draft))
    assert result.exit_code == exitcodes.ERROR
    (problem,) = [p for p in json.loads(result.stdout)["problems"] if p["severity"] == "error"]
    assert f"{draft}:{problem['line']}:{problem['column']}: error:" in result.stderr, result.stderr


def test_plan_and_diff_json_carry_their_exit_code(two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    (tmp_path / "tenantdeck.yaml").write_text(draft_text())
    for command in ("diff", "plan"):
        result = run(env, command, "--profile", "staging", "--format", "json")
        assert result.exit_code == exitcodes.CHANGES, result.stderr
        assert json.loads(result.stdout)["exit_code"] == exitcodes.CHANGES


def test_no_yes_and_a_held_lock_are_refusals_in_the_report(two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    asked = run(env, "push", "--profile", "staging", "--format", "json")
    assert asked.exit_code == exitcodes.USAGE, asked.stderr  # a CI job's line missing --yes: a usage error
    assert json.loads(asked.stdout)["refusal"]["kind"] == "not_confirmed"
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == exitcodes.OK
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    promote = run(env, "promote", "staging", "production", "--format", "json")  # promote alike
    assert promote.exit_code == exitcodes.USAGE, promote.stderr
    assert json.loads(promote.stdout)["refusal"]["kind"] == "not_confirmed"
    with procs.running([sys.executable, "-c", HOLDER, str(draft)], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "held"
        locked = run(env, "push", "--profile", "staging", "--yes", "--lock-timeout", "0", "--format", "json")
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    assert locked.exit_code == exitcodes.LOCKED, locked.stderr
    refusal = json.loads(locked.stdout)["refusal"]
    assert refusal["kind"] == "locked" and f"pid {holder.pid}" in refusal["summary"]


@pytest.mark.slow
def test_an_unreachable_promotion_target_is_named_and_leaves_no_lock_file(two_accounts: dict[str, str],
                                                                          tmp_path: Path) -> None:
    env = two_accounts
    (tmp_path / "tenantdeck.yaml").write_text(draft_text())
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    url = yaml.safe_load((tmp_path / "config" / "profiles.yaml").read_text())["profiles"]["production"]["base_url"]
    test_promote_cli.RUNNING.pop("production").stop()
    failed = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert failed.exit_code == exitcodes.ERROR, failed.stderr
    port = url.rsplit(":", 1)[1]
    assert f"production ({url}) could not be read" in failed.stderr and f":{port}" in failed.stderr, failed.stderr
    assert json.loads(failed.stdout)["refusal"]["kind"] == "service_error"
    assert not (tmp_path / "tenantdeck.production.lock.json").exists()


def test_sigterm_stops_a_push_with_a_closing_line_and_a_report(tmp_path: Path) -> None:
    """A CI runner's stop (SIGTERM) in the middle of a push: the summary, a line saying how to finish, exit 143,
    and push.json with what was applied; the same command then finishes it."""
    served = Sandbox(tmp_path / "service.sqlite3", latency_ms=150)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")} | served.values | {
            "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "NO_COLOR": "1",
            "AUDIT_PASSWORD": "pw1"}
        apps = "".join(f"  - name: App {i:02d}\n    region: eu\n" for i in range(12))
        (tmp_path / "tenantdeck.yaml").write_text("format: 1\napps:\n" + apps)
        report = tmp_path / "push.json"
        with report.open("w") as out:
            push = procs.tenantdeck("push", "--yes", "--format", "json", "--concurrency", "1", cwd=tmp_path,
                                    env=env, stdout=out, stderr=subprocess.PIPE, text=True)
            assert push.stderr is not None
            for line in push.stderr:  # the plan is shown, then the push starts
                if line.startswith("Plan:"):
                    break
            push.send_signal(signal.SIGTERM)
            _, err = push.communicate(timeout=60)
        assert push.returncode == exitcodes.TERMINATED, err
        assert "Push incomplete" in err and "stopped by SIGTERM" in err, err
        doc = json.loads(report.read_text())
        assert doc["exit_code"] == exitcodes.TERMINATED and doc["result"]["interrupted"] is True
        again = subprocess.run([sys.executable, "-m", "tenantdeck", "push", "--yes"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120, check=False)
        assert again.returncode == exitcodes.OK, again.stderr
    finally:
        served.stop()


def test_a_value_the_service_would_refuse_fails_the_plan_not_the_push(two_accounts: dict[str, str],
                                                                      tmp_path: Path) -> None:
    """The pull request's job (plan, diff) with the variables set finds the password the service refuses (a
    hyphen), located at its reference and without its value; the main job would have found it after the merge."""
    env = two_accounts | {"AUDIT_PASSWORD": "pw-with-hyphen"}
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    line = draft_text().splitlines().index("        password: ${AUDIT_PASSWORD}") + 1
    for command in ("plan", "diff"):
        result = run(env, command, "--profile", "staging")
        assert result.exit_code == exitcodes.ERROR, result.stderr
        assert f"tenantdeck.yaml:{line}:" in result.stderr and "AUDIT_PASSWORD" in result.stderr, result.stderr
        assert "pw-with-hyphen" not in result.stderr + result.stdout
    assert run(two_accounts, "plan", "--profile", "staging").exit_code == exitcodes.CHANGES
