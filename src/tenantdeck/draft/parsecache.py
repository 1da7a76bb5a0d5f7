"""A cache of parsed big drafts, so that opening the same file again does not parse it again.

Why: parsing is what a big draft's start-up waits for. The 5,000-app draft of ``bench/tui_startup.py`` (7.7 MB)
takes about 1.1 s in :func:`tenantdeck.draft.yamlsource.parse` (libyaml's events and the loop that builds the data),
four times what a bare Textual app needs to paint; ``marshal`` gives the same data back in a small fraction of it.

Only clean parses of drafts of at least :data:`MIN_CHARS` characters are kept (no YAML problems, surprises,
duplicate keys or aliases: the cache holds the data alone). The key is a hash of the exact text together with the
parser's own version (its source file's size and mtime, and the package version), so an edited file, or a changed
parser, never gets stale data. Entries live in the cache directory (``TENANTDECK_CACHE_DIR``; ``~/.cache`` on Linux:
rebuilt when gone), the newest :data:`KEEP` only; an unreadable entry is ignored and removed. ``marshal`` is used
rather than ``pickle`` because it cannot run code on load; like the rest of the user's directories, the cache is
trusted as the user's own files.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

from tenantdeck import safefile
from tenantdeck.draft import yamlsource

MIN_CHARS = 1_000_000  #: below this a parse takes well under 0.1 s: not worth a file
KEEP = 8  #: entries kept (one per recently opened big draft version)
_FORMAT = b"tenantdeck-parse-1\n"


def directory() -> Path:
    """Where the entries live (``doctor`` lists it)."""
    from tenantdeck.locations import cache_dir

    return cache_dir() / "parse-cache"


def _key(text: str) -> str:
    from tenantdeck import __version__

    st = os.stat(yamlsource.__file__)
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{__version__}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def load(text: str) -> Any | None:
    """The data of ``text`` from the cache, or None (not big enough, not cached, unreadable)."""
    if len(text) < MIN_CHARS:
        return None
    path = directory() / f"{_key(text)}.marshal"
    try:
        raw = safefile.read_bytes(path, safefile.STATE_MAX_BYTES)
    except OSError:
        return None
    try:
        if not raw.startswith(_FORMAT):
            raise ValueError("not a parse cache entry")
        data = marshal.loads(raw[len(_FORMAT):])
        if not isinstance(data, dict):
            raise ValueError("not a draft's data")
        return data
    except (ValueError, EOFError, TypeError):
        with contextlib.suppress(OSError):
            path.unlink()
        return None


def store(text: str, data: Any) -> bool:
    """Keep ``data`` as the parse of ``text`` (a clean parse); False when it is not kept (small, or not plain)."""
    if len(text) < MIN_CHARS:
        return False
    try:
        blob = _FORMAT + marshal.dumps(data)
    except ValueError:
        return False  # a value marshal cannot hold: parse again next time
    from tenantdeck.atomic import atomic_write_bytes

    folder = directory()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(folder / f"{_key(text)}.marshal", blob, sync_dir=False)
        entries = sorted(folder.glob("*.marshal"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in entries[KEEP:]:
            old.unlink()
    except OSError:
        return False
    return True
