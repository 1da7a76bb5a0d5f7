"""`tenantdeck init`: write a commented sample draft that validates as is, ready to commit.

Beside the draft it writes what makes the folder work for the next person too: the JSON Schema in
``.tenantdeck/draft.schema.json`` (the draft's modeline points at it by a relative path, so editors find it after
a clone, not only on this machine), and ``.gitignore`` lines that keep the workspace and ``.bak`` files out of git
(:mod:`tenantdeck.gitignore`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli import output
from tenantdeck.cli.options import draft_input


@click.command("init")
@draft_input("Where to write the sample draft.")
@click.option("--force", is_flag=True, help="Overwrite an existing file (its previous version is kept as .bak).")
@click.option(
    "--schema-url",
    metavar="URL",
    help="Where editors find the JSON Schema (default: .tenantdeck/draft.schema.json beside the draft, written "
    "by init, as a relative path).",
)
def command(draft_path: Path, force: bool, schema_url: str | None) -> None:
    """Write a commented, valid sample draft DRAFT (two apps, a preset, SMS and a webhook), its JSON Schema in
    .tenantdeck/ and .gitignore lines for the workspace and .bak files."""
    from tenantdeck.atomic import unwritable_reason
    from tenantdeck.draft.sample import sample_text
    from tenantdeck.draft.save import write_atomic
    from tenantdeck.draft.schema import schema_reference, write_local_schema
    from tenantdeck.gitignore import (
        PROJECT_HEADER,
        PROJECT_LINES,
        WORKSPACE_HEADER,
        WORKSPACE_LINES,
        ensure_lines,
    )

    path = str(draft_path)
    if draft_path.is_dir():
        output.error(f"{path} is a directory")
        sys.exit(exitcodes.ERROR)
    if (draft_path.is_symlink() or draft_path.exists()) and not force:
        output.error(f"{path} already exists; use --force to overwrite it (a .bak is kept)")
        sys.exit(exitcodes.ERROR)
    refused = unwritable_reason(draft_path)
    if refused:
        output.error(f"cannot write {path}: {refused}")
        sys.exit(exitcodes.ERROR)

    text = sample_text(schema_url or schema_reference(draft_path))
    folder = draft_path.parent
    from tenantdeck import safefile
    from tenantdeck.draft.schema import LOCAL_SCHEMA

    # the files written beside the draft, checked before the draft is written: none may lead out of its folder
    for beside in (folder / LOCAL_SCHEMA, folder / ".tenantdeck" / ".gitignore", folder / ".gitignore"):
        outside = safefile.beside_or_none(beside, folder)
        if outside is not None:
            output.error(f"cannot write {outside}; nothing was written")
            sys.exit(exitcodes.ERROR)
    try:
        write_atomic(draft_path, text, backup=True)
        if schema_url is None:
            write_local_schema(draft_path)
            ensure_lines(folder / ".tenantdeck" / ".gitignore", WORKSPACE_LINES, WORKSPACE_HEADER, beside=folder)
        added = ensure_lines(folder / ".gitignore", PROJECT_LINES, PROJECT_HEADER, beside=folder)
    except OSError as exc:
        where = exc.filename or path
        output.error(f"cannot write {where}: {exc.strerror or exc}")
        sys.exit(exitcodes.ERROR)
    click.echo(f"wrote {path}; check it with: tenantdeck validate {path}", err=True)
    if added:
        click.echo(f"added {', '.join(added)} to {folder / '.gitignore'}", err=True)
