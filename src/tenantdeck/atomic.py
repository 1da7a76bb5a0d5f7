"""Atomic file replacement: every file tenantdeck writes goes through here.

A crash, Ctrl-C or ``kill -9`` at any moment must leave either the old or the new file, never a mix: the data goes
to a temporary file in the same directory, is flushed and fsync'd, takes the target's permissions, and replaces the
target with ``os.replace``; the directory is then fsync'd so the rename itself survives a power loss.

A path that is a symbolic link is resolved first and its target is replaced (in the target's directory): a draft
the user keeps elsewhere and links into a project stays a link (its ``.bak``, beside the link, is a regular file).
``leads_to`` says which file the caller read: a link put in the path's place since then (or re-aimed), leading
anywhere else, is :class:`Redirected` and nothing is written. Without it, anyone who can write the draft's folder
could aim an open editor's save at any file its user can write (a trial swapped in ``tenantdeck.yaml ->
/tmp/victim``: the save overwrote the victim).

``expect`` makes a write a compare-and-swap: it is called with the file's current content and the write happens
only when it says the file still holds what the caller read (:class:`ChangedSinceRead` otherwise). Within this
process the check and the replace run under one lock per file; across processes the caller holds the workspace
lock (:mod:`tenantdeck.sync.workspace.lock`), so no other tenantdeck writes between the two.

Beside a draft (``beside=``: the lock file, ``.gitignore``, the targets file, the workspace) the rule is
:func:`tenantdeck.safefile.beside`: the file and the folder it is written in must lie in the draft's folder after
every link, else :class:`~tenantdeck.safefile.FileRefused` before anything is made; and a link there is replaced
by the new file, never written through (as ``.bak`` always was), so ``tenantdeck.lock.json -> tenantdeck.yaml``
cannot aim a push's lock update at the draft. Appends there (:func:`open_append`) never follow a link at all.

A full disk, a quota or an I/O error is raised as :class:`WriteFailed` (an ``OSError``) naming the file, never half
a record: appends (:func:`append_durably`) loop on short writes and cut a partial record back off.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tenantdeck.textsafe import json_text

NEW_FILE_MODE = 0o644

#: errors that mean "the storage is full or failing": the message says so and tells the user to free space
STORAGE_ERRNOS = frozenset(e for e in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EIO, errno.EFBIG,
                                       errno.EROFS) if e is not None)


class WriteFailed(OSError):
    """A local file could not be written completely (disk full, quota, I/O error); nothing of it is half there.

    ``str()`` is one line: ``disk full writing FILE: No space left on device``.
    """

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause), os.fspath(path))
        self.path = Path(path)
        self.cause = cause

    def __str__(self) -> str:
        what = {errno.ENOSPC: "disk full", errno.EIO: "I/O error", errno.EROFS: "read-only file system",
                errno.EFBIG: "file too large"}.get(self.errno or 0)
        if what is None and self.errno == getattr(errno, "EDQUOT", -1):
            what = "disk quota exceeded"
        return f"{what or 'cannot write'} writing {self.path}: {self.strerror}"


class ChangedSinceRead(Exception):
    """The file no longer holds what the caller read (someone else wrote it); nothing was written."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(f"{os.fspath(path)} changed on disk since it was read; nothing was written")
        self.path = Path(path)


class Redirected(OSError):
    """``path`` now leads to another file than the one the caller read (a symbolic link was put in its place, or
    re-aimed): ``now`` is where it leads, ``was`` the file read. Nothing was written. ``str()`` names both."""

    def __init__(self, path: str | os.PathLike[str], now: str | os.PathLike[str], was: str | os.PathLike[str]) -> None:
        self.path, self.now, self.was = Path(path), Path(now), Path(was)
        super().__init__(errno.EPERM, f"now leads to {self.now}, not to {self.was} (the file that was read): a "
                         "symbolic link was put in its place; nothing was written", os.fspath(path))

    def __str__(self) -> str:
        link = "is now a symbolic link to" if self.path.is_symlink() else "now leads (through a symbolic link) to"
        return f"{self.path} {link} {self.now}, not the file that was opened ({self.was}); no save writes through it"


