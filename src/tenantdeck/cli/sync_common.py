"""What ``diff`` and ``plan`` share: the draft option, and computing a plan offline or against the service.

stdout carries only the requested output; every message goes to stderr. Failures are one line and exit 1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from tenantdeck import exitcodes
from tenantdeck.cli.options import CONCURRENCY, DEFAULT_CONCURRENCY, draft_input
from tenantdeck.problems import render_text
from tenantdeck.problems import strict as strictly

DEFAULT_DRAFT = "tenantdeck.yaml"

draft_option = draft_input("The draft file.")  # positional [DRAFT] or --draft, as every command takes it
duplicate_names_option = click.option(
    "--allow-duplicate-names", is_flag=True,
    help="Create an app even when the service already has one of that name (otherwise that is a conflict).",
)


def resolution_options(func: Any) -> Any:
    """``--take-mine KEY``, ``--take-theirs KEY`` (repeatable) and their ``-all`` forms: settle conflicts field by
    field. KEY is what ``diff`` prints after each conflict (``APP_ID/KIND[:RID]/FIELD``)."""
    for decorator in reversed([
        click.option("--take-mine", "take_mine", multiple=True, metavar="KEY",
                     help="Keep the draft's value of this conflicting field: the push sends it over the live one."),
        click.option("--take-theirs", "take_theirs", multiple=True, metavar="KEY",
                     help="Write the service's value of this conflicting field into the draft (for a target of "
                     "the targets file: into its section there)."),
        click.option("--take-mine-all", is_flag=True, help="Keep the draft's value of every conflicting field."),
        click.option("--take-theirs-all", is_flag=True,
                     help="Write the service's value of every conflicting field into the draft."),
    ]):
        func = decorator(func)
    return func


prefer_option = click.option(
    "--prefer", type=click.Choice(["draft", "live"]), default=None,
    help="Where an app has no base (no lock file, nothing pulled here: a fresh clone), which side wins where draft "
    "and service differ: draft pushes the draft's values, live keeps the service's. Without it such a difference "
    "is a conflict (exit 3), never a write.",
)


def choice_of(take_mine: tuple[str, ...], take_theirs: tuple[str, ...], take_mine_all: bool,
              take_theirs_all: bool) -> Any:
    from tenantdeck.sync.settle import Choice

    if take_mine_all and take_theirs_all:
        raise click.UsageError("--take-mine-all and --take-theirs-all exclude each other")
    return Choice(list(take_mine), list(take_theirs), take_mine_all, take_theirs_all)


concurrency_option = click.option(
    "--concurrency", type=CONCURRENCY, default=DEFAULT_CONCURRENCY, show_default=True, metavar="N",
    help="Apps worked on at once (reads use up to 4N requests in flight).",
)


def show_output(text: str, fmt: str) -> None:
    """A rendered plan on stdout: text and markdown made safe for a terminal, JSON as the data it is (json.dumps
    already escapes C0 controls; it is read by programs, so nothing else in it is rewritten)."""
    if fmt == "json":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from tenantdeck.cli.output import write

    write(text)


def plan_exit_code(plan: Any) -> int:
    """``diff``'s and ``plan``'s exit code for a plan: 1 a draft value a push refuses (an invalid draft), 3
    conflicts, 2 changes to push, else 0."""
    if plan.refused:
        return exitcodes.ERROR
    if plan.conflicts:
        return exitcodes.CONFLICT
    return exitcodes.CHANGES if plan.has_changes else exitcodes.OK


def show_plan(plan: Any, fmt: str) -> int:
    """The plan on stdout as ``fmt`` asks, and its exit code; the JSON document repeats the code after its head
    (``exit_code``, as every other command's document has it), so a CI log of the file alone says how it ended."""
    from tenantdeck.sync.render import render

    code = plan_exit_code(plan)
    if fmt != "json":
        show_output(render(plan, fmt), fmt)
        return code
    from tenantdeck.textsafe import json_text

    doc = plan.to_json(with_snapshots=False)
    head = {k: doc.pop(k) for k in ("format_version", "tool") if k in doc}
    show_output(json_text({**head, "exit_code": code, **doc}, indent=2) + "\n", fmt)
    return code


def fail(message: str, code: int = exitcodes.ERROR) -> None:
    from tenantdeck.cli.output import error

    error(message)
    sys.exit(code)


def compute_plan(draft_path: Path, *, offline: bool, allow_delete: bool, concurrency: int,
                 target_args: dict[str, Any] | None, allow_duplicate_names: bool = False, choice: Any = None,
                 rebind: bool = False, prefer: str | None = None, strict: bool = False,
                 target: Any = None) -> Any:
    """Load, (read live), compare and plan; prints draft problems and exits 1 on any error, 8 when the draft's
    base was taken from another account than the target (unless ``rebind``: then it is compared without it).
    ``strict`` (``--strict``): a literal secret is such an error, found before the service is read. ``target``:
    the target already resolved (``plan -o`` signs the file with it), else resolved here from ``target_args``."""
    from tenantdeck.sync.workspace.local import DraftInvalid, compare_local, load_local, plan_local
    from tenantdeck.sync.workspace.state import WorkspaceError

    if offline:
        target = None
    elif target is None:
        from tenantdeck.cli.target_options import target_for_draft

        target = target_for_draft(draft_path, **(target_args or {}))
    try:
        local = load_local(draft_path, reuse_in_sync=offline,
                           key=target.fingerprint_key() if target is not None else None,
                           profile=target.name if target is not None else (target_args or {}).get("profile"))
    except DraftInvalid as exc:
        from tenantdeck.cli.output import echo

        echo(render_text(exc.problems), nl=False)
        fail(f"{draft_path} is not valid")
    except WorkspaceError as exc:
        fail(str(exc))
    warnings = strictly(local.warnings) if strict else local.warnings
    for warning in warnings:
        click.echo(warning.render(), err=True)  # Problem.render() is safe to print
    if any(w.is_error for w in warnings):
        fail(f"{draft_path} is not valid under --strict (a secret is written as a value)")
    if offline:
        if not local.base and not local.in_sync:
            click.echo("note: no base snapshot yet (run `tenantdeck pull`): every app with an id is unknown", err=True)
        plan = plan_local(local, compare_local(local, None), allow_delete=allow_delete)
    else:
        local.prefer = prefer
        plan = _online_plan(local, target, allow_delete=allow_delete, concurrency=concurrency,
                            allow_duplicate_names=allow_duplicate_names, choice=choice, rebind=rebind)
    _unset_secrets(local, plan)
    return plan


def _online_plan(local: Any, target: Any, *, allow_delete: bool, concurrency: int,
                 allow_duplicate_names: bool, choice: Any = None, rebind: bool = False) -> Any:
    import asyncio

    from tenantdeck.cli.target_options import TargetError, api_errors, settle_key, wrong_target_exit
    from tenantdeck.policies.gate import gate_for
    from tenantdeck.sync.names import clash_conflicts, clashes, live_names, new_app_names
    from tenantdeck.sync.remote.engine import plan_policy_notes, service_now
    from tenantdeck.sync.remote.fetch import fetch_live, managed_extensions
    from tenantdeck.sync.workspace.binding import WrongTarget, check_identity, identity_of, needs_rebind
    from tenantdeck.sync.workspace.local import compare_local, plan_local

    if not rebind:
        settle_key(target, local.workspace)
    try:
        check_identity(local.workspace, identity_of(target), rebind=rebind)
    except WrongTarget as exc:
        wrong_target_exit(exc)
    if rebind and needs_rebind(local.workspace, identity_of(target)):
        local.base = {}  # the base describes another account: compared without one (nothing is written)
    from tenantdeck.cli.output import echo

    echo(f"Reading the service ({target.describe()}) ...")

    async def run() -> Any:
        async with target.client(concurrency=max(concurrency * 4, 16)) as client:
            listing = await client.list_apps()
            live = await fetch_live(client, local.app_ids(), secret_key=local.secret_key,
                                    concurrency=concurrency * 4, listing=listing,
                                    wanted_extensions=managed_extensions(local))
            return listing, live, await service_now(client, gate, live, listing, secret_key=local.secret_key,
                                                    concurrency=concurrency * 4)

    gate = gate_for(local.path)
    try:
        with api_errors():
            listing, live, now = asyncio.run(run())
    except TargetError as exc:
        fail(exc.message)
    comparison = compare_local(local, live)
    if choice:  # with no conflict at all a named key is still said to name none (trial J, J12)
        from tenantdeck.cli.output import note, warning
        from tenantdeck.sync.workspace.local import settle_conflicts

        prefer = local.prefer
        local, settled = settle_conflicts(local, comparison.conflicts, choice, os.environ)
        local.prefer = prefer
        for line in settled.done:
            note(line)
        for line in settled.refused:
            warning(line)
        comparison = compare_local(local, live)
    plan = plan_local(local, comparison, allow_delete=allow_delete, profile=target.name, base_url=target.base_url)
    names = live_names(listing)
    plan.existing_names = {n: names[n] for n in new_app_names(local.apps) if n in names}
    if not allow_duplicate_names:
        plan.conflicts.extend(clash_conflicts(clashes(local.apps, names), local.view))
    # what the fleet policies say of the account after this push (the view the push's gate judges)
    plan.notes.extend(plan_policy_notes(gate, local, plan, now, [a.id for a in listing]))
    _refused_values(local, plan, target.credentials)
    return plan


def _refused_values(local: Any, plan: Any, credentials: frozenset[str]) -> None:
    """A ``${VAR}`` set here whose value the service would refuse (a webhook password with a hyphen) fails the plan
    as it would fail the push: found by the pull request's job, not by the main job after the merge. Located at
    the reference, never with the value; an unset variable is the push's matter (a PR job may not have them)."""
    from tenantdeck.cli.output import echo
    from tenantdeck.sync.preflight import secret_value_problems

    refused = [local.result.doc.place(p) for p in secret_value_problems(plan, os.environ, credentials)]
    if refused:
        echo(render_text(refused), nl=False)
        fail("the service would refuse these values; a push would stop here, nothing sent")


def _unset_secrets(local: Any, plan: Any) -> None:
    """The ``${VAR}`` the plan sends whose variable is unset here, located as the push refuses them
    (:func:`tenantdeck.sync.remote.engine.missing_secrets`, the one list): a webhook's Basic Auth turned on needs
    its password even when the draft did not change it. Said on stderr, not failed: the job that pushes may have
    variables a review job has not, and the change is still one to push there."""
    from tenantdeck.cli.output import echo, note
    from tenantdeck.sync.remote.engine import missing_secrets

    missing = [local.result.doc.place(p) for p in missing_secrets(plan, os.environ)]
    if missing:
        echo(render_text(missing), nl=False)
        note("a push refuses to start, nothing sent, until these variables are set where it runs")


def env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")
