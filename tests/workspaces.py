"""Copying a built workspace into a test's own folder, so a costly setup (a pull, a pushed fleet) is made once.

A workspace names its files by absolute path in a few places (``meta.json`` records the in-process sandbox's
database, which is where the draft's own account lives; the history and journals name the draft): a copy that kept
them would push to the original's sandbox. :func:`copy_workspace` copies the folder whole and rewrites the
original folder's path to the copy's in every text file, so the copy is the same workspace at its new place.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def copy_workspace(built: Path, into: Path) -> None:
    """Copy ``built`` (draft, rules, ``.tenantdeck/``, data and config folders) into ``into``, paths moved along.

    Modification times are kept (``shutil.copy2``): the in-sync cache keys a base file by its size and time.
    """
    shutil.copytree(built, into, dirs_exist_ok=True)
    old, new = str(built).encode(), str(into).encode()
    for path in into.rglob("*"):
        if not path.is_file() or path.suffix in {".sqlite3", ".sqlite3-wal", ".sqlite3-shm"}:
            continue
        data = path.read_bytes()
        if old in data:
            stat = path.stat()
            path.write_bytes(data.replace(old, new))
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
