"""Checks a push makes before its first write, so that what it will refuse or fail at is found before it starts.

* **Writable files.** A push records what the service did in the journal and the base, and writes created ids
  back into the draft. If the draft cannot be written (a read-only or immutable file, a read-only directory) the
  push would create an app and then fail to record its id; re-running would create another. So it refuses first.
* **Secret values.** A ``${VAR}`` in the draft is checked only as a reference by ``validate``; its value is read at
  push time. The service refuses a webhook password with a ``-`` (letters and digits only) with a 422 after the
  app, extensions and SMS were already created. Every value the plan sends is checked against the same field
  rules the models enforce on literals, and reported at the reference's FILE:LINE, never with the value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenantdeck.problems import Problem, error, parse_path
from tenantdeck.sync.placeholders import placeholders_in

if TYPE_CHECKING:
    from tenantdeck.sync.plan import Plan
    from tenantdeck.sync.state import Workspace


def unwritable(draft_path: Path, workspace: Workspace) -> list[str]:
    """One line per file or directory the push must write and cannot (empty when all is well)."""
    out: list[str] = []
    draft_dir = draft_path.parent if str(draft_path.parent) else Path(".")
    if draft_path.exists() and not os.access(draft_path, os.W_OK):
        out.append(f"cannot write {draft_path} (read-only or immutable): a push records created ids there")
    if not os.access(draft_dir, os.W_OK):
        out.append(f"cannot write in {draft_dir}: the draft is saved by replacing it atomically")
    try:
        root = workspace.ensure()
        for where in (root, workspace.base_dir, workspace.journal_dir):
            where.mkdir(parents=True, exist_ok=True)
            if not os.access(where, os.W_OK):
                out.append(f"cannot write in {where}: a push journals every operation there")
        for path in (workspace.history_path, workspace.draft_writes_path):
            if path.exists() and not os.access(path, os.W_OK):
                out.append(f"cannot write {path}")
    except OSError as exc:
        out.append(f"cannot create the workspace {workspace.root}: {exc.strerror or exc}")
    return out


@cache
def _adapter(field: str) -> Any:
    """A pydantic validator of one secret field, built from the model's own annotation (one source of the rules)."""
    from typing import Annotated

    from pydantic import TypeAdapter

    from tenantdeck.models import SmsSettings, WebhookBody

    model, name = (SmsSettings, "twilioAuthToken") if field == "sms.twilioAuthToken" else (WebhookBody, "password")
    info = model.model_fields[name]
    annotation = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return TypeAdapter(annotation)


def secret_value_problems(plan: Plan, env: Mapping[str, str]) -> list[Problem]:
    """Problems (key paths of the ``${VAR}`` references) for values the service would refuse; no value shown."""
    from pydantic import ValidationError

    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for op in plan.operations:
        for spec in placeholders_in(op.payload):
            var = spec.get("var")
            if spec.get("source") != "env" or not isinstance(var, str) or var not in env:
                continue
            path, field = str(spec.get("path") or ""), str(spec.get("field") or "")
            if (path, var) in seen:
                continue
            seen.add((path, var))
            try:
                _adapter("sms.twilioAuthToken" if field == "sms.twilioAuthToken" else "password").validate_python(
                    env[var])
            except ValidationError as exc:
                reasons = "; ".join(dict.fromkeys(str(e.get("msg", "")) for e in exc.errors(include_input=False)))
                problem = error(f"the value of ${{{var}}} would be refused by the service: {reasons}",
                                parse_path(path) if path.startswith("apps") else (), "secret_value")
                out.append(problem)
    return out
