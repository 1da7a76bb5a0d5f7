"""The fleet policies as the push engine's gate: what of the account the rules read, the notes they add to a plan,
and the verdict before a push.

Why here and not in the engine: the policies read the sync package's vocabulary (steps, the workspace, the
canonical apps: :mod:`tenantdeck.policies.account`), so they sit above it. The engine
(:mod:`tenantdeck.sync.remote.engine`) takes a :class:`~tenantdeck.sync.remote.engine.Gate` as a parameter
(``PushRequest.gate``, ``plan_draft(gate=)``) and never imports this package; the commands and the editor make the
gate with :func:`push_gate` or :func:`gate_for` and hand it over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tenantdeck.policies.account import sections_read
from tenantdeck.policies.checks import allowed, judge_after_push, policies_for, policy_notes
from tenantdeck.policies.evaluator import Violation
from tenantdeck.policies.model import PolicySet
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.remote.engine import PushRefused
from tenantdeck.sync.workspace.local import Local


@dataclass(frozen=True, slots=True)
class FleetGate:
    """The rules of one policies file, judging the account after a plan (:func:`judge_after_push`, the one view
    ``diff``, ``plan``, the editor's review and the push share)."""

    policies: PolicySet

    def sections_read(self) -> frozenset[str] | None:
        """The sections of every other app of the account the rules read; None when no rule runs (nothing to
        read beyond the draft's apps)."""
        return sections_read(self.policies) if self.policies.rules else None

    def notes(self, local: Local, plan: Plan, now: Mapping[str, Mapping[str, Any]], order: Sequence[str]) -> list[Any]:
        """The plan's notes: each problem of the rules file, each violation the account would have after ``plan``
        (``now``: the service's apps, or the base snapshot's offline)."""
        checked = judge_after_push(self.policies, local, plan.operations, now, order) if self.policies.rules else None
        return policy_notes(self.policies, checked)

    def verdict(self, local: Local, plan: Plan, now: Mapping[str, Mapping[str, Any]], order: Sequence[str],
                allow: Sequence[str]) -> PushRefused | list[Violation]:
        """A refusal when an error rule is broken after ``plan`` and not let through (``allow``: rule names), or
        when a rule cannot run; else the violations let through (the history records them)."""
        policies = self.policies
        # the rules that can run, even beside some that cannot
        checked = judge_after_push(policies, local, plan.operations, now, order)
        let, blocking = allowed(checked.blocking, allow)
        broken = [*policies.problems, *(p for p in checked.evaluation.problems if p.is_error)]
        if broken:  # a rule that did not run (a problem of the file, or over its cost budget on an app)
            return PushRefused("policies", f"the policies file {policies.path} has problems; fix it (or move it "
                               "aside) and push again; nothing was pushed", lines=[v.describe() for v in blocking],
                               problems=broken)
        if blocking:
            rules = sorted({v.rule for v in blocking})
            # the way through is the UI's to say (the CLI's flags, the editor's key): not written here
            return PushRefused("policy_violations", f"the push would leave {len(blocking)} violation(s) of "
                               f"{', '.join(rules)}; nothing was pushed", rules=rules,
                               lines=[v.describe() for v in blocking], problems=list(checked.evaluation.problems))
        return let


def push_gate(policies: PolicySet | None) -> FleetGate | None:
    """The gate of ``policies``; None when there is nothing to check (no file, or an empty one)."""
    return FleetGate(policies) if policies else None


def gate_for(draft_path: Path, policies_file: Path | None = None) -> FleetGate | None:
    """The gate of the rules beside ``draft_path`` (``<stem>.policies.yaml``) or in ``policies_file``."""
    return push_gate(policies_for(draft_path, policies_file))


__all__ = ["FleetGate", "gate_for", "push_gate"]
