"""The push journal's group commit (issue 24): lines of operations in flight share an fsync, each caller still
waits for its own line to be on disk, and a failed fsync is never taken for a durable line."""

from __future__ import annotations

import asyncio
import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.atomic import WriteFailed
from tenantdeck.sync.workspace.journal import Journal


def test_lines_recorded_together_share_fsyncs_and_each_is_on_disk_when_its_record_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced_sizes: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        synced_sizes.append(os.fstat(fd).st_size)

    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "j.jsonl"

    async def go() -> dict[str, int]:
        with Journal(path, beside=tmp_path) as journal:
            synced_when_returned: dict[str, int] = {}

            async def one(i: int) -> None:
                await journal.record("done", op=f"op{i}")
                synced_when_returned[f"op{i}"] = synced_sizes[-1]  # bytes on disk as this record returned

            await asyncio.gather(*(one(i) for i in range(16)))
            assert journal.lines == 16 and journal.syncs == len(synced_sizes)
            return synced_when_returned

    synced_when_returned = asyncio.run(go())
    assert len(synced_sizes) < 16, "16 lines in flight together need fewer than 16 fsyncs"
    ends, offset = {}, 0
    for line in path.read_bytes().splitlines(keepends=True):
        offset += len(line)
        ends[json.loads(line)["op"]] = offset
    assert sorted(ends) == sorted(f"op{i}" for i in range(16))
    for op, synced in synced_when_returned.items():  # none returned before an fsync covered its own line
        assert synced >= ends[op], op


def test_a_failed_fsync_fails_the_line_waiting_on_it_and_every_later_one(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fd: Any) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    async def go() -> None:
        with Journal(tmp_path / "j.jsonl", beside=tmp_path) as journal:
            await journal.record("start")
            monkeypatch.setattr(os, "fsync", broken)
            with pytest.raises(WriteFailed):
                await journal.record("intent", op="o1")
            monkeypatch.undo()  # the disk answers again: still nothing later is taken for durable
            with pytest.raises(WriteFailed):
                await journal.record("intent", op="o2")

    asyncio.run(go())
