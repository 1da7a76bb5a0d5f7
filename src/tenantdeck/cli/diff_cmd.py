"""``tenantdeck diff``: what a push would change, three ways (base, draft, live), in text, markdown or JSON.

Exit codes (CI contract): 0 nothing to push (notes, drift and skipped deletes alone), 2 a push would send
something, 3 conflicts, 1 error. stdout carries only the requested
format; progress and warnings go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tenantdeck.cli.machine import format_option
from tenantdeck.cli.options import strict_option
from tenantdeck.cli.sync_common import (
    choice_of,
    compute_plan,
    concurrency_option,
    draft_option,
    duplicate_names_option,
    prefer_option,
    resolution_options,
    show_plan,
)
from tenantdeck.cli.target_options import rebind_option, target_options


@click.command("diff")
@draft_option
@format_option("markdown", help="Output format on stdout (json: the plan document, docs/json-output.md).")
@click.option("--offline", is_flag=True, help="Compare the draft with the base snapshot only; no network.")
@click.option("--allow-delete", is_flag=True, help="Show deletions as operations instead of skipping them.")
@duplicate_names_option
@resolution_options
@concurrency_option
@target_options
@rebind_option
@prefer_option
@strict_option
def command(draft_path: Path, fmt: str, offline: bool, allow_delete: bool,
            allow_duplicate_names: bool, take_mine: tuple[str, ...], take_theirs: tuple[str, ...],
            take_mine_all: bool, take_theirs_all: bool, concurrency: int, profile: str | None,
            base_url: str | None, insecure: bool, max_rps: float | None, rebind: bool,
            prefer: str | None, strict: bool) -> None:
    """Show what a push would change (three-way: base, draft, live)."""

    plan = compute_plan(draft_path, offline=offline, allow_delete=allow_delete, concurrency=concurrency,
                        allow_duplicate_names=allow_duplicate_names,
                        choice=choice_of(take_mine, take_theirs, take_mine_all, take_theirs_all),
                        target_args={"profile": profile, "base_url": base_url, "insecure": insecure,
                                     "max_rps": max_rps}, rebind=rebind, prefer=prefer, strict=strict)
    sys.exit(show_plan(plan, fmt))
