"""One lock per workspace: only one tenantdeck process at a time writes a draft, its base, journal or history.

Why: two pushes of one draft started together both plan from the same base, both see 20 apps to create, and both
create them (40 apps). Two pulls, or a pull and an editor's save, interleave their writes of the draft and the base.
Every command and the editor therefore take this lock while they write (a push for its whole run, plan and apply;
a pull while it writes; the editor while it saves, pushes or pulls), and a second one waits a bounded time
(``--lock-timeout``, ``TENANTDECK_LOCK_TIMEOUT``, default :data:`DEFAULT_TIMEOUT` seconds) and then stops with
:class:`WorkspaceLocked`, which names the holder, and exit code :data:`tenantdeck.exitcodes.LOCKED`.

The lock is an OS file lock (``flock`` through the ``filelock`` package) on ``.tenantdeck/<stem>/lock``: the kernel
releases it when its process dies, however it dies (``kill -9``, a power loss), so a stale lock is simply free and
is taken over. Beside it, ``lock-holder.json`` says who holds it (pid, command, host, since when); it is written
after the lock is taken and removed before it is let go, so a holder record left by a process that died is only
ever read while nobody holds the lock, or in the instant before the next holder writes its own, and a record whose
pid is no longer running is never reported as the holder.

Within one process the lock is re-entrant across threads (the editor's push thread holds it while the screen's
thread saves): it excludes other processes, not this one's own workers, whose draft writes compare the file's
content before replacing it (:func:`tenantdeck.draft.save.write_if_unchanged`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck import safefile
from tenantdeck.atomic import atomic_write_bytes
from tenantdeck.sync.workspace.state import check_workspace, workspace_error

if TYPE_CHECKING:
    import filelock

    from tenantdeck.sync.workspace.state import Workspace

#: seconds a command waits for another one's lock before it gives up
DEFAULT_TIMEOUT = 10.0
#: the environment variable that sets the wait for every command and the editor (``--lock-timeout`` wins)
TIMEOUT_ENV = "TENANTDECK_LOCK_TIMEOUT"
LOCK_NAME = "lock"
HOLDER_NAME = "lock-holder.json"
#: the holder record is one small JSON object
HOLDER_MAX_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a workspace's lock, as it recorded itself."""

    pid: int
    command: str
    host: str
    since: str  #: ISO 8601, UTC, to the second

    def describe(self) -> str:
        """``pid 4242 (tenantdeck push) on host ci-7, since 2024-05-01 12:00:03 UTC``."""
        where = "" if self.host == socket.gethostname() else f" on host {self.host}"
        since = self.since.replace("T", " ").replace("+00:00", " UTC")
        return f"pid {self.pid} ({self.command}){where}, since {since}"


class WorkspaceLocked(Exception):
    """Another process held the workspace's lock for longer than we were willing to wait; nothing was changed."""

    #: what a command's user can do (the message's end); a renderer with no command line passes its own words
    AGAIN = f"run this again once it has finished, or wait longer with --lock-timeout SECONDS ({TIMEOUT_ENV})"

    def __init__(self, root: Path, holder: Holder | None, waited: float) -> None:
        self.root = root
        self.holder = holder
        self.waited = waited
        super().__init__(self.text())

    def text(self, again: str = AGAIN) -> str:
        """The refusal, naming the holder and the wait, ending in ``again``: what to do (the CLI's words unless
        the renderer, the editor, says its own: it has no ``--lock-timeout``)."""
        holder = self.holder
        who = holder.describe() if holder is not None else "another tenantdeck process (it has not said which yet)"
        return f"the workspace {self.root} is in use by {who}; waited {self.waited:g} s. Nothing was changed: {again}"


def timeout_from(value: float | None, env: Mapping[str, str] | None = None) -> float:
    """The wait to use: ``value`` (a command's ``--lock-timeout``), else ``$TENANTDECK_LOCK_TIMEOUT``, else the
    default. A value the environment spells wrong is ignored rather than failing a command over it."""
    if value is not None:
        return max(0.0, value)
    raw = (os.environ if env is None else env).get(TIMEOUT_ENV, "")
    try:
        return max(0.0, float(raw)) if raw.strip() else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


