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
from tenantdeck.problems import render_text

DEFAULT_DRAFT = "tenantdeck.yaml"

draft_option = click.option(
    "--draft", "draft_path", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_DRAFT,
    show_default=True, help="The draft file.",
)
duplicate_names_option = click.option(
    "--allow-duplicate-names", is_flag=True,
    help="Create an app even when the service already has one of that name (otherwise that is a conflict).",
)
concurrency_option = click.option(
    "--concurrency", type=click.IntRange(min=1, max=256), default=16, show_default=True, metavar="N",
    help="Apps worked on at once (reads use up to 4N requests in flight).",
)


def fail(message: str, code: int = exitcodes.ERROR) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def compute_plan(draft_path: Path, *, offline: bool, allow_delete: bool, concurrency: int,
                 target_args: dict[str, Any] | None, allow_duplicate_names: bool = False) -> Any:
    """Load, (read live), compare and plan; prints draft problems and exits 1 on any error."""
    from tenantdeck.sync.workspace.local import DraftInvalid, compare_local, load_local, plan_local
    from tenantdeck.sync.workspace.state import WorkspaceError

    try:
        local = load_local(draft_path, reuse_in_sync=offline)
    except DraftInvalid as exc:
        click.echo(render_text(exc.problems), err=True, nl=False)
        fail(f"{draft_path} is not valid")
    except WorkspaceError as exc:
        fail(str(exc))
    for warning in local.warnings:
        click.echo(warning.render(), err=True)
    if offline:
        if not local.base and not local.in_sync:
            click.echo("note: no base snapshot yet (run `tenantdeck pull`): every app with an id is unknown", err=True)
        return plan_local(local, compare_local(local, None), allow_delete=allow_delete)
    return _online_plan(local, allow_delete=allow_delete, concurrency=concurrency, target_args=target_args or {},
                        allow_duplicate_names=allow_duplicate_names)


def _online_plan(local: Any, *, allow_delete: bool, concurrency: int, target_args: dict[str, Any],
                 allow_duplicate_names: bool) -> Any:
    import asyncio

    from tenantdeck.cli.target_options import TargetError, api_errors, target_from_options
    from tenantdeck.sync.names import clash_conflicts, clashes, live_names, new_app_names
    from tenantdeck.sync.remote.fetch import fetch_live
    from tenantdeck.sync.workspace.local import compare_local, plan_local

    target = target_from_options(**target_args)
    click.echo(f"Reading the service ({target.describe()}) ...", err=True)

    async def run() -> Any:
        async with target.client(concurrency=max(concurrency * 4, 16)) as client:
            listing = await client.list_apps()
            live = await fetch_live(client, local.app_ids(), secret_key=local.secret_key,
                                    concurrency=concurrency * 4, listing=listing)
            return listing, live

    try:
        with api_errors():
            listing, live = asyncio.run(run())
    except TargetError as exc:
        fail(exc.message)
    plan = plan_local(local, compare_local(local, live), allow_delete=allow_delete, profile=target.name,
                      base_url=target.base_url)
    names = live_names(listing)
    plan.existing_names = {n: names[n] for n in new_app_names(local.apps) if n in names}
    if not allow_duplicate_names:
        plan.conflicts.extend(clash_conflicts(clashes(local.apps, names)))
    return plan


def env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")
