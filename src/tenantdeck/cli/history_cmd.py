"""``tenantdeck history``: the local audit log of pushes made from this draft's workspace (who, when, what)."""

from __future__ import annotations

from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.sync_common import draft_option
from tenantdeck.cli.target_options import complete_profile


@click.command("history")
@draft_option
@click.option("--profile", metavar="NAME", default=None, shell_complete=complete_profile,
              help="The pushes to this target of the draft's targets file (each keeps its own history); default: "
              "the draft's own account.")
@format_option()
def command(draft_path: Path, profile: str | None, fmt: str) -> None:
    """Show the local audit log of pushes."""
    from tenantdeck.cli.sync_common import fail
    from tenantdeck.draft.target_overrides import TargetOverridesInvalid, has_section, targets_path
    from tenantdeck.sync.workspace.history import read_history, render_history_text
    from tenantdeck.sync.workspace.state import Workspace, WorkspaceError, check_workspace, workspace_error

    try:
        target = profile if has_section(draft_path, profile) else None
    except TargetOverridesInvalid as exc:
        fail(exc.problems[0].render() if exc.problems else str(exc))
    if profile and target is None:
        fail(f"{profile!r} is not a target of {targets_path(draft_path)}; without --profile, history shows the "
             "pushes to the draft's own account")
    workspace = Workspace(draft_path, target)
    try:
        check_workspace(workspace)
        records = read_history(workspace.history_path, beside=workspace.folder)
    except WorkspaceError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(str(workspace_error(workspace, exc)))
    if fmt == "json":
        emit(document("history", exitcodes.OK, draft=str(draft_path), pushes=records))
    else:
        from tenantdeck.cli.output import write

        write(render_history_text(records))
