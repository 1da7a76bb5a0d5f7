"""Issue 38 (trial): a conflict's hint named ``--take-mine KEY`` on a first promotion, and passing exactly that
still exited 3. Here every option a refused promotion names (``--take-mine KEY``, ``--take-theirs KEY``, the
``-all`` forms, ``--prefer draft|live``) is run as printed, on a first promotion (no production base) and on a
later one, and must settle the conflict it names: a hint can never name an option that does nothing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tenantdeck import exitcodes
from tests import test_promote_edges as edges
from tests.test_promote_cli import run

two_accounts = edges.two_accounts

OPTIONS = ("--take-mine KEY", "--take-theirs KEY", "--take-mine-all", "--take-theirs-all", "--prefer draft",
           "--prefer live")
HINT = re.compile(r"--take-(?:mine|theirs)-all|--take-(?:mine|theirs) [^\s,;)]+|--prefer (?:draft|live)")


def refused(env: dict[str, str], tmp_path: Path, *, first: bool) -> tuple[str, str]:
    """Staging's colour changed through the draft, production's in its dashboard; ``first``: production's lock
    file and workspace are gone (a first promotion into an account that has the apps). Returns the conflict's
    key and the refusal's stderr."""
    draft = edges.staging_and_production(env, tmp_path)
    if first:
        (tmp_path / "tenantdeck.production.lock.json").unlink()
        shutil.rmtree(tmp_path / ".tenantdeck")
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: false}\n        "
                                               "style: {primary_color: '#222222'}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    edges.dashboard_sets_color(env, "production", "#D32F2F")
    stopped = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert stopped.exit_code == exitcodes.CONFLICT, stopped.stderr
    (conflict,) = json.loads(stopped.stdout)["plan"]["conflicts"]
    return str(conflict["key"]), stopped.stderr


def named_options(stderr: str, key: str) -> set[str]:
    """The options the refusal names, with its key written as KEY (the summary's own spelling)."""
    return {hint.replace(key, "KEY") for hint in HINT.findall(stderr)}


@pytest.mark.parametrize("first", [True, False], ids=["first-promotion", "later-promotion"])
@pytest.mark.parametrize("option", OPTIONS)
def test_every_option_a_conflict_names_settles_it(two_accounts: dict[str, str], tmp_path: Path, first: bool,
                                                 option: str) -> None:
    env = two_accounts
    key, stderr = refused(env, tmp_path, first=first)
    named = named_options(stderr, key)
    assert named and named <= set(OPTIONS), named
    if option not in named:
        pytest.skip(f"not named by this refusal: {option}")
    settled = run(env, "promote", "staging", "production", "--yes", *option.replace("KEY", key).split())
    assert settled.exit_code == exitcodes.OK, (option, settled.stderr)
    assert "conflict(s)" not in settled.stderr, settled.stderr
    wanted = "#222222" if "mine" in option or "draft" in option else "#D32F2F"
    assert edges.live_color(env, "production") == wanted, option
