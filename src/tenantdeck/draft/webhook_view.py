"""A webhook as an editor shows and edits it: table cells, the form's checks, and the edits a form's result means.

Why here: the rules for a webhook live in :class:`tenantdeck.models.webhook.Webhook` and
:func:`tenantdeck.rules.check_app`; a form must say exactly what validation of the draft will say, so
:func:`check_webhook` runs that model and those rules on the form's values rather than listing the rules again.
What the form adds is what only it knows: whether the webhook (or its id, or its name) is *new*, because the
documented id and name rules apply to what a draft sends, while a value the service already holds is kept
(``docs/real-service.md``, issue 8); and that the password is entered as a ``${ENV_VAR}`` reference only.

Write-only fields (``catalog.WEBHOOK_WRITE_ONLY``) may be absent from a pulled draft: "not set in the draft" is a
value of its own here (``None``), and a form result writes such a field only when the user set it.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.models.secrets import is_reference, reference_name

NOT_SET = "not set in the draft (left as it is on the service)"
NOT_SET_SHORT = "-"
#: What a new webhook gets for a flag the draft leaves out (the create defaults).
CREATE_DEFAULTS = catalog.WEBHOOK_CREATE_DEFAULTS
FLAGS = ("enabled", "useBasicAuth", "retryOnFailure")


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One message shown under a form field."""

    severity: str  #: "error" or "warning"
    message: str

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


@cache
def webhook_fields() -> tuple[str, ...]:
    """The webhook keys in the model's order (the order a new webhook is written in)."""
    from tenantdeck.models.webhook import Webhook

    return tuple(Webhook.model_fields)


@cache
def field_description(key: str) -> str:
    from tenantdeck.models.webhook import Webhook

    info = Webhook.model_fields.get(key)
    return (info.description or key) if info else key


# -- table cells -----------------------------------------------------------------------------------------------


def flag_cell(hook: Mapping[str, Any], key: str) -> str:
    """``yes``, ``no`` or ``-``: not set (a field the draft leaves out; write-only ones the service never reports)."""
    value = hook.get(key)
    if value is None:
        return NOT_SET_SHORT
    return "yes" if value is True else "no" if value is False else str(value)


def row_cells(hook: Any, problems: tuple[int, int]) -> tuple[str, ...]:
    """(id, name, URL, enabled, Basic Auth, retry, triggers, problems) for one webhook of the draft."""
    h = hook if isinstance(hook, dict) else {}
    triggers = h.get("triggers") if isinstance(h.get("triggers"), list) else []
    errors, warnings = problems
    # both counts: a warning is not hidden by an error beside it (a trial missed one that way)
    shown = " ".join(part for part in (f"{errors} err" if errors else "", f"{warnings} warn" if warnings else "")
                     if part) or "ok"
    return (str(h.get("id", "?")), str(h.get("name", "")), str(h.get("webhookURL", "")), flag_cell(h, "enabled"),
            flag_cell(h, "useBasicAuth"), flag_cell(h, "retryOnFailure"), str(len(triggers)), shown)


# -- the form --------------------------------------------------------------------------------------------------


def password_reference(app_name: str, hook_id: str) -> str:
    """The reference ``pull`` would derive for this webhook's password (a suggestion for the form)."""
    from tenantdeck.models.secrets import derived_secret_name, secret_env_name
    from tenantdeck.models.webhook import Webhook

    return f"${{{derived_secret_name(app_name, hook_id or 'HOOK', secret_env_name(Webhook, 'password'))}}}"


def candidate(values: Mapping[str, Any]) -> dict[str, Any]:
    """The webhook the form's values stand for: keys in the model's order, a field left unset left out."""
    out: dict[str, Any] = {}
    for key in webhook_fields():
        value = values.get(key)
        if value is None or (isinstance(value, str) and value == "" and key != "name"):
            continue
        out[key] = value
    if "triggers" not in out:
        out["triggers"] = []
    return out


