"""Issue 19 items 4 and 6: a save is a compare-and-swap on the draft's content; a linked draft stays a link; a big
draft's changed-on-disk check is a stat, and a hash only when the stat changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tenantdeck.draft import load_draft, save_draft
from tenantdeck.draft.save import DraftChanged
from tenantdeck.draft.session import ChangedOnDisk, DraftSession

TEXT = textwrap.dedent("""\
    format: 1
    apps:
      - name: Acme
        region: us
        version: "3"
    """)

#: another process saving the same draft through its own session (another editor)
OTHER_EDITOR = textwrap.dedent("""
    import sys
    from tenantdeck.draft.session import DraftSession
    session = DraftSession.open(sys.argv[1], validate=False)
    session.set("apps[0].name", "Theirs")
    session.save()
""")


def other_editor_saves(path: Path) -> None:
    subprocess.run([sys.executable, "-c", OTHER_EDITOR, str(path)], check=True, timeout=60)


def test_a_save_racing_another_editor_is_refused_not_written_over_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other editor saves between our check and our write: the write itself compares, and refuses."""
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(TEXT)
    session = DraftSession.open(path, validate=False)
    session.set("apps[0].name", "Mine")
    real_check = session.changed_on_disk

    def check_then_lose_the_race() -> bool:
        verdict = real_check()
        other_editor_saves(path)  # lands after our check said "unchanged"
        return verdict

    monkeypatch.setattr(session, "changed_on_disk", check_then_lose_the_race)
    with pytest.raises(ChangedOnDisk):
        session.save()
    assert "name: Theirs" in path.read_text()  # theirs kept, never silently replaced
    assert session.dirty and "Mine" in session.text  # ours kept in the session for the merge/reload choice


def test_save_draft_is_refused_when_the_file_is_not_what_was_read(tmp_path: Path) -> None:
    """pull and the push's id write-back merge into the text they read: a newer file is not overwritten."""
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(TEXT)
    result = load_draft(path)
    assert result.draft is not None
    other_editor_saves(path)
    result.draft.apps[0].region = "eu"
    with pytest.raises(DraftChanged):
        save_draft(path, result.draft, original_text=result.doc.text)
    assert "name: Theirs" in path.read_text() and "eu" not in path.read_text()


def test_a_linked_draft_stays_a_link_and_its_backup_is_a_file(tmp_path: Path) -> None:
    real_dir = tmp_path / "elsewhere"
    real_dir.mkdir()
    target = real_dir / "acme.yaml"
    target.write_text(TEXT)
    link = tmp_path / "tenantdeck.yaml"
    link.symlink_to(target)

    session = DraftSession.open(link, validate=False)
    session.set("apps[0].name", "Saved through the link")
    session.save()
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "Saved through the link" in target.read_text()
    bak = tmp_path / "tenantdeck.yaml.bak"
    assert bak.is_file() and not bak.is_symlink() and "name: Acme" in bak.read_text()

    result = load_draft(link)
    assert result.draft is not None
    result.draft.apps[0].region = "eu"
    save_draft(link, result.draft, original_text=result.doc.text)
    assert link.is_symlink() and "region: eu" in target.read_text()
    assert not session.changed_on_disk() or "eu" in target.read_text()


@pytest.mark.parametrize("opened_as", ["file", "link"])
def test_a_forced_save_never_writes_through_a_link_swapped_in_since_the_open(tmp_path: Path, opened_as: str) -> None:
    """Trial F14: a link put in the draft's place (or a link re-aimed) while the session was open; a forced save
    (the editor's "Overwrite") wrote through it into the file it named. Refused, naming the link and its target,
    nothing written anywhere; the draft's folder untouched."""
    from tenantdeck.draft.session.disk import Redirected

    own = tmp_path / "own.yaml"
    own.write_text(TEXT)
    path = tmp_path / "tenantdeck.yaml"
    if opened_as == "link":
        path.symlink_to(own)
    else:
        path.write_text(TEXT)
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("victim content\n")
    session = DraftSession.open(path, validate=False)
    session.set("apps[0].region", "eu")
    swap = tmp_path / "swap"
    swap.symlink_to(victim)
    os.replace(swap, path)
    with pytest.raises(Redirected) as refused:
        session.save(force=True)
    assert f"{path} is now a symbolic link to {victim}" in refused.value.problem.message
    assert victim.read_text() == "victim content\n" and own.read_text() == TEXT
    assert not (tmp_path / "tenantdeck.yaml.bak").exists() and session.dirty


def test_an_oversized_draft_gives_no_false_changed_on_disk(tmp_path: Path) -> None:
    """A draft over the size limit opens read-only; the disk watch must not call that a change every check."""
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(TEXT + "# padding\n" * 400)
    session = DraftSession.open(path, validate=False, max_bytes=1024)
    assert session.read_only
    assert not session.changed_on_disk()
    assert not session.changed_on_disk()


def test_the_disk_check_hashes_only_when_the_stat_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(TEXT + "# padding\n" * 50_000)  # ~0.5 MB
    session = DraftSession.open(path, validate=False)
    reads: list[str] = []
    from tenantdeck import safefile

    real_open = safefile.open_regular

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        if os.fspath(file) == str(path):  # type: ignore[arg-type]
            reads.append("read")
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(safefile, "open_regular", counting_open)  # every read of a file goes through it
    for _ in range(5):
        assert not session.changed_on_disk()
    assert reads == []  # the stat answered
    os.utime(path, ns=(1, 1))  # touched: same content, new stat
    assert not session.changed_on_disk()
    assert len(reads) == 1
    assert not session.changed_on_disk()
    assert len(reads) == 1
    with open(path, "a") as fh:  # someone else's change, kept on disk while the user keeps theirs
        fh.write("# theirs\n")
    for _ in range(5):
        assert session.changed_on_disk()
    assert len(reads) == 2  # hashed once for that stat, not on every check
