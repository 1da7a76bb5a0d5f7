"""The offline in-sync cache: a warm diff must say exactly what a cold one says, and never hide a change."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.sync.workspace.insync import app_digest, preset_digests
from tenantdeck.sync.workspace.state import Workspace
from tests.sync.helpers_push import app_named, edit_draft, loaded, make_sandbox, run_pull
from tests.test_hostile_certificates_cli import P8

TOKEN_VAR = "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN"
SEEDED_TOKEN = "sandboxfaketoken0000000000000000"  # tenantdeck.sandbox.samples


def offline_diff(draft: Path, fmt: str = "json", env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["diff", "--offline", "--draft", str(draft), "--format", fmt], env=env)
    return result.exit_code, result.stdout


def without_clock(result: tuple[int, str]) -> tuple[int, dict[str, Any]]:
    """The document without what each plan has of its own: when it was made and its random id."""
    doc = json.loads(result[1])
    doc.pop("created_at")
    doc.pop("plan_id")
    return result[0], doc


def cache_of(draft: Path) -> dict[str, Any]:
    path = Workspace(draft).root / "insync.json"
    return json.loads(path.read_text())["apps"] if path.exists() else {}


@pytest.fixture
def pulled(tmp_path: Path) -> Path:
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(make_sandbox(tmp_path / "db.sqlite3"), draft)
    return draft


def test_warm_diff_says_exactly_what_the_cold_one_said(pulled: Path) -> None:
    edit_draft(pulled, lambda d: setattr(app_named(d, "Globex Community").webhooks[0], "enabled", False))
    cold = offline_diff(pulled)
    assert cold[0] == 2 and len(cache_of(pulled)) == 2  # the two untouched apps are remembered, the edited one not
    assert without_clock(offline_diff(pulled)) == without_clock(cold)
    for fmt in ("text", "markdown"):
        assert offline_diff(pulled, fmt) == offline_diff(pulled, fmt)


def test_an_edit_after_caching_is_seen(pulled: Path) -> None:
    assert offline_diff(pulled)[0] == 0
    assert len(cache_of(pulled)) == 3
    edit_draft(pulled, lambda d: setattr(app_named(d, "Acme Support").widgets[0].main, "send_gifs", True))
    code, out = offline_diff(pulled, "text")
    assert code == 2 and "Allow GIFs" in out


def test_a_rewritten_base_file_is_not_trusted(pulled: Path) -> None:
    assert offline_diff(pulled)[0] == 0
    workspace = Workspace(pulled)
    base = workspace.load_base()
    acme = next(a for a in base.values() if a["name"] == "Acme Support")
    widget = next(iter(acme["widgets"].values()))
    widget["main"]["send_gifs"] = not widget["main"]["send_gifs"]
    workspace.write_base_app(acme["id"], acme)  # e.g. a push from another checkout of the draft
    code, out = offline_diff(pulled, "text")
    assert code == 2 and "Allow GIFs" in out


def test_a_changed_secret_value_is_seen_as_a_rotation(pulled: Path) -> None:
    acme_id = next(a.id for a in loaded(pulled).apps if a.name == "Acme Support")
    assert offline_diff(pulled, env={TOKEN_VAR: SEEDED_TOKEN})[0] == 0  # the value the service holds: in sync
    assert acme_id in cache_of(pulled)
    code, out = offline_diff(pulled, "text", env={TOKEN_VAR: "anothervalue"})
    assert code == 2 and "will rotate" in out
    assert "anothervalue" not in out and SEEDED_TOKEN not in out


def test_a_corrupt_cache_is_ignored_and_rewritten(pulled: Path) -> None:
    offline_diff(pulled)
    path = Workspace(pulled).root / "insync.json"
    path.write_text("{not json")
    assert offline_diff(pulled)[0] == 0
    assert len(json.loads(path.read_text())["apps"]) == 3


def test_digest_depends_on_the_extended_preset_and_referenced_variables() -> None:
    app = {"id": "a1", "name": "A", "widgets": [{"extends": "support"}], "sms": {"twilioAuthToken": "${TOK}"}}
    key = os.urandom(32)
    presets = preset_digests({"support": {"name": "Support"}})
    edited = preset_digests({"support": {"name": "Support v2"}})
    base = app_digest(app, presets, {"TOK": "x"}, key)
    assert app_digest(app, presets, {"TOK": "x"}, key) == base
    assert app_digest(app, edited, {"TOK": "x"}, key) != base
    assert app_digest(app, presets, {"TOK": "y"}, key) != base
    assert app_digest(app, presets, {}, key) != base
    assert app_digest(app, presets, {"TOK": "x"}, os.urandom(32)) != base
    assert "x" not in base  # a hex digest; the value itself is never stored


def test_pull_leaves_the_cache_warm(tmp_path: Path) -> None:
    from tenantdeck.sync.remote.pull import pull_target
    from tests.sync.helpers_push import target_for

    draft = tmp_path / "tenantdeck.yaml"
    pull_target(target_for(make_sandbox(tmp_path / "db.sqlite3")), draft)
    assert len(cache_of(draft)) == 3


def test_a_changed_certificate_file_is_seen(pulled: Path) -> None:
    """The draft's text does not change when a certificate file does: the digest holds the file's hash."""
    from tenantdeck.models.app import PushCertificates

    key = pulled.parent / "acme.p8"
    key.write_bytes(P8)
    edit_draft(pulled, lambda d: setattr(app_named(d, "Acme Support"), "push_certificates",
                                         PushCertificates(p8="acme.p8")))
    assert offline_diff(pulled)[0] == 2  # never uploaded: a change
    app = {"id": "a1", "name": "A", "push_certificates": {"p8": "acme.p8"}}
    digest = app_digest(app, {}, {}, b"k" * 32, pulled.parent)
    key.write_bytes(P8.replace(b"Tm90", b"Tm91"))  # another key
    assert app_digest(app, {}, {}, b"k" * 32, pulled.parent) != digest
    key.unlink()
    assert app_digest(app, {}, {}, b"k" * 32, pulled.parent) != digest
