"""``tenantdeck pull``: write the account's remote configuration into the draft and a base snapshot beside it.

Output contract: stdout stays empty (with ``--format json``: one document, docs/json-output.md); stderr gets one
summary line (plus notes about kept local items and any
problem the pulled draft has). Every failure is one line on stderr and exit 1, never a traceback, never a secret.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tenantdeck import exitcodes
from tenantdeck.cli import output
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import CONCURRENCY, DEFAULT_CONCURRENCY, draft_input, lock_timeout_option
from tenantdeck.cli.target_options import (
    TargetError,
    api_errors,
    rebind_option,
    settle_key,
    target_for_draft,
    target_options,
    wrong_target_exit,
)

if TYPE_CHECKING:
    from tenantdeck.sync.remote.pull import PullResult


@click.command("pull")
@target_options
@draft_input("Draft file to write (created if missing; comments and presets are kept).")
@click.option(
    "--app", "app_ids", multiple=True, metavar="ID",
    help="Pull only this app id (repeatable); the draft's other apps stay untouched.",
)
@click.option(
    "--concurrency", type=CONCURRENCY, default=DEFAULT_CONCURRENCY, show_default=True, metavar="N",
    help="Requests in flight at once.",
)
@lock_timeout_option
@rebind_option
@format_option()
def command(
    profile: str | None,
    base_url: str | None,
    insecure: bool,
    max_rps: float | None,
    draft_path: Path,
    app_ids: tuple[str, ...],
    concurrency: int,
    lock_timeout: float | None,
    rebind: bool,
    fmt: str,
) -> None:
    """Write the account's remote configuration into the draft DRAFT (secrets as ${ENV} references, never values).

    Nothing is written when the draft cannot be: a missing directory or a read-only file is one error line.
    A draft pulled from another account than the one named (another sandbox, service or key) is left untouched
    and the pull exits 8, unless --rebind says to make it this account's draft. Unpushed edits in the draft that
    the pull replaces with the service's values are each named (note:); the previous draft is DRAFT.bak.
    """
    from tenantdeck.problems import ProblemError
    from tenantdeck.sync.remote.pull import PullError, pull_target
    from tenantdeck.sync.workspace.binding import WrongTarget
    from tenantdeck.sync.workspace.lock import WorkspaceLocked, hold
    from tenantdeck.sync.workspace.state import Workspace, WorkspaceError, check_workspace

    try:
        check_workspace(Workspace(draft_path))  # a lock file or workspace leading out of the folder: before any request
    except WorkspaceError as exc:
        raise TargetError(str(exc)) from None
    refused = _unwritable(draft_path)
    if refused:
        raise TargetError(f"cannot write {draft_path}: {refused}; nothing was changed")
    target = target_for_draft(draft_path, profile, base_url, insecure, max_rps)
    _not_a_target_of_the_draft(draft_path, target.name)
    settle_key(target, Workspace(draft_path))
    try:
        # held for the whole pull: the draft it read is the draft it replaces (no editor saves in between)
        with api_errors(), hold(Workspace(draft_path), "tenantdeck pull", timeout=lock_timeout):
            result = pull_target(target, draft_path, app_ids=app_ids or None, concurrency=concurrency,
                                 rebind=rebind)
    except WrongTarget as exc:
        wrong_target_exit(exc)
    except WorkspaceLocked as exc:
        output.error(str(exc))
        raise SystemExit(exitcodes.LOCKED) from None
    except (PullError, WorkspaceError, ProblemError) as exc:
        raise TargetError(str(exc)) from None
    except OSError as exc:
        from tenantdeck.atomic import WriteFailed

        if isinstance(exc, WriteFailed):
            output.error(f"{exc}; free space and run pull again")
            raise SystemExit(exitcodes.WRITE_FAILED) from None
        where = f" {exc.filename}" if exc.filename else ""
        raise TargetError(f"cannot write{where}: {exc.strerror or exc}") from None

    for note in result.notes:
        output.note(note)
    lost = _discarded(result, draft_path)
    errors = [p for p in result.problems if p.is_error]
    warnings = [p for p in result.problems if not p.is_error]
    for problem in errors:
        output.echo(problem.render())
    output.echo(result.summary())
    if warnings:
        click.echo(f"{len(warnings)} warning(s) in the pulled draft; see `tenantdeck validate {draft_path}`", err=True)
    code = exitcodes.ERROR if errors else exitcodes.OK
    if fmt == "json":
        emit(document("pull", code, ok=not errors, profile=target.name, draft=str(draft_path),
                      base=str(result.workspace.lock_path), apps=result.apps, widgets=result.widgets,
                      webhooks=result.webhooks, extension_settings=result.extension_settings, team=result.team,
                      removed_apps=list(result.removed_apps), notes=list(result.notes), discarded_edits=lost,
                      problems=[p.to_json() for p in result.problems]))
    if errors:
        output.error("the pulled draft does not validate (see above); fix it before a push")
        raise SystemExit(exitcodes.ERROR)


def _discarded(result: PullResult, draft_path: Path) -> int:
    """Name each unpushed edit of the user's that the pull replaced with the service's value (the engine tells
    them, :attr:`~tenantdeck.sync.pull_preview.PullPreview.lost`; the editor's F5 asks before it does this), and
    where the previous draft is. The count, for the JSON document."""
    from tenantdeck.sync.pull_preview import ORIGIN_WORDS
    from tenantdeck.sync.render import change_text

    changed = result.changed
    if changed is None or not changed.lost:
        return 0
    for app in changed.apps:
        if app.status != "changed" and app.origin != "remote":
            output.note(f"{app.name}: {ORIGIN_WORDS[app.origin]}: the app, deleted in the draft, is back")
        for change in app.changes:
            if change.origin != "remote":
                output.note(f"{app.name}: {change.resource}: {ORIGIN_WORDS[change.origin]}: "
                            f"{change_text(change)}")
        for title in (*app.added, *app.removed):
            origin = app.origin_of(title)
            if origin != "remote":
                verb = "back in the draft" if title in app.added else "taken out of the draft"
                output.note(f"{app.name}: {title}: {ORIGIN_WORDS[origin]}: {verb}")  # echo makes each safe
    output.note(f"{changed.lost} unpushed edit(s) of yours in the draft were replaced by the service's values; "
                f"the previous draft is {draft_path.name}.bak (to keep such edits, push before you pull: a push "
                "keeps the service's changes)")
    return changed.lost


def _unwritable(draft_path: Path) -> str | None:
    """Why the pull could not write the draft or its workspace, checked before reading the service."""
    from tenantdeck.atomic import unwritable_reason
    from tenantdeck.sync.workspace.state import Workspace

    reason = unwritable_reason(draft_path)
    if reason is None:
        workspace = Workspace(draft_path)
        for where in (workspace.root, workspace.container):
            if where.is_dir():
                if not os.access(where, os.W_OK | os.X_OK):
                    return f"its workspace {where} is not writable"
                break
    return reason


def _not_a_target_of_the_draft(draft_path: Path, profile: str) -> None:
    """A pull writes the service's values into the draft, which every target shares: from a target of the targets
    file it would write production's values (and ids) over staging's. Say what to do instead (exit 1)."""
    from tenantdeck.draft.target_overrides import TargetOverridesInvalid, has_section, targets_path

    try:
        theirs = has_section(draft_path, profile)
    except TargetOverridesInvalid as exc:
        output.error(exc.problems[0].render() if exc.problems else str(exc))
        raise SystemExit(exitcodes.ERROR) from None
    if theirs:
        raise TargetError(f"{profile!r} is a target of {targets_path(draft_path)}: its values come from the draft "
                          "and that file, so a pull from it would write them over the draft every target shares; "
                          f"pull from the draft's own account, and use `tenantdeck promote {profile} OTHER` to take "
                          "what it has elsewhere. Nothing was changed")