class _Held:
    """This process's hold on one workspace: the OS lock and how many ``hold`` blocks are inside it."""

    def __init__(self, lock: filelock.BaseFileLock) -> None:
        self.lock = lock
        self.count = 0


_HELD: dict[str, _Held] = {}
_GUARD = threading.Lock()  # guards _HELD, and serialises this process's threads while one of them waits


def lock_path(workspace: Workspace) -> Path:
    return workspace.root / LOCK_NAME


def holder_path(workspace: Workspace) -> Path:
    return workspace.root / HOLDER_NAME


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    except OSError:
        return False
    return True


def read_holder(workspace: Workspace) -> Holder | None:
    """The recorded holder, or None when there is none or the record is from a process that is gone (a ``kill -9``
    leaves its record behind; the OS has already released its lock)."""
    try:
        doc: Any = json.loads(safefile.read_bytes(holder_path(workspace), HOLDER_MAX_BYTES, beside=workspace.folder))
        holder = Holder(int(doc["pid"]), str(doc["command"]), str(doc.get("host", "")), str(doc["since"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if holder.host == socket.gethostname() and not _alive(holder.pid):
        return None
    return holder


def _write_holder(workspace: Workspace, command: str) -> None:
    """Best effort: the record only explains a wait to the next process; the lock itself is the OS's."""
    doc = {"pid": os.getpid(), "command": command, "host": socket.gethostname(),
           "since": datetime.now(UTC).isoformat(timespec="seconds")}
    with contextlib.suppress(OSError):
        atomic_write_bytes(holder_path(workspace), (json.dumps(doc) + "\n").encode(), sync_dir=False,
                           beside=workspace.folder)


def _remove_holder(workspace: Workspace) -> None:
    with contextlib.suppress(OSError):
        path = holder_path(workspace)
        doc = json.loads(safefile.read_bytes(path, HOLDER_MAX_BYTES, beside=workspace.folder))
        if isinstance(doc, dict) and doc.get("pid") == os.getpid():
            path.unlink()


def acquire(workspace: Workspace, command: str, *, timeout: float | None = None) -> None:
    """Take the workspace's lock (or count one more hold when this process has it); raises :class:`WorkspaceLocked`
    after ``timeout`` seconds (see :func:`timeout_from`) and :class:`WorkspaceError` when the workspace cannot be
    created (``.tenantdeck`` is a file, unwritable)."""
    import filelock

    wait = timeout_from(timeout)
    key = str(lock_path(workspace).absolute())
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            held.count += 1
            return
        check_workspace(workspace)
        try:
            workspace.ensure()
        except OSError as exc:
            raise workspace_error(workspace, exc) from None
        lock = filelock.FileLock(key, thread_local=False)
        started = time.monotonic()
        try:
            lock.acquire(timeout=wait, poll_interval=0.05)
        except filelock.Timeout:
            raise WorkspaceLocked(workspace.root, read_holder(workspace), round(time.monotonic() - started, 1)) \
                from None
        except OSError as exc:
            raise workspace_error(workspace, exc) from None
        _write_holder(workspace, command)
        held = _HELD[key] = _Held(lock)
        held.count = 1


def release(workspace: Workspace) -> None:
    """Let go of one hold; the last one removes the holder record and releases the OS lock."""
    key = str(lock_path(workspace).absolute())
    with _GUARD:
        held = _HELD.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _HELD[key]
        _remove_holder(workspace)
        held.lock.release(force=True)


@contextlib.contextmanager
def hold(workspace: Workspace, command: str, *, timeout: float | None = None) -> Iterator[None]:
    """``with hold(workspace, "tenantdeck push"):`` the block runs holding the workspace's lock."""
    acquire(workspace, command, timeout=timeout)
    try:
        yield
    finally:
        release(workspace)


def held_here(workspace: Workspace) -> bool:
    """Whether this process holds the workspace's lock (tests, and writes that must happen under it)."""
    with _GUARD:
        return str(lock_path(workspace).absolute()) in _HELD


__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "Holder", "WorkspaceLocked", "acquire", "held_here", "hold",
           "read_holder", "release", "timeout_from"]
