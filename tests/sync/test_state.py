"""The workspace beside a draft: base files, key file, meta, atomic writes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tenantdeck.atomic import atomic_write_bytes
from tenantdeck.sync.workspace import state
from tenantdeck.sync.workspace.state import Workspace, WorkspaceError


def _app(app_id: str, name: str = "Acme") -> dict:
    return {"id": app_id, "name": name, "region": "us", "version": "3", "extensions": None, "widgets": {},
            "sms": None, "webhooks": {}}


def test_layout_is_per_draft_stem(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "prod.yaml")
    assert ws.root == tmp_path / ".tenantdeck" / "prod"
    assert Workspace(tmp_path / "staging.yaml").root != ws.root
    assert not ws.root.exists()  # nothing is created until written


def test_secret_key_created_once_with_mode_0600(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    key = ws.secret_key()
    assert len(key) == 32
    assert ws.secret_key() == key
    assert Workspace(tmp_path / "d.yaml").secret_key() == key
    if os.name == "posix":
        assert stat.S_IMODE(ws.key_path.stat().st_mode) == 0o600
    assert Workspace(tmp_path / "other.yaml").secret_key() != key
    assert (tmp_path / ".tenantdeck" / ".gitignore").read_text().strip().endswith("*")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_loose_key_permissions_are_tightened(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    ws.secret_key()
    os.chmod(ws.key_path, 0o644)
    ws.secret_key()
    assert stat.S_IMODE(ws.key_path.stat().st_mode) == 0o600


def test_damaged_key_is_an_error_not_a_silent_new_key(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    ws.ensure()
    ws.key_path.write_bytes(b"short")
    with pytest.raises(WorkspaceError, match="damaged"):
        ws.secret_key()


def test_base_round_trip_and_delete(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    assert ws.load_base() == {}
    ws.write_base_app("a1", _app("a1"))
    ws.write_base_app("b2", _app("b2", "Beta"))
    assert ws.load_base() == {"a1": _app("a1"), "b2": _app("b2", "Beta")}
    assert json.loads(ws.base_path("a1").read_text())["app"] == _app("a1")
    ws.delete_base_app("a1")
    ws.delete_base_app("a1")  # missing is fine
    assert list(ws.load_base()) == ["b2"]


def test_write_base_refuses_mismatched_id(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Workspace(tmp_path / "d.yaml").write_base_app("a1", _app("other"))


def test_odd_app_ids_never_escape_the_base_dir(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    ws.write_base_app("../x", _app("../x"))
    assert ws.base_path("../x").parent == ws.base_dir
    assert ws.load_base() == {"../x": _app("../x")}


def test_corrupt_base_file_is_a_clear_error(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    ws.write_base_app("a1", _app("a1"))
    ws.base_path("a1").write_text("{not json")
    with pytest.raises(WorkspaceError, match=r"a1\.json"):
        ws.load_base()


def test_leftover_temp_files_are_ignored(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    ws.write_base_app("a1", _app("a1"))
    (ws.base_dir / ".a1.json.123.tmp").write_text("{half")
    assert list(ws.load_base()) == ["a1"]


def test_meta(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    assert ws.read_meta() is None
    ws.write_meta(profile="local", base_url="http://sandbox")
    meta = ws.read_meta()
    assert meta is not None and meta["profile"] == "local" and meta["base_url"] == "http://sandbox"
    assert meta["pulled_at"].endswith("+00:00")


def test_atomic_write_keeps_old_content_when_the_write_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.json"
    atomic_write_bytes(target, b"old")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(state.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # no temp file left behind


def test_write_many_base_apps(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "d.yaml")
    apps = {f"a{i}": _app(f"a{i}") for i in range(50)}
    ws.write_base_apps(apps)
    assert ws.load_base() == apps
    with pytest.raises(ValueError):
        ws.write_base_apps({"x": _app("y")})
    assert not ws.base_path("x").exists()
