"""`tenantdeck schema`: print the JSON Schema of the draft format (what ``make schema`` commits)."""

from __future__ import annotations

import click


@click.command("schema")
def command() -> None:
    """Print the JSON Schema of the draft format (for editors and CI)."""
    from tenantdeck.draft.schema import schema_text

    click.echo(schema_text(), nl=False)
