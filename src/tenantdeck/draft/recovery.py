"""Unsaved edits that survive a crash, a ``kill`` or a dropped SSH session: the recovery file.

An editor session writes its whole text to ``.tenantdeck/<draft stem>/recovery.yaml`` beside the draft every few
seconds while it has unsaved edits (and at once on SIGHUP or SIGTERM), atomically and readable by the owner only
(0600: a draft may hold ``${ENV}`` references and hostnames, nobody else's business). The file also records the
hash of the on-disk text the edits were based on, so the next start can tell a plain restore ("the file is as you
left it") from a restore over someone else's change. Saving or quitting cleanly deletes it.

At the next start :func:`pending` lists what is there and :func:`assess` says what a restore would mean; the UI
asks (restore, discard, keep for later). A restore first renames the file (:func:`claim`): if replaying it crashes
the editor, the next start does not offer it again in a loop but says where it is.

Layout, next to the sync state of :mod:`tenantdeck.sync.workspace.state`::

    .tenantdeck/<stem>/recovery.yaml                 the running (or crashed) session's unsaved text
    .tenantdeck/<stem>/recovery.kept-<stamp>.yaml    one the user chose to keep for later
    .tenantdeck/<stem>/recovery.replaying-<stamp>.yaml  one being restored (left only if the restore crashed)
    .tenantdeck/<stem>/recovery.broken-<stamp>.yaml  one that could not be read (kept, never deleted)

No Textual here: the TUI calls these functions from its timers and signal handlers.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tenantdeck.textsafe import unsafe

FORMAT = "tenantdeck-recovery/1"
RECOVERY_NAME = "recovery.yaml"
FILE_MODE = 0o600
#: how often the TUI checkpoints (seconds); a write happens only when the text changed since the last one
INTERVAL = 3.0


def recovery_dir(draft: str | os.PathLike[str]) -> Path:
    """``.tenantdeck/<stem>/`` beside the draft (where the sync state of that draft lives too)."""
    path = Path(draft).absolute()
    return path.parent / ".tenantdeck" / path.stem


def recovery_path(draft: str | os.PathLike[str]) -> Path:
    return recovery_dir(draft) / RECOVERY_NAME


def text_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------------------


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Multi-line text as a ``|`` block when YAML allows it, so the file can be read (and rescued) by hand.

    libyaml's emitter when there is one: the pure-Python emitter examines the text character by character and took
    0.17 s for a 1,000-app draft (about 5 s at 5,000 apps) on the UI thread, every checkpoint; libyaml takes 3 ms.
    """


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not unsafe(value, newlines=True) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render(draft: str | os.PathLike[str], text: str, base_text: str, *, written: str | None = None,
           pid: int | None = None, host: str | None = None) -> str:
    """The recovery file's content (``written``, ``pid`` and ``host`` default to now, this process, this host)."""
    doc = {
        "format": FORMAT,
        "draft": str(Path(draft).absolute()),
        "written": written if written is not None else time.strftime("%Y-%m-%d %H:%M:%S"),
        "pid": os.getpid() if pid is None else pid,
        "host": socket.gethostname() if host is None else host,
        "base": text_hash(base_text),
        "text": text,
    }
    header = "# Unsaved edits of a tenantdeck session, offered for restore when the draft is next opened.\n"
    # libyaml writes bidi controls raw where it may write Unicode: then no raw Unicode at all (draft/yaml_escapes.py)
    readable = not any(isinstance(v, str) and unsafe(v, newlines=True) for v in doc.values())
    return header + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=readable, width=1 << 30)


def write(path: Path, content: str) -> None:
    """Atomically, owner-only, creating ``.tenantdeck/<stem>/`` when needed."""
    from tenantdeck.atomic import atomic_write_text

    atomic_write_text(path, content, mode=FILE_MODE, make_parents=True)


class Checkpointer:
    """Writes one session's recovery file when there is something new to write, and deletes it when there is not.

    It only ever deletes the file it wrote itself: a recovery file left by an earlier session waits for the user's
    decision (the UI holds checkpoints, :attr:`paused`, while it asks).
    """

    def __init__(self, draft: str | os.PathLike[str]) -> None:
        self.draft = Path(draft)
        self.path = recovery_path(draft)
        self.paused = False
        self._last: str | None = None  # the text last written (None: this session has no file)

    @property
    def has_file(self) -> bool:
        return self._last is not None

    def checkpoint(self, text: str, base_text: str, dirty: bool) -> bool:
        """Write when dirty and the text changed since the last write; delete ours when no longer dirty.

        Returns True when a file was written. Raises ``OSError`` when it cannot be written (the caller says so).
        """
        if self.paused:
            return False
        if not dirty:
            self.clear()
            return False
        if self._last is not None and (text is self._last or text == self._last):
            return False
        write(self.path, render(self.draft, text, base_text))
        self._last = text
        return True

    def clear(self) -> None:
        """Delete the file this session wrote (after a save, a clean quit, or when the edits were undone)."""
        if self._last is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._last = None


