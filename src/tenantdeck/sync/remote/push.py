"""The push executor: run a plan's operations against the service, safely resumable at any instant.

* Apps are independent and run as many at a time as the client's adaptive limit allows (starting at
  ``concurrency``); one app's operations run in plan order, and an operation whose dependency failed is not
  attempted.
* Before each create an ``intent`` line is journaled (fsync'd); after each success the base snapshot of that app is
  rewritten atomically with the resource as sent, then a ``done`` line is journaled. A created app's or widget's
  id is written into the draft (comment-preserving save) and the base right away.
* The next push first resolves open intents (:func:`resolve_intents`): an app by name, a widget by name within its
  app. Webhooks need no lookup (their id is ours) and updates need none (the three-way compare sees they landed).
  So a crash, ``kill -9`` or network loss at any point leaves a state from which pushing again finishes the job
  with no duplicate app, widget or webhook.
* A saved plan is checked for staleness first (:func:`stale_resources`): each touched resource's live fingerprint
  must still match.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tenantdeck.atomic import WriteFailed
from tenantdeck.sync import kinds
from tenantdeck.sync.compare import app_resources
from tenantdeck.sync.events import OnEvent, Pace, PushEvent
from tenantdeck.sync.placeholders import SecretUnavailable, is_placeholder, resolve_payload
from tenantdeck.sync.plan import Plan, fingerprint_leaves, resource_key
from tenantdeck.sync.remote import fresh
from tenantdeck.sync.render import step_label
from tenantdeck.sync.types import ABSENT, Leaves, Step, app_key_for, new_key, new_name
from tenantdeck.sync.workspace.journal import Intent, Journal, open_intents

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.models import Draft
    from tenantdeck.sync.workspace.state import Workspace


# -- results ---------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class OpResult:
    op: Step
    status: str  #: applied | failed | not_attempted
    reason: str = ""
    earlier: bool = False  #: applied by an earlier run of the same saved plan (journalled), not redone
    code: str = ""  #: a failure's kind where the next step depends on it (``ops.StepFailed.code``)


#: how many times a change of ours that a concurrent whole-object write overwrote is laid again on a fresh read
REAPPLY = 2


@dataclass(frozen=True, slots=True)
class LostUpdate:
    """A field that, read back after our write, does not hold what this push expected: ``ours`` — a change of
    ours another writer overwrote (still so after :data:`REAPPLY` attempts); otherwise a field this push did not
    change that another writer changed inside our read-write window (theirs may have been overwritten by ours)."""

    app: str
    resource: str
    path: str
    label: str
    expected: Any
    now: Any
    ours: bool

    def text(self) -> str:
        from tenantdeck.sync.remote.fresh import show_value

        where = f'app "{self.app}" {self.resource}: {self.label} ({self.path})' if self.path else \
            f'app "{self.app}" {self.resource}'
        if self.ours:
            return (f"lost update: {where}: this push set {show_value(self.expected)}, the service now holds "
                    f"{show_value(self.now)} (another writer overwrote it)")
        return (f"lost update: {where}: {show_value(self.expected)} before this push's write, "
                f"{show_value(self.now)} after it (another writer changed it meanwhile; check which value is meant)")

    def to_json(self) -> dict[str, Any]:
        """For the history: paths and whose, never values (a value may be anything a draft holds)."""
        return {"app": self.app, "resource": self.resource, "path": self.path, "ours": self.ours}


@dataclass(slots=True)
class PushResult:
    """What a push did, operation by operation, and what it learnt (ids) on the way."""

    results: list[OpResult] = field(default_factory=list)
    interrupted: bool = False
    #: set when the service stopped answering and the push stopped starting operations: the one-line reason
    stopped: str = ""
    #: things that went wrong after the service applied an operation (it stays applied): one line each
    warnings: list[str] = field(default_factory=list)
    app_ids: dict[str, str] = field(default_factory=dict)  #: app name -> id of each app created
    widget_ids: dict[tuple[str, str], str] = field(default_factory=dict)  #: (app, widget name) -> id created
    #: fields a verifying read after a write found changed by another writer (see :mod:`.fresh`)
    lost_updates: list[LostUpdate] = field(default_factory=list)
    #: set when a local write (journal, base) failed and the push stopped before its next request: the reason
    write_failed: str = ""

    def of(self, status: str) -> list[OpResult]:
        return [r for r in self.results if r.status == status]

    def counts(self) -> dict[str, int]:
        """Per status; ``already`` (added later, so ``applied`` keeps its meaning) is how many of the applied an
        earlier run of the same saved plan had applied: this run applied ``applied - already``."""
        return {**{s: len(self.of(s)) for s in ("applied", "failed", "not_attempted")},
                "already": sum(1 for r in self.results if r.earlier)}

    @property
    def complete(self) -> bool:
        return not self.interrupted and all(r.status == "applied" for r in self.results)

    def summary(self) -> str:
        c = self.counts()
        earlier = sum(1 for r in self.results if r.earlier)
        applied = f"{c['applied']} applied" + (f" ({earlier} by an earlier run)" if earlier else "")
        lines = [f"Push {'complete' if self.complete else 'incomplete'}: {applied}, "
                 f"{c['failed']} failed, {c['not_attempted']} not attempted."]
        for r in self.of("failed"):
            lines.append(f"  failed: {_describe(r.op)}: {r.reason}")
        for r in self.of("not_attempted"):
            lines.append(f"  not attempted: {_describe(r.op)}" + (f" ({r.reason})" if r.reason else ""))
        lines += [f"  {lost.text()}" for lost in self.lost_updates]
        lines += [f"  warning: {w}" for w in self.warnings]
        if self.stopped:
            lines.append(f"Stopped: {self.stopped}.")
        if not self.complete:
            lines.append(self._next_step())
        return "\n".join(lines)

    def _next_step(self) -> str:
        """What finishes an incomplete push. Running the same push again, unless a step failed because its input
        changed since the plan was made (a certificate file: :data:`~.ops.CHANGED_SINCE_PLAN`): that plan can only
        fail again (trial L, L10), so the way on is a new plan."""
        from tenantdeck.sync.remote.ops import CHANGED_SINCE_PLAN

        if any(r.code == CHANGED_SINCE_PLAN for r in self.of("failed")):
            return ("Make the plan again to finish (`tenantdeck plan -o FILE`, review it, push that file; or "
                    "`tenantdeck push`, which plans anew): a file changed since this plan was made, so this plan "
                    "can only fail again. What was applied is recorded and will not be redone.")
        return "Run the same push again to finish: what was applied is recorded and will not be redone."

    def to_json(self) -> dict[str, Any]:
        """The outcome as data for ``push --format json`` (docs/json-output.md): each operation by its plan key with
        its status, never a payload (they may carry ``${VAR}`` values once resolved)."""
        return {
            "complete": self.complete,
            "counts": self.counts(),
            "operations": [{"key": r.op.key, "kind": r.op.kind, "app": r.op.app_name, "app_id": r.op.app_id,
                            "what": step_label(r.op, app_named=False), "status": r.status, "reason": r.reason,
                            "earlier": r.earlier} for r in self.results],
            "created_apps": dict(self.app_ids),
            "lost_updates": [{**lost.to_json(), "label": lost.label} for lost in self.lost_updates],
            "warnings": list(self.warnings),
            "interrupted": self.interrupted,
            "stopped": self.stopped or None,
            "write_failed": self.write_failed or None,
        }


def _describe(op: Step) -> str:
    return f'app "{op.app_name}": {step_label(op, app_named=True)}'


# -- draft write-back -----------------------------------------------------------------------------------------------


class IdWriter(Protocol):
    """Writes ids into a draft someone has open (the editor's session), so they land as an edit of that session
    (one undo step, its saved text) instead of behind its back.

    Called with the file's text the ids were placed in and the ``(key path, id)`` edits; returns the text saved,
    or None when it cannot take them (the session has other unsaved edits, or has moved on from that text): the
    ids are then written into the file as the CLI writes them."""

    def __call__(self, text: str, edits: list[tuple[str, str]]) -> str | None: ...


class DraftIds:
    """Writes service-assigned ids into the draft file, keeping its comments (``tenantdeck.draft.save_draft``), or
    through the :class:`IdWriter` of the editor that has the draft open.

    A push collects every id it is assigned and calls :meth:`write` once, at the end (or when interrupted): a
    comment-preserving save of a large draft takes a while, and one per created object would cost k saves. Each
    write is recorded in the workspace (:meth:`Workspace.record_draft_write`) so a resumed saved plan knows the
    draft changed only by the tool's own hand. ``saves`` counts the files written (tests check it).
    """

    def __init__(self, path: Path, workspace: Workspace | None = None, writer: IdWriter | None = None) -> None:
        self.path = path
        self.workspace = workspace
        self.writer = writer
        self.saves = 0

    def write(self, *, app_ids: Mapping[str, str] | None = None,
              widget_ids: Mapping[tuple[str, str], str] | None = None) -> bool:
        """``app_ids``: app name -> id; ``widget_ids``: (app name, widget name) -> id. Missing names are ignored.

        Only apps without an id take one (an app that has an id is another app of the same name). Returns whether
        the file changed; raises ``OSError`` (or ``ProblemError``) when it cannot be written.
        """
        import hashlib

        from tenantdeck.draft import load_draft, save_draft
        from tenantdeck.rules import resolve_widget

        if not app_ids and not widget_ids:
            return False
        result = load_draft(self.path)
        draft = result.draft
        if draft is None:
            raise OSError(f"cannot re-read {self.path} to record new ids")
        edits: list[tuple[str, str]] = []  # key path -> id, for a writer that edits an open draft
        for i, app in enumerate(draft.apps):
            new_id = (app_ids or {}).get(app.name)
            if new_id and not app.id:
                app.id = new_id
                edits.append((f"apps[{i}].id", new_id))
            for j, widget in enumerate(app.widgets):
                if widget.id:
                    continue
                settings = resolve_widget(draft, widget)
                name = widget.name or (settings.name if settings else None)
                wid = (widget_ids or {}).get((app.name, name or ""))
                if wid:
                    widget.id = wid
                    edits.append((f"apps[{i}].widgets[{j}].id", wid))
        if not edits:
            return False
        before = result.doc.text or ""
        written = self.writer(before, edits) if self.writer is not None else None
        # no open draft to edit (the CLI), or it could not take them: into the file, comments kept
        after = written if written is not None else save_draft(self.path, draft, original_text=before, backup=False)
        self.saves += 1
        if self.workspace is not None:
            self.workspace.record_draft_write(hashlib.sha256(before.encode("utf-8")).hexdigest(),
                                              hashlib.sha256(after.encode("utf-8")).hexdigest())
        return True


# -- base bookkeeping -------------------------------------------------------------------------------------------------


def empty_app(app_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    return kinds.empty_app(app_id, payload["name"], payload["region"], payload.get("version", "3"))


def _fingerprinted(payload: Any, resolved: Any, secret_key: bytes) -> Any:
    """``payload`` with each placeholder replaced by the fingerprint of the value actually sent."""
    from tenantdeck.sync.canonical import secret_state_of_value

    if is_placeholder(payload):
        return secret_state_of_value(str(resolved), secret_key=secret_key)
    if isinstance(payload, Mapping):
        return {k: _fingerprinted(v, resolved[k], secret_key) for k, v in payload.items()}
    return payload


def apply_to_base(base: dict[str, Any] | None, op: Step, sent: Any, result: Mapping[str, Any],
                  draft_app: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The app's base after ``op`` succeeded: that resource replaced by what was sent (``sent`` has secrets as
    fingerprints). Returns None when the app itself was deleted. The step's kind knows how (:mod:`.kinds`)."""
    return kinds.kind_of_step(op.kind).apply(None if base is None else dict(base), op, sent, result)


# -- the executor ---------------------------------------------------------------------------------------------------


class Executor:
    """Runs one plan. ``base`` and ``live`` are canonical apps by id (live stands in for a missing base).

    ``already`` holds the journal's ``done`` records of earlier runs of this same plan (by operation key): those
    operations are counted as applied and not sent again, and a created app's id comes from its record.
    After ``gone_after`` consecutive transport failures (connection refused, timeouts) the service is taken to be
    gone: operations in flight finish, no new one starts, and the result says so.
    """

    def __init__(
        self,
        client: ManagementClient,
        plan: Plan,
        *,
        workspace: Workspace,
        draft: Draft | None,
        draft_apps: list[dict[str, Any]],
        env: Mapping[str, str],
        secret_key: bytes,
        base: Mapping[str, dict[str, Any]],
        live: Mapping[str, dict[str, Any]],
        journal: Journal,
        concurrency: int = 16,
        already: Mapping[str, Mapping[str, Any]] | None = None,
        gone_after: int = 3,
        service: str = "",
        on_event: OnEvent | None = None,
        current_op: contextvars.ContextVar[Step | None] | None = None,
        result: PushResult | None = None,
    ) -> None:
        self.client = client
        self.plan = plan
        self.workspace = workspace
        self.draft = draft
        #: by app key (id, or ``new:<name>``): two apps may share a name when they have ids
        self.draft_apps = {app_key_for(a.get("id"), a["name"]): a for a in draft_apps}
        self.env = env
        self.secret_key = secret_key
        self.base = dict(base)
        self.live = live
        self.journal = journal
        self.concurrency = max(1, concurrency)
        self.on_event = on_event
        self.current_op = current_op
        self.already = dict(already or {})
        self.gone_after = max(1, gone_after)
        self.service = service or getattr(client, "base_url", "the service")
        self.result = result if result is not None else PushResult()
        self._statuses: dict[str, str] = {}
        self._transport_failures = 0

    async def run(self) -> PushResult:
        groups: dict[str, list[Step]] = {}
        for op in self.plan.operations:
            groups.setdefault(op.app_key, []).append(op)
        gate = _Gate(self._apps_at_once)
        self.journal.write("start", plan_hash=self.plan.plan_hash(), plan_id=self.plan.plan_id,
                           operations=len(self.plan.operations),
                           counts=self.plan.counts())

        async def one(ops: list[Step]) -> None:
            async with gate:
                await self._run_app(ops)

        try:
            async with asyncio.TaskGroup() as tg:
                for ops in groups.values():
                    tg.create_task(one(ops))
        except asyncio.CancelledError:
            self.result.interrupted = True
            raise
        finally:
            done = {r.op.key for r in self.result.results}
            for op in self.plan.operations:
                if op.key not in done:
                    self._record(op, "not_attempted", "interrupted" if self.result.interrupted else "")
            with contextlib.suppress(OSError):  # a full disk: the history (next) says how the push ended
                self.journal.write("end", interrupted=self.result.interrupted, counts=self.result.counts(),
                                   stopped=self.result.stopped or None)
        return self.result

    async def _run_app(self, ops: list[Step]) -> None:
        app_id = ops[0].app_id
        state = self.base.get(app_id) if app_id else None
        if state is None and app_id:
            state = self.live.get(app_id)
        for op in ops:
            record = self.already.get(op.key)
            if record is not None:
                if op.kind == "create_app" and isinstance(record.get("app_id"), str):
                    app_id = record["app_id"]
                    # the earlier run may have been stopped before it recorded the new app's base
                    state = self.base.get(app_id) or self.live.get(app_id) or empty_app(app_id, op.payload)
                self._record(op, "applied", "applied by an earlier run", earlier=True)
                continue
            if self.result.stopped:
                self._record(op, "not_attempted", "the service stopped answering")
                continue
            blocked = [d for d in op.depends_on if self._statuses.get(d) != "applied"]
            if blocked:
                self._record(op, "not_attempted", f"needs {blocked[0]} first")
                continue
            try:
                outcome = await self._run_one(op, app_id, state)
            except asyncio.CancelledError:
                raise
            except WriteFailed as exc:  # the intent line could not be written: this create was not sent
                self._stop_on_write(exc)
                self._record(op, "not_attempted", str(exc))
                continue
            except Exception as exc:  # ApiError, StepFailed, SecretUnavailable: one line each
                reason = _one_line(exc)
                self._note_failure(exc)
                with contextlib.suppress(OSError):
                    await self.journal.record("failed", op=op.key, kind=op.kind, app_id=app_id,
                                              app_name=op.app_name, rid=op.rid, error=reason)
                self._record(op, "failed", reason, error=exc)
                continue
            self._transport_failures = 0
            app_id, state = outcome
            self._record(op, "applied")

    def _apps_at_once(self) -> int:
        """Apps in flight: as many as the client's adaptive limit allows requests (an app sends one at a time), so
        the limit's growth and shrinking (:class:`~tenantdeck.api.ratelimit.Limiter`) pace the push, and an app's
        write is never queued behind other apps' between its read and its PUT (issue 19's window)."""
        limits = getattr(self.client, "limits", None)
        return max(1, limits.limit) if limits is not None else self.concurrency

    def _stop_on_write(self, exc: OSError) -> None:
        """A local record could not be written (disk full): start no further request, since its journal line or
        base could not be kept either; what is in flight finishes. The next push, once there is space, resumes."""
        if not self.result.write_failed:
            self.result.write_failed = str(exc)
            self.result.stopped = f"{exc}; nothing more was sent; free space and run push again"
            self._emit(PushEvent("stopped", message=self.result.stopped))

    def _note_failure(self, exc: BaseException) -> None:
        """Count transport failures in a row; past ``gone_after`` the service is taken to be gone."""
        from tenantdeck.api.errors import TransportError

        if not isinstance(exc, TransportError):
            self._transport_failures = 0
            return
        self._transport_failures += 1
        if self._transport_failures >= self.gone_after and not self.result.stopped:
            where = self.service.split("://", 1)[-1]
            self.result.stopped = f"the service at {where} stopped answering; run the same push again"
            self._emit(PushEvent("stopped", message=self.result.stopped))

    async def _run_one(self, op: Step, app_id: str | None,
                       state: dict[str, Any] | None) -> tuple[str | None, dict[str, Any] | None]:
        """Send one operation. Once the service has applied it, it *is* applied: what fails afterwards (the base
        or journal write) is a warning, never a failure that would invite a duplicate create."""
        from tenantdeck.sync.remote.ops import attach_files, run_operation

        kind = kinds.kind_of_step(op.kind)
        rebased = app_id is not None and fresh.rebases(kind, op)
        if self.current_op is not None:
            self.current_op.set(op)
        self._emit(PushEvent("started", op=op, done=len(self.result.results), total=len(self.plan.operations)))
        body, before = op.payload, None
        if rebased:
            assert app_id is not None
            body, before = await self._rebase(kind, op, app_id)
        payload = await resolve_payload(body, draft=self.draft, env=self.env, app_id=app_id,
                                        live_secret=self._live_secret)
        payload = attach_files(op, payload, folder=self.draft.folder if self.draft is not None else None,
                               env=self.env, secret_key=self.secret_key)
        name = op.payload.get("name") or (op.payload.get("settings") or {}).get("name") or ""
        if kinds.step_kind(op.kind).creates:
            await self.journal.record("intent", op=op.key, kind=op.kind, app_id=app_id, app_name=op.app_name,
                                      rid=op.rid, name=name)
        result = await run_operation(self.client, op, app_id, payload)
        # -- applied on the service from here on --
        if rebased:
            assert app_id is not None and before is not None
            body = await self._verify(kind, op, app_id, body, before)
        if op.kind == "create_app":
            app_id = result["app_id"]
            self.result.app_ids[op.app_name] = result["app_id"]
            self._emit(PushEvent("id_assigned", op=op, app_id=app_id))
        if op.kind == "create_widget":
            self.result.widget_ids[(op.app_name, str(name))] = result["widget_id"]
            self._emit(PushEvent("id_assigned", op=op, app_id=app_id, widget_id=result["widget_id"]))
        assert app_id is not None
        try:
            await self.journal.record("done", op=op.key, kind=op.kind, app_id=app_id, app_name=op.app_name,
                                      rid=op.rid, name=name, widget_id=result.get("widget_id"))
        except OSError as exc:
            self.result.warnings.append(f"{_describe(op)}: applied, but the journal could not record it ({exc})")
            self._stop_on_write(exc)
        sent = _fingerprinted(body, payload, self.secret_key)
        new_state = apply_to_base(state, op, sent, result, self.draft_apps.get(op.app_key))
        try:
            if new_state is None:
                await asyncio.to_thread(self.workspace.delete_base_app, app_id)
            else:
                await asyncio.to_thread(self.workspace.write_base_app, app_id, new_state)
        except OSError as exc:
            self.result.warnings.append(f"{_describe(op)}: applied, but the base snapshot could not be updated "
                                        f"({exc}); the next push compares it again")
            self._stop_on_write(exc)
        return app_id, new_state

    async def _rebase(self, kind: kinds.Kind, op: Step, app_id: str) -> tuple[dict[str, Any], Leaves]:
        """The step's body laid on a read taken now (see :mod:`.fresh`), and that read."""
        now = await fresh.read_leaves(self.client, kind, app_id, op.rid, secret_key=self.secret_key)
        if now is None:
            raise fresh.ResourceGone()
        return fresh.rebase(kind, op, self.plan.snapshots.get(resource_key(op)), now), now

    async def _verify(self, kind: kinds.Kind, op: Step, app_id: str, body: dict[str, Any],
                      before: Leaves) -> dict[str, Any]:
        """Read the resource back after its write. A change of ours the service no longer holds was overwritten by
        a concurrent whole-object write: lay it again on a fresh read (up to ``REAPPLY`` times). When ours still
        does not hold, that and every other field that moved since our read are lost updates, reported with both
        values. Fields that moved while ours held were written by someone who had read ours: newer, kept, not
        reported. Returns the body last sent."""
        from tenantdeck.sync.remote.ops import run_operation

        for attempt in range(REAPPLY + 1):
            after = await fresh.read_leaves(self.client, kind, app_id, op.rid, secret_key=self.secret_key)
            moved = fresh.verify(kind, op, body, before, after)
            if not any(m.ours for m in moved) or after is None or attempt == REAPPLY:
                break
            self._emit(PushEvent("reapplied", op=op, message="another writer overwrote this change; laid again"))
            try:
                body = fresh.rebase(kind, op, self.plan.snapshots.get(resource_key(op)), after)
            except fresh.ChangedSincePlan as exc:
                moved = exc.moved
                break
            before = after
            payload = await resolve_payload(body, draft=self.draft, env=self.env, app_id=app_id,
                                            live_secret=self._live_secret)
            await run_operation(self.client, op, app_id, payload)
        if not any(m.ours for m in moved):
            # ours held: whoever wrote the other fields since had read ours first, so theirs is newer, not lost
            moved = []
        for m in moved:
            lost = LostUpdate(op.app_name, op.resource, m.path, m.label, m.expected, m.now, m.ours)
            self.result.lost_updates.append(lost)
            self._emit(PushEvent("lost_update", op=op, message=lost.text()))
            with contextlib.suppress(OSError):
                await self.journal.record("lost_update", op=op.key, app_id=app_id, rid=op.rid, path=m.path,
                                          ours=m.ours)
        return body

    async def _live_secret(self, app_id: str, field_path: str) -> str | None:
        """The service's current value of a secret an update sends unchanged: read back the way the kind that holds
        it allows (``ops.SECRET_READS``: the SMS API reports its token; a webhook's password is never reported)."""
        from tenantdeck.models.app import secret_field_of
        from tenantdeck.sync.kinds import KINDS
        from tenantdeck.sync.remote.ops import read_secret

        secret = secret_field_of(field_path)
        # a secret under a key the catalog does not know (an extension's setting named like one) is not a field of
        # the catalog: its section is the path's first part, and the kind reads it back as it reads its own
        section = secret[0].section if secret is not None else field_path.partition(".")[0]
        found = next((k for k in KINDS if k.section == section and k.secret_fields), None)
        return None if found is None else await read_secret(self.client, found.name, app_id, field_path)

    def _record(self, op: Step, status: str, reason: str = "", *, earlier: bool = False,
                error: BaseException | None = None) -> None:
        from tenantdeck.api.errors import ApiError

        self._statuses[op.key] = status
        from tenantdeck.sync.remote.ops import StepFailed

        code = error.code if isinstance(error, StepFailed) else ""
        self.result.results.append(OpResult(op, status, reason, earlier, code))
        self._emit(PushEvent(status, op=op, message=reason, earlier=earlier,  # type: ignore[arg-type]
                             error=error if isinstance(error, ApiError) else None,
                             done=len(self.result.results), total=len(self.plan.operations),
                             counts=self.result.counts()))

    def _emit(self, event: PushEvent) -> None:
        if self.on_event is not None:
            limits = getattr(self.client, "limits", None)
            if event.pace is None and limits is not None:
                event = dataclasses.replace(event, pace=Pace(limits.limit, limits.throttled, limits.remaining))
            self.on_event(event)


class _Gate:
    """A semaphore whose size is read anew at each entry (``size()``), so it follows an adaptive limit."""

    def __init__(self, size: Callable[[], int]) -> None:
        self._size = size
        self._inside = 0
        self._cond = asyncio.Condition()

    async def __aenter__(self) -> None:
        async with self._cond:
            await self._cond.wait_for(lambda: self._inside < self._size())
            self._inside += 1

    async def __aexit__(self, *exc: object) -> None:
        async with self._cond:
            self._inside -= 1
            self._cond.notify_all()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# -- resuming: open intents ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Resolution:
    app_ids: dict[str, str] = field(default_factory=dict)
    widget_ids: dict[tuple[str, str], str] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


async def resolve_intents(
    client: ManagementClient,
    workspace: Workspace,
    draft_apps: list[dict[str, Any]],
    base: dict[str, dict[str, Any]],
    *,
    secret_key: bytes,
) -> Resolution:
    """Find creates that may have landed without their id being recorded, and adopt what the service has.

    Only intents whose object the draft still lacks an id for are looked up, so a finished push costs nothing.
    """
    from tenantdeck.sync.canonical import normalise_widget_settings

    res = Resolution()
    intents: list[Intent] = open_intents(workspace.journal_dir)
    # an app to create is known by its name (unique among apps without id); a created one by its id
    by_name = {a["name"]: a for a in draft_apps if not a.get("id")}
    by_id = {a["id"]: a for a in draft_apps if a.get("id")}
    for intent in intents:
        app = by_id.get(intent.app_id) if intent.app_id else None
        app = app or by_name.get(intent.app_name)
        if app is None:
            continue
        if intent.kind == "create_app" and not app.get("id"):
            found = await client.find_apps_by_name(intent.app_name)
            if found:
                chosen = sorted(found, key=lambda a: (a.created_at or 0, a.id))[0]
                res.app_ids[intent.app_name] = chosen.id
                if chosen.id not in base:
                    payload = {"name": chosen.name, "region": chosen.region, "version": chosen.version or "3"}
                    base[chosen.id] = empty_app(chosen.id, payload)
                    workspace.write_base_app(chosen.id, base[chosen.id])
                res.messages.append(f'app "{intent.app_name}": an earlier push created it as {chosen.id}; adopted')
        elif intent.kind == "create_widget" and intent.app_id:
            key = new_key(intent.name)
            if key not in (app.get("widgets") or {}):
                continue  # the draft already carries its id
            known = set(app.get("widgets") or {})  # ids the draft has; one only in the base may be this create
            widgets = [w for w in await client.list_widgets(intent.app_id)
                       if w.settings.get("name") == intent.name and w.widget_id not in known]
            if widgets:
                wid = widgets[0].widget_id
                res.widget_ids[(intent.app_name, intent.name)] = wid
                state = dict(base.get(intent.app_id) or kinds.empty_app(intent.app_id, intent.app_name,
                                                                         app["region"], app["version"]))
                state["widgets"] = {**(state.get("widgets") or {}), wid: normalise_widget_settings(widgets[0].settings)}
                base[intent.app_id] = state
                workspace.write_base_app(intent.app_id, state)
                res.messages.append(f'app "{intent.app_name}": widget "{intent.name}" was created as {wid} by an '
                                    "earlier push; adopted")
    await _adopt_recorded(client, workspace, by_name, by_id, base, res)
    return res


async def _adopt_recorded(client: ManagementClient, workspace: Workspace, by_name: Mapping[str, dict[str, Any]],
                          by_id: Mapping[str, dict[str, Any]], base: dict[str, dict[str, Any]],
                          res: Resolution) -> None:
    """Adopt creates the journal records as applied whose id never reached the draft (its write-back failed).

    Each is checked against the service first: an app deleted there since is not adopted.
    """
    from tenantdeck.sync.workspace.journal import recorded_creates

    for rec in recorded_creates(workspace.journal_dir):
        app = by_id.get(rec.app_id) if rec.kind == "create_widget" else None
        app = app or by_name.get(rec.app_name)
        if app is None:
            continue
        if rec.kind == "create_app" and not app.get("id") and rec.app_name not in res.app_ids:
            found = [a for a in await client.find_apps_by_name(rec.app_name) if a.id == rec.app_id]
            if not found:
                continue
            res.app_ids[rec.app_name] = rec.app_id
            if rec.app_id not in base:
                chosen = found[0]
                payload = {"name": chosen.name, "region": chosen.region, "version": chosen.version or "3"}
                base[rec.app_id] = empty_app(rec.app_id, payload)
                workspace.write_base_app(rec.app_id, base[rec.app_id])
            res.messages.append(f'app "{rec.app_name}": created as {rec.app_id} by an earlier push (its id did not '
                                "reach the draft then); adopted")
        elif rec.kind == "create_widget" and rec.widget_id and new_key(rec.name) in (app.get("widgets") or {}):
            if (rec.app_name, rec.name) in res.widget_ids:
                continue
            app_id = app.get("id") or res.app_ids.get(rec.app_name)
            if app_id != rec.app_id:
                continue
            if not any(w.widget_id == rec.widget_id for w in await client.list_widgets(rec.app_id)):
                continue
            res.widget_ids[(rec.app_name, rec.name)] = rec.widget_id
            res.messages.append(f'app "{rec.app_name}": widget "{rec.name}" was created as {rec.widget_id} by an '
                                "earlier push; adopted")


# -- saved plans: staleness ------------------------------------------------------------------------------


@dataclass(slots=True)
class Stale:
    resource: str
    app: str
    fields: list[str]

    def text(self) -> str:
        moved = ", ".join(self.fields) if self.fields else "it changed"
        return f'app "{self.app}" {self.resource}: changed on the service since the plan was made ({moved})'


def stale_resources(plan: Plan, live: Mapping[str, Mapping[str, Any]],
                    label_of: Callable[[str, str], str] | None = None,
                    done: Iterable[str] = ()) -> list[Stale]:
    """Touched resources whose live fingerprint no longer matches the plan's (with the fields that moved).

    ``done``: resource keys an earlier run of this plan already changed (journalled): that change is the plan's
    own progress, not someone else's.
    """
    from tenantdeck.sync.kinds import label

    titles = {resource_key(op): (op.resource, op.app_name) for op in plan.operations}
    out: list[Stale] = []
    cache: dict[str, dict[Any, Any]] = {}
    skip = set(done)
    for key, expected in plan.fingerprints.items():
        if key in skip:
            continue
        app_key, _, res = key.partition("/")
        kind, _, rid = res.partition(":")
        title, app_name = titles.get(key, (res, app_key))
        if new_name(app_key) is not None:
            continue
        app = live.get(app_key)
        if app is None:
            out.append(Stale("app", app_name, ["the app is gone"]))
            continue
        if app_key not in cache:
            cache[app_key] = app_resources(app)
        current = cache[app_key].get((kind, rid))
        if kind == "widget" and (widget_name := new_name(rid)) is not None:
            names = {w.get("name") for w in (app.get("widgets") or {}).values()}
            if widget_name in names:
                out.append(Stale(title, app_name, [f"a widget named {widget_name!r} now exists"]))
            continue
        if fingerprint_leaves(current) == expected:
            continue
        before = plan.snapshots.get(key)
        fields: list[str] = []
        if isinstance(before, dict) and isinstance(current, dict):
            for path in sorted(set(before) | set(current)):
                if before.get(path, ABSENT) != current.get(path, ABSENT):
                    fields.append(f"{(label_of or label)(kind, path)} ({path})")
        elif current is None:
            fields.append("deleted")
        else:
            fields.append("created")
        out.append(Stale(title, app_name, fields))
    return out


__all__ = ["DraftIds", "Executor", "IdWriter", "PushResult", "SecretUnavailable", "resolve_intents", "stale_resources"]
