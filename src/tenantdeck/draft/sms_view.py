"""An app's SMS settings as an editor edits them: the fields in the model's order, typed text turned into values,
each field checked by the draft's own model, and new settings with the catalog's defaults.

Why here: the rules (required, a number of seconds, the token a secret) belong to
:class:`tenantdeck.models.sms.SmsSettings`; an editor must say the same thing the draft's validation says, so it
asks the model rather than re-listing them. No Textual here; pydantic is imported on first use.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from tenantdeck.models import catalog

TOKEN = "twilioAuthToken"  #: the secret among the five: shown and entered only as a ${ENV_VAR} reference


@cache
def sms_fields() -> tuple[tuple[str, str], ...]:
    """(key, description) of each SMS setting, in the model's order."""
    from tenantdeck.models.sms import SmsSettings

    return tuple((name, info.description or name) for name, info in SmsSettings.model_fields.items())


def token_reference(app_name: str) -> str:
    """The ``${...}`` reference a new token gets: the name ``pull`` derives (``TENANTDECK_<APP>_TWILIO_AUTH_TOKEN``)."""
    from tenantdeck.models.secrets import derived_secret_name, secret_env_name
    from tenantdeck.models.sms import SmsSettings

    return f"${{{derived_secret_name(app_name, secret_env_name(SmsSettings, 'twilioAuthToken'))}}}"


def new_settings(app_name: str) -> dict[str, Any]:
    """SMS settings for an app that has none: the catalog's defaults, an empty account SID to fill in (flagged at
    once by validation) and the token as a derived ``${ENV_VAR}`` reference."""
    out: dict[str, Any] = {}
    for key, _ in sms_fields():
        if key == TOKEN:
            out[key] = token_reference(app_name)
        else:
            out[key] = catalog.SMS_DEFAULTS.get(key, "")
    return out


def parse_value(key: str, text: str) -> Any:
    """The value typed text stands for: ``messageDelay`` as a number when it reads as one, else the text itself
    (which the model then refuses with its own message)."""
    text = text.strip()
    if key == "messageDelay":
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = float(text)
        except ValueError:
            return text
        return value if math.isfinite(value) else text
    return text


def show_value(value: Any) -> str:
    """A stored value as input text (``None`` as nothing)."""
    if value is None:
        return ""
    return str(value)


def field_problems(settings: Any, key: str, value: Any) -> list[str]:
    """What the draft's model says about ``key`` set to ``value`` within ``settings`` (messages, errors only)."""
    from pydantic import ValidationError

    from tenantdeck.draft.pydantic_problems import convert
    from tenantdeck.models.sms import SmsSettings

    candidate = dict(settings) if isinstance(settings, dict) else {}
    candidate[key] = value
    try:
        SmsSettings.model_validate(candidate)
    except ValidationError as exc:
        return [p.message for p in convert(exc, root=SmsSettings, data=candidate) if p.path[:1] == (key,)]
    return []
