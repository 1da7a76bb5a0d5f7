"""SMS notification settings (``sms-notification/v1/settings``): exactly the five fields the API takes."""

from __future__ import annotations

from pydantic import Field

from tenantdeck.models.base import NonEmptyStr, StrictModel
from tenantdeck.models.secrets import SecretValue


class SmsSettings(StrictModel):
    """The legacy SMS extension's settings; all five are required by the API. ``twilioAuthToken`` is a secret."""

    fromMobileNo: NonEmptyStr = Field(description="Number SMS notifications are sent from (e.g. +12345678)")
    messageDelay: int | float = Field(
        ge=0, description="Send an SMS if a message has not been read after this many seconds (default 60)"
    )
    twilioAccountSid: NonEmptyStr = Field(description="Twilio account SID (from the Twilio console)")
    twilioAuthToken: SecretValue = Field(description="Twilio auth token (secret): write ${ENV_VAR} in a draft")
    websiteURL: NonEmptyStr = Field(description="A website URL included in the notification")
