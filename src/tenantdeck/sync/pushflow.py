"""``tenantdeck push`` from start to finish, as one async function the CLI and the tests both call.

Fresh push: validate the draft, check every ``${VAR}`` is set (before any request), resolve open intents of an
earlier interrupted push, read the live state, compare three ways, refuse conflicts (exit 3), show the plan and
ask, run it, record the audit line. Saved plan: the same, except that the plan's operations are run after checking
that none of the resources they touch moved on the service (stale plan: exit 3, naming resource and field).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tenantdeck import exitcodes
from tenantdeck.problems import ProblemError, render_text
from tenantdeck.sync.history import append_record
from tenantdeck.sync.journal import Journal, completed_ops
from tenantdeck.sync.names import adoptable, clash_conflicts, clashes, live_names, new_app_names
from tenantdeck.sync.placeholders import placeholders_in
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.preflight import secret_value_problems, unwritable
from tenantdeck.sync.progress import Progress
from tenantdeck.sync.push import DraftIds, Executor, PushResult, Stale, resolve_intents, stale_resources
from tenantdeck.sync.render import render_text as render_plan
from tenantdeck.sync.session import (
    DraftInvalid,
    Local,
    compare_local,
    fetch_live,
    fetch_live_for_push,
    load_local,
    plan_local,
)
from tenantdeck.sync.settle import settle_app, settled_bases

if TYPE_CHECKING:
    from tenantdeck.api.profiles import Target

Confirm = Callable[[str], bool]


@dataclass(slots=True)
class PushOptions:
    draft_path: Path | None = None
    plan_file: Path | None = None
    yes: bool = False
    concurrency: int = 16
    allow_delete: bool = False
    interactive: bool = False  #: a terminal is there to answer the question
    confirm: Confirm | None = None
    retry_base_delay: float | None = None  #: tests make retries fast
    adopt_existing: bool = False  #: an app to create whose name the service has (once) is that app
    allow_duplicate_names: bool = False  #: create it anyway, beside the one of the same name
    gone_after: int = 3  #: consecutive connection failures after which the service is taken to be gone


def _err(stream: TextIO, text: str) -> None:
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


async def push_flow(target: Target, opts: PushOptions, *, env: Mapping[str, str],
                    err: TextIO | None = None) -> int:
    """Run a push; returns the exit code (see :mod:`tenantdeck.exitcodes`)."""
    err = err if err is not None else sys.stderr
    plan_in: Plan | None = None
    if opts.plan_file is not None:
        try:
            plan_in = Plan.from_json(json.loads(opts.plan_file.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            _err(err, f"error: cannot read plan {opts.plan_file}: {exc}")
            return exitcodes.ERROR
    draft_path = opts.draft_path or (Path(plan_in.draft_path) if plan_in else Path("tenantdeck.yaml"))
    try:
        local = load_local(draft_path, env)
    except DraftInvalid as exc:
        _err(err, render_text(exc.problems) + f"error: {draft_path} is not valid; nothing was pushed")
        return exitcodes.ERROR
    blocked = unwritable(local.path, local.workspace)
    if blocked:
        _err(err, "\n".join(f"error: {line}" for line in blocked) + "\nerror: nothing was pushed; make these "
                  "writable, then push again")
        return exitcodes.ERROR
    ids = DraftIds(local.path, local.workspace)
    client_kw: dict[str, Any] = {"concurrency": max(opts.concurrency * 4, 16)}
    if opts.retry_base_delay is not None:
        client_kw["retry_base_delay"] = opts.retry_base_delay
    async with target.client(**client_kw) as client:
        resolution = await resolve_intents(client, local.workspace, local.apps, local.base, secret_key=local.secret_key)
        for message in resolution.messages:
            _err(err, message)
        if resolution.app_ids or resolution.widget_ids:
            local = _write_ids(ids, local, env, err, app_ids=resolution.app_ids, widget_ids=resolution.widget_ids)
        listing = await client.list_apps()
        names = live_names(listing)
        already: dict[str, Any] = {}

        if plan_in is None:
            _err(err, f"Reading the service ({target.describe()}) ...")
            found = clashes(local.apps, names)
            if found and opts.adopt_existing:
                adopt = adoptable(found, (a["id"] for a in local.apps if a.get("id")))
                for name, app_id in adopt.items():
                    _err(err, f'app "{name}": adopting the service\'s app {app_id} of the same name (--adopt-existing)')
                local = _write_ids(ids, local, env, err, app_ids=adopt)
                found = clashes(local.apps, names)
            live = await fetch_live_for_push(client, local, concurrency=opts.concurrency * 4, listing=listing)
            comparison = compare_local(local, live)
            _settle(local, settled_bases(comparison))
            plan = plan_local(local, comparison, allow_delete=opts.allow_delete,
                              profile=target.name, base_url=target.base_url)
            plan.existing_names = {n: names[n] for n in new_app_names(local.apps) if n in names}
            if found and not opts.allow_duplicate_names:
                plan.conflicts.extend(clash_conflicts(found))
            if plan.conflicts:
                _err(err, render_plan(plan))
                _err(err, f"error: {len(plan.conflicts)} conflict(s): the draft and the service changed the same "
                          "settings differently. Settle them in the draft (or pull), then push again.")
                return exitcodes.CONFLICT
        else:
            plan = plan_in
            already = completed_ops(local.workspace.journal_dir, plan.plan_hash())
            already.update(_adopted_ops(plan, resolution))
            if plan.draft_sha256 and not local.workspace.written_by_tool(plan.draft_sha256, local.sha256):
                _err(err, f"warning: {local.path} changed since the plan was made; the plan's operations are pushed "
                          "as planned (secrets are read from the current draft)")
            if already:
                _err(err, f"Resuming the plan: {len(already)} of its operations were applied by an earlier run.")
            touched = {op.app_id for op in plan.operations if op.app_id}
            live = await fetch_live(client, touched, secret_key=local.secret_key, concurrency=opts.concurrency * 4,
                                    listing=listing)
            _settle(local, {app_id: new for app in local.apps if (app_id := app.get("id")) in live
                            and app_id in local.base
                            and (new := settle_app(app, local.base[app_id], live[app_id])) is not None})
            done_keys = {op.resource_key for op in plan.operations if op.key in already}
            stale = stale_resources(plan, live, done=done_keys)
            for op in plan.operations:
                if op.kind != "create_app" or op.key in already:
                    continue
                known = plan.existing_names.get(op.app_name, [])
                appeared = [i for i in names.get(op.app_name, []) if i not in known]
                if appeared:
                    stale.append(Stale("app", op.app_name,
                                       [f"an app with this name now exists ({', '.join(appeared)})"]))
            if stale or plan.conflicts:
                for s in stale:
                    _err(err, "stale: " + s.text())
                _err(err, "error: the plan is stale; run `tenantdeck plan` again" if stale
                     else "error: the plan has conflicts; it cannot be pushed")
                return exitcodes.CONFLICT

        missing = _missing_secrets(plan, env)
        if missing:
            _err(err, "\n".join(missing) + "\nerror: set the variables above, then push again; nothing was pushed")
            return exitcodes.ERROR
        refused = [local.result.doc.place(p) for p in secret_value_problems(plan, env)]
        if refused:
            _err(err, render_text(refused) + "error: the service would refuse these values; nothing was pushed")
            return exitcodes.ERROR
        for line in _unset_but_unused(local, env):
            _err(err, line)
        if not plan.operations:
            _err(err, render_plan(plan))
            return exitcodes.OK
        _err(err, render_plan(plan))
        if not opts.yes:
            if not opts.interactive or opts.confirm is None:
                _err(err, "error: refusing to push without confirmation: no terminal to ask; pass --yes")
                return exitcodes.ERROR
            where = "the in-process sandbox" if target.in_process else target.base_url
            count = len(plan.operations) - len(already)
            if not opts.confirm(f"Push {count} operation{'s' if count != 1 else ''} to {target.name} ({where})?"):
                _err(err, "Nothing pushed.")
                return exitcodes.ERROR
        return await _execute(client, plan, local, live, target, opts, env, err, ids, already)


def _write_ids(ids: DraftIds, local: Local, env: Mapping[str, str], err: TextIO, **kw: Any) -> Local:
    """Write adopted ids into the draft and reload it; when the draft cannot take them, say so and go on (the
    journal and base keep them, and the next run adopts them again)."""
    try:
        changed = ids.write(**kw)
    except (OSError, ProblemError) as exc:
        _err(err, f"warning: cannot write ids into {local.path}: {exc}")
        return local
    return load_local(local.path, env) if changed else local


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


def _settle(local: Local, bases: Mapping[str, dict[str, Any]]) -> None:
    """Record in the base the values draft and live now share (:mod:`tenantdeck.sync.settle`)."""
    for app_id, base in bases.items():
        local.workspace.write_base_app(app_id, base)
        local.base[app_id] = base


def _missing_secrets(plan: Plan, env: Mapping[str, str]) -> list[str]:
    """One line per ``${VAR}`` the plan sends and the environment does not set, naming the variable and key path.

    Checked before the first request that writes anything. Only what the plan sends counts: a pulled draft refers
    to every secret of the account, and a push that changes one toggle must not need all of them.
    """
    out = []
    for op in plan.operations:
        for spec in placeholders_in(op.payload):
            if spec.get("source") == "env" and spec.get("var") not in env:
                out.append(f"error: {spec.get('path')}: environment variable {spec.get('var')} is not set (needed "
                           f"to push this secret of app {spec.get('app')!r})")
    return out


def _unset_but_unused(local: Local, env: Mapping[str, str]) -> list[str]:
    """Warnings for the unset references, called once the plan is known to send none of them: their secrets are
    left as they are on the service, and saying so keeps a forgotten ``export`` from passing for a rotation."""
    from tenantdeck.rules import missing_secret_variables

    lines = []
    for problem in missing_secret_variables(local.draft, dict(env)):
        placed = local.result.doc.place(problem)
        lines.append(f"warning: {placed.file}:{placed.line}: {placed.key_path}: {problem.extra['variable']} is not "
                     "set; this secret is left as it is on the service")
    return lines


async def _execute(client: Any, plan: Plan, local: Local, live: dict[str, dict[str, Any]], target: Target,
                   opts: PushOptions, env: Mapping[str, str], err: TextIO, ids: DraftIds,
                   already: Mapping[str, Mapping[str, Any]]) -> int:
    local.workspace.ensure()
    journal = Journal.new(local.workspace.journal_dir, plan.plan_hash())
    progress = Progress(len(plan.operations), stream=err)
    executor = Executor(client, plan, workspace=local.workspace, draft=local.draft, draft_apps=local.apps, env=env,
                        secret_key=local.secret_key, base=local.base, live=live, journal=journal,
                        concurrency=opts.concurrency, progress=progress, already=already,
                        gone_after=opts.gone_after, service=target.base_url)
    result = executor.result
    try:
        result = await executor.run()
    finally:
        progress.finish()
        journal.close()
        _record_ids(ids, result, local)
        counts = result.counts()
        state = "interrupted" if result.interrupted else "complete" if result.complete else "partial"
        try:
            append_record(local.workspace.history_path, profile=target.name, base_url=target.base_url,
                          draft=str(local.path.resolve()), plan_hash=plan.plan_hash(), plan_counts=plan.counts(),
                          counts=counts, result=state, journal=str(journal.path),
                          saved_plan=str(opts.plan_file) if opts.plan_file else None)
        except OSError as exc:
            result.warnings.append(f"the history could not be written: {exc}")
        _err(err, result.summary())
    return exitcodes.OK if result.complete else exitcodes.PARTIAL


def _record_ids(ids: DraftIds, result: PushResult, local: Local) -> None:
    """One batched write of every id the push was assigned (also when interrupted)."""
    if not result.app_ids and not result.widget_ids:
        return
    try:
        ids.write(app_ids=result.app_ids, widget_ids=result.widget_ids)
    except (OSError, ProblemError) as exc:
        result.warnings.append(f"the new ids could not be written into {local.path} ({exc}); they are recorded in "
                               "the journal and the base snapshot, and the next push adopts them")
