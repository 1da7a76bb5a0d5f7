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
from tenantdeck.problems import render_text
from tenantdeck.sync.history import append_record
from tenantdeck.sync.journal import Journal
from tenantdeck.sync.placeholders import placeholders_in
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.progress import Progress
from tenantdeck.sync.push import DraftIds, Executor, resolve_intents, stale_resources
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
    if plan_in is not None and plan_in.draft_sha256 and plan_in.draft_sha256 != local.sha256:
        _err(err, f"warning: {draft_path} changed since the plan was made; the plan's operations are pushed as "
                  "planned (secrets are read from the current draft)")
    client_kw: dict[str, Any] = {"concurrency": max(opts.concurrency * 4, 16)}
    if opts.retry_base_delay is not None:
        client_kw["retry_base_delay"] = opts.retry_base_delay
    async with target.client(**client_kw) as client:
        resolution = await resolve_intents(client, local.workspace, local.apps, local.base, secret_key=local.secret_key)
        for message in resolution.messages:
            _err(err, message)
        if resolution.app_ids or resolution.widget_ids:
            DraftIds(local.path).write(app_ids=resolution.app_ids, widget_ids=resolution.widget_ids)
            local = load_local(local.path, env)

        if plan_in is None:
            _err(err, f"Reading the service ({target.describe()}) ...")
            live = await fetch_live_for_push(client, local, concurrency=opts.concurrency * 4)
            plan = plan_local(local, compare_local(local, live), allow_delete=opts.allow_delete,
                              profile=target.name, base_url=target.base_url)
            if plan.conflicts:
                _err(err, render_plan(plan))
                _err(err, f"error: {len(plan.conflicts)} conflict(s): the draft and the service changed the same "
                          "settings differently. Settle them in the draft (or pull), then push again.")
                return exitcodes.CONFLICT
        else:
            plan = plan_in
            touched = {op.app_id for op in plan.operations if op.app_id}
            live = await fetch_live(client, touched, secret_key=local.secret_key, concurrency=opts.concurrency * 4)
            stale = stale_resources(plan, live)
            for op in plan.operations:
                if op.kind == "create_app" and await client.find_apps_by_name(op.app_name):
                    from tenantdeck.sync.push import Stale

                    stale.append(Stale("app", op.app_name, ["an app with this name now exists"]))
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
            count = len(plan.operations)
            if not opts.confirm(f"Push {count} operation{'s' if count != 1 else ''} to {target.name} ({where})?"):
                _err(err, "Nothing pushed.")
                return exitcodes.ERROR
        return await _execute(client, plan, local, live, target, opts, env, err)


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
                   opts: PushOptions, env: Mapping[str, str], err: TextIO) -> int:
    local.workspace.ensure()
    journal = Journal.new(local.workspace.journal_dir, plan.plan_hash())
    progress = Progress(len(plan.operations), stream=err)
    executor = Executor(client, plan, workspace=local.workspace, draft=local.draft, draft_apps=local.apps, env=env,
                        secret_key=local.secret_key, base=local.base, live=live, journal=journal,
                        draft_ids=DraftIds(local.path), concurrency=opts.concurrency, progress=progress)
    result = executor.result
    try:
        result = await executor.run()
    finally:
        progress.finish()
        journal.close()
        counts = result.counts()
        state = "interrupted" if result.interrupted else "complete" if result.complete else "partial"
        append_record(local.workspace.history_path, profile=target.name, base_url=target.base_url,
                      draft=str(local.path.resolve()), plan_hash=plan.plan_hash(), plan_counts=plan.counts(),
                      counts=counts, result=state, journal=str(journal.path),
                      saved_plan=str(opts.plan_file) if opts.plan_file else None)
        _err(err, result.summary())
    return exitcodes.OK if result.complete else exitcodes.PARTIAL
