"""`make run`'s main job, end to end: real processes against the embedded sandbox in isolated directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.e2e
@pytest.mark.slow
def test_run_demo_goes_from_sample_to_a_pushed_change_and_back_in_sync_whatever_the_users_sandbox_holds(
        tmp_path: Path) -> None:
    """The whole demo, on a machine whose user emptied their local sandbox (or filled it with duplicates): `make run`
    still works, on a database of its own, and leaves the user's be. One run of the demo for both (eight processes,
    ~8 s of CPU: two runs were one of the suite's largest items)."""
    from tenantdeck.sandbox.reset import reset_database
    from tenantdeck.sandbox.store import Store

    users_db = tmp_path / "data" / "sandbox.sqlite3"
    assert reset_database(users_db, seed=False) == 0  # an account with no apps at all
    before = users_db.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    env |= {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run(
        [sys.executable, "-m", "tenantdeck", "run-demo", "--dir", str(tmp_path / "demo")],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "sample.yaml: valid" in out
    assert '+ create app "Acme Support"' in out
    assert "~ Allow GIFs (main.send_gifs):" in out
    assert "Push complete: 1 applied, 0 failed, 0 not attempted." in out
    assert "No changes. The service matches the draft." in out
    assert "Traceback" not in out
    # the demo's own database, under its directory: not the user's local sandbox, which is as it was
    assert (tmp_path / "demo" / "sandbox" / "sandbox.sqlite3").exists()
    assert users_db.read_bytes() == before
    assert sorted(p.name for p in users_db.parent.iterdir()) == ["sandbox.sqlite3"]
    store = Store(users_db)
    try:
        assert store.list_apps(None, 10, 0) == ([], 0)
    finally:
        store.close()
