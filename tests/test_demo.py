"""`make run`'s main job, end to end: real processes against the embedded sandbox in isolated directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.e2e
def test_run_demo_goes_from_sample_to_a_pushed_change_and_back_in_sync(tmp_path: Path) -> None:
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
    assert (tmp_path / "data" / "sandbox.sqlite3").exists()  # the local profile's own database, not the user's
