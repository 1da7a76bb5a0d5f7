"""`tenantdeck init`: write a commented sample draft that validates as is."""

from __future__ import annotations

import os
import sys

import click

from tenantdeck import exitcodes


@click.command("init")
@click.argument("path", default="tenantdeck.yaml", required=False)
@click.option("--force", is_flag=True, help="Overwrite an existing file (its previous version is kept as .bak).")
@click.option(
    "--schema-url",
    metavar="URL",
    help="Where editors find the JSON Schema (default: a relative path inside this project, else the "
    "installed schema file as a file:// URL).",
)
def command(path: str, force: bool, schema_url: str | None) -> None:
    """Write a commented, valid sample draft (two apps, a preset, SMS and a webhook)."""
    from tenantdeck.draft.sample import sample_text
    from tenantdeck.draft.save import write_atomic
    from tenantdeck.draft.schema import schema_reference

    if os.path.lexists(path) and not force:
        click.echo(f"error: {path} already exists; use --force to overwrite it (a .bak is kept)", err=True)
        sys.exit(exitcodes.ERROR)
    if os.path.isdir(path):
        click.echo(f"error: {path} is a directory", err=True)
        sys.exit(exitcodes.ERROR)
    text = sample_text(schema_url or schema_reference(path))
    try:
        write_atomic(path, text, backup=True)
    except OSError as exc:
        click.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
        sys.exit(exitcodes.ERROR)
    click.echo(f"wrote {path}; check it with: tenantdeck validate {path}", err=True)
