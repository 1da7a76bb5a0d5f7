"""Run another tenantdeck command from inside one (``edit`` writes the sample through ``init``)."""

from __future__ import annotations


def run_cli(args: list[str]) -> int:
    """The exit code of ``tenantdeck ARGS`` run in this process (its output goes where this one's goes)."""
    from tenantdeck.cli import cli

    try:
        cli.main(args=args, prog_name="tenantdeck", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
