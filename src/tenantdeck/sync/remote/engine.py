"""Push as data: prepare a plan (or check a saved one), then run it, reporting every step as an event.

Nothing here prints, prompts or exits: the CLI (:mod:`tenantdeck.cli.push_flow`) and the TUI render the same
:class:`Prepared`, :class:`PushRefused` and :class:`PushEvent` values, and decide what to ask and which exit code
fits. The split is where a human reviews: :func:`prepare_push` reads the service and returns the plan to confirm;
:func:`push` runs exactly that plan.

Fresh push: validate the draft; check the files a push writes are writable; resolve open intents of an earlier
interrupted push; read the live state; record in the base what draft and live already agree on; compare three
ways; refuse conflicts and same-name creates; check every ``${VAR}`` the plan sends is set and acceptable.
Saved plan: the same checks, and the plan's resources must not have moved on the service (stale), except by this
plan's own journalled progress.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tenantdeck.problems import Problem, ProblemError, error, has_errors, strict
from tenantdeck.sync.advance import advance_app, advanced_bases
from tenantdeck.sync.events import OnEvent, PushEvent
from tenantdeck.sync.names import (
    adoptable,
    adoptable_widgets,
    clash_conflicts,
    clashes,
    live_names,
    new_app_names,
    webhook_clashes,
)
from tenantdeck.sync.placeholders import placeholders_in
from tenantdeck.sync.plan import Plan, resource_key
from tenantdeck.sync.preflight import secret_value_problems
from tenantdeck.sync.remote.fetch import fetch_live, fetch_live_for_push, fetch_rest, managed_extensions
from tenantdeck.sync.remote.planfile import PlanFileInvalid, read_plan, secret_sources
from tenantdeck.sync.remote.push import (
    DraftIds,
    Executor,
    IdWriter,
    PushResult,
    Stale,
    resolve_intents,
    stale_resources,
)
from tenantdeck.sync.settle import Choice
from tenantdeck.sync.types import Conflict, Step
from tenantdeck.sync.workspace.history import append_record, operations_record
from tenantdeck.sync.workspace.journal import Journal, completed_ops
from tenantdeck.sync.workspace.local import (
    DraftInvalid,
    Local,
    TargetIds,
    compare_local,
    load_local,
    plan_local,
    reload_local,
    settle_conflicts,
)
from tenantdeck.sync.workspace.state import unwritable

if TYPE_CHECKING:
    from tenantdeck.draft.load import LoadResult
    from tenantdeck.sync.types import Note
    from tenantdeck.sync.workspace.offline import AppStates
    from tenantdeck.targets import Target

__all__ = ["Gate", "OnEvent", "Prepared", "PushEvent", "PushRefused", "PushRequest", "PushResult", "op_identity",
           "prepare_push", "push", "retry_scope", "unfinished_ops"]

RefusalKind = Literal["invalid_plan_file", "invalid_draft", "unwritable", "conflicts", "refused_values", "stale_plan",
                      "missing_secrets", "refused_secrets", "wrong_target", "policies", "policy_violations",
                      "credentials_refused", "service_error"]


class Gate(Protocol):
    """What the engine asks of the fleet policies (:class:`tenantdeck.policies.gate.FleetGate`). The engine takes
    the gate as a parameter and never imports the policies: they read this package's vocabulary (steps, the
    workspace, the canonical apps), so they sit above it (``tests/test_layers.py`` holds the packages' order)."""

    def sections_read(self) -> frozenset[str] | None:
        """The sections of every other app of the account the rules read; None: no rule runs."""

    def notes(self, local: Local, plan: Plan, now: Mapping[str, Mapping[str, Any]], order: Sequence[str]
              ) -> list[Note]:
        """The plan's notes: the rules' verdict on the account after ``plan`` (``now``: the apps as they are)."""

    def verdict(self, local: Local, plan: Plan, now: Mapping[str, Mapping[str, Any]], order: Sequence[str],
                allow: Sequence[str]) -> PushRefused | list[Any]:
        """A refusal when the push would break an error rule not in ``allow``, else the violations let through."""


@dataclass(slots=True)
class PushRefused:
    """Why nothing was pushed. ``problems`` are located (FILE:LINE); ``lines`` are one-line reasons."""

    kind: RefusalKind
    summary: str
    problems: list[Problem] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    plan: Plan | None = None
    stale: list[Stale] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: ``policy_violations``: the error rules the push would leave broken (each UI says its own way through)
    rules: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Why nothing was pushed, as data (``push --format json``); the plan, when there is one, is beside it."""
        return {"kind": self.kind, "summary": self.summary, "lines": list(self.lines),
                "problems": [p.to_json() for p in self.problems], "notices": list(self.notices)}


@dataclass(slots=True)
class PushRequest:
    """What the user asked for (the CLI's flags, the TUI's toggles)."""

    draft_path: Path | None = None
    plan_file: Path | None = None
    concurrency: int = 16
    allow_delete: bool = False
    retry_base_delay: float | None = None  #: tests make retries fast
    adopt_existing: bool = False  #: an app to create whose name the service has (once) is that app
    allow_duplicate_names: bool = False  #: create it anyway, beside the one of the same name
    gone_after: int = 3  #: consecutive connection failures after which the service is taken to be gone
    choice: Choice | None = None  #: conflicts settled field by field (--take-mine / --take-theirs)
    max_retries: int | None = None  #: retries per request (429, 5xx, connection); None: the client's default
    #: a retry of an earlier push's failures (:func:`retry_scope`): only these operations are sent
    only: frozenset[tuple[str, str, str]] | None = None
    #: push to the target even though the draft's base was taken from another account (its base is set aside)
    rebind: bool = False
    #: where an app has no base (a fresh clone without the lock file): which side wins; None: a conflict
    prefer: Literal["draft", "live"] | None = None
    #: the editor that has the draft open writes new ids as an edit of its session (its undo history keeps them)
    id_writer: IdWriter | None = None
    #: the fleet policies the account must keep after the push (``<draft>.policies.yaml``, made by
    #: :func:`tenantdeck.policies.gate.push_gate`); None: none checked
    gate: Gate | None = None
    #: rules whose error violations the user lets through (``--allow-violation RULE``), and why (``--reason``)
    allow_violations: tuple[str, ...] = ()
    violation_reason: str = ""
    #: ``--strict``: a literal secret in the draft refuses the push (:data:`tenantdeck.problems.STRICT_CODES`)
    strict: bool = False


@dataclass(slots=True)
class Prepared:
    """A plan ready to confirm and run, with everything :func:`push` needs to run it safely."""

    plan: Plan
    local: Local
    live: dict[str, dict[str, Any]]
    request: PushRequest
    #: operation key -> journal record of this plan's operations an earlier run applied (saved plans)
    already: dict[str, Any] = field(default_factory=dict)
    #: things the user should read before confirming: adopted objects, unset-but-unused variables, a changed draft
    notices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the draft's warnings only a push can see (a ``${VAR}`` unset and not sent: :func:`unset_but_unused`), located
    #: as every problem of the draft is (``FILE:LINE:COL: warning:``)
    draft_warnings: list[Problem] = field(default_factory=list)
    #: error violations of the fleet policies let through by ``--allow-violation`` (recorded in the history)
    allowed_violations: list[Any] = field(default_factory=list)

    @property
    def pending(self) -> int:
        """Operations this push will send (a resumed saved plan skips what an earlier run applied)."""
        return len(self.plan.operations) - len(self.already)


def _client_kwargs(request: PushRequest, *, reads: bool = True) -> dict[str, Any]:
    """The client's options: reading the live state queues four times the apps' requests (several reads per app
    at once); the push itself starts at ``concurrency`` requests in flight and adapts from there (its executor runs
    as many apps as the client's limit allows)."""
    kw: dict[str, Any] = {"concurrency": max(request.concurrency * 4, 16) if reads else request.concurrency}
    if request.retry_base_delay is not None:
        kw["retry_base_delay"] = request.retry_base_delay
    if request.max_retries is not None:
        kw["max_retries"] = request.max_retries
    return kw


def op_identity(op: Step) -> tuple[str, str, str]:
    """What names an operation across two plans of the same draft: its app (by name: a created app's id is new),
    its kind and its resource id (a widget to create keeps ``new:<name>`` until it exists)."""
    return (op.app_name, op.kind, op.rid)


def unfinished_ops(result: PushResult) -> frozenset[tuple[str, str, str]]:
    """The identities of the operations a push did not apply (failed or not attempted): what a retry sends."""
    return frozenset(op_identity(r.op) for r in result.results if r.status != "applied")


def retry_scope(plan: Plan, only: frozenset[tuple[str, str, str]]) -> tuple[Plan, int]:
    """``plan`` (made afresh from the base and journal an earlier push left) cut down to the operations ``only``
    names, plus what they depend on; returns it and how many other operations were left for a full push.

    Made afresh, not replayed: what the earlier push applied is in the base and on the service, so it is not in
    the new plan at all, and no create can be sent twice (open intents were resolved first).
    """
    keep = {op.key for op in plan.operations if op_identity(op) in only}
    by_key = {op.key: op for op in plan.operations}
    todo = list(keep)
    while todo:
        for dep in by_key[todo.pop()].depends_on:
            if dep in by_key and dep not in keep:
                keep.add(dep)
                todo.append(dep)
    ops = [op for op in plan.operations if op.key in keep]
    scoped = replace(plan, operations=ops,
                     fingerprints={k: v for k, v in plan.fingerprints.items()
                                   if any(resource_key(op) == k for op in ops)})
    return scoped, len(plan.operations) - len(ops)


def _read_plan(path: Path, target: Target) -> Plan | PushRefused:
    """The saved plan at ``path``, or why it cannot be pushed (:mod:`.planfile`: its shape, its hash, its signature
    with ``target``'s credentials, and each payload against what the plan shows). Before any request."""
    try:
        return read_plan(path, key=target.plan_key())
    except PlanFileInvalid as exc:
        if exc.unreadable:
            return PushRefused("invalid_plan_file", exc.lines[0])
        return PushRefused("invalid_plan_file", f"{path} cannot be pushed; nothing was pushed (make the plan "
                           "again with `tenantdeck plan -o FILE`)", lines=exc.lines)


async def prepare_push(target: Target, request: PushRequest, env: Mapping[str, str], *,
                       local: Local | None = None,
                       reading: Callable[[], None] | None = None) -> Prepared | PushRefused:
    """Read the draft and the service and return the plan to confirm, or why nothing can be pushed.

    The draft is read as ``target``'s profile sees it (its section of the targets file, if any); ``local``: the
    desired state already made (``promote``: what the source account has), pushed the same way. ``reading`` is
    called once the draft is accepted, just before the first request (a CLI says "Reading the service" then, not
    before a refusal that never reads it)."""
    plan_in: Plan | None = None
    if request.plan_file is not None:
        read = _read_plan(request.plan_file, target)
        if isinstance(read, PushRefused):
            return read
        plan_in = read
    draft_path = request.draft_path or (Path(plan_in.draft_path) if plan_in else Path("tenantdeck.yaml"))
    try:
        if local is None:
            local = load_local(draft_path, env, key=target.fingerprint_key(), profile=target.name)
    except DraftInvalid as exc:
        return PushRefused("invalid_draft", f"{draft_path} is not valid; nothing was pushed", problems=exc.problems)
    if request.strict and has_errors(strict(local.warnings)):
        return PushRefused("invalid_draft", f"{draft_path} is not valid under --strict (a secret is written as a "
                           "value); nothing was pushed", problems=strict(local.warnings))
    if (plan_in is not None and request.draft_path is None and plan_in.draft_sha256
            and not local.workspace.written_by_tool(plan_in.draft_sha256, local.sha256)):
        # the plan's own draft_path chose the draft, and so the workspace whose base, journal and history the push
        # writes: it must be the draft the plan was made from. An edited draft_path pushed the plan and advanced
        # another workspace's base, whose next push then reverted the change (trial J, J10)
        return PushRefused("invalid_plan_file", f"{request.plan_file} cannot be pushed; nothing was pushed", lines=[
            f"{request.plan_file}: draft_path: {draft_path} is not the draft this plan was made from (its content "
            "is not what `tenantdeck plan` read, nor that with tenantdeck's own writes since): make the plan again, "
            "or name the draft to push it with (--draft)"])
    if plan_in is not None and (sources := secret_sources(plan_in, local.draft)):
        return PushRefused("invalid_plan_file", f"{request.plan_file} cannot be pushed; nothing was pushed",
                           lines=[f"{request.plan_file}: {line}" for line in sources])
    local.prefer = request.prefer
    blocked = unwritable(local.path, local.workspace)
    if blocked:
        return PushRefused("unwritable", "nothing was pushed; make these writable, then push again", lines=blocked)
    from tenantdeck.sync.remote.rekey import check_key
    from tenantdeck.sync.workspace.binding import identity_of

    keyed = await check_key(target, local.workspace) if not request.rebind else None
    if keyed is not None and keyed.refused:
        return PushRefused("credentials_refused", "nothing was pushed", lines=[keyed.refused])
    wrong = _wrong_target(local, target, request.rebind, plan_in)
    if wrong is not None:
        return wrong
    notices: list[str] = [keyed.notice] if keyed is not None and keyed.notice else []
    warnings: list[str] = []
    ids = ids_for(local, request.id_writer)
    if reading is not None:
        reading()
    async with target.client(**_client_kwargs(request)) as client:
        resolution = await resolve_intents(client, local.workspace, local.apps, local.base, secret_key=local.secret_key)
        notices += resolution.messages
        if resolution.app_ids or resolution.widget_ids:
            local = _write_ids(ids, local, env, warnings, app_ids=resolution.app_ids,
                               widget_ids=resolution.widget_ids)
        listing = await client.list_apps()
        if plan_in is None and not local.workspace.lock_path.exists():
            # the committed base, updated after each operation: written once the account answered (a run that
            # could not reach it leaves no lock file behind to commit)
            local.workspace.write_lock(local.base, identity_of(target))
        names = live_names(listing)
        already: dict[str, Any] = {}
        if plan_in is None:
            found = clashes(local.apps, names)
            adopt: dict[str, str] = {}
            if found and request.adopt_existing:
                adopt = adoptable(found, (a["id"] for a in local.apps if a.get("id")))
                notices += [f'app "{name}": adopting the service\'s app {app_id} of the same name (--adopt-existing)'
                            for name, app_id in adopt.items()]
                local = _write_ids(ids, local, env, warnings, app_ids=adopt)
                local.prefer_apps.update(dict.fromkeys(adopt.values(), "draft"))  # adopted: the draft is pushed
                found = clashes(local.apps, names)
            live = await fetch_live_for_push(client, local, concurrency=request.concurrency * 4, listing=listing,
                                             sections=_sections(request.gate))
            local, held_elsewhere = _adopt_contents(ids, local, live, set(adopt.values()), env, warnings, notices)
            local.prefer = request.prefer
            comparison = compare_local(local, live)
            if request.choice:  # with no conflict at all a named key is still said to name none (trial J, J12)
                prefer_apps = local.prefer_apps
                local, settled = settle_conflicts(local, comparison.conflicts, request.choice, env)
                notices += settled.done
                warnings += settled.refused
                local.prefer, local.prefer_apps = request.prefer, prefer_apps
                comparison = compare_local(local, live)
            advanced = _advance(local, advanced_bases(comparison))
            plan = plan_local(local, comparison, allow_delete=request.allow_delete, profile=target.name,
                              base_url=target.base_url)
            if request.only is not None:
                plan, left = retry_scope(plan, request.only)
                if left:
                    notices.append(f"{left} other operation(s) of the draft are left for a full push")
            plan.existing_names = {n: names[n] for n in new_app_names(local.apps) if n in names}
            if found and not request.allow_duplicate_names:
                plan.conflicts.extend(clash_conflicts(found, local.view))
            plan.conflicts.extend(held_elsewhere)
            if invalid := plan.refused:
                return PushRefused("refused_values", f"{len(invalid)} value(s) of the draft a push cannot send; fix "
                                   "them in the draft, then push again.", plan=plan, notices=notices,
                                   lines=without_base(plan, local))
            if plan.conflicts:
                return PushRefused("conflicts", f"{len(plan.conflicts)} conflict(s): the draft and the service "
                                   "changed the same settings differently. Settle them in the draft (or pull), then "
                                   "push again.", plan=plan, notices=notices, lines=without_base(plan, local))
        else:
            plan = plan_in
            already = completed_ops(local.workspace.journal_dir, plan.plan_id)
            already.update(_adopted_ops(plan, resolution))
            if plan.draft_sha256 and not local.workspace.written_by_tool(plan.draft_sha256, local.sha256):
                warnings.append(f"{local.path} changed since the plan was made; the plan's operations are pushed as "
                                "planned (secrets are read from the current draft)")
            if already:
                notices.append(f"Resuming the plan: {len(already)} of its operations "
                               f"{'was' if len(already) == 1 else 'were'} applied by an earlier run.")
            touched = {op.app_id for op in plan.operations if op.app_id}
            live = await fetch_live(client, touched, secret_key=local.secret_key,
                                    concurrency=request.concurrency * 4, listing=listing,
                                    wanted_extensions=managed_extensions(local))
            advanced = _advance(local, {app_id: new for app in local.apps if (app_id := app.get("id")) in live
                                        and app_id in local.base
                                        and (new := advance_app(app, local.base[app_id], live[app_id])) is not None})
            done_keys = {resource_key(op) for op in plan.operations if op.key in already}
            stale = stale_resources(plan, live, done=done_keys)
            for op in plan.operations:
                if op.kind != "create_app" or op.key in already:
                    continue
                known = plan.existing_names.get(op.app_name, [])
                appeared = [i for i in names.get(op.app_name, []) if i not in known]
                if appeared:
                    stale.append(Stale("app", op.app_name,
                                       [f"an app with this name now exists ({', '.join(appeared)})"]))
            if stale:
                return PushRefused("stale_plan", "the plan is stale; run `tenantdeck plan` again", plan=plan,
                                   stale=stale, lines=[s.text() for s in stale], notices=notices)
            if plan.conflicts:
                return PushRefused("conflicts", "the plan has conflicts; it cannot be pushed", plan=plan,
                                   notices=notices)
        now = (await service_now(client, request.gate, live, listing, secret_key=local.secret_key,
                                 concurrency=request.concurrency * 4)
               if request.gate is not None and plan.operations else live)

    missing = missing_secrets(plan, env)
    if missing:
        return PushRefused("missing_secrets", "set the variables above, then run the command again (push or "
                           "promote); nothing was pushed",
                           problems=[local.result.doc.place(p) for p in missing], plan=plan, notices=notices)
    refused = [local.result.doc.place(p) for p in secret_value_problems(plan, env, target.credentials)]
    if refused:
        return PushRefused("refused_secrets", "the service would refuse these values; nothing was pushed",
                           problems=refused, plan=plan, notices=notices)
    draft_warnings = unset_but_unused(local, env)
    allowed: list[Any] = []
    if request.gate is not None and plan.operations:
        # the fleet policies on the account after this push (the one view ``diff`` shows)
        verdict = request.gate.verdict(local, plan, now, [a.id for a in listing], request.allow_violations)
        if isinstance(verdict, PushRefused):
            verdict.plan, verdict.notices = plan, notices
            return verdict
        allowed = verdict
        notices += [f"allowed ({request.violation_reason}): {v.text()}" for v in allowed]
    _record(local, advanced)  # only once nothing above refused the push: a refusal writes nothing
    return Prepared(plan, local, live, request, already, notices, warnings, draft_warnings=draft_warnings,
                    allowed_violations=allowed)


def without_base(plan: Plan, local: Local) -> list[str]:
    """Where conflicts are in apps this account has no base for (a first push or promotion into an account that
    already has them, a fresh clone without the lock file): every difference is a conflict there, and the way
    through is ``--prefer``, said here since nothing else would."""
    apps = sorted({c.app for c in plan.conflicts if c.app_id and c.app_id not in local.base})
    if not apps or local.prefer is not None:
        return []
    return [f"{', '.join(repr(a) for a in apps)}: no base for this account yet (nothing pulled or pushed here: a "
            "first push or promotion into an account that already has the app), so every difference is a "
            "conflict; --prefer draft sends what is being pushed, --prefer live keeps the account's values"]



async def plan_draft(path: Path, env: Mapping[str, str], *, text: str | None = None, target: Target | None = None,
                     allow_delete: bool = False, concurrency: int = 16,
                     client_options: Mapping[str, Any] | None = None,
                     profile: str | None = None, gate: Gate | None = None,
                     loaded: LoadResult | None = None, reuse: AppStates | None = None) -> Plan | PushRefused:
    """The plan of a draft as an editor holds it (``text``, unsaved edits included; the file is not re-read):
    offline against the base snapshot when ``target`` is None, else three ways against the live service.

    Read-only: nothing is written, not even the base (a push records what both sides agree on). The draft is read
    as the target's profile sees it (``profile`` offline): its section of the targets file, if any. ``gate``: the
    fleet policies whose notes the plan carries (:func:`tenantdeck.policies.gate.gate_for`). ``loaded``: ``text``
    as the editor's session validated it, ``reuse`` that session's change states (their canonical parts:
    :func:`~tenantdeck.sync.workspace.local.load_local`).
    """
    try:
        local = load_local(path, env, text=text, key=target.fingerprint_key() if target is not None else None,
                           profile=target.name if target is not None else profile, loaded=loaded, reuse=reuse)
    except DraftInvalid as exc:
        return PushRefused("invalid_draft", f"{path} is not valid", problems=exc.problems)
    if target is None:  # offline: the base snapshot stands in for the service, for the rules as for the comparison
        plan = plan_local(local, compare_local(local, None), allow_delete=allow_delete)
        plan.notes.extend(plan_policy_notes(gate, local, plan, local.base, list(local.base)))
        return plan
    from tenantdeck.sync.workspace.binding import WrongTarget, check_identity, identity_of

    try:
        check_identity(local.workspace, identity_of(target))
    except WrongTarget as exc:
        return PushRefused("wrong_target", "another account than the draft's; nothing was compared", lines=[str(exc)])
    async with target.client(**{"concurrency": max(concurrency * 4, 16), **dict(client_options or {})}) as client:
        listing = await client.list_apps()
        live = await fetch_live(client, local.app_ids(), secret_key=local.secret_key, concurrency=concurrency * 4,
                                listing=listing, wanted_extensions=managed_extensions(local))
        plan = plan_local(local, compare_local(local, live), allow_delete=allow_delete, profile=target.name,
                          base_url=target.base_url)
        names = live_names(listing)
        plan.existing_names = {n: names[n] for n in new_app_names(local.apps) if n in names}
        plan.conflicts.extend(clash_conflicts(clashes(local.apps, names), local.view))
        plan.notes.extend(await policy_notes_after(client, gate, local, plan, live, listing,
                                                   concurrency=concurrency))
    return plan


async def service_now(client: Any, gate: Gate | None, live: Mapping[str, dict[str, Any]],
                      listing: list[Any], *, secret_key: bytes, concurrency: int) -> dict[str, dict[str, Any]]:
    """Every app of the account as the service holds it now: ``live`` (the draft's apps, as the comparison read
    them), and each other app of ``listing`` read as far as the rules of ``gate`` read
    (:meth:`Gate.sections_read`): what the view after the push lays the plan over."""
    sections = gate.sections_read() if gate is not None else None
    if sections is None:
        return dict(live)
    rest = await fetch_rest(client, listing, live, sections, secret_key=secret_key,
                            concurrency=concurrency)
    return {**rest, **live}


async def policy_notes_after(client: Any, gate: Gate | None, local: Local, plan: Plan,
                             live: Mapping[str, dict[str, Any]], listing: list[Any], *, concurrency: int = 16
                             ) -> list[Any]:
    """The plan's policy notes (``diff``, ``plan``, the editor's review): the rules of ``gate`` on the account
    after this push, the same view the push's gate judges (:meth:`Gate.verdict`)."""
    if gate is None:
        return []
    now = await service_now(client, gate, live, listing, secret_key=local.secret_key, concurrency=concurrency * 4)
    return plan_policy_notes(gate, local, plan, now, [a.id for a in listing])


def plan_policy_notes(gate: Gate | None, local: Local, plan: Plan,
                      now: Mapping[str, Mapping[str, Any]], order: list[str]) -> list[Any]:
    """The notes of ``gate`` (the rules beside ``local``'s draft) on the account after ``plan``, ``now`` being the
    service's apps (or the base snapshot's, offline)."""
    return gate.notes(local, plan, now, order) if gate is not None else []


def _sections(gate: Gate | None) -> frozenset[str]:
    """What the push must read of every app for the gate: the sections the rules read (none without rules)."""
    return (gate.sections_read() if gate is not None else None) or frozenset()


def missing_secrets(plan: Plan, env: Mapping[str, str]) -> list[Problem]:
    """One problem per ``${VAR}`` the plan sends and the environment does not set, at its key path.

    Checked before the first request that writes anything. Only what the plan sends counts: a pulled draft refers
    to every secret of the account, and a push that changes one toggle must not need all of them.
    """
    from tenantdeck.problems import parse_path

    out: list[Problem] = []
    for op in plan.operations:
        for spec in placeholders_in(op.payload):
            if spec.get("source") == "env" and spec.get("var") not in env:
                path = str(spec.get("path") or "")
                problem = error(f"environment variable {spec.get('var')} is not set (needed to push this secret of "
                                f"app {spec.get('app')!r})", parse_path(path) if path.startswith("apps") else (),
                                "secret_unset")
                problem.extra["variable"] = str(spec.get("var"))  # a screen names it without parsing the message
                out.append(problem)
    return out


def unset_but_unused(local: Local, env: Mapping[str, str]) -> list[Problem]:
    """Warnings for the unset references, once the plan is known to send none of them: their secrets are left as
    they are on the service, and saying so keeps a forgotten ``export`` from passing for a rotation. Located and
    rendered as the draft's own warnings are (they were ``warning: FILE:LINE: ...``, no column: trial J, J12;
    trial L, L9)."""
    from tenantdeck.problems import warning
    from tenantdeck.rules import missing_secret_variables

    return [local.result.doc.place(warning(f"{p.extra['variable']} is not set; this secret is left as it is on "
                                           "the service", p.path, "secret_unset_unsent"))
            for p in missing_secret_variables(local.draft, dict(env))]


def _wrong_target(local: Local, target: Target, rebind: bool, plan_in: Plan | None) -> PushRefused | None:
    """Refuse a push to another account than the one the draft's base was taken from; with ``rebind`` (a fresh
    push only: a saved plan was made against its own account) set the base aside and record the new account, so
    the push compares draft and service without a base (a difference is a conflict unless ``--prefer``)."""
    from tenantdeck.sync.workspace.binding import WrongTarget, check_identity, identity_of, needs_rebind

    pointing = identity_of(target)
    try:
        check_identity(local.workspace, pointing, rebind=rebind and plan_in is None)
    except WrongTarget as exc:
        return PushRefused("wrong_target", "nothing was pushed: another account than the draft's", lines=[str(exc)])
    if needs_rebind(local.workspace, pointing) or local.workspace.read_meta() is None:
        if needs_rebind(local.workspace, pointing):
            local.workspace.clear_base()
            local.base = {}
        local.workspace.record_identity(pointing)  # the draft now belongs to this account
    elif not (local.workspace.read_meta() or {}).get("identity"):
        local.workspace.record_identity(pointing)  # a base pulled before identities were recorded
    return None


def ids_for(local: Local, writer: IdWriter | None) -> DraftIds | TargetIds:
    """Where a push records the ids it is assigned: the draft, or the targets file for one of its targets."""
    if local.view is not None:
        return TargetIds(local.path, local.view)
    return DraftIds(local.path, local.workspace, writer)


def _write_ids(ids: DraftIds | TargetIds, local: Local, env: Mapping[str, str], warnings: list[str],
               **kw: Any) -> Local:
    """Write adopted ids into the draft and reload it; when the draft cannot take them, say so and go on (the
    journal and base keep them, and the next run adopts them again)."""
    try:
        changed = ids.write(**kw)
    except (OSError, ProblemError) as exc:
        warnings.append(f"cannot write ids into {local.path}: {exc}")
        return local
    return reload_local(local, env) if changed else local


def _adopt_contents(ids: DraftIds | TargetIds, local: Local, live: Mapping[str, Mapping[str, Any]],
                    adopted: set[str], env: Mapping[str, str], warnings: list[str],
                    notices: list[str]) -> tuple[Local, list[Conflict]]:
    """What the apps ``--adopt-existing`` just adopted already hold: their widgets of the draft's widget names are
    adopted (ids written, as for the app), and a webhook the draft would create beside one of the same name is a
    refusal (:func:`tenantdeck.sync.names.webhook_clashes`). Never a duplicate of what the app holds."""
    widget_ids: dict[tuple[str, str], str] = {}
    refused: list[Conflict] = []
    for app in local.apps:
        app_id = app.get("id")
        if app_id not in adopted or app_id not in live:
            continue
        for name, wid in adoptable_widgets(app, live[app_id]).items():
            widget_ids[(str(app["name"]), name)] = wid
            notices.append(f'app "{app["name"]}": adopting its widget "{name}" ({wid}) (--adopt-existing)')
        refused += webhook_clashes(app, live[app_id])
    if widget_ids:
        prefer_apps = dict(local.prefer_apps)
        local = _write_ids(ids, local, env, warnings, widget_ids=widget_ids)
        local.prefer_apps.update(prefer_apps)
    return local, refused


def _adopted_ops(plan: Plan, resolution: Any) -> dict[str, dict[str, Any]]:
    """Creates of this plan that an earlier, interrupted run landed (found by :func:`resolve_intents`)."""
    out: dict[str, dict[str, Any]] = {}
    for op in plan.operations:
        if op.kind == "create_app" and op.app_name in resolution.app_ids:
            out[op.key] = {"app_id": resolution.app_ids[op.app_name]}
        elif op.kind == "create_widget":
            name = str((op.payload.get("settings") or {}).get("name", ""))
            if (op.app_name, name) in resolution.widget_ids:
                out[op.key] = {"widget_id": resolution.widget_ids[(op.app_name, name)]}
    return out


def _advance(local: Local, bases: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The base with the values draft and live now share (:mod:`tenantdeck.sync.advance`), in memory for the plan
    to be made from; returned for :func:`_record`. Not written yet: a push refused after this (a stale saved plan,
    conflicts, refused values, a policy) writes nothing, as ``diff`` and ``plan`` write nothing (trial J, J1: a
    refused saved plan rewrote the committed lock file)."""
    for app_id, base in bases.items():
        local.base[app_id] = base
    return dict(bases)


def _record(local: Local, bases: Mapping[str, dict[str, Any]]) -> None:
    """Write what :func:`_advance` advanced: the push goes ahead (or has nothing to send), so the agreement is
    recorded, as it always was."""
    if bases:
        with local.workspace.lock_deferred():  # one lock file rewrite, however many apps advance
            for app_id, base in bases.items():
                local.workspace.write_base_app(app_id, base)


#: the plan operation a coroutine is running, so a retry the client schedules can name it
_CURRENT_OP: contextvars.ContextVar[Step | None] = contextvars.ContextVar("tenantdeck_current_op", default=None)


async def push(prepared: Prepared, target: Target, on_event: OnEvent | None = None, *,
               saved_plan: Path | None = None, result: PushResult | None = None) -> PushResult:
    """Run the prepared plan. Cancelling the task stops it safely: operations in flight are journalled, the
    created ids are written into the draft (one save), and the result says what was and was not applied.

    ``result``: an object to fill as the push runs, so a caller whose task is cancelled still has it.
    """
    emit = on_event or (lambda event: None)
    plan, local = prepared.plan, prepared.local
    ids = ids_for(local, prepared.request.id_writer)

    async def sleep(delay: float) -> None:
        emit(PushEvent("retry_scheduled", op=_CURRENT_OP.get(), delay=delay,
                       message=f"retrying in {delay:.1f}s"))
        await asyncio.sleep(delay)

    local.workspace.ensure()
    journal = Journal.new(local.workspace.journal_dir, plan.plan_id, beside=local.workspace.folder)
    result = result if result is not None else PushResult()
    # the lock file is rewritten once, as the push ends (killed: the cache has each operation's base, and the
    # next run reads it with the lock file; Workspace.lock_deferred)
    def unwritten(exc: OSError) -> None:
        result.warnings.append(f"the lock file could not be updated ({exc}); the next push or diff reads the "
                               "local base with it")

    with local.workspace.lock_deferred(on_error=unwritten):
        async with target.client(sleep=sleep, **_client_kwargs(prepared.request, reads=False)) as client:
            executor = Executor(client, plan, workspace=local.workspace, draft=local.draft, draft_apps=local.apps,
                                env=local.env, secret_key=local.secret_key, base=local.base, live=prepared.live,
                                journal=journal, concurrency=prepared.request.concurrency, already=prepared.already,
                                gone_after=prepared.request.gone_after, service=target.base_url,
                                on_event=emit, current_op=_CURRENT_OP, result=result)
            try:
                await executor.run()
            except asyncio.CancelledError:
                emit(PushEvent("interrupted", message="interrupted; the next push resumes", counts=result.counts()))
                raise
            finally:
                journal.close()
                _record_ids(ids, result, local)
                result.warnings[:0] = [p.render() for p in prepared.draft_warnings] + prepared.warnings
                state = "interrupted" if result.interrupted else "complete" if result.complete else "partial"
                try:
                    append_record(local.workspace.history_path, beside=local.workspace.folder,
                                  profile=target.name, base_url=target.base_url,
                                  draft=str(local.path.resolve()), plan_hash=plan.plan_hash(),
                                  plan_id=plan.plan_id,
                                  plan_counts=plan.counts(), counts=result.counts(), result=state,
                                  journal=str(journal.path.resolve()),
                                  saved_plan=str(Path(saved_plan).resolve()) if saved_plan else None,
                                  stopped=result.stopped or None,
                                  lost_updates=[lost.to_json() for lost in result.lost_updates] or None,
                                  allowed_violations=[{"rule": v.rule, "app": v.app_name, "app_id": v.app_id}
                                                      for v in prepared.allowed_violations] or None,
                                  violation_reason=prepared.request.violation_reason
                                  if prepared.allowed_violations else None,
                                  operations=operations_record(result.results))
                except OSError as exc:
                    result.warnings.append(f"the history could not be written: {exc}")
                for warning in result.warnings:
                    emit(PushEvent("warning", message=warning))
    return result


def _record_ids(ids: DraftIds | TargetIds, result: PushResult, local: Local) -> None:
    """One batched write of every id the push was assigned (also when interrupted)."""
    if not result.app_ids and not result.widget_ids:
        return
    try:
        ids.write(app_ids=result.app_ids, widget_ids=result.widget_ids)
    except (OSError, ProblemError) as exc:
        result.warnings.append(f"the new ids could not be written into {local.path} ({exc}); they are recorded in "
                               "the journal and the base snapshot, and the next push adopts them")
