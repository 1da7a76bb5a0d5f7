"""``tenantdeck push [PLANFILE]``: apply the draft's changes (or a saved plan), journaled and resumable.

Exit codes: 0 all applied (or nothing to do), 4 partial (summary lists applied, failed with reasons, not attempted),
3 conflicts or a stale plan, 1 error (invalid draft, a literal secret under --strict, unset secret variable, no
confirmation), 5 another process holds the draft's workspace (named), 6 a local write failed (disk full; stopped
before the next request),
8 the draft was pulled from another account than the one named (``--rebind`` to use it there on purpose),
130 interrupted.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import (
    CONCURRENCY,
    DEFAULT_CONCURRENCY,
    lock_timeout_option,
    not_a_draft,
    strict_option,
)
from tenantdeck.cli.sync_common import choice_of, prefer_option, resolution_options
from tenantdeck.cli.target_options import (
    TargetError,
    api_errors,
    rebind_option,
    target_for_draft,
    target_options,
)


@click.command("push")
@click.argument("planfile", required=False, type=click.Path(dir_okay=False, exists=True, path_type=Path),
                callback=not_a_draft)
@click.option("--draft", "draft_path", metavar="DRAFT", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The draft file (default: the one recorded in PLANFILE, else tenantdeck.yaml). "
              "Unlike the other commands, push takes the draft only as --draft: its positional argument is a saved "
              "PLANFILE.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--concurrency", type=CONCURRENCY, default=DEFAULT_CONCURRENCY, show_default=True, metavar="N",
              help="Apps pushed at once (each app's operations run in order).")
@click.option("--allow-delete", is_flag=True, help="Also delete apps, webhooks, triggers and SMS settings that "
              "are gone from the draft.")
@click.option("--adopt-existing", is_flag=True, help="An app to create whose name the service already has (once) "
              "is taken to be that app: its id is written into the draft and the draft is pushed to it.")
@click.option("--allow-duplicate-names", is_flag=True,
              help="Create an app even when the service already has one of that name (otherwise a conflict).")
@lock_timeout_option
@resolution_options
@target_options
@rebind_option
@prefer_option
@click.option("--allow-violation", "allow_violations", multiple=True, metavar="RULE",
              help="Push even though the account would break this fleet policy (error severity); needs --reason. "
              "Recorded in the history with the reason.")
@click.option("--reason", "violation_reason", metavar="TEXT", default=None,
              help="Why the violations let through by --allow-violation are acceptable (kept in the history).")
@click.option("--policies", "policies_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Fleet policies the account must keep  [default: <draft stem>.policies.yaml beside "
              "the draft, when there is one]")
@strict_option
@format_option(help="Output on stdout: nothing for text (the plan, progress and summary go to stderr, as always), "
               "or one JSON document with the plan and what was applied (docs/json-output.md).")
def command(planfile: Path | None, draft_path: Path | None, yes: bool, concurrency: int, allow_delete: bool,
            adopt_existing: bool, allow_duplicate_names: bool, take_mine: tuple[str, ...],
            take_theirs: tuple[str, ...], take_mine_all: bool, take_theirs_all: bool, profile: str | None,
            base_url: str | None, insecure: bool, max_rps: float | None, lock_timeout: float | None,
            rebind: bool, prefer: str | None, allow_violations: tuple[str, ...], violation_reason: str | None,
            policies_file: Path | None, strict: bool, fmt: str) -> None:
    """Apply the draft's changes (or a saved plan) to the service."""
    from tenantdeck.cli.push_flow import PushOptions, draft_of_plan, push_flow
    from tenantdeck.sync.workspace.state import WorkspaceError

    interactive = sys.stdin.isatty() and sys.stderr.isatty()

    def confirm(question: str) -> bool:
        return click.confirm(question, default=False, err=True)

    if planfile is None and draft_path is None:
        draft_path = Path("tenantdeck.yaml")
    from tenantdeck.policies.checks import NotAllowed, allowance, policies_for
    from tenantdeck.policies.gate import push_gate

    policies = policies_for(draft_path or draft_of_plan(planfile), policies_file)
    try:
        allow = allowance(policies, allow_violations, violation_reason)  # as the editor's review checks it
    except NotAllowed as exc:
        raise click.UsageError(f"--allow-violation {exc.rule}: {exc}" if exc.rule else
                               "--allow-violation needs --reason TEXT: why breaking the rule is acceptable (the "
                               "history keeps it)") from None
    target = target_for_draft(draft_path or draft_of_plan(planfile), profile, base_url, insecure, max_rps)
    opts = PushOptions(draft_path=draft_path, plan_file=planfile, yes=yes, concurrency=concurrency,
                       allow_delete=allow_delete, interactive=interactive, confirm=confirm,
                       adopt_existing=adopt_existing, allow_duplicate_names=allow_duplicate_names,
                       choice=choice_of(take_mine, take_theirs, take_mine_all, take_theirs_all),
                       lock_timeout=lock_timeout, rebind=rebind,
                       prefer=prefer, report={},  # type: ignore[arg-type]
                       gate=push_gate(policies), allow_violations=allow.rules,
                       violation_reason=allow.reason, strict=strict)
    try:
        with api_errors():
            code = asyncio.run(push_flow(target, opts, env=os.environ))
    except WorkspaceError as exc:
        raise TargetError(str(exc)) from None
    except TargetError:
        raise
    code = code if code is not None else exitcodes.OK
    if fmt == "json":
        report = opts.report or {}
        emit(document("push", code, ok=code == exitcodes.OK, profile=target.name,
                      plan=report.get("plan"), result=report.get("result"), refusal=report.get("refusal")))
    sys.exit(code)
