"""The local audit log: one JSON line per push in the workspace's ``history.jsonl``.

Who pushed what, when, where to, with which plan, and how it ended, so a team can answer "who turned GIFs on in
300 apps last Tuesday" without the service keeping an audit trail. Never a secret: counts, hashes and paths.
"""

from __future__ import annotations

import getpass
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tenantdeck.atomic import WriteFailed, append_durably


def current_user() -> str:
    """``$USER``, else the login name, else "unknown" (CI containers may have neither)."""
    user = os.environ.get("USER")
    if user:
        return user
    try:
        return getpass.getuser()
    except Exception:  # getpass raises OSError/KeyError when there is no passwd entry
        return "unknown"


def append_record(path: Path, **fields: Any) -> dict[str, Any]:
    """Append one audit record (fsync'd) and return it."""
    record = {"who": current_user(), "when": datetime.now(UTC).isoformat(timespec="seconds"),
              "ts": round(time.time(), 3), **fields}
    data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError as exc:
        raise WriteFailed(path, exc) from exc
    try:
        append_durably(fd, data, path)  # the whole record or none of it (WriteFailed)
    finally:
        os.close(fd)
    return record


def read_history(path: Path) -> list[dict[str, Any]]:
    """All records, oldest first; damaged lines are skipped."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def render_history_text(records: list[dict[str, Any]]) -> str:
    if not records:
        return "No pushes recorded yet.\n"
    lines = []
    for r in records:
        c = r.get("counts") or {}
        lines.append(
            f"{r.get('when', '?')}  {r.get('who', '?'):<12} {r.get('result', '?'):<8} "
            f"profile={r.get('profile') or '-'} plan={r.get('plan_hash', '-')} "
            f"applied={c.get('applied', 0)} failed={c.get('failed', 0)} not_attempted={c.get('not_attempted', 0)}"
            f"  journal={r.get('journal', '-')}"
        )
    return "\n".join(lines) + "\n"
