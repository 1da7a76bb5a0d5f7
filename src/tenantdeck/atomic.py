"""Atomic file replacement: every file tenantdeck writes goes through here.

A crash, Ctrl-C or ``kill -9`` at any moment must leave either the old or the new file, never a mix: the data goes
to a temporary file in the same directory, is flushed and fsync'd, takes the target's permissions, and replaces the
target with ``os.replace``; the directory is then fsync'd so the rename itself survives a power loss.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

NEW_FILE_MODE = 0o644


def atomic_write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    backup: bool = False,
    sync_dir: bool = True,
    make_parents: bool = False,
    backup_data: bytes | None = None,
) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` None keeps the existing file's permissions (a new file gets 0644 less the umask). ``backup`` keeps the
    previous version as ``<name>.bak``, made before the replace so the old content always exists under one of the
    two names; ``backup_data`` writes that instead of the previous content (a copy with literal secrets taken out,
    see :func:`tenantdeck.draft.save.save_draft`). ``sync_dir=False`` leaves the directory fsync to a caller that
    writes many files and syncs once.

    A file the user may not write (``chmod a-w``, ``chattr +i``) is refused with ``PermissionError`` before
    anything is written: renaming over it would succeed in a writable directory and silently undo the protection.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if make_parents:
        directory.mkdir(parents=True, exist_ok=True)
    try:
        existing_mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        existing_mode = None
    if existing_mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only", str(target))
    if mode is None:
        mode = existing_mode if existing_mode is not None else NEW_FILE_MODE & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if backup and existing_mode is not None:
            _backup(target, backup_data, existing_mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(directory)


def atomic_write_text(path: str | os.PathLike[str], text: str, **options: Any) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text, written exactly as given (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"), **options)


def atomic_write_json(path: str | os.PathLike[str], doc: Any, **options: Any) -> None:
    """Indented JSON in the document's own key order (sorting would reorder settings)."""
    atomic_write_text(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", **options)


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


def _backup(target: Path, data: bytes | None, mode: int) -> None:
    bak = target.with_name(target.name + ".bak")
    tmp_bak = target.with_name(f".{target.name}.bak.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp_bak)
    if data is None:
        try:
            os.link(target, tmp_bak)
            os.replace(tmp_bak, bak)
            return
        except OSError:
            data = target.read_bytes()
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
    if not directory.exists():
        return f"the directory {directory} does not exist"
    if not directory.is_dir():
        return f"{directory} is not a directory"
    if target.exists() and not os.access(target, os.W_OK):
        return "the file is read-only"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"the directory {directory} is not writable"
    return None
