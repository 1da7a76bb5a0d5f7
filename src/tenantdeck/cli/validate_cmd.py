"""`tenantdeck validate`: check a draft offline; every problem with file, line, column and key path.

stdout carries only the requested format (one ``FILE:LINE:COL: error|warning: KEY.PATH: message`` line per problem,
or a JSON list) so it can be piped into editors and CI annotations; the summary goes to stderr. Imports nothing but
the loader, PyYAML and the models: no httpx, FastAPI, ruamel or Textual.
"""

from __future__ import annotations

import sys

import click

from tenantdeck import exitcodes


@click.command("validate")
@click.argument("path", default="tenantdeck.yaml", required=False)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format of the problems on stdout.",
)
def command(path: str, fmt: str) -> None:
    """Check a draft offline; exit 0 when valid (warnings allowed), 1 when not."""
    from tenantdeck.draft import yamlsource
    from tenantdeck.draft.load import load_draft
    from tenantdeck.problems import render_json, render_text

    if not yamlsource.HAVE_LIBYAML:
        click.echo("warning: PyYAML has no libyaml here; validating with the slower pure-Python parser", err=True)
    result = load_draft(path)
    problems = result.problems
    missing = [p for p in problems if p.code == "file-missing"]
    if missing and fmt == "text":
        click.echo(f"error: {path}: no such file (`tenantdeck init {path}` writes a sample draft)", err=True)
        sys.exit(exitcodes.ERROR)

    out = render_json(problems) if fmt == "json" else render_text(problems)
    if out:
        click.echo(out, nl=False)
    errors = sum(1 for p in problems if p.is_error)
    warnings = len(problems) - errors
    valid = result.draft is not None and errors == 0
    summary = f"{path}: " + ("valid" if valid else "invalid")
    if problems:
        summary += f" ({errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)})"
    click.echo(summary, err=True)
    sys.exit(exitcodes.OK if valid else exitcodes.ERROR)