def check_webhook(
    values: Mapping[str, Any],
    *,
    original: Mapping[str, Any] | None,
    other_ids: Collection[str],
    env: Mapping[str, str] | None = None,
) -> dict[str, list[FieldProblem]]:
    """Problems of each form field (key -> problems; a key of its own only when it has some).

    ``original`` is the webhook as the draft holds it (None for a new one); ``other_ids`` the ids of the app's
    other webhooks. Runs the draft's model and the app rules on the candidate, then: the documented id and name
    rules become errors for a new webhook (or a changed id or name), the password must be a reference, and a
    referenced variable that is set in ``env`` is checked against the password rule without showing its value.
    """
    from pydantic import TypeAdapter, ValidationError

    from tenantdeck.draft.pydantic_problems import convert
    from tenantdeck.models import App
    from tenantdeck.models.webhook import Password, Webhook
    from tenantdeck.rules import WidgetChecker, check_app, webhook_id_breaks_rule, webhook_name_breaks_rule

    data = candidate(values)
    out: dict[str, list[FieldProblem]] = {}

    def add(key: str, severity: str, message: str) -> None:
        out.setdefault(key, []).append(FieldProblem(severity, message))

    try:
        hook = Webhook.model_validate(data)
    except ValidationError as exc:
        hook = None
        for p in convert(exc, root=Webhook, data=data):
            key = str(p.path[0]) if p.path else ""
            if not key and p.code == "basic_auth_incomplete":
                for missing in ("username", "password"):
                    if missing not in data:
                        add(missing, "error", f"required when Basic Auth is on ({p.message})")
                continue
            add(key or "useBasicAuth", p.severity.value, p.message)

    hook_id = data.get("id")
    new_id = original is None or original.get("id") != hook_id
    if isinstance(hook_id, str):
        if hook_id in other_ids:
            add("id", "error", "another webhook of this app has this id")
        why = webhook_id_breaks_rule(hook_id)
        if why and new_id and "id" not in out:
            add("id", "error", f"{why}; a new id must follow it")
        elif why and "id" not in out:
            add("id", "warning", f"{why}: kept as the service holds it (an existing id is never changed by this)")
    name = data.get("name")
    if isinstance(name, str) and "name" not in out:
        why = webhook_name_breaks_rule(name)
        if why and (original is None or original.get("name") != name):
            add("name", "error", why)
        elif why:
            add("name", "warning", f"{why}: kept as the service holds it")

    password = data.get("password")
    if isinstance(password, str) and not is_reference(password):
        out.pop("password", None)
        add("password", "error", "enter the password as an ${ENV_VAR} reference (a literal secret is never written "
                                 "to the draft)")
    elif isinstance(password, str) and (var := reference_name(password)):
        source = os.environ if env is None else env
        if var in source:
            try:
                TypeAdapter(Password).validate_python(source[var])
            except ValidationError as exc:
                reason = "; ".join(p.message for p in convert(exc, root=Password, data=None))
                add("password", "error", f"the value of ${{{var}}} breaks the password rule: {reason}")
        else:
            add("password", "warning", f"{var} is not set here; set it where you push")

    if hook is not None:
        app = App.model_construct(name="-", region="us", webhooks=[hook], widgets=[], extensions=None, sms=None)
        for p in check_app(WidgetChecker({}), app, (), lambda exc, prefix: []):
            if len(p.path) < 3 or p.code in ("held_webhook_id", "held_webhook_name", "literal_secret"):
                continue
            add(str(p.path[2]), p.severity.value, p.message)
    for msgs in out.values():
        msgs.sort(key=lambda m: not m.is_error)
    return out


def has_errors(problems: Mapping[str, list[FieldProblem]]) -> bool:
    return any(p.is_error for ps in problems.values() for p in ps)


def webhook_edits(
    path: str, original: Mapping[str, Any], new: Mapping[str, Any]
) -> list[tuple[str, str, Any]]:
    """(verb, path, value) edits that turn the webhook ``original`` at ``path`` into ``new``: only changed fields are
    set, fields the form left unset are deleted, so untouched lines (and their comments) stay as they are."""
    edits: list[tuple[str, str, Any]] = []
    for key in webhook_fields():
        if key == "triggers" and new.get(key) == [] and key not in original:
            continue
        if key in new and (key not in original or original[key] != new[key]):
            edits.append(("set", f"{path}.{key}", new[key]))
        elif key not in new and key in original:
            if key == "triggers" and original[key] == []:
                continue
            edits.append(("delete", f"{path}.{key}", None))
    return edits


def trigger_groups(chosen: Collection[str], text: str = "") -> list[tuple[str, list[tuple[str, bool]]]]:
    """(category, [(trigger, chosen)]) for every category with a trigger matching ``text`` (a substring of the id
    or the category). Triggers already chosen that the catalog lacks come last, under "not in the catalog", so they
    are shown and kept."""
    needle = text.strip().lower()
    groups: list[tuple[str, list[tuple[str, bool]]]] = []
    known = set(catalog.TRIGGER_IDS)
    extra = [t for t in chosen if t not in known]
    for category, ids in [*catalog.TRIGGER_CATEGORIES.items(), ("not in the catalog (kept)", tuple(extra))]:
        items = [(t, t in chosen) for t in ids if not needle or needle in t.lower() or needle in category.lower()]
        if items:
            groups.append((category, items))
    return groups
