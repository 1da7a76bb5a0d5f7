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
