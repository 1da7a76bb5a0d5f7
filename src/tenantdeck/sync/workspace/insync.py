"""Remembers which draft apps were last found in sync with their base, so an offline diff can skip them.

The idea is git's index: ``git status`` does not re-hash a file whose stat data is unchanged. Here an app is
skipped when (a) a digest of everything its canonical form is computed from is the one recorded when a comparison
last found it without local changes, and (b) its base file has the size and modification time recorded then.
The digest covers the app's own YAML data, every preset its widgets extend, the values (hashed) of the ``${VAR}``
references it uses, the workspace's secret key, and :data:`CACHE_VERSION`; anything else that could change the
result (a push or pull rewriting the base) changes the base file's stat.

On a 1,000-app draft where one app changed, an offline diff then canonicalises, loads and compares one app instead
of a thousand. A stale or unreadable cache only ever costs time: it is ignored and rewritten, never trusted blindly.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tenantdeck import safefile
from tenantdeck.atomic import atomic_write_json
from tenantdeck.sync.workspace.state import Workspace

#: Bump whenever canonicalisation or the comparison rules change, so old entries cannot vouch for new code.
CACHE_VERSION = 2  # 2: certificate files and extension settings enter the canonical form
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def preset_digests(presets: Mapping[str, Any]) -> dict[str, str]:
    return {name: _sha(json.dumps(data, sort_keys=True, ensure_ascii=False)) for name, data in presets.items()}


def app_digest(app_data: Any, presets: Mapping[str, str], env: Mapping[str, str], key: bytes,
               folder: Path | None = None) -> str:
    """Everything the app's canonical form depends on, hashed. Secret values enter only as hashes; so do the push
    certificate files the app names (``folder``: the draft's, which their paths are relative to).

    Keys are hashed in the file's own order (no sorting): YAML order is deterministic, and a reordered key only
    costs a cache miss. One incremental hash, because this runs for every app on every offline diff.
    """
    text = json.dumps(app_data, ensure_ascii=False)
    digest = hashlib.sha256(f"{CACHE_VERSION}\0{_sha(key)}\0".encode())
    digest.update(text.encode("utf-8"))
    for widget in app_data.get("widgets") or ():
        name = widget.get("extends") if isinstance(widget, dict) else None
        if name is not None:
            digest.update(f"\0preset:{name}={presets.get(str(name))}".encode())
    if "${" in text:
        for name in sorted(set(_REFERENCE.findall(text))):
            value = _sha(env[name]) if name in env else "unset"
            digest.update(f"\0env:{name}={value}".encode())
    certs = app_data.get("push_certificates")
    for kind, written in sorted(certs.items()) if isinstance(certs, dict) else ():
        if isinstance(written, str):
            from tenantdeck.models.certfiles import read_certificate  # only for apps naming a certificate

            try:
                content = _sha(read_certificate(written, folder, kind=kind))
            except safefile.FileRefused as exc:
                content = f"unreadable:{exc.code}"
            digest.update(f"\0cert:{kind}={content}".encode())
    return digest.hexdigest()


class InSyncCache:
    """``insync.json`` in the workspace: app id -> [digest, base file size, base file mtime_ns]."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.path = workspace.root / "insync.json"
        self._entries = self._load()

    def _load(self) -> dict[str, list[Any]]:
        try:
            doc = json.loads(safefile.read_bytes(self.path, safefile.STATE_MAX_BYTES, beside=self.workspace.folder))
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION or not isinstance(doc.get("apps"), dict):
            return {}
        return doc["apps"]

    def _stat(self, app_id: str) -> list[int] | None:
        try:
            st = os.stat(self.workspace.base_path(app_id), follow_symlinks=False)
        except OSError:
            return None
        return [st.st_size, st.st_mtime_ns]

    def hits(self, digests: Mapping[str, str]) -> set[str]:
        """The app ids whose digest and base file are exactly as recorded."""
        found: set[str] = set()
        for app_id, digest in digests.items():
            entry = self._entries.get(app_id)
            if entry and entry[0] == digest and entry[1:] == self._stat(app_id):
                found.add(app_id)
        return found

    def record(self, in_sync: Mapping[str, str], forget: Iterable[str] = ()) -> None:
        """Remember ``in_sync`` (app id -> digest) as found in sync now; drop ``forget``. Best effort."""
        entries = dict(self._entries)
        for app_id in forget:
            entries.pop(app_id, None)
        for app_id, digest in in_sync.items():
            stat = self._stat(app_id)
            if stat is None:
                entries.pop(app_id, None)
            else:
                entries[app_id] = [digest, *stat]
        if entries == self._entries:
            return
        try:
            atomic_write_json(self.path, {"version": CACHE_VERSION, "apps": entries}, sync_dir=False,
                              beside=self.workspace.folder)
        except OSError:
            return  # a cache that cannot be written only costs time next run
        self._entries = entries
