"""``tenantdeck doctor`` checks the target the other commands on the draft use: the one the draft records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import SANDBOX_DB, local_target


def test_doctor_in_a_folder_whose_draft_records_its_own_sandbox_checks_that_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial: in the demo folder doctor reported on the user's `local` sandbox, while diff, push and audit talked
    to the demo's own sandbox database the draft records."""
    data = tmp_path / "data"
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(data))
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    draft = demo / "tenantdeck.yaml"
    pull_target(local_target(db_path=demo / "demo.sqlite3"), draft)
    monkeypatch.chdir(demo)
    result = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    document = json.loads(result.stdout)
    (resolved,) = [c for c in document["checks"] if c["name"] == "target resolved"]
    assert resolved["status"] == "ok"
    assert "records" in resolved["detail"] and "tenantdeck.yaml" in resolved["detail"], resolved
    assert "demo.sqlite3" in resolved["detail"], resolved
    assert not (data / SANDBOX_DB).exists()  # the user's own sandbox was never opened


def test_doctor_reads_every_config_file_it_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A docs-only trial (F29): in a folder whose draft records its sandbox, doctor said all ``ok`` with a
    profiles.yaml that ``diff --profile`` refused, located. Each config file doctor lists is read by its own loader:
    the broken profiles file fails (exit 1, located and escaped), bad settings, keymap and theme values warn, each
    naming the file and the key (F17)."""
    data, config = tmp_path / "data", tmp_path / "config"
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(data))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(config))
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    pull_target(local_target(db_path=demo / "demo.sqlite3"), demo / "tenantdeck.yaml")
    monkeypatch.chdir(demo)
    (config / "themes").mkdir(parents=True)
    (config / "settings.yaml").write_text("theme: nope\nevents_port: -5\n", encoding="utf-8")
    (config / "keymap.yaml").write_text("undo: 12345\n", encoding="utf-8")
    (config / "themes" / "mine.yaml").write_text("name: mine\ndark: true\nprimary: not-a-colour\n", encoding="utf-8")
    ok = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    checks = {c["name"]: c for c in json.loads(ok.stdout)["checks"]}
    assert checks["profiles file"]["status"] == "ok", checks["profiles file"]
    settings = checks["settings file"]
    assert settings["status"] == "warn"
    assert "settings.yaml: events_port: -5 is not a port number" in settings["detail"], settings
    assert "settings.yaml: theme: 'nope': no theme file is named so" in settings["detail"], settings
    assert checks["keymap file"]["status"] == "warn" and "undo: keys must be text" in checks["keymap file"]["detail"]
    assert checks["theme files"]["status"] == "warn" and "mine.yaml" in checks["theme files"]["detail"]
    assert ok.exit_code == 0  # warnings: the editor leaves the values out and starts

    (config / "profiles.yaml").write_text('profiles:\n  "bad\\e[2Jname":\n    base_url: 5\n', encoding="utf-8")
    broken = CliRunner().invoke(cli, ["doctor"])
    assert broken.exit_code == 1, broken.stdout
    (line,) = [ln for ln in broken.stdout.splitlines() if ln.startswith("FAIL  profiles file")]
    assert "profiles.yaml:3:" in line and "base_url" in line and "\x1b" not in line and "\\x1b[2J" in line, line
    (resolved,) = [ln for ln in broken.stdout.splitlines() if "target resolved" in ln]
    assert resolved.startswith("ok"), resolved  # the target is the draft's sandbox: profiles.yaml is not read there
