"""``tenantdeck policy list|fix``: the fleet policies of a draft, and the edits that make the draft comply.

``list`` prints each rule with how many apps it selects and how many break it (offline, on the draft). ``fix``
writes the obvious fixes (docs/policies.md) into the draft as one change, keeping its comments, and lists what it
could not fix (a ``same`` rule whose apps tie: it does not pick a side); ``--dry-run`` only lists. Exit codes: 0
the draft complies (after the fix), 9 error-severity violations are left, 1 error (invalid draft or policies
file, the draft could not be written), 5 locked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tenantdeck import exitcodes
from tenantdeck.cli import output
from tenantdeck.cli.machine import document, emit, format_option
from tenantdeck.cli.options import draft_input, lock_timeout_option

if TYPE_CHECKING:
    from tenantdeck.policies.model import PolicySet

policies_option = click.option(
    "--policies", "policies_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="The rules  [default: <draft stem>.policies.yaml beside the draft]")


@click.group("policy")
def command() -> None:
    """Fleet policies: list the rules and their violations, fix the obvious ones."""


def usable_policies(draft_path: Path, policies_file: Path | None, *, partial: bool = False) -> PolicySet:
    """The draft's rules, the rules file's problems printed. A command that writes by the rules (``fix``) does not
    act on some of them: exit 1. One that reports (``partial``: ``audit``, ``list``) runs the rules that can run,
    since a rule that cannot run never stops the others (a rules file from a pull request must not blind the
    nightly audit), and exits 1 at its end (:func:`broken_exit`). No rule at all is an error."""
    from tenantdeck.policies.checks import policies_for

    policies = policies_for(draft_path, policies_file)
    for problem in policies.problems:
        output.echo(problem.render())
    if policies.problems and not (partial and policies.rules):
        output.error(f"the policies file {policies.path} has problems (above); fix it first")
        sys.exit(exitcodes.ERROR)
    if not policies.rules:
        output.error(f"no policies: write them in {policies.path} (docs/policies.md)")
        sys.exit(exitcodes.ERROR)
    return policies


def unrunnable(policies: PolicySet, evaluation: Any) -> list[Any]:
    """The errors that say a rule did not run (on every app: the file's; on some: over budget): the verdict is
    incomplete, so the command exits 1 after reporting what the other rules found."""
    return [*policies.problems, *(p for p in evaluation.problems if p.is_error)]


def broken_note(problems: list[Any]) -> None:
    if problems:
        output.error(f"{len(problems)} problem(s) of the rules (above): some rules did not run everywhere; the "
                     "others' verdict is shown")


def _load(draft_path: Path, policies_file: Path | None, *, partial: bool = False) -> tuple[PolicySet, Any]:
    from tenantdeck.draft.session import DraftSession

    policies = usable_policies(draft_path, policies_file, partial=partial)
    session = DraftSession.open(draft_path)
    errors = [p for p in session.problems if p.is_error]
    if errors:
        for problem in errors:
            output.echo(problem.render())
        output.error(f"{draft_path} does not validate (above); fix it first")
        sys.exit(exitcodes.ERROR)
    return policies, session


@command.command("list")
@draft_input("The draft to check.")
@policies_option
@format_option()
def list_rules(draft_path: Path, policies_file: Path | None, fmt: str) -> None:
    """Each rule, the apps it selects and how many of them break it (offline, on the draft)."""
    from tenantdeck.policies.checks import fleet_problems
    from tenantdeck.policies.evaluator import PolicyEngine

    policies, session = _load(draft_path, policies_file, partial=True)
    data = session.data
    apps = list(data.get("apps") or [])
    evaluation = PolicyEngine(policies).evaluate(apps, data.get("presets"))
    found = [*fleet_problems(policies, apps, evaluation), *evaluation.problems]
    broken = unrunnable(policies, evaluation)
    code = exitcodes.ERROR if broken else exitcodes.VIOLATIONS if evaluation.errors else exitcodes.OK
    rules = [{"name": r.name, "severity": r.severity, "check": r.check.kind, "message": r.message,
              "selected": evaluation.selected[r.name], "violations": len(evaluation.of_rule(r.name))}
             for r in policies.rules]
    if fmt == "json":
        emit(document("policy list", code, rules=rules, violations=[v.to_json() for v in evaluation.violations],
                      problems=[p.to_json() for p in [*policies.problems, *found]]))
    else:
        for problem in found:
            output.echo(problem.render())
        for rule in rules:
            output.write(f"{rule['name']:<28} {rule['severity']:<8} {rule['violations']:>5} of {rule['selected']:>5}"
                         f" apps  {rule['message']}\n")
    broken_note(broken)
    sys.exit(code)


@command.command("fix")
@draft_input("The draft to fix (comments kept).")
@policies_option
@click.option("--dry-run", is_flag=True, help="Only list the edits.")
@lock_timeout_option
def fix(draft_path: Path, policies_file: Path | None, dry_run: bool, lock_timeout: float | None) -> None:
    """Write the obvious fixes (equals, one_of, required with a fix value, forbidden, contains, same) into the draft
    as one change; list the violations no edit can settle (a same rule whose apps tie is one: exit 9)."""
    from tenantdeck.policies.evaluator import PolicyEngine
    from tenantdeck.policies.fix import apply_fixes, plan_fixes
    from tenantdeck.sync.workspace.lock import WorkspaceLocked, hold
    from tenantdeck.sync.workspace.state import Workspace

    policies, session = _load(draft_path, policies_file)
    try:
        with hold(Workspace(draft_path), "tenantdeck policy fix", timeout=lock_timeout):
            plan, _ = plan_fixes(policies, session.data)
            for edit in plan.edits:
                output.echo(("would " if dry_run else "") + edit.text(), err=False)
            if plan.edits and not dry_run:
                apply_fixes(session, plan)
                errors = [p for p in session.problems if p.is_error]
                if errors:
                    for problem in errors:
                        output.echo(problem.render())
                    output.error("the fixed draft would not validate (above); nothing was written")
                    sys.exit(exitcodes.ERROR)
                session.save()
    except WorkspaceLocked as exc:
        output.error(str(exc))
        sys.exit(exitcodes.LOCKED)
    for violation, why in plan.left:
        output.echo(f"not fixed: {violation.text()}: {why}")
    data = session.data
    after = PolicyEngine(policies).evaluate(list(data.get("apps") or []), data.get("presets"))
    done = "would write" if dry_run else "wrote"
    click.echo(f"{draft_path}: {done} {len(plan.edits)} edit(s); {len(after.errors)} error violation(s) left",
               err=True)
    sys.exit(exitcodes.VIOLATIONS if after.errors else exitcodes.OK)
