"""The push journal: one JSON line per event, flushed and fsync'd before the push goes on.

Why: a push may die at any instant (Ctrl-C, ``kill -9``, network loss). Updates are safe to redo because the next
run compares three ways again, but a *create* whose answer never arrived could be repeated and duplicate an app or
a widget. So before each create the push writes an ``intent`` line, and the next push *resolves* open intents
(app by name, widget by name in its app, webhook by id) before planning. The journal never holds a payload or a
secret: only what was done to which resource, and why it failed.

Events: ``start`` (plan hash and id, counts), ``intent`` (before a create), ``done`` (after the base was updated),
``failed`` (with the one-line error), ``end`` (summary).

Operations in flight record their lines with :meth:`Journal.record`: each line is appended at once and the fsync is
shared by every line appended while the previous one ran (a group commit, as databases do), in a thread. Each
caller still waits until its own line is on disk, so "durable before the next step" holds line by line; what changes
is that 16 operations finishing together cost one or two fsyncs instead of 16, and the event loop, which the
fsync used to block (3-5 ms each), keeps answering the other requests meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tenantdeck import safefile
from tenantdeck.atomic import WriteFailed, append_durably, open_append, write_all
from tenantdeck.textsafe import json_text


class Journal:
    """Append-only JSONL file; every :meth:`write` is durable when it returns.

    A write that cannot complete (disk full, quota, I/O error) raises :class:`~tenantdeck.atomic.WriteFailed` and
    leaves no partial line: a half-written ``intent`` reads back as nothing, and a push resumed after it would not
    know to look for the object that create may have made. The push stops there, before the request it guards.
    """

    def __init__(self, path: Path, *, beside: Path) -> None:
        """``beside``: the draft's folder, which the journal must lie in (:func:`tenantdeck.atomic.open_append`)."""
        self.path = path
        try:
            self._fd = open_append(path, beside=beside)
        except safefile.FileRefused:
            raise
        except OSError as exc:
            raise WriteFailed(path, exc) from exc
        self._lock = threading.Lock()
        self.lines = 0
        self.syncs = 0  #: fsyncs made (a group commit makes fewer than lines)
        self._synced = 0  #: lines known to be on disk
        self._syncing: asyncio.Future[None] | None = None  #: the fsync running now, shared by whoever waits for it
        self._sync_failed: WriteFailed | None = None  #: after a failed fsync nothing later is known to be on disk

    @classmethod
    def new(cls, journal_dir: Path, plan_id: str, *, beside: Path) -> Journal:
        """A journal for a run of the plan ``plan_id`` (:attr:`~tenantdeck.sync.plan.Plan.plan_id`, named in the
        file name so :func:`completed_ops` finds that plan's runs), kept in the draft's folder (``beside``)."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        return cls(journal_dir / f"{stamp}-{plan_id}.jsonl", beside=beside)

    def write(self, event: str, **fields: Any) -> None:
        data = self._line(event, fields)
        with self._lock:
            append_durably(self._fd, data, self.path)  # whole line and fsync'd, or WriteFailed and no half line
            self.lines += 1
            self.syncs += 1
            self._synced = self.lines

    async def record(self, event: str, **fields: Any) -> None:
        """:meth:`write` for a coroutine: durable when it returns, the fsync shared (see the module's docstring).

        A failed append leaves no half line and raises :class:`WriteFailed`, as :meth:`write` does. A failed fsync
        raises it for every line waiting on that fsync and for every line after (an fsync that failed once may
        have dropped the pages it could not write, so a later success proves nothing)."""
        data = self._line(event, fields)
        with self._lock:
            if self._sync_failed is not None:
                raise self._sync_failed
            start = os.lseek(self._fd, 0, os.SEEK_END)
            try:
                write_all(self._fd, data)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, start)
                raise WriteFailed(self.path, exc) from exc
            self.lines += 1
            mine = self.lines
        while self._synced < mine:
            if self._sync_failed is not None:
                raise self._sync_failed
            if self._syncing is None:
                self._syncing = asyncio.ensure_future(self._sync(self.lines))
            await asyncio.shield(self._syncing)

    async def _sync(self, upto: int) -> None:
        try:
            await asyncio.to_thread(os.fsync, self._fd)
        except OSError as exc:
            self._sync_failed = WriteFailed(self.path, exc)
        else:
            self.syncs += 1
            self._synced = max(self._synced, upto)
        finally:
            self._syncing = None

    @staticmethod
    def _line(event: str, fields: dict[str, Any]) -> bytes:
        record = {"ts": round(time.time(), 3), "event": event, **fields}
        return (json_text(record, separators=(",", ":")) + "\n").encode("utf-8")

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def draft_folder_of(journal_dir: Path) -> Path:
    """The draft's folder of a workspace's ``.tenantdeck/<stem>/journal`` folder: what its journals must lie in."""
    return journal_dir.parents[2]


def read_journal(path: Path, *, beside: Path | None = None) -> Iterator[dict[str, Any]]:
    """The records of one journal; a torn last line (killed mid-write) is skipped. ``beside``: the draft's folder,
    which the journal must lie in after every link (a history record names its journal, and a pull request can
    commit a history); by default the folder a workspace's ``.tenantdeck/<stem>/journal/*.jsonl`` is in."""
    folder = beside if beside is not None else draft_folder_of(path.parent)
    try:
        text = safefile.read_text(path, safefile.STATE_MAX_BYTES, errors="replace", beside=folder)
    except FileNotFoundError:
        return
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


@dataclass(frozen=True, slots=True)
class Intent:
    """A create that was about to be sent and has no ``done`` line: it may or may not have landed."""

    kind: str
    app_name: str
    app_id: str | None
    rid: str
    name: str
    journal: str


def open_intents(journal_dir: Path) -> list[Intent]:
    """Every intent, across all journals of this workspace, not followed by ``done`` for the same operation."""
    if not journal_dir.is_dir():
        return []
    pending: dict[tuple[str, str], Intent] = {}
    for path in sorted(journal_dir.glob("*.jsonl")):
        for rec in read_journal(path):
            key = (str(rec.get("op")), path.name)
            if rec.get("event") == "intent":
                pending[key] = Intent(str(rec.get("kind")), str(rec.get("app_name")), rec.get("app_id"),
                                      str(rec.get("rid", "")), str(rec.get("name", "")), path.name)
            elif rec.get("event") in ("done", "failed") and key in pending and not rec.get("ambiguous"):
                del pending[key]
    return list(pending.values())


def completed_ops(journal_dir: Path, plan_id: str) -> dict[str, dict[str, Any]]:
    """The ``done`` records of every earlier run of the plan ``plan_id``, by operation key.

    A saved plan pushed again after an interruption must treat its own journalled operations as progress: they
    are neither redone nor mistaken for someone else's change (a "stale" plan). Only its own: the plan is matched
    by its id, never by its operations, since another plan that sends the same requests (a toggle turned on, off,
    and on again) must send them (trial L, L2). An id that is not plain hex finds nothing (it is part of a glob).
    """
    out: dict[str, dict[str, Any]] = {}
    if not journal_dir.is_dir() or not plan_id or not all(c in "0123456789abcdef" for c in plan_id):
        return out
    for path in sorted(journal_dir.glob(f"*-{plan_id}.jsonl")):
        for rec in read_journal(path):
            if rec.get("event") == "done" and isinstance(rec.get("op"), str):
                out[rec["op"]] = rec
    return out


@dataclass(frozen=True, slots=True)
class RecordedCreate:
    """A create the service applied (a ``done`` line), with the id it assigned."""

    kind: str
    app_name: str
    app_id: str
    name: str  #: the widget's name for ``create_widget``
    widget_id: str | None


def recorded_creates(journal_dir: Path) -> list[RecordedCreate]:
    """Every applied app and widget create across all journals, oldest first.

    The journal, not the draft, is the record of what the service did: when writing an id back into the draft
    failed (a read-only file, a full disk, a kill), the next push adopts the id from here instead of creating the
    object again.
    """
    out: list[RecordedCreate] = []
    if not journal_dir.is_dir():
        return out
    for path in sorted(journal_dir.glob("*.jsonl")):
        for rec in read_journal(path):
            if rec.get("event") != "done" or rec.get("kind") not in ("create_app", "create_widget"):
                continue
            if not isinstance(rec.get("app_id"), str):
                continue
            out.append(RecordedCreate(str(rec["kind"]), str(rec.get("app_name", "")), rec["app_id"],
                                      str(rec.get("name") or ""), rec.get("widget_id")))
    return out


def unfinished_push(journal_dir: Path) -> str | None:
    """One line about the newest push if it did not finish (killed, cut off, interrupted or partial), else None.

    A push killed with the machine, or whose SSH session dropped, leaves a journal without an ``end`` line; one that
    was interrupted or partly failed ends with counts saying so. Either way pushing again finishes the job, and the
    editor says so at its next start.
    """
    if not journal_dir.is_dir():
        return None
    journals = sorted(journal_dir.glob("*.jsonl"))
    if not journals:
        return None
    records = list(read_journal(journals[-1]))
    if not records:
        return None
    when = datetime.fromtimestamp(float(records[0].get("ts", 0)), UTC).strftime("%Y-%m-%d %H:%M UTC")
    end = next((r for r in reversed(records) if r.get("event") == "end"), None)
    if end is None:
        done = sum(1 for r in records if r.get("event") == "done")
        return f"the push of {when} stopped before it finished ({done} operation(s) recorded as applied)"
    counts = end.get("counts") or {}
    if end.get("interrupted") or counts.get("failed") or counts.get("not_attempted"):
        return (f"the push of {when} did not complete ({counts.get('applied', 0)} applied, {counts.get('failed', 0)} "
                f"failed, {counts.get('not_attempted', 0)} not attempted)")
    return None
