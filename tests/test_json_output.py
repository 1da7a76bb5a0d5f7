"""``--format json``: each command prints one document on stdout with the documented keys, and only that.

The keys are read from docs/json-output.md (its ``json-keys`` blocks), so the page and the output cannot drift
apart. The commands run against the built-in in-process sandbox (the ``local`` profile, an isolated database).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def documented_keys() -> dict[str, list[str]]:
    page = (ROOT / "docs" / "json-output.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^### ([\w ]+)\n\n```json-keys\n(.*?)\n```", page, flags=re.M | re.S)
    return {command: keys.split() for command, keys in blocks}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    values = {"TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
              "TENANTDECK_CACHE_DIR": str(tmp_path / "cache")}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    return values


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, json.loads(result.stdout), result.stderr


def check_head(doc: dict[str, Any], command: str, code: int) -> None:
    assert list(doc) == documented_keys()[command], (command, list(doc))
    assert (doc["format_version"], doc["tool"], doc["command"], doc["exit_code"]) == (1, "tenantdeck", command, code)


def test_every_command_documents_its_keys() -> None:
    assert set(documented_keys()) == {"validate", "pull", "push", "promote", "history", "doctor", "audit",
                                      "policy list"}


def test_pull_validate_push_history_doctor_as_json(env: dict[str, str], tmp_path: Path) -> None:
    """The pipeline a CI job runs, each step read as data; humans' lines are on stderr only."""
    code, pulled, err = run("pull", "--draft", "d.yaml", "--format", "json")
    assert code == 0 and "pulled" in err
    check_head(pulled, "pull", 0)
    assert pulled["apps"] >= 1 and pulled["base"] == "d.lock.json" and pulled["problems"] == []

    code, checked, _ = run("validate", "d.yaml", "--format", "json")
    check_head(checked, "validate", 0)
    assert checked["valid"] is True and checked["errors"] == 0

    draft = tmp_path / "d.yaml"
    text = draft.read_text()
    assert "send_gifs: false" in text
    draft.write_text(text.replace("send_gifs: false", "send_gifs: true", 1))
    code, pushed, err = run("push", "--draft", "d.yaml", "--yes", "--format", "json")
    assert code == 0, err
    check_head(pushed, "push", 0)
    assert "Push complete" in err and pushed["ok"] is True and pushed["refusal"] is None
    assert pushed["result"]["counts"] == {"applied": 1, "failed": 0, "not_attempted": 0, "already": 0}
    (operation,) = pushed["result"]["operations"]
    assert operation["status"] == "applied" and operation["kind"] == "update_widget"
    assert pushed["plan"]["format_version"] == 1 and len(pushed["plan"]["operations"]) == 1
    assert "payload" not in operation

    code, again, _ = run("push", "--draft", "d.yaml", "--yes", "--format", "json")
    assert code == 0 and again["result"] is None and again["plan"]["operations"] == []

    code, history, _ = run("history", "--draft", "d.yaml", "--format", "json")
    check_head(history, "history", 0)
    assert [p["counts"]["applied"] for p in history["pushes"]] == [1]

    code, doctor, _ = run("doctor", "--draft", "d.yaml", "--format", "json")
    check_head(doctor, "doctor", 0)
    (tmp_path / "d.policies.yaml").write_text("format: 1\npolicies:\n  - name: eu\n    check: {field: region, "
                                              "equals: eu}\n    severity: warning\n    message: m\n")
    code, audit, _ = run("audit", "d.yaml", "--format", "json")
    check_head(audit, "audit", 0)
    code, rules, _ = run("policy", "list", "d.yaml", "--format", "json")
    check_head(rules, "policy list", 0)
    assert [r["name"] for r in rules["rules"]] == ["eu"] == [r["name"] for r in audit["rules"]]
    assert {p["what"] for p in doctor["paths"]} >= {"profiles", "sandbox database", "parse cache", "push history"}


def test_a_refused_push_is_a_document_too(env: dict[str, str], tmp_path: Path) -> None:
    """An invalid draft: exit 1, the refusal as data, nothing applied."""
    assert CliRunner().invoke(cli, ["pull", "--draft", "d.yaml"]).exit_code == 0
    draft = tmp_path / "d.yaml"
    draft.write_text(draft.read_text().replace("send_gifs: false", "send_gifs: perhaps", 1))
    code, pushed, err = run("push", "--draft", "d.yaml", "--yes", "--format", "json")
    assert code == exitcodes.ERROR and "error:" in err
    check_head(pushed, "push", exitcodes.ERROR)
    assert pushed["result"] is None and pushed["refusal"]["kind"] == "invalid_draft"
    assert any(p["path"].endswith("send_gifs") for p in pushed["refusal"]["problems"])
    code, checked, _ = run("validate", "d.yaml", "--format", "json")
    check_head(checked, "validate", exitcodes.ERROR)
    assert checked["valid"] is False and checked["problems"][0]["line"] >= 1
