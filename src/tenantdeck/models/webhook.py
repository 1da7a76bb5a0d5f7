"""Webhooks: where the service POSTs events, with optional Basic Auth, and which triggers fire them."""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from tenantdeck.hosts import is_loopback_host
from tenantdeck.models import catalog
from tenantdeck.models.base import StrictModel, WebhookName
from tenantdeck.models.secrets import check_secret, is_reference

TriggerId = Literal[catalog.TRIGGER_IDS]  # type: ignore[valid-type]


def _webhook_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise PydanticCustomError("url", "must be an https:// URL with a host, not {value}", {"value": repr(value)})
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise PydanticCustomError(
            "url_scheme", "must use https:// (plain http is only accepted for loopback hosts such as 127.0.0.1)", {}
        )
    return value


def _unique(value: list[str]) -> list[str]:
    seen: set[str] = set()
    for item in value:
        if item in seen:
            raise PydanticCustomError("duplicate_item", "{item} is listed twice", {"item": repr(item)})
        seen.add(item)
    return value


def _password_chars(value: str) -> str:
    if not is_reference(value) and not value.isalnum():
        raise PydanticCustomError("password_chars", "may contain only letters and digits (no spaces)", {})
    return value


WebhookId = Annotated[
    str, StringConstraints(min_length=1, max_length=catalog.WEBHOOK_ID_MAX, pattern=r"^[A-Za-z0-9]+$")
]
WebhookURL = Annotated[str, StringConstraints(max_length=catalog.WEBHOOK_URL_MAX), AfterValidator(_webhook_url)]
Username = Annotated[
    str, StringConstraints(min_length=1, max_length=catalog.WEBHOOK_USERNAME_MAX, pattern=r"^[A-Za-z0-9]+$")
]
Password = Annotated[
    str,
    StringConstraints(min_length=1, max_length=catalog.WEBHOOK_PASSWORD_MAX),
    AfterValidator(check_secret),
    AfterValidator(_password_chars),
]


class WebhookBody(StrictModel):
    """A webhook as the management API takes it (create; update takes the same minus ``id``)."""

    id: WebhookId = Field(description="Unique identifier within the app: letters and digits, at most 50")
    name: WebhookName = Field(description="Display name, at most 50 characters")
    webhookURL: WebhookURL = Field(description="Target URL for deliveries: https, at most 255 characters")
    useBasicAuth: bool = Field(False, description="Whether Basic Auth is applied on deliveries")
    username: Username | None = Field(None, description="Basic Auth username: letters and digits, at most 50")
    password: Password | None = Field(
        None, description="Basic Auth password (secret): write ${ENV_VAR} in a draft; at most 100 letters and digits"
    )
    enabled: bool = Field(True, description="Whether the webhook is active and receives events")
    retryOnFailure: bool = Field(False, description="Retry a failed delivery twice (after 10 s, then 30 s)")

    @model_validator(mode="after")
    def _basic_auth_needs_credentials(self) -> WebhookBody:
        if self.useBasicAuth:
            missing = [k for k in ("username", "password") if getattr(self, k) is None]
            if missing:
                raise PydanticCustomError(
                    "basic_auth_incomplete",
                    "useBasicAuth is true, so {missing} must be set",
                    {"missing": " and ".join(missing)},
                )
        return self


class Webhook(WebhookBody):
    """A webhook in a draft: the API fields plus the triggers that fire it."""

    triggers: Annotated[list[TriggerId], AfterValidator(_unique)] = Field(  # type: ignore[valid-type]
        default_factory=list, description="Trigger ids that fire this webhook"
    )

    def body(self) -> dict[str, object]:
        """The API body (no triggers: they have their own endpoint)."""
        return self.model_dump(mode="json", exclude={"triggers"}, exclude_none=True)
