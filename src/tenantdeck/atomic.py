"""Atomic file replacement: every file tenantdeck writes goes through here.

A crash, Ctrl-C or ``kill -9`` at any moment must leave either the old or the new file, never a mix: the data goes
to a temporary file in the same directory, is flushed and fsync'd, takes the target's permissions, and replaces the
target with ``os.replace``; the directory is then fsync'd so the rename itself survives a power loss.
"""

from __future__ import annotations

import contextlib
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
) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` None keeps the existing file's permissions (a new file gets 0644 less the umask). ``backup`` keeps the
    previous version as ``<name>.bak``, made before the replace so the old content always exists under one of the
    two names. ``sync_dir=False`` leaves the directory fsync to a caller that writes many files and syncs once.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if make_parents:
        directory.mkdir(parents=True, exist_ok=True)
    try:
        existing_mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        existing_mode = None
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
            _backup(target)
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


def _backup(target: Path) -> None:
    bak = target.with_name(target.name + ".bak")
    tmp_bak = target.with_name(f".{target.name}.bak.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp_bak)
    try:
        os.link(target, tmp_bak)
    except OSError:
        data = target.read_bytes()
        with open(tmp_bak, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp_bak, bak)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
