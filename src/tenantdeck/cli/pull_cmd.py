"""``tenantdeck pull``: write the account's remote configuration into the draft and a base snapshot beside it.

Output contract: stdout stays empty; stderr gets one summary line (plus notes about kept local items and any
problem the pulled draft has). Every failure is one line on stderr and exit 1, never a traceback, never a secret.
"""

from __future__ import annotations

from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli.target_options import TargetError, api_errors, target_from_options, target_options

DEFAULT_DRAFT = "tenantdeck.yaml"


@click.command("pull")
@target_options
@click.option(
    "--draft", "draft_path", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DRAFT,
    show_default=True, help="Draft file to write (created if missing; comments and presets are kept).",
)
@click.option(
    "--app", "app_ids", multiple=True, metavar="ID",
    help="Pull only this app id (repeatable); the draft's other apps stay untouched.",
)
@click.option(
    "--concurrency", type=click.IntRange(min=1, max=64), default=None, metavar="N",
    help="Requests in flight at once (default 16).",
)
def command(
    profile: str | None,
    base_url: str | None,
    insecure: bool,
    max_rps: float | None,
    draft_path: Path,
    app_ids: tuple[str, ...],
    concurrency: int | None,
) -> None:
    """Write the account's remote configuration into the draft (secrets as ${ENV} references, never values)."""
    from tenantdeck.problems import ProblemError
    from tenantdeck.sync.remote.pull import DEFAULT_CONCURRENCY, PullError, pull_target
    from tenantdeck.sync.workspace.state import WorkspaceError

    target = target_from_options(profile, base_url, insecure, max_rps)
    try:
        with api_errors():
            result = pull_target(
                target, draft_path, app_ids=app_ids or None, concurrency=concurrency or DEFAULT_CONCURRENCY
            )
    except (PullError, WorkspaceError, ProblemError) as exc:
        raise TargetError(str(exc)) from None
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise TargetError(f"cannot write{where}: {exc.strerror or exc}") from None

    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    errors = [p for p in result.problems if p.is_error]
    warnings = [p for p in result.problems if not p.is_error]
    for problem in errors:
        click.echo(problem.render(), err=True)
    click.echo(result.summary(), err=True)
    if warnings:
        click.echo(f"{len(warnings)} warning(s) in the pulled draft; see `tenantdeck validate {draft_path}`", err=True)
    if errors:
        click.echo("the pulled draft does not validate (see above); fix it before a push", err=True)
        raise SystemExit(exitcodes.ERROR)
