"""Read one resource right before writing it, lay the step's own changes on that value, and read it back after.

Why: the API has no precondition header (no ETag, no If-Match), and a widget, an SMS configuration and a webhook
are written as whole objects. A body built from the read the plan was made from carries every other field as it
was *then*: another admin's push or a dashboard click that landed in between is silently written back. So each
such update is rebased on a read taken immediately before it (:func:`rebase`), and verified by a read taken
immediately after it (:func:`verify`):

- a field this step changes that the service now holds differently from what the plan saw was changed by
  someone else since: that is a conflict, and the step is not sent (:class:`ChangedSincePlan`);
- every other field is sent as the fresh read has it (never as the plan's older read had it);
- after the write, a field this step changed that does not hold what was sent was overwritten by a concurrent
  writer (ours is lost: the executor lays it again on a fresh read), and a field it did not change that moved
  between the two reads was written by someone else inside our window: whether our write clobbered it cannot be
  told from here, so it is reported as a lost update with both values.

What remains is one round trip: a whole-object write by someone else that lands after our fresh read and before
our write is overwritten by ours, and only the verifying read (or theirs) can see it (docs/concurrency.md).

The reads go through each kind's own ``from_remote`` (a bundle holding just that resource), so the fresh value is
normalised exactly like the one the plan compared.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenantdeck.api.models import RemoteApp
from tenantdeck.models.secrets import is_secret_state
from tenantdeck.sync.kinds.base import Kind, unflatten
from tenantdeck.sync.placeholders import is_placeholder
from tenantdeck.sync.types import ABSENT, Leaves, RemoteAppBundle, is_unknown

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.sync.types import Step


async def _widgets(client: ManagementClient, app_id: str, rid: str) -> dict[str, Any]:
    return {"widgets": await client.list_widgets(app_id)}


async def _sms(client: ManagementClient, app_id: str, rid: str) -> dict[str, Any]:
    return {"sms": await client.get_sms(app_id)}


async def _extension_settings(client: ManagementClient, app_id: str, rid: str) -> dict[str, Any]:
    return {"extension_settings": {rid: await client.get_extension_settings(app_id, rid)}}


async def _webhook(client: ManagementClient, app_id: str, rid: str) -> dict[str, Any]:
    hook = await client.get_webhook(app_id, rid)
    return {"webhooks": [] if hook is None else [{**hook, "triggers": []}]}


#: kind name -> the call that reads its resources of one app (the table of reads lives here, not in the kinds)
READS: dict[str, Callable[[ManagementClient, str, str], Awaitable[dict[str, Any]]]] = {
    "widget": _widgets,
    "sms": _sms,
    "extension_settings": _extension_settings,
    "webhook": _webhook,
}
#: where each kind's update body holds the resource's fields (``{"settings": {...}}``); absent: the body itself
BODY_KEY: dict[str, str] = {"widget": "settings", "sms": "settings", "extension_settings": "settings"}


def rebases(kind: Kind, step: Step) -> bool:
    """Whether ``step`` is a whole-object update that must be rebased on a fresh read."""
    return kind.name in READS and step.kind.startswith("update_")


async def read_leaves(client: ManagementClient, kind: Kind, app_id: str, rid: str, *,
                      secret_key: bytes) -> Leaves | None:
    """The resource's leaves as the service holds them now (None: it is gone), normalised like a plan's."""
    parts = await READS[kind.name](client, app_id, rid)
    app = RemoteApp(id=app_id, name="", region="", version=None, created_at=None, raw={})
    bundle = RemoteAppBundle(app=app, extensions=None, **parts)
    raw = kind.resources(kind.from_remote(bundle, secret_key=secret_key)).get(rid)
    return None if raw is None else kind.leaves(raw)


def _comparable(value: Any) -> bool:
    """A value two reads can be compared on: not a secret's state, not a value the service does not report."""
    return value is not ABSENT and not is_secret_state(value) and not is_unknown(value)


@dataclass(frozen=True, slots=True)
class Moved:
    """One field whose value is not what this push expected (the label is the kind's, from the engine)."""

    path: str
    label: str
    expected: Any  #: what the plan saw (a conflict), what was sent (ours lost), or what the fresh read said
    now: Any  #: what the service holds now (ABSENT: not there)
    ours: bool  #: a field this step changes


class ChangedSincePlan(Exception):
    """A field the step changes was changed on the service after the plan was made: sending would overwrite it."""

    def __init__(self, moved: list[Moved]) -> None:
        self.moved = moved
        shown = "; ".join(f"{m.label} ({m.path}) is now {show_value(m.now)}, was {show_value(m.expected)}"
                          for m in moved)
        super().__init__(f"changed on the service since the plan was made: {shown}; nothing was sent (diff and "
                         "push again to decide)")


