"""SMS notification settings (``sms-notification/v1/settings``): exactly the five fields the API takes."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from tenantdeck.models.base import NonEmptyStr, StrictModel
from tenantdeck.models.secrets import Secret, SecretValue


def _number(value: object) -> object:
    """Accept an int or a float, nothing else (not a bool, not "60"), reported at the field itself."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise PydanticCustomError("number_type", "must be a number of seconds, such as 60", {})
    return value


Seconds = Annotated[int | float, BeforeValidator(_number)]


class SmsSettings(StrictModel):
    """The legacy SMS extension's settings; all five are required by the API. ``twilioAuthToken`` is a secret."""

    fromMobileNo: NonEmptyStr = Field(title="Sender number",
        description="Number SMS notifications are sent from (e.g. +12345678)")
    messageDelay: Seconds = Field(
        title="Seconds unread before an SMS", ge=0,
        description="Send an SMS if a message has not been read after this many seconds (default 60)"
    )
    twilioAccountSid: NonEmptyStr = Field(title="Twilio account SID",
        description="Twilio account SID (from the Twilio console)")
    twilioAuthToken: Annotated[SecretValue, Secret("TWILIO_AUTH_TOKEN")] = Field(
        title="Twilio auth token", description="Twilio auth token (secret): write ${ENV_VAR} in a draft"
    )
    websiteURL: NonEmptyStr = Field(title="Website URL", description="A website URL included in the notification")
