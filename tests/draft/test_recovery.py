"""The recovery file: written only when there is something new, owner-only, read back, assessed, claimed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft import recovery
from tenantdeck.draft.session import DraftSession, DraftSessionError

DRAFT = """\
# hand comment
format: 1
apps:
  - name: Acme
    region: eu
    version: "3"
"""


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(DRAFT)
    return path


def test_checkpoint_writes_once_per_change_owner_only_and_clears(draft: Path) -> None:
    cp = recovery.Checkpointer(draft)
    assert cp.path == draft.parent / ".tenantdeck" / "team" / "recovery.yaml"
    assert not cp.checkpoint(DRAFT, DRAFT, dirty=False)
    assert not cp.path.exists()
    edited = DRAFT.replace("eu", "us")
    assert cp.checkpoint(edited, DRAFT, dirty=True)
    assert stat.S_IMODE(cp.path.stat().st_mode) == 0o600
    assert not cp.checkpoint(edited, DRAFT, dirty=True), "unchanged text is not written again"
    assert cp.checkpoint(edited + "\n", DRAFT, dirty=True)
    rec = recovery.read(cp.path)
    assert rec.text == edited + "\n" and rec.base == recovery.text_hash(DRAFT) and rec.pid == os.getpid()
    assert not cp.checkpoint(DRAFT, DRAFT, dirty=False)
    assert not cp.path.exists(), "no longer dirty: the file goes"


def test_checkpointer_never_deletes_a_file_it_did_not_write(draft: Path) -> None:
    other = recovery.Checkpointer(draft)
    other.checkpoint("x: 1\n", DRAFT, dirty=True)
    mine = recovery.Checkpointer(draft)
    mine.checkpoint(DRAFT, DRAFT, dirty=False)
    mine.clear()
    assert other.path.exists()
    mine.paused = True
    assert not mine.checkpoint("y: 2\n", DRAFT, dirty=True)
    assert recovery.read(other.path).text == "x: 1\n"


def test_text_with_odd_characters_round_trips(draft: Path) -> None:
    text = "a: 'x'  \n\tb: \"é\\n\"\r\nc: |\n  trailing   \n\n\n"
    path = recovery.recovery_path(draft)
    recovery.write(path, recovery.render(draft, text, DRAFT))
    assert recovery.read(path).text == text


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_text_round_trips_through_the_recovery_file(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    """Whatever the session holds comes back exactly (libyaml picks another style where a ``|`` block cannot)."""
    draft = tmp_path_factory.mktemp("rt") / "team.yaml"
    path = recovery.recovery_path(draft)
    recovery.write(path, recovery.render(draft, text, DRAFT))
    assert recovery.read(path).text == text


def test_assess_same_clean_diverged_missing_live_broken(draft: Path) -> None:
    edited = DRAFT.replace("eu", "us")
    path = recovery.recovery_path(draft)
    recovery.write(path, recovery.render(draft, edited, DRAFT, pid=1 << 22, host="elsewhere"))
    rec = recovery.read(path)
    assert recovery.assess(rec, edited).kind == "same"
    assert recovery.assess(rec, DRAFT).kind == "clean"
    assert recovery.assess(rec, DRAFT + "# theirs\n").kind == "diverged"
    assert recovery.assess(rec, None).kind == "diverged"
    live = recovery.Recovered(path, edited, rec.base, pid=os.getppid(), host="h")
    assert recovery.assess(live, DRAFT, this_host="h").kind == "live"
    path.write_text("format: nope\n")
    broken = recovery.read(path)
    assert broken.problem and recovery.assess(broken, DRAFT).kind == "broken"


def test_pending_claim_keep_and_interrupted(draft: Path) -> None:
    assert recovery.pending(draft) == []
    cp = recovery.Checkpointer(draft)
    cp.checkpoint("a: 1\n", DRAFT, dirty=True)
    [rec] = recovery.pending(draft)
    kept = recovery.keep_for_later(rec)
    assert kept.name.startswith("recovery.kept-") and not cp.path.exists()
    [again] = recovery.pending(draft)
    assert again.kept and again.text == "a: 1\n"
    replaying = recovery.claim(again)
    assert recovery.pending(draft) == [], "a file being replayed is not offered again (crash-loop guard)"
    assert recovery.interrupted(draft) == [replaying]
    recovery.discard(replaying)
    assert recovery.interrupted(draft) == []


def test_summary_counts_and_shows_the_change() -> None:
    added, removed, lines = recovery.summary(DRAFT, DRAFT.replace("eu", "us"))
    assert (added, removed) == (1, 1)
    assert "-    region: eu" in lines and "+    region: us" in lines


def test_session_restore_text_is_dirty_keeps_base_and_refuses_garbage(draft: Path) -> None:
    session = DraftSession.open(draft)
    edited = DRAFT.replace("eu", "us")
    session.restore_text(edited)
    assert session.dirty and session.text == edited and session.base_text == DRAFT
    assert session.get("apps[0].region") == "us"
    assert draft.read_text() == DRAFT, "restoring writes nothing"
    session.validate_all()
    session.save()
    assert draft.read_text() == edited
    with pytest.raises(DraftSessionError):
        session.restore_text("apps: [unclosed\n")
    assert session.text == edited