class ResourceGone(Exception):
    def __init__(self) -> None:
        super().__init__("gone from the service since the plan was made; nothing was sent")


def show_value(value: Any) -> str:
    """How a lost update or a conflict names a value: ``(none)`` for a field that is not there."""
    return "(none)" if value is ABSENT or value is None else repr(value)


def _local_paths(step: Step) -> set[str]:
    return {c.path for c in step.changes}


def _body_leaves(kind: Kind, payload: Mapping[str, Any]) -> Leaves:
    """A step body's leaves, each secret placeholder one leaf (``flatten`` would walk into it)."""
    key = BODY_KEY.get(kind.name)
    body = payload.get(key) if key else payload
    out: Leaves = {}

    def walk(value: Mapping[str, Any], prefix: str) -> None:
        for name, item in value.items():
            if item is None:
                continue
            if isinstance(item, Mapping) and not is_placeholder(item) and not is_secret_state(item):
                walk(item, f"{prefix}{name}.")
            else:
                out[f"{prefix}{name}"] = item

    walk(body if isinstance(body, Mapping) else {}, "")
    return out


def _body(kind: Kind, payload: Mapping[str, Any], leaves: Leaves) -> dict[str, Any]:
    key = BODY_KEY.get(kind.name)
    rebuilt = unflatten(dict(sorted(leaves.items())))
    return {**payload, key: rebuilt} if key else rebuilt


def rebase(kind: Kind, step: Step, planned_at: Mapping[str, Any] | None, fresh: Leaves) -> dict[str, Any]:
    """The step's body rebuilt on ``fresh``: the step's own changes (and secrets, resolved later) as planned,
    every other field as the service holds it now. Raises :class:`ChangedSincePlan` when a field the step changes
    moved on the service since ``planned_at`` (the plan's read of the resource)."""
    planned = _body_leaves(kind, step.payload)
    local = _local_paths(step)
    before = dict(planned_at or {})
    moved = [Moved(path, kind.label(path), before.get(path, ABSENT), fresh.get(path, ABSENT), True)
             for path in sorted(local)
             if not kind.is_secret(path) and _comparable(before.get(path, ABSENT))
             and fresh.get(path, ABSENT) != before.get(path, ABSENT)
             and fresh.get(path, ABSENT) != planned.get(path, ABSENT)]
    if moved:
        raise ChangedSincePlan(moved)
    out: dict[str, Any] = {}
    for path in {*planned, *fresh}:
        mine = planned.get(path, ABSENT)
        if path in local or kind.is_secret(path) or is_placeholder(mine):
            if mine is not ABSENT:
                out[path] = mine
            continue
        theirs = fresh.get(path, ABSENT)
        if _comparable(theirs):
            out[path] = theirs
        elif mine is not ABSENT and path not in before:
            out[path] = mine  # the plan sends it although nobody reported it (a field the kind fills in)
    return _body(kind, step.payload, out)


def verify(kind: Kind, step: Step, sent: Mapping[str, Any], fresh: Leaves, after: Leaves | None) -> list[Moved]:
    """What moved between the fresh read and the read after the write: ours (a change of this step the service
    does not hold) first, then theirs (a field this step did not change that someone else wrote meanwhile)."""
    if after is None:
        return [Moved("", "the resource", "present", ABSENT, True)]
    sent_leaves = _body_leaves(kind, sent)
    local = _local_paths(step)
    ours = [Moved(path, kind.label(path), sent_leaves[path], after.get(path, ABSENT), True)
            for path in sorted(local)
            if not kind.is_secret(path) and _comparable(sent_leaves.get(path, ABSENT))
            and not is_unknown(after.get(path, ABSENT))  # a write-only field: never reported, cannot be checked
            and after.get(path, ABSENT) != sent_leaves[path]]
    theirs = [Moved(path, kind.label(path), fresh.get(path, ABSENT), after.get(path, ABSENT), False)
              for path in sorted({*fresh, *after} - local)
              if not kind.is_secret(path) and (_comparable(fresh.get(path, ABSENT))
                                               or _comparable(after.get(path, ABSENT)))
              and fresh.get(path, ABSENT) != after.get(path, ABSENT)]
    return ours + theirs


__all__ = ["BODY_KEY", "READS", "ChangedSincePlan", "Moved", "ResourceGone", "read_leaves", "rebase", "rebases",
           "show_value", "verify"]
