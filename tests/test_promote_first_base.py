"""Issue 38 (trial, docs/ci.md followed literally): a first promotion into an account that already has the apps,
settled so that nothing is left to send, must still leave production's base in its lock file. It left
``"apps": []``: the next promotion met "no base for this account yet" again (exit 3 on what staging changed
since), and a rotated key read as another account (exit 8), since a base of no apps cannot show the account is
the same. Through the real command against two loopback sandboxes (the fixtures of test_promote_edges)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tenantdeck import exitcodes
from tests import test_promote_edges as edges
from tests.test_promote_cli import run

two_accounts = edges.two_accounts


def first_promotion_settled_by_take_theirs(env: dict[str, str], tmp_path: Path) -> Path:
    """Production has the apps, its ids in the targets file, no lock file here; its dashboard changed a colour.
    The conflict is settled with ``--take-theirs KEY`` (as the hint says): nothing left to send."""
    draft = edges.staging_and_production(env, tmp_path)
    (tmp_path / "tenantdeck.production.lock.json").unlink()
    shutil.rmtree(tmp_path / ".tenantdeck")
    edges.dashboard_sets_color(env, "production", "#D32F2F")
    refused = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.CONFLICT, refused.stderr
    (conflict,) = json.loads(refused.stdout)["plan"]["conflicts"]
    taken = run(env, "promote", "staging", "production", "--yes", "--take-theirs", conflict["key"])
    assert taken.exit_code == exitcodes.OK, taken.stderr
    return draft


def test_a_settled_first_promotion_leaves_a_base_the_next_one_uses(two_accounts: dict[str, str],
                                                                  tmp_path: Path) -> None:
    env = two_accounts
    draft = first_promotion_settled_by_take_theirs(env, tmp_path)
    lock = json.loads((tmp_path / "tenantdeck.production.lock.json").read_text())
    assert lock["apps"], "the first promotion recorded no base for production"
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    again = run(env, "promote", "staging", "production", "--yes")
    assert again.exit_code == exitcodes.OK, again.stderr
    assert "no base for this account yet" not in again.stderr
    assert edges.live_color(env, "production") == "#D32F2F"  # taken once, kept by the later promotion


def test_a_key_rotated_after_a_settled_first_promotion_is_recorded(two_accounts: dict[str, str],
                                                                    tmp_path: Path) -> None:
    """docs/ci.md "Rotating the key": the next command records the new key and goes on (not exit 8)."""
    env = two_accounts
    first_promotion_settled_by_take_theirs(env, tmp_path)
    edges.restart_with_key(env, tmp_path, "production", "rotated-key")
    promoted = run({**env, "P_KEY": "rotated-key"}, "promote", "staging", "production", "--yes")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr
    assert "rotated key" in promoted.stderr, promoted.stderr
