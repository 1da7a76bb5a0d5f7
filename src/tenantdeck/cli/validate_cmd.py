"""`tenantdeck validate`: check a draft offline; every problem with file, line, column and key path.

stdout carries only the requested format (one ``FILE:LINE:COL: error|warning: KEY.PATH: message`` line per problem,
or one JSON document: docs/json-output.md) so it can be piped into editors and CI annotations; the summary goes to
stderr. Imports nothing but the loader, PyYAML and the models: no httpx, FastAPI, ruamel or Textual.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli import output
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import draft_input, strict_option


@click.command("validate")
@draft_input("The draft to check.")
@format_option()
@click.option("--policies", "policies_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Fleet policies to check the draft against  [default: <draft stem>.policies.yaml "
              "beside the draft, when there is one]")
@strict_option
def command(draft_path: Path, fmt: str, policies_file: Path | None, strict: bool) -> None:
    """Check the draft DRAFT offline (and its targets file and fleet policies, if any); exit 0 when valid (warnings
    allowed, but with --strict a literal secret is an error), 1 when not."""
    from tenantdeck.draft import yamlsource
    from tenantdeck.draft.load import load_draft
    from tenantdeck.problems import render_text

    if not yamlsource.HAVE_LIBYAML:
        output.warning("PyYAML has no libyaml here; validating with the slower pure-Python parser")
    path = str(draft_path)
    result = load_draft(path)
    problems = result.problems
    missing = [p for p in problems if p.code == "file-missing"]
    if missing and fmt == "text":
        output.error(f"{path}: no such file (`tenantdeck init {path}` writes a sample draft)")
        sys.exit(exitcodes.ERROR)

    from tenantdeck.policies.draft_problems import all_problems, counted, counts

    # the targets file and the fleet policies too: the function the editor's Problems screen (F8) counts with
    problems = all_problems(draft_path, result.doc.data, problems, result.doc, policies_file)
    if strict:
        from tenantdeck.problems import strict as strictly

        problems = strictly(problems)
    errors, warnings = counts(problems)
    valid = result.draft is not None and errors == 0
    if fmt == "json":
        emit(document("validate", exitcodes.OK if valid else exitcodes.ERROR, draft=path, valid=valid,
                      errors=errors, warnings=warnings, problems=[p.to_json() for p in problems]))
        if errors:  # a CI log shows stderr: each error located there too (FILE:LINE:COL), the JSON keeps all
            output.echo(render_text([p for p in problems if p.is_error]), nl=False)
    elif problems:
        output.echo(render_text(problems), err=False, nl=False)
    summary = f"{path}: " + ("valid" if valid else "invalid")
    if problems:
        summary += f" ({counted(problems)})"
    click.echo(summary, err=True)
    sys.exit(exitcodes.OK if valid else exitcodes.ERROR)
