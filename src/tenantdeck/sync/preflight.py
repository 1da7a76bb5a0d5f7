"""A check a push makes before its first write, so that what the service will refuse is found before it starts.

(The other such check, that every file a push writes is writable, is
:func:`tenantdeck.sync.workspace.state.unwritable`.)

* **Secret values.** A ``${VAR}`` in the draft is checked only as a reference by ``validate``; its value is read at
  push time. The service refuses a webhook password with a ``-`` (letters and digits only) with a 422 after the
  app, extensions and SMS were already created. Every value the plan sends is checked against the same field
  rules the models enforce on literals, and reported at the reference's FILE:LINE, never with the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from tenantdeck.problems import Problem, error, parse_path
from tenantdeck.sync.placeholders import placeholders_in

if TYPE_CHECKING:
    from tenantdeck.sync.plan import Plan


@cache
def _adapter(model: type, name: str) -> Any:
    """A pydantic validator of one secret field, built from the model's own annotation (one source of the rules)."""
    from typing import Annotated

    from pydantic import TypeAdapter

    info = model.model_fields[name]  # type: ignore[attr-defined]
    annotation = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return TypeAdapter(annotation)


def secret_value_problems(plan: Plan, env: Mapping[str, str]) -> list[Problem]:
    """Problems (key paths of the ``${VAR}`` references) for values the service would refuse; no value shown."""
    from pydantic import ValidationError

    from tenantdeck.models.app import secret_field_of

    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for op in plan.operations:
        for spec in placeholders_in(op.payload):
            var = spec.get("var")
            if spec.get("source") != "env" or not isinstance(var, str) or var not in env:
                continue
            path, field = str(spec.get("path") or ""), str(spec.get("field") or "")
            secret = secret_field_of(field)
            if (path, var) in seen or secret is None:
                continue
            seen.add((path, var))
            try:
                _adapter(secret[0].model, secret[0].name).validate_python(env[var])
            except ValidationError as exc:
                reasons = "; ".join(dict.fromkeys(str(e.get("msg", "")) for e in exc.errors(include_input=False)))
                problem = error(f"the value of ${{{var}}} would be refused by the service: {reasons}",
                                parse_path(path) if path.startswith("apps") else (), "secret_value")
                out.append(problem)
    return out
