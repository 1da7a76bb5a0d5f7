"""The local audit log: one JSON line per push in the workspace's ``history.jsonl``.

Who pushed what, when, where to, with which plan, and how it ended, so a team can answer "who turned GIFs on in
300 apps last Tuesday" without the service keeping an audit trail. Never a secret: counts, hashes, paths, and per
operation its step kind, app, resource title and outcome (names the draft gives, never a value it sends).
Records written before ``operations`` was recorded have none; readers fall back to the push's journal.
"""

from __future__ import annotations

import getpass
import json
import os
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tenantdeck import safefile
from tenantdeck.atomic import WriteFailed, append_durably, open_append
from tenantdeck.textsafe import json_text, shown


def now() -> datetime:
    """The time a record is stamped with; a module attribute so a snapshot test can fix it (as the review fixes its
    progress clock)."""
    return datetime.now(UTC)


#: an operation's outcome as a person reads it (``OpResult.status`` -> words)
OUTCOME = {"applied": "applied", "failed": "FAILED", "not_attempted": "not attempted"}


def current_user() -> str:
    """``$USER``, else the login name, else "unknown" (CI containers may have neither)."""
    user = os.environ.get("USER")
    if user:
        return user
    try:
        return getpass.getuser()
    except Exception:  # getpass raises OSError/KeyError when there is no passwd entry
        return "unknown"


def append_record(path: Path, *, beside: Path, **fields: Any) -> dict[str, Any]:
    """Append one audit record (fsync'd) and return it. ``beside``: the draft's folder, which the file must lie in
    (:func:`tenantdeck.atomic.open_append`: never through a link; :class:`~tenantdeck.safefile.FileRefused`)."""
    record = {"who": current_user(), "when": now().isoformat(timespec="seconds"),
              "ts": round(time.time(), 3), **fields}
    data = (json_text(record, separators=(",", ":")) + "\n").encode("utf-8")
    try:
        fd = open_append(path, beside=beside)
    except safefile.FileRefused:
        raise
    except OSError as exc:
        raise WriteFailed(path, exc) from exc
    try:
        append_durably(fd, data, path)  # the whole record or none of it (WriteFailed)
    finally:
        os.close(fd)
    return record


def operations_record(results: Iterable[Any]) -> list[dict[str, Any]]:
    """What a push did, one entry per operation (``results``: :class:`tenantdeck.sync.remote.push.OpResult`, not
    imported: the workspace sits below the remote side), for its history record: the step kind, the app, the resource's
    title (``webhook "Orders" (orders)``) and the outcome. Names only: no payload, no value, no failure text (the
    service's reason may quote a value; the journal keeps it, beside the workspace's other private files)."""
    out = []
    for r in results:
        entry: dict[str, Any] = {"kind": r.op.kind, "app": r.op.app_name, "resource": r.op.resource,
                                 "outcome": r.status}
        if r.earlier:
            entry["earlier"] = True  # applied by an earlier run of the same saved plan, not sent again
        out.append(entry)
    return out


def operation_rows(record: dict[str, Any]) -> list[tuple[str, str, str]] | None:
    """(outcome, app, step) per operation a history record lists, the step labelled as the review labels it
    (:func:`tenantdeck.sync.render.step_label`); None for a record written before operations were recorded."""
    ops = record.get("operations")
    if not isinstance(ops, list):
        return None
    from tenantdeck.sync.render import step_label
    from tenantdeck.sync.types import Step

    rows = []
    for entry in ops:
        if not isinstance(entry, dict):
            continue
        kind, app, resource = (str(entry.get(k, "")) for k in ("kind", "app", "resource"))
        status = str(entry.get("outcome", ""))
        outcome = OUTCOME.get(status, status) + (" (earlier run)" if entry.get("earlier") else "")
        try:
            label = step_label(Step(key="", kind=kind, app_id=None, app_name=app, resource=resource), app_named=True)
        except (KeyError, ValueError):  # a step kind this version does not know (a newer tenantdeck wrote it)
            label = f"{kind.replace('_', ' ')} {resource}".strip()
        rows.append((outcome, app, label))
    return rows


def read_history(path: Path, *, beside: Path | None = None) -> list[dict[str, Any]]:
    """All records, oldest first; damaged lines are skipped. ``beside``: the draft's folder, which the file must
    lie in after every link (:class:`~tenantdeck.safefile.FileRefused` otherwise); by default the folder a
    workspace's ``.tenantdeck/<stem>/history.jsonl`` is in."""
    folder = beside if beside is not None else path.parents[2]
    try:
        text = safefile.read_text(path, safefile.STATE_MAX_BYTES, errors="replace", beside=folder)
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
            f"{applied_counts_text(c)} failed={c.get('failed', 0)} not_attempted={c.get('not_attempted', 0)}"
            f"  journal={r.get('journal', '-')}"
        )
        lines += allowed_rows(r)
        lines += [f"    {outcome:<13} {shown(app)}: {shown(label)}" for outcome, app, label in operation_rows(r) or []]
    return "\n".join(lines) + "\n"


def applied_split(counts: dict[str, Any]) -> tuple[int, int]:
    """(applied by the push itself, found already applied by an earlier run of the same saved plan): a re-run of
    an applied plan is ``(0, n)``, never told apart from the real push by ``applied`` alone. Records written before
    ``already`` was counted give ``(applied, 0)``."""
    applied, already = counts.get("applied", 0), counts.get("already", 0)
    if not isinstance(applied, int) or not isinstance(already, int):
        return 0, 0
    return applied - already, already


def applied_counts_text(counts: dict[str, Any]) -> str:
    """``applied=1`` or, for a re-run of a saved plan, ``applied=0 already=1`` (the CLI's history and the editor)."""
    applied, already = applied_split(counts)
    return f"applied={applied}" + (f" already={already}" if already else "")


def allowed_rows(record: dict[str, Any]) -> list[str]:
    """The policy violations a push let through (``--allow-violation``), one line per rule with its apps, and the
    reason given: ``    allowed   policy two-admins (Acme Support): reason "pilot tenant"``. Escaped here, one
    value at a time: the reason and the app names are someone's text, and the history is printed with its line
    breaks kept."""
    allowed = record.get("allowed_violations")
    if not isinstance(allowed, list) or not allowed:
        return []
    apps: dict[str, list[str]] = {}
    for entry in allowed:
        if isinstance(entry, dict):
            apps.setdefault(str(entry.get("rule", "?")), []).append(str(entry.get("app", "?")))
    reason = record.get("violation_reason")
    said = f'reason "{shown(str(reason))}"' if reason else "no reason recorded"
    return [f"    {'allowed':<13} policy {shown(rule)} ({', '.join(shown(a) for a in names)}): {said}"
            for rule, names in apps.items()]
