"""``tenantdeck plan -o FILE``: save the operations a push would run, bound to the live state they were made on.

The file is versioned JSON (``format_version``) with, for each remote resource an operation touches, a fingerprint
of its live state; ``tenantdeck push FILE`` refuses it (exit 3) if any of them moved. It never holds a secret. It
is signed with a key derived from the target's credentials (:func:`tenantdeck.sync.remote.planfile.saved_text`):
``push FILE`` refuses a file edited since, or made with other credentials (exit 1).
Exit codes as ``diff``: 0 nothing to do, 2 plan written with changes, 3 conflicts (no file written), 1 error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tenantdeck.cli.machine import format_option
from tenantdeck.cli.options import strict_option
from tenantdeck.cli.sync_common import (
    compute_plan,
    concurrency_option,
    draft_option,
    duplicate_names_option,
    fail,
    prefer_option,
    show_plan,
)
from tenantdeck.cli.target_options import rebind_option, target_options


@click.command("plan")
@draft_option
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the plan to FILE (JSON, signed with a key derived from the target's credentials: `push "
              "FILE` refuses it edited, or pushed with other credentials). Without it, the plan is only shown.")
@format_option("markdown", help="What to print on stdout (json: the plan document, docs/json-output.md).")
@click.option("--allow-delete", is_flag=True, help="Include deletions (apps, webhooks, triggers, SMS settings).")
@duplicate_names_option
@concurrency_option
@target_options
@rebind_option
@prefer_option
@strict_option
def command(draft_path: Path, out: Path | None, fmt: str, allow_delete: bool,
            allow_duplicate_names: bool, concurrency: int,
            profile: str | None, base_url: str | None, insecure: bool, max_rps: float | None,
            rebind: bool, prefer: str | None, strict: bool) -> None:
    """Save the operations a push would run, with remote fingerprints.

    \b
    Exit codes:
      0  nothing to push, notes and skipped deletes alone included (a file given with -o is still written)
      2  changes to push (the plan is shown, and written with -o)
      3  conflicts: the draft and the service changed the same field (no file written)
      1  error (invalid draft, a value of the draft the service refuses, the service unreachable, the file not
         writable; no file written)
      8  the draft was pulled from another account than the one named (see --rebind)
      64 bad command line
    """
    from tenantdeck.atomic import atomic_write_bytes
    from tenantdeck.cli.target_options import target_for_draft
    from tenantdeck.sync.remote.planfile import saved_text
    from tenantdeck.textsafe import shown

    target = target_for_draft(draft_path, profile=profile, base_url=base_url, insecure=insecure, max_rps=max_rps)
    plan = compute_plan(draft_path, offline=False, allow_delete=allow_delete, concurrency=concurrency,
                        allow_duplicate_names=allow_duplicate_names, target_args=None, target=target,
                        rebind=rebind, prefer=prefer, strict=strict)
    code = show_plan(plan, fmt)
    if plan.conflicts:  # the exit code diff gives (plan_exit_code): 1 for a refused value, 3 for conflicts alone
        what = [f"{n} refused value(s) of the draft (fix them in the draft)" for n in [len(plan.refused)] if n]
        what += [f"{n} conflict(s)" for n in [len(plan.settleable)] if n]
        click.echo(f"error: {'; '.join(what)}; no plan written", err=True)
        sys.exit(code)
    if out is not None:
        text = saved_text(plan, target.plan_key())  # signed: push refuses a file edited since (trial L, L1)
        try:
            atomic_write_bytes(out, text.encode("utf-8"), mode=0o600, make_parents=True)
        except OSError as exc:
            fail(f"cannot write {out}: {exc.strerror or exc}")
        click.echo(f"Plan written to {out} ({len(plan.operations)} operation(s), plan {plan.plan_hash()}, signed "
                   f"with the credentials of {shown(target.name)}); push it with `tenantdeck push {out}` and the same "
                   "credentials", err=True)
    sys.exit(code)
