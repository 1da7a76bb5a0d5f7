"""The committed base: ``<draft stem>.lock.json`` beside the draft, what a three-way diff needs on a fresh clone.

Why: ``.tenantdeck/`` is local (gitignored), so a CI job on a fresh checkout had no base, took the live service
for it, and a push of one toggle wrote back every field someone had changed in the dashboard. The lock file is
meant to be committed with the draft; ``pull`` writes it and ``push`` updates it after every applied operation
(through :class:`~tenantdeck.sync.workspace.state.Workspace`, as the local base). When it exists it is the base;
``.tenantdeck/<stem>/base/`` stays a cache beside it.

Layout (JSON, keys sorted, two-space indent, one line per leaf, no timestamps, so the same base is the same bytes
and a merge of two branches that touched different apps merges cleanly)::

    {"apps": {"<appId>": {"app": <canonical app>, "key": "<key check>"}, ...},
     "format": 1,
     "target": {"account": "...", "base_url": "...", "profile": "..."}}

No secret value is in it: a secret is its HMAC fingerprint, keyed with
:meth:`tenantdeck.targets.Target.fingerprint_key` (derived from the account's management secret, which whoever
pushes has and the repository does not). ``key`` says which key an app's fingerprints were made with (an HMAC of a
fixed text, revealing nothing); read with another key (no credentials, offline on a fresh clone, a rotated
secret) they cannot be compared, so they become ``{"unknown": true, "unverifiable": true}``: a secret neither
side is known to have changed, never "will rotate" (see :func:`tenantdeck.sync.compare.compare_leaves`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tenantdeck import safefile
from tenantdeck.textsafe import json_text

LOCK_FORMAT = 1
SUFFIX = ".lock.json"
UNVERIFIABLE: dict[str, bool] = {"unknown": True, "unverifiable": True}


def lock_path(draft_path: Path, target: str | None = None) -> Path:
    """``tenantdeck.yaml`` -> ``tenantdeck.lock.json`` beside it (two drafts in a folder, two lock files); for a
    target of the draft's targets file, ``tenantdeck.<target>.lock.json`` (each account keeps its own base)."""
    return draft_path.with_name(draft_path.stem + (f".{target}" if target else "") + SUFFIX)


def key_check(key: bytes) -> str:
    """What names a fingerprint key without revealing it: 16 hex of an HMAC of a fixed text."""
    return hmac.new(key, b"tenantdeck fingerprint key check", hashlib.sha256).hexdigest()[:16]


def unverifiable(app: Any) -> Any:
    """``app`` with every secret fingerprint replaced by :data:`UNVERIFIABLE` (made with another key)."""
    if isinstance(app, dict):
        if "fingerprint" in app and len(app) == 1:
            return dict(UNVERIFIABLE)
        return {k: unverifiable(v) for k, v in app.items()}
    if isinstance(app, list):
        return [unverifiable(v) for v in app]
    return app


def render(apps: Mapping[str, Mapping[str, Any]], target: Mapping[str, Any] | None) -> bytes:
    """The lock file's bytes: deterministic (sorted keys, no timestamps), one app per key of ``apps``."""
    doc = {"format": LOCK_FORMAT, "target": dict(target or {}),
           "apps": {app_id: dict(entry) for app_id, entry in sorted(apps.items())}}
    return (json_text(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")


class LockFileError(Exception):
    """The lock file cannot be read as one; ``str()`` names it and what to do."""


def parse(path: Path, data: bytes) -> dict[str, Any]:
    """The lock file's document, checked (format, apps, target); a newer format or damage is :class:`LockFileError`.

    A file with git's conflict markers (a merge that touched the same app on both branches) says so: the user
    settles it as any merge, or takes one side and pulls.
    """
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        hint = (" (it has merge conflict markers: settle the merge, or check out one side and run `tenantdeck pull`)"
                if b"\n<<<<<<< " in b"\n" + data else "; check it out again, or run `tenantdeck pull` to rewrite it")
        raise LockFileError(f"{path} is not valid JSON{hint}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("format"), int):
        raise LockFileError(f"{path} is not a tenantdeck lock file; move it aside and run `tenantdeck pull`")
    if doc["format"] > LOCK_FORMAT:
        raise LockFileError(f"{path} was written by a newer tenantdeck (format {doc['format']}; this one reads "
                            f"format {LOCK_FORMAT}); upgrade tenantdeck")
    apps = doc.get("apps")
    if not isinstance(apps, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("app"), dict) and e["app"].get("id") == app_id
            for app_id, e in apps.items()):
        raise LockFileError(f"{path}: \"apps\" must map each app id to its base; run `tenantdeck pull` to rewrite it")
    if not isinstance(doc.get("target", {}), dict):
        raise LockFileError(f"{path}: \"target\" must be an object; run `tenantdeck pull` to rewrite it")
    return doc


def read(path: Path) -> dict[str, Any] | None:
    """The parsed lock file, or None when there is none. Read only when it lies in its draft's folder after every
    link (:func:`tenantdeck.safefile.beside`): a pull request's lock file may be a link to anywhere."""
    try:
        data = safefile.read_bytes(path, safefile.STATE_MAX_BYTES, beside=path.parent)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LockFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse(path, data)


def read_lock_target(workspace: Any) -> dict[str, Any] | None:
    """The account the committed base was taken from, or None without a lock file."""
    doc = read(workspace.lock_path)
    if doc is None:
        return None
    target = doc.get("target") or {}
    return dict(target) if target.get("base_url") else None