def leads_to(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` names after every symbolic link (of it and of the folders above it), for
    ``atomic_write_bytes(leads_to=...)``: what a caller records when it reads a file it will write back."""
    return Path(os.path.realpath(path))


def redirected(path: str | os.PathLike[str], was: str | os.PathLike[str]) -> Redirected | None:
    """The refusal of a write of ``path`` when it no longer leads to ``was`` (what :func:`leads_to` gave when the
    caller read it; not resolved again, since it is the name itself a link swapped in now redirects); None when it
    does. The one rule: :func:`atomic_write_bytes` raises it, a UI asks it first to say so before any question."""
    now, then = leads_to(path), Path(was)
    return None if now == then else Redirected(path, now, then)


_FILE_LOCKS: dict[str, threading.Lock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _file_lock(path: Path) -> threading.Lock:
    """One lock per file within this process: a compare-and-swap's check and replace are one step for its threads."""
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(str(path), threading.Lock())


def resolve_link(path: str | os.PathLike[str]) -> Path:
    """The file a write of ``path`` must replace: ``path`` itself, or the end of its chain of symbolic links."""
    target = Path(path)
    if target.is_symlink():
        return Path(os.path.realpath(target))
    return target


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written: a short write (a nearly full disk, a signal) is not an error,
    but ignoring its count leaves half a record on disk that reads back as nothing."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def append_durably(fd: int, data: bytes, path: str | os.PathLike[str]) -> None:
    """Append one whole record to the file open at ``fd`` (``O_APPEND``) and fsync it; on failure cut the partial
    record back off (best effort) and raise :class:`WriteFailed` naming ``path``."""
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
    except OSError:
        start = -1
    try:
        write_all(fd, data)
        os.fsync(fd)
    except OSError as exc:
        if start >= 0:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
        raise WriteFailed(path, exc) from exc


def atomic_write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    backup: bool = False,
    sync_dir: bool = True,
    make_parents: bool = False,
    backup_data: bytes | None = None,
    expect: Callable[[bytes | None], bool] | None = None,
    leads_to: str | os.PathLike[str] | None = None,
    beside: str | os.PathLike[str] | None = None,
) -> None:
    """Replace ``path`` with ``data`` atomically (its target, when ``path`` is a symbolic link).

    ``mode`` None keeps the existing file's permissions (a new file gets 0644 less the umask). ``backup`` keeps the
    previous version as ``<name>.bak``, made before the replace so the old content always exists under one of the
    two names; ``backup_data`` writes that instead of the previous content (a copy with literal secrets taken out,
    see :func:`tenantdeck.draft.save.save_draft`). ``sync_dir=False`` leaves the directory fsync to a caller that
    writes many files and syncs once.

    A file the user may not write (``chmod a-w``, ``chattr +i``) is refused with ``PermissionError`` before
    anything is written: renaming over it would succeed in a writable directory and silently undo the protection.
    A path that is (or links to) anything but a regular file is refused with ``OSError`` the same way: a link to
    ``/dev/zero`` written as root replaced the device node with the file's content.

    ``leads_to`` (from :func:`leads_to` when the caller read the file) refuses with :class:`Redirected` a path that
    now leads elsewhere: the write goes to the file resolved here, so one check before anything is made is enough.

    ``beside`` (the draft's folder, for a file kept beside a draft): :func:`in_folder` says where the file is
    written; a link at ``path`` is replaced, not followed, and the ``.bak`` is made beside it.
    """
    named = Path(path)
    target = in_folder(named, beside) if beside is not None else resolve_link(named)
    moved = redirected(named, leads_to) if leads_to is not None else None
    if moved is not None:
        raise moved
    directory = target.parent if str(target.parent) else Path(".")
    if make_parents:
        directory.mkdir(parents=True, exist_ok=True)
    try:
        existing = os.stat(target).st_mode
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing):
        from tenantdeck.safefile import kind_of

        # a link to /dev/zero or a FIFO: renaming over its target would replace a device node (as root) or a pipe
        raise OSError(errno.EINVAL, f"{kind_of(existing)}; nothing was written", str(target))
    existing_mode = stat.S_IMODE(existing) if existing is not None else None
    if existing_mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only", str(target))
    if mode is None:
        mode = existing_mode if existing_mode is not None else NEW_FILE_MODE & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    try:
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            if exc.errno in STORAGE_ERRNOS:
                raise WriteFailed(named, exc) from exc
            raise
        os.chmod(tmp, mode)
        with _file_lock(target):
            if expect is not None and not expect(_current(target)):
                raise ChangedSinceRead(named)
            if backup and existing_mode is not None:
                bak = (target if beside is not None else named).with_name(named.name + ".bak")
                _backup(target, backup_data, existing_mode, bak)
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(directory)


def in_folder(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """Where a write of ``path`` beside a draft goes: ``path``'s name in its folder resolved, after checking
    (:func:`tenantdeck.safefile.beside`) that both the folder and whatever ``path`` leads to lie in the draft's
    ``folder``; :class:`~tenantdeck.safefile.FileRefused` before anything is made otherwise. A rename onto the
    returned path replaces a link there rather than following it."""
    from tenantdeck import safefile

    named = Path(path)
    root = Path(os.path.realpath(folder))
    parent = Path(os.path.realpath(named.parent))
    target = parent / named.name
    inside = parent == root or root in parent.parents
    # The common case (a regular file, or none yet, in a folder inside) needs no more; otherwise the checks are
    # made as safefile.beside words them: the file after its link first (a link leading out of the folder, even to
    # nothing, is refused, not replaced), then its folder. Two resolutions, not four: a pull writes a base file per
    # app (1,000 apps: 0.78 s with four, 0.41 s with resolve_link alone).
    if not inside or os.path.islink(target):
        safefile.beside(named, folder)
        safefile.beside(named.parent, folder)
    return target


def make_dirs(path: str | os.PathLike[str], *, beside: str | os.PathLike[str]) -> Path:
    """``path`` made as a folder (with its parents) after :func:`tenantdeck.safefile.beside` said it lies in the
    draft's ``folder``: a ``.tenantdeck`` committed as a link to ``/home/ci`` gets nothing made in it. Returns the
    folder resolved."""
    from tenantdeck import safefile

    real = safefile.beside(path, beside)
    real.mkdir(parents=True, exist_ok=True)
    return real


#: an append opens the file itself: no link followed, no wait on a FIFO, not inherited by a child process
_APPEND_EXTRA = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def open_append(path: str | os.PathLike[str], *, beside: str | os.PathLike[str], make_parents: bool = True) -> int:
    """A descriptor to append records to ``path`` beside a draft (created mode 0600; the history, a journal, the
    draft-writes record), for :func:`append_durably`. Its folder is checked as :func:`in_folder` checks a write
    (and made when ``make_parents``); the file is opened with ``O_NOFOLLOW``, so a link there, even one inside the
    folder (``history.jsonl -> ../../tenantdeck.yaml``), is refused rather than appended to; anything but a
    regular file is refused too. :class:`~tenantdeck.safefile.FileRefused` before a byte is written; an ``OSError``
    from the system otherwise."""
    from tenantdeck import safefile

    named = Path(path)
    target = in_folder(named, beside)
    if make_parents:
        target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _APPEND_EXTRA, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(target):
            raise safefile.FileRefused(named, f"is a symbolic link (to {os.readlink(target)}): tenantdeck appends "
                                       "only to a regular file of its own, never through a link; remove the link",
                                       safefile.NOT_REGULAR, err=errno.ELOOP) from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise safefile.FileRefused(named, safefile.kind_of(os.stat(target).st_mode) or "is not a regular file",
                                       safefile.NOT_REGULAR, err=errno.ENXIO) from None
        raise
    reason = safefile.kind_of(os.fstat(fd).st_mode)
    if reason is not None:
        os.close(fd)
        raise safefile.FileRefused(named, reason, safefile.NOT_REGULAR)
    return fd


def _current(path: Path) -> bytes | None:
    """The file's content now (None when there is none), for a compare-and-swap's ``expect``. Read through
    :mod:`tenantdeck.safefile`: a FIFO or a device put in the file's place is :class:`ChangedSinceRead` (it is not
    what the caller read), never a hang."""
    from tenantdeck import safefile

    try:
        return safefile.read_bytes(path, safefile.STATE_MAX_BYTES)
    except FileNotFoundError:
        return None
    except safefile.FileRefused:
        raise ChangedSinceRead(path) from None


def atomic_write_text(path: str | os.PathLike[str], text: str, **options: Any) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text, written exactly as given (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"), **options)


def atomic_write_json(path: str | os.PathLike[str], doc: Any, **options: Any) -> None:
    """Indented JSON in the document's own key order (sorting would reorder settings)."""
    atomic_write_text(path, json_text(doc, indent=2) + "\n", **options)


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Make a rename in ``directory`` durable; not possible on every platform (Windows), where it is skipped."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _backup(target: Path, data: bytes | None, mode: int, bak: Path) -> None:
    """Keep ``target``'s content as ``bak`` (a regular file, even when the draft is reached through a link)."""
    tmp_bak = bak.with_name(f".{bak.name}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp_bak)
    if data is None:
        try:
            os.link(target, tmp_bak)
            os.replace(tmp_bak, bak)
            return
        except OSError:
            from tenantdeck import safefile

            data = safefile.read_bytes(target, safefile.STATE_MAX_BYTES)
    with open(tmp_bak, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(tmp_bak, mode)
    os.replace(tmp_bak, bak)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def unwritable_reason(path: str | os.PathLike[str]) -> str | None:
    """Why :func:`atomic_write_bytes` could not write ``path``, in a few words; None when it can.

    For refusing before the first write (``init``, ``pull``) with one clear line, rather than failing half-way or
    naming a temporary file. Asks the system (``os.access``), so it agrees with the write itself: ``chattr +i`` is
    read-only for everyone, ``chmod a-w`` for everyone but root.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return "it is a directory"
    if target.exists() and not target.is_file():
        from tenantdeck.safefile import kind_of

        return f"it {kind_of(target.stat().st_mode)}"
    if not directory.exists():
        return f"the directory {directory} does not exist"
    if not directory.is_dir():
        return f"{directory} is not a directory"
    if target.exists() and not os.access(target, os.W_OK):
        return "the file is read-only"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"the directory {directory} is not writable"
    return None
