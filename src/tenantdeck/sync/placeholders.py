"""Secret placeholders: how a plan names a secret without holding it, and how push fills it in.

A placeholder is ``{"$secret": {"app": NAME, "field": "webhooks.<id>.password" | "sms.twilioAuthToken",
"path": "apps[2].webhooks[0].password", "source": "env" | "draft" | "live", "var": "HOOK_PW"}}``:

* ``env``: the draft writes ``${VAR}``; the value is read from the environment at push time;
* ``draft``: the draft holds a literal (warned about by validate); push re-reads the draft recorded in the plan;
* ``live``: a whole-object SMS update whose token the draft did not change: the service's current token is sent
  back, so a token rotated remotely is not clobbered (the SMS API reports it; webhooks never report a password).

Values only ever exist in the request body handed to the client, never in a plan, journal or message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tenantdeck.models import Draft
from tenantdeck.models.secrets import reference_name
from tenantdeck.problems import format_path

KEY = "$secret"


class SecretUnavailable(LookupError):
    """A placeholder cannot be resolved; the message names the variable or key path, never a value."""


def _locate(draft: Draft | None, app_name: str, field: str, app_id: str | None = None) -> tuple[str | None, str]:
    """(the draft's raw string for that secret, its key path).

    The app is found by id when the plan knows it (two apps with ids may share a name); an app the plan creates is
    the one of that name without an id, or, once a resumed push wrote its id back, the one of that name.
    """
    if draft is None:
        return None, field
    if app_id:
        candidates = [(i, a) for i, a in enumerate(draft.apps) if a.id == app_id]
    else:
        named = [(i, a) for i, a in enumerate(draft.apps) if a.name == app_name]
        candidates = [(i, a) for i, a in named if a.id is None] or named
    from tenantdeck.models.app import secret_field_of

    secret = secret_field_of(field)
    if secret is None:
        return None, field
    found, rid = secret
    for i, app in candidates:
        hit = found.locate(app, rid)
        if hit is not None:
            return hit[0], format_path(("apps", i, *hit[1]))
    return None, field


def secret_placeholder(draft: Draft | None, app_name: str, field: str, *, source: str,
                       app_id: str | None = None) -> dict[str, Any]:
    """The placeholder for one secret field of one app (``source`` "draft" becomes "env" for a ``${VAR}``)."""
    raw, path = _locate(draft, app_name, field, app_id)
    spec: dict[str, Any] = {"app": app_name, "field": field, "path": path, "source": source}
    if app_id:
        spec["app_id"] = app_id
    if source == "draft":
        var = reference_name(raw) if raw else None
        if var:
            spec = {**spec, "source": "env", "var": var}
    return {KEY: spec}


def is_placeholder(value: Any) -> bool:
    return isinstance(value, Mapping) and set(value) == {KEY}


LiveSecret = Callable[[str, str], Awaitable[str | None]]  #: (app id, field) -> current value on the service


async def resolve_payload(
    payload: Any,
    *,
    draft: Draft | None,
    env: Mapping[str, str],
    app_id: str | None,
    live_secret: LiveSecret | None = None,
) -> Any:
    """A copy of ``payload`` with every placeholder replaced by the real value (raises SecretUnavailable)."""
    if is_placeholder(payload):
        return await _resolve(payload[KEY], draft=draft, env=env, app_id=app_id, live_secret=live_secret)
    if isinstance(payload, Mapping):
        return {k: await resolve_payload(v, draft=draft, env=env, app_id=app_id, live_secret=live_secret)
                for k, v in payload.items()}
    if isinstance(payload, list):
        return [await resolve_payload(v, draft=draft, env=env, app_id=app_id, live_secret=live_secret)
                for v in payload]
    return payload


async def _resolve(
    spec: Mapping[str, Any],
    *,
    draft: Draft | None,
    env: Mapping[str, str],
    app_id: str | None,
    live_secret: LiveSecret | None,
) -> str:
    where = f"{spec.get('path') or spec.get('field')} (app {spec.get('app')!r})"
    source = spec.get("source")
    if source == "env":
        var = str(spec.get("var"))
        if var not in env:
            raise SecretUnavailable(f"environment variable {var} is not set (needed for {where})")
        return env[var]
    if source == "live":
        if live_secret is None or app_id is None:
            raise SecretUnavailable(f"cannot read the current value of {where} from the service")
        value = await live_secret(app_id, str(spec.get("field")))
        if value is None:
            raise SecretUnavailable(f"the service did not report {where}; set it in the draft to send it")
        return value
    raw, _ = _locate(draft, str(spec.get("app")), str(spec.get("field")), spec.get("app_id"))
    if raw is None:
        raise SecretUnavailable(f"{where} is no longer in the draft the plan was made from")
    var = reference_name(raw)
    if var:
        if var not in env:
            raise SecretUnavailable(f"environment variable {var} is not set (needed for {where})")
        return env[var]
    return raw


def placeholders_in(payload: Any) -> list[Mapping[str, Any]]:
    """Every placeholder spec inside ``payload`` (used to check variables before any request)."""
    if is_placeholder(payload):
        return [payload[KEY]]
    if isinstance(payload, Mapping):
        return [s for v in payload.values() for s in placeholders_in(v)]
    if isinstance(payload, list):
        return [s for v in payload for s in placeholders_in(v)]
    return []
