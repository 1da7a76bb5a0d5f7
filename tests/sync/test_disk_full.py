"""Issue 19 item 5: a disk that fills up during a push. The journal's short write is not ignored, the push stops
before its next request with one clear line and exit code 6, the history says so, and pushing again once there is
space converges with no duplicate widget.

The full disk is injected where the system reports it: ``os.write`` (the journal's and the history's appends)
writes half the record and then fails with ENOSPC, and every ``os.fsync`` of a file under the test's directory
(the atomic writes of the base and the draft) fails with ENOSPC, through the real push code path against the
sandbox.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.sync.workspace.history import read_history
from tenantdeck.sync.workspace.state import Workspace
from tests.sync.helpers_push import call, edit_draft, loaded, run_push

EXTRA = ("Extra one", "Extra two", "Extra three")


class FullDisk:
    """After ``after`` successful journal/history appends, the disk is full: half the next record, then ENOSPC."""

    def __init__(self, root: Path, after: int) -> None:
        self.root = str(root)
        self.after = after
        self.appends = 0
        self.full = False
        self.real_write = os.write
        self.real_fsync = os.fsync

    def _ours(self, fd: int) -> str | None:
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
        return name if name.startswith(self.root) else None

    def write(self, fd: int, data: Any) -> int:
        name = self._ours(fd)
        if name is None or not name.endswith(".jsonl"):
            return self.real_write(fd, data)
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        if self.appends >= self.after:
            self.full = True
            return self.real_write(fd, bytes(data)[: max(1, len(data) // 2)])
        self.appends += 1
        return self.real_write(fd, data)

    def fsync(self, fd: int) -> None:
        if self.full and self._ours(fd) is not None and not os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.real_fsync(fd)


def add_widgets(draft: Path) -> None:
    def change(d: Any) -> None:
        template = next(w for a in d.apps for w in a.widgets)
        with_widgets = [a for a in d.apps if a.widgets]
        for app, name in zip(with_widgets * 3, EXTRA, strict=False):
            app.widgets.append(template.model_copy(update={"id": None, "name": name}))

    edit_draft(draft, change)


def widget_names(sandbox: Any) -> list[str]:
    out = []
    for app in call(sandbox, "list_apps"):
        out += [w.settings.get("name") for w in call(sandbox, "list_widgets", app.id)]
    return out


@pytest.mark.parametrize("after", [1, 2, 3])  # start line only; + first intent; + first done
def test_a_full_disk_stops_the_push_and_the_next_push_converges(
    sandbox: Any, draft: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    add_widgets(draft)
    disk = FullDisk(tmp_path, after)
    monkeypatch.setattr(os, "write", disk.write)
    monkeypatch.setattr(os, "fsync", disk.fsync)
    code, err = run_push(sandbox, draft, {}, concurrency=1)
    monkeypatch.undo()
    assert disk.full, "the injection never fired"
    assert "Traceback" not in err
    assert code == exitcodes.WRITE_FAILED, err
    assert "disk full writing " in err and "nothing more was sent; free space and run push again" in err
    created_before = [n for n in widget_names(sandbox) if n in EXTRA]
    assert len(created_before) <= 1, "nothing may be sent after the failed write"
    history = read_history(Workspace(draft).history_path)
    if history:  # the history is on the same full disk; written if it can be, and then it says why
        assert "disk full" in (history[-1].get("stopped") or "")

    code, err = run_push(sandbox, draft, {})  # space freed
    assert code == exitcodes.OK, err
    names = widget_names(sandbox)
    assert sorted(n for n in names if n in EXTRA) == sorted(EXTRA), names
    assert all(w.id for a in loaded(draft).apps for w in a.widgets)
    code, err = run_push(sandbox, draft, {})
    assert code == exitcodes.OK and "Push complete" not in err, err  # nothing left to do


def test_a_short_write_is_completed_not_truncated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write the system cuts short (and that then goes on) leaves the whole record, never half of it."""
    from tenantdeck.sync.workspace.journal import Journal, read_journal

    real = os.write

    def short(fd: int, data: Any) -> int:
        return real(fd, bytes(data)[: max(1, len(data) // 3)])

    monkeypatch.setattr(os, "write", short)
    with Journal(tmp_path / "j.jsonl", beside=tmp_path) as journal:
        journal.write("intent", op="o1", kind="create_widget", name="A widget with a long enough name")
    monkeypatch.undo()
    assert [r["event"] for r in read_journal(tmp_path / "j.jsonl")] == ["intent"]