# --------------------------------------------------------------------------------------------------------------
# Reading and deciding
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recovered:
    """One recovery file as read back. ``problem`` is set (and ``text`` empty) when it cannot be used."""

    path: Path
    text: str = ""
    base: str = ""
    written: str = ""
    pid: int = 0
    host: str = ""
    problem: str = ""

    @property
    def kept(self) -> bool:
        return ".kept-" in self.path.name


def read(path: Path) -> Recovered:
    """Read a recovery file; never raises for what is in it (a broken one carries ``problem``)."""
    from tenantdeck.draft.configyaml import ConfigFileError, load_file
    from tenantdeck.draft.yamlsource import MAX_BYTES

    try:  # the guarded reader: the file sits in the workspace, where anything may have put anything
        doc: Any = load_file(path, "recovery file", max_bytes=2 * MAX_BYTES)  # it holds a whole draft's text
    except ConfigFileError as exc:
        if exc.problem.line == 0:  # missing, unreadable, too large, not UTF-8
            return Recovered(path, problem=exc.message.replace("cannot read the recovery file", "cannot be read"))
        return Recovered(path, problem=f"is not a readable recovery file (line {exc.line}: {exc.message})")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return Recovered(path, problem=f"is not a recovery file of this version (format {FORMAT} expected)")
    text, base = doc.get("text"), doc.get("base")
    if not isinstance(text, str) or not isinstance(base, str):
        return Recovered(path, problem="has no text or no base hash")
    pid = doc.get("pid")
    return Recovered(path, text, base, str(doc.get("written", "")), pid if isinstance(pid, int) else 0,
                     str(doc.get("host", "")))


def pending(draft: str | os.PathLike[str]) -> list[Recovered]:
    """The recovery files of ``draft`` waiting for a decision, newest first (broken ones too, with ``problem``).

    Files being replayed (``recovery.replaying-*``) and already set aside as broken are not offered again; see
    :func:`interrupted`.
    """
    folder = recovery_dir(draft)
    try:
        names = [p for p in folder.iterdir() if p.name.startswith("recovery") and p.name.endswith(".yaml")]
    except OSError:
        return []
    offered = [p for p in names if ".replaying-" not in p.name and ".broken-" not in p.name]
    offered.sort(key=lambda p: _mtime(p), reverse=True)
    return [read(p) for p in offered]


def interrupted(draft: str | os.PathLike[str]) -> list[Path]:
    """Recovery files whose restore never finished (the editor stopped while replaying them)."""
    try:
        return sorted(p for p in recovery_dir(draft).iterdir() if p.name.startswith("recovery.replaying-"))
    except OSError:
        return []


@dataclass(frozen=True, slots=True)
class Assessment:
    """What restoring a recovery file would mean, for the question the UI asks.

    ``kind``: ``same`` (it holds exactly what the file has: nothing to restore), ``clean`` (the file is as the
    session found it: restoring gives back exactly the unsaved edits), ``diverged`` (the file changed since: a
    restore puts the recovered text over that change, once saved), ``live`` (another running session on this host
    is writing it: not offered), ``broken``.
    """

    kind: str
    message: str


def assess(rec: Recovered, disk_text: str | None, *, this_host: str | None = None) -> Assessment:
    if rec.problem:
        return Assessment("broken", f"{rec.path.name} {rec.problem}")
    host = socket.gethostname() if this_host is None else this_host
    if not rec.kept and rec.host == host and rec.pid and rec.pid != os.getpid() and _alive(rec.pid):
        return Assessment("live", f"another tenantdeck (process {rec.pid}) is editing this draft")
    if disk_text is not None and rec.text == disk_text:
        return Assessment("same", "the draft on disk already holds these edits")
    if disk_text is not None and text_hash(disk_text) == rec.base:
        return Assessment("clean", "the draft on disk is as that session found it: restoring gives back exactly its "
                                   "unsaved edits")
    if disk_text is None:
        return Assessment("diverged", "the draft is missing on disk: restoring brings back the whole text")
    return Assessment("diverged", "the draft changed on disk after that session opened it: restoring puts the "
                                  "recovered text in place of that change once you save (review it first)")


def summary(old: str, new: str, *, limit: int = 40) -> tuple[int, int, list[str]]:
    """Lines added and removed from ``old`` to ``new``, and the first ``limit`` lines of a unified diff."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "on disk", "recovered", n=1, lineterm="")
    added = removed = 0
    shown: list[str] = []
    for line in diff:
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
        if len(shown) < limit:
            shown.append(line)
    return added, removed, shown


# --------------------------------------------------------------------------------------------------------------
# Acting on a decision
# --------------------------------------------------------------------------------------------------------------


def _set_aside(path: Path, tag: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"recovery.{tag}-{stamp}.yaml")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"recovery.{tag}-{stamp}-{n}.yaml")
    os.replace(path, target)
    return target


def claim(rec: Recovered) -> Path:
    """Rename the file before replaying it (the crash-loop guard); returns the new name. Delete it with
    :func:`discard` once the restored text is in the session."""
    return _set_aside(rec.path, "replaying")


def keep_for_later(rec: Recovered) -> Path:
    """Set it aside under a name of its own, so this session's checkpoints never overwrite it."""
    return rec.path if rec.kept else _set_aside(rec.path, "kept")


def set_aside_broken(rec: Recovered) -> Path:
    return _set_aside(rec.path, "broken")


def discard(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True
