"""Settle conflicts field by field: keep mine, or take theirs.

A conflict is a field the draft and the service both changed, differently, since the base. Two ways out:

* **take theirs**: the live value is written into the draft (through :class:`~tenantdeck.draft.session.DraftSession`,
  so only that value's text changes); draft and live then agree, and the base advances on the next push;
* **keep mine**: the base records the live value as seen, so the draft's value becomes a local change that the push
  sends over it. Nothing else moves: other fields of the same resource keep their three-way treatment.

Conflicts are named by :attr:`Conflict.key` (``APP_ID/KIND[:RID]/FIELD``), as ``diff`` prints them. A secret is
never settled this way (its live value is a fingerprint, not something to write or send): set or rotate it in the
draft instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.sync.kinds import BY_NAME
from tenantdeck.sync.types import ABSENT, Conflict


@dataclass(slots=True)
class Choice:
    """What the user asked: keys to keep (mine) or take (theirs), or all of either."""

    mine: list[str] = field(default_factory=list)
    theirs: list[str] = field(default_factory=list)
    mine_all: bool = False
    theirs_all: bool = False

    def __bool__(self) -> bool:
        return bool(self.mine or self.theirs or self.mine_all or self.theirs_all)


@dataclass(slots=True)
class Settled:
    """What settling did: one line per settled conflict, and what could not be settled (and why)."""

    done: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    draft_changed: bool = False
    base_changed: bool = False


def split(conflicts: Sequence[Conflict], choice: Choice) -> tuple[list[Conflict], list[Conflict], list[str]]:
    """(to keep mine, to take theirs, keys that name no conflict)."""
    by_key = {c.key: c for c in conflicts if c.kind}
    unknown = [k for k in [*choice.mine, *choice.theirs] if k not in by_key]
    mine = [by_key[k] for k in choice.mine if k in by_key]
    theirs = [by_key[k] for k in choice.theirs if k in by_key]
    chosen = {c.key for c in mine + theirs}
    rest = [c for c in by_key.values() if c.key not in chosen]
    if choice.mine_all:
        mine += rest
    elif choice.theirs_all:
        theirs += rest
    return mine, theirs, unknown


def draft_edits(conflict: Conflict, data: Any) -> list[tuple[str, tuple[Any, ...], Any]]:
    """The draft edits that write the live value: ``(verb, path, value)`` with verb set or delete, as the
    conflict's kind says (:meth:`~tenantdeck.sync.kinds.base.Kind.draft_edits`). Empty when the field is not in the
    draft's reach (the app or resource is not in the draft)."""
    apps = data.get("apps") if isinstance(data, dict) else None
    if not isinstance(apps, list) or conflict.kind not in BY_NAME:
        return []
    i = next((n for n, a in enumerate(apps) if isinstance(a, dict) and (
        a.get("id") == conflict.app_id if conflict.app_id else (not a.get("id") and a.get("name") == conflict.app))),
        None)
    return [] if i is None else BY_NAME[conflict.kind].draft_edits(i, apps[i], conflict)


def take_theirs(session: Any, conflicts: Iterable[Conflict], settled: Settled) -> None:
    """Write each conflict's live value into the open draft session, as one undo step."""
    with session.transaction():
        for conflict in conflicts:
            if conflict.secret:
                settled.refused.append(f"{conflict.key}: a secret is settled in the draft (set or rotate it there)")
                continue
            edits = draft_edits(conflict, session.data)
            if not edits:
                settled.refused.append(f"{conflict.key}: not found in the draft")
                continue
            for verb, path, value in edits:
                session.delete(path) if verb == "delete" else session.set(path, value)
            settled.draft_changed = True
            settled.done.append(f"{conflict.key}: took the service's value")


def keep_mine(base: dict[str, dict[str, Any]], conflicts: Iterable[Conflict], settled: Settled) -> set[str]:
    """Record each conflict's live value in ``base`` (in place); returns the app ids whose base changed."""
    touched: set[str] = set()
    for conflict in conflicts:
        app = base.get(conflict.app_id or "")
        if conflict.secret or app is None:
            settled.refused.append(f"{conflict.key}: " + ("a secret is settled in the draft (set or rotate it "
                                                          "there)" if conflict.secret else "no base to record in"))
            continue
        if not _record_live(app, conflict):
            settled.refused.append(f"{conflict.key}: not found in the base snapshot")
            continue
        touched.add(str(conflict.app_id))
        settled.base_changed = True
        settled.done.append(f"{conflict.key}: keeping the draft's value (the push sends it)")
    return touched


