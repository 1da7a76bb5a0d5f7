"""`tenantdeck schema`: print the JSON Schema of the draft format (what ``make schema`` commits)."""

from __future__ import annotations

import click


@click.command("schema")
@click.option("--targets", is_flag=True, help="The schema of the targets file (<draft>.targets.yaml: per profile, "
              "app ids and values that differ) instead of the draft's.")
def command(targets: bool) -> None:
    """Print the JSON Schema of the draft format (for editors and CI)."""
    if targets:
        import json

        from tenantdeck.draft.target_overrides import targets_schema

        click.echo(json.dumps(targets_schema(), indent=2, ensure_ascii=False))
        return
    from tenantdeck.draft.schema import schema_text

    click.echo(schema_text(), nl=False)
