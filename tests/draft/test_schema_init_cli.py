"""The committed JSON Schema, `init`, `validate` and `schema` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.draft import load_draft
from tenantdeck.draft.schema import SCHEMA_FILE, build_schema, schema_reference, schema_text

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schema_matches_the_models() -> None:
    committed = SCHEMA_FILE.read_text(encoding="utf-8")
    assert committed == schema_text(), "schema drifted from the models: run `make schema`"


def test_schema_has_id_title_and_forbids_unknown_keys() -> None:
    schema = build_schema()
    assert schema["$id"] and schema["title"]
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"format"}
    assert schema["$defs"]["App"]["properties"]["region"]["enum"] == ["us", "eu", "in"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "tenantdeck", *args], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


def test_init_writes_a_valid_commented_draft(tmp_path: Path) -> None:
    target = tmp_path / "tenantdeck.yaml"
    result = CliRunner().invoke(cli, ["init", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first == "# yaml-language-server: $schema=.tenantdeck/draft.schema.json"
    loaded = load_draft(target)
    assert loaded.problems == [] and loaded.draft is not None
    assert len(loaded.draft.apps) == 2
    assert loaded.draft.apps[0].widgets[0].extends in loaded.draft.presets
    assert loaded.draft.apps[1].sms is not None
    hook = loaded.draft.apps[1].webhooks[0]
    assert hook.useBasicAuth and hook.password == "${GLOBEX_WEBHOOK_PASSWORD}"


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    target = tmp_path / "tenantdeck.yaml"
    target.write_text("keep me\n")
    result = CliRunner().invoke(cli, ["init", str(target)])
    assert result.exit_code == 1
    assert target.read_text() == "keep me\n"
    result = CliRunner().invoke(cli, ["init", str(target), "--force"])
    assert result.exit_code == 0
    assert (tmp_path / "tenantdeck.yaml.bak").read_text() == "keep me\n"


def test_init_schema_reference_works_on_another_machine(tmp_path: Path) -> None:
    """The modeline names the schema copy beside the draft by a relative path, which yaml-language-server resolves
    against the draft's directory; not this machine's install path (issue 7). The folder moved elsewhere keeps
    working."""
    project = tmp_path / "project"
    project.mkdir()
    assert CliRunner().invoke(cli, ["init", str(project / "prod.yaml")]).exit_code == 0
    moved = tmp_path / "clone"
    project.rename(moved)
    ref = (moved / "prod.yaml").read_text(encoding="utf-8").splitlines()[0].split("$schema=", 1)[1]
    assert not ref.startswith(("file:", "/", "http")) and str(SCHEMA_FILE.parent) not in ref
    assert ref == schema_reference(moved / "prod.yaml")
    schema = moved / ref
    assert json.loads(schema.read_text(encoding="utf-8")) == build_schema()


def test_schema_command_prints_the_schema() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.output)["$id"] == build_schema()["$id"]


BAD = "format: 1\napps:\n  - name: no\n    region: eu\n    version: 3\n"


def test_validate_text_output_and_exit_code(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text(BAD)
    proc = run("validate", str(f))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{f}:3:11: error: apps[0].name: `no` is read as the boolean false in YAML; quote it: 'no'",
        f"{f}:5:14: error: apps[0].version: `3` is read as the number 3 in YAML; quote it: '3'",
    ]
    assert proc.stderr.strip() == f"{f}: invalid (2 errors, 0 warnings)"


def test_validate_json_output(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text(BAD)
    result = CliRunner().invoke(cli, ["validate", str(f), "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert (doc["format_version"], doc["command"], doc["valid"], doc["errors"], doc["exit_code"]) == (
        1, "validate", False, 2, 1)
    problems = doc["problems"]
    assert [(p["line"], p["column"], p["path"], p["severity"]) for p in problems] == [
        (3, 11, "apps[0].name", "error"),
        (5, 14, "apps[0].version", "error"),
    ]
    assert set(problems[0]) == {"severity", "message", "path", "file", "line", "column", "code"}


def test_validate_valid_with_warning_exits_0(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text(
        "format: 1\napps:\n  - name: A\n    region: eu\n    webhooks:\n      - id: h\n        name: H\n"
        "        webhookURL: https://x.example\n        enabled: yes\n"
    )
    result = CliRunner().invoke(cli, ["validate", str(f)])
    assert result.exit_code == 0
    assert ": warning: apps[0].webhooks[0].enabled:" in result.stdout
    assert "valid (0 errors, 1 warning)" in result.stderr


def test_validate_missing_file_is_one_clear_line(tmp_path: Path) -> None:
    proc = run("validate", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate_does_not_import_heavy_modules(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text(BAD)
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['tenantdeck', 'validate', {str(f)!r}]\n"
        "try:\n    runpy.run_module('tenantdeck', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('httpx', 'fastapi', 'ruamel', 'textual', 'uvicorn')))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_usage_error_exits_64() -> None:
    proc = run("validate", "--format", "xml")
    assert proc.returncode == 64
