"""``tenantdeck promote SOURCE DEST``: push to DEST what SOURCE has for the draft's apps, after the same review.

SOURCE and DEST are profile names; each is the draft's own account or a target of its targets file
(``<stem>.targets.yaml``: app ids and values that differ per account). The plan compares what SOURCE has (read
live, turned back into the draft's shape, with DEST's ids and overrides) with DEST's own base and live state,
three ways, exactly as ``push --profile DEST`` would; it is shown, confirmed (or ``--yes``) and pushed with DEST's
journal, base and history. Secrets are never promoted (the service does not reveal them); the plan says which.

Exit codes are push's: 0 done or nothing to do, 3 conflicts, 4 partial, 1 error, 5 locked, 8 a profile that is
another account than the draft records for it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import CONCURRENCY, DEFAULT_CONCURRENCY, lock_timeout_option
from tenantdeck.cli.sync_common import choice_of, duplicate_names_option, prefer_option, resolution_options
from tenantdeck.cli.target_options import TargetError, api_errors, complete_profile, target_for_draft


@click.command("promote")
@click.argument("source", metavar="SOURCE", shell_complete=complete_profile)
@click.argument("dest", metavar="DEST", shell_complete=complete_profile)
@click.option("--draft", "draft_path", metavar="DRAFT", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("tenantdeck.yaml"), show_default=True, help="The draft file.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--concurrency", type=CONCURRENCY, default=DEFAULT_CONCURRENCY, show_default=True, metavar="N",
              help="Apps pushed at once (each app's operations run in order).")
@click.option("--allow-delete", is_flag=True, help="Also delete in DEST the webhooks, triggers and SMS settings "
              "SOURCE no longer has (apps are never deleted by a promotion).")
@click.option("--insecure", is_flag=True, default=False,
              help="Allow plain http:// to a non-loopback host (the key and secret travel unencrypted).")
@click.option("--adopt-existing", is_flag=True, help="An app to create in DEST whose name DEST already has (once) "
              "is taken to be that app: its id is written into DEST's section of the targets file.")
@duplicate_names_option
@lock_timeout_option
@resolution_options
@prefer_option
@format_option(help="Output on stdout: nothing for text (the plan, progress and summary go to stderr), or one "
               "JSON document as push prints it (docs/json-output.md).")
def command(source: str, dest: str, draft_path: Path, yes: bool, concurrency: int, allow_delete: bool,
            insecure: bool, adopt_existing: bool, allow_duplicate_names: bool, lock_timeout: float | None,
            take_mine: tuple[str, ...], take_theirs: tuple[str, ...],
            take_mine_all: bool, take_theirs_all: bool, prefer: str | None, fmt: str) -> None:
    """Push to DEST what SOURCE has for the draft's apps (profiles; e.g. promote staging production)."""
    from tenantdeck.cli.push_flow import PushOptions, push_flow
    from tenantdeck.sync.workspace.state import WorkspaceError

    if source == dest:
        raise click.UsageError("SOURCE and DEST must be two profiles")
    interactive = sys.stdin.isatty() and sys.stderr.isatty()

    def confirm(question: str) -> bool:
        return click.confirm(question, default=False, err=True)

    source_target = target_for_draft(draft_path, source, None, insecure)
    dest_target = target_for_draft(draft_path, dest, None, insecure)
    opts = PushOptions(draft_path=draft_path, yes=yes, concurrency=concurrency, allow_delete=allow_delete,
                       adopt_existing=adopt_existing, allow_duplicate_names=allow_duplicate_names,
                       interactive=interactive, confirm=confirm,
                       choice=choice_of(take_mine, take_theirs, take_mine_all, take_theirs_all),
                       lock_timeout=lock_timeout, prefer=prefer, report={},  # type: ignore[arg-type]
                       source=source_target)
    try:
        with api_errors():
            code = asyncio.run(push_flow(dest_target, opts, env=os.environ))
    except WorkspaceError as exc:
        raise TargetError(str(exc)) from None
    code = code if code is not None else exitcodes.OK
    if fmt == "json":
        report = opts.report or {}
        emit(document("promote", code, ok=code == exitcodes.OK, source=source, profile=dest,
                      plan=report.get("plan"), result=report.get("result"), refusal=report.get("refusal")))
    sys.exit(code)
