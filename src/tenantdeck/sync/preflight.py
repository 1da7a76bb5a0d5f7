"""A check a push makes before its first write, so that what the service will refuse is found before it starts.

(The other such check, that every file a push writes is writable, is
:func:`tenantdeck.sync.workspace.state.unwritable`.)

* **Secret values.** A ``${VAR}`` in the draft is checked only as a reference by ``validate``; its value is read at
  push time. The service refuses a webhook password with a ``-`` (letters and digits only) with a 422 after the
  app, extensions and SMS were already created. Every value the plan sends is checked against the same field
  rules the models enforce on literals, and reported at the reference's FILE:LINE, never with the value.
* **A value that is itself a reference.** ``GIPHY_KEY='${OTHER}'`` is not expanded again (no shell does that
  either): the service would get the text ``${OTHER}`` and refuse it, after earlier writes. Refused here, naming
  the variable, never its value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Final

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


def secret_value_problems(plan: Plan, env: Mapping[str, str], credentials: Collection[str] = ()) -> list[Problem]:
    """Problems (key paths of the ``${VAR}`` references) for values the service would refuse, and for any that is a
    credential tenantdeck signs in with (``credentials``: the target's key and secret, whatever variable or file they
    came from: a webhook password of ``${PROD_SECRET}`` sent the management secret to the webhook's host; trial J,
    J13); no value shown."""
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
            if holds_credential(env[var], credentials):
                out.append(error(f"${{{var}}} holds the credential tenantdeck signs in to the service with: a draft "
                                 "never sends it; use a variable of its own", parse_path(path)
                                 if path.startswith("apps") else (), "credential_reference"))
                continue
            reasons = _refused(secret[0].model, secret[0].name, env[var])
            if reasons:
                out.append(error(f"the value of ${{{var}}} would be refused by the service: {reasons}",
                                 parse_path(path) if path.startswith("apps") else (), "secret_value"))
    return out


#: a credential this long or longer is found inside a value too; a shorter one only as the whole value (a short
#: text inside a long one may be chance)
CONTAINED_FROM: Final = 8


def holds_credential(value: str, credentials: Collection[str]) -> bool:
    """Whether ``value`` is, or holds, one of ``credentials`` in any letter case: a secret with a newline after it
    or inside a longer text is still the secret, and was sent (trial L, L5: ``sandbox-secret\n`` was pushed into
    an extension setting)."""
    folded = value.casefold()
    wanted = [cred.strip().casefold() for cred in credentials if cred.strip()]
    return any(cred == folded.strip() or (len(cred) >= CONTAINED_FROM and cred in folded) for cred in wanted)


def _refused(model: type, name: str, value: str) -> str:
    """Why the service would refuse ``value`` for the secret ``model.name`` ("" when it would not); never quotes
    the value."""
    from pydantic import ValidationError

    from tenantdeck.models.secrets import check_secret, is_reference

    if value.startswith("$"):
        try:
            check_secret(value)
        except ValueError:
            return "it looks like a broken ${NAME} reference, not a value"
        if is_reference(value):
            return ("it is itself a ${NAME} reference, and references are not expanded twice: set the variable "
                    "to the secret itself")
    try:
        _adapter(model, name).validate_python(value)
    except ValidationError as exc:
        return "; ".join(dict.fromkeys(str(e.get("msg", "")) for e in exc.errors(include_input=False)))
    return ""