def _record_live(app: dict[str, Any], conflict: Conflict) -> bool:
    """Set one leaf of the base to the live value, through the conflict's kind (which knows how its resources are
    cut out of a canonical app and written back)."""
    kind = BY_NAME.get(conflict.kind)
    if kind is None:
        return False
    raw = kind.resources(app).get(conflict.rid)
    if raw is None:
        return False
    leaves = dict(kind.leaves(raw))
    if conflict.live is ABSENT or conflict.live is None:
        leaves.pop(conflict.path, None)
    else:
        leaves[conflict.path] = conflict.live
    kind.put(app, conflict.rid, leaves)
    return True


def section_values(conflicts: Iterable[Conflict], data: Any, settled: Settled) -> dict[tuple[str, ...], Any]:
    """"Take theirs" for a target of the targets file (``push --profile T``, ``promote S T``): the live values, as
    paths of T's section (app name, then keys; a widget by its name, a webhook by its id) -> value, to write there.

    The draft is shared by every target, so a target's own value belongs in its section, where each later push or
    promotion to T keeps it. ``data`` is the draft as T sees it. A value inside a list is written as the whole
    list (a section's value replaces a list); a removal cannot be written as an override and is refused.
    """
    import copy

    apps = data.get("apps") if isinstance(data, dict) else None
    presets = data.get("presets") if isinstance(data, dict) and isinstance(data.get("presets"), dict) else {}
    edited = copy.deepcopy(data)
    out: dict[tuple[str, ...], Any] = {}
    for conflict in conflicts:
        edits = [] if conflict.secret or not isinstance(apps, list) else draft_edits(conflict, data)
        paths = [_section_path(path, apps, presets) for _, path, _ in edits]  # type: ignore[arg-type]
        reason = ("a secret is settled in the draft (set or rotate it there)" if conflict.secret else
                  "not found in the draft" if not edits else
                  "the service has no value here, and a target's section can only set one" if any(
                      verb == "delete" for verb, _, _ in edits) else
                  "a target's section cannot hold this field" if None in paths else None)
        if reason is not None:
            settled.refused.append(f"{conflict.key}: {reason}")
            continue
        for _, path, value in edits:
            _set(edited, path, value)
        for section_path, cut in paths:  # type: ignore[misc]
            out[section_path] = copy.deepcopy(_get(edited, cut))
        settled.done.append(f"{conflict.key}: took the service's value (it stays this target's own: written in "
                            "its section of the targets file)")
    return out


#: the keys of an app a target's section may set (:class:`tenantdeck.draft.target_overrides.AppOverride`)
_SECTION_KEYS = frozenset({"region", "extensions", "widgets", "webhooks", "sms", "team", "extension_settings",
                           "push_certificates", "settings"})


def _section_path(path: tuple[Any, ...], apps: list[Any],
                  presets: Any) -> tuple[tuple[str, ...], tuple[Any, ...]] | None:
    """A draft path (``apps``, i, key, ...) as (the path in a target's section, the draft path it takes its value
    from: cut before the first list index below the app's widgets or webhooks), or None when no section holds it."""
    from tenantdeck.draft.target_overrides import widget_name

    app = apps[path[1]]
    rest = list(path[2:])
    if not rest or rest[0] not in _SECTION_KEYS or not isinstance(app, dict):
        return None
    out: list[str] = [str(app.get("name")), rest[0]]
    cut: list[Any] = list(path[:3])
    rest = rest[1:]
    if out[1] in ("widgets", "webhooks"):
        item = (app.get(out[1]) or [])[rest[0]]
        name = widget_name(item, presets) if out[1] == "widgets" else item.get("id")
        if not isinstance(name, str):
            return None
        out.append(name)
        cut.append(rest[0])
        rest = rest[1:]
    for part in rest:
        cut.append(part)
        if isinstance(part, int):
            return (tuple(out), tuple(cut[:-1])) if len(out) > 2 + (out[1] in ("widgets", "webhooks")) else None
        out.append(str(part))
    return tuple(out), tuple(cut)


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {}) if isinstance(data, dict) else data[part]
    data[path[-1]] = value


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data
