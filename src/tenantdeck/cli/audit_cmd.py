"""``tenantdeck audit``: the live account against the fleet policies, now (what a dashboard change broke).

Exit codes (for CI and cron): 0 no error-severity violation (warnings allowed), 9 some, 1 error (a rule that could
not run: the policies file's problem, or a check over its cost budget on some app; the other rules' violations are
still reported; or the service unreachable), 8 the draft was pulled from another account.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import draft_input
from tenantdeck.cli.target_options import (
    TargetError,
    api_errors,
    target_for_draft,
    target_options,
    wrong_target_exit,
)


@click.command("audit")
@draft_input("The draft whose policies file, labels and presets the audit uses (the values are the service's).")
@click.option("--policies", "policies_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The rules  [default: <draft stem>.policies.yaml beside the draft]")
@format_option()
@target_options
def command(draft_path: Path, policies_file: Path | None, fmt: str, profile: str | None, base_url: str | None,
            insecure: bool, max_rps: float | None) -> None:
    """Check the live account against the fleet policies (exit 9 when an error-severity rule is broken)."""
    from tenantdeck.cli import output
    from tenantdeck.cli.policy_cmd import broken_note, unrunnable, usable_policies
    from tenantdeck.policies.checks import audit_target, fleet_problems
    from tenantdeck.sync.workspace.binding import WrongTarget

    policies = usable_policies(draft_path, policies_file, partial=True)
    target = target_for_draft(draft_path, profile, base_url, insecure, max_rps)
    try:
        with api_errors():
            checked = asyncio.run(audit_target(target, draft_path, policies))
    except WrongTarget as exc:
        wrong_target_exit(exc)
    except OSError as exc:
        raise TargetError(str(exc)) from None
    evaluation = checked.evaluation
    found = [*fleet_problems(policies, checked.apps, evaluation), *evaluation.problems]
    broken = unrunnable(policies, evaluation)
    code = exitcodes.ERROR if broken else exitcodes.VIOLATIONS if evaluation.errors else exitcodes.OK
    if fmt == "json":
        emit(document("audit", code, ok=code == exitcodes.OK, profile=target.name, apps=len(checked.apps),
                      rules=[{"name": r.name, "severity": r.severity, "selected": evaluation.selected[r.name],
                              "violations": len(evaluation.of_rule(r.name))} for r in policies.rules],
                      violations=[v.to_json() for v in evaluation.violations],
                      problems=[p.to_json() for p in [*policies.problems, *found]]))
    else:
        for problem in found:
            output.echo(problem.render())
        for violation in evaluation.violations:
            output.echo(violation.text(), err=False)
    errors, warnings = len(evaluation.errors), len(evaluation.violations) - len(evaluation.errors)
    click.echo(f"audit of {target.name}: {len(checked.apps)} apps, {len(policies.rules)} rules: "
               f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}", err=True)
    broken_note(broken)
    sys.exit(code)
