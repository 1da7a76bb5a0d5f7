"""Webhooks: where the service POSTs events, with optional Basic Auth, and which triggers fire them."""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from tenantdeck.hosts import is_loopback_host
from tenantdeck.models import catalog
from tenantdeck.models.base import HeldName, StrictModel
from tenantdeck.models.secrets import Secret, check_secret, is_reference

#: One of the documented trigger ids (what a draft may *add*; see ``tenantdeck.rules`` and the plan).
TriggerId = Literal[catalog.TRIGGER_IDS]  # type: ignore[valid-type]
#: A trigger id as the service may hold it: the documented list is not closed (receipts are "[Beta]", third parties
#: list more), and a webhook whose triggers we cannot write down would be dropped from the draft and then planned
#: for deletion. Unknown ids are kept and warned about; adding one is refused at plan time.
HeldTriggerId = Annotated[str, StringConstraints(min_length=1, pattern=r"^\S+$")]


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


#: A webhook id as the service holds it. The documented rule (letters and digits, at most 50:
#: ``catalog.WEBHOOK_ID_PATTERN``) is not what the service enforces (its own example id is ``test_webhook201``), so
#: the model takes any id without spaces; the rule is checked for ids a draft *creates* (rules.py, plan).
WebhookId = Annotated[str, StringConstraints(min_length=1, pattern=r"^\S+$")]
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
    """A webhook as the management API takes it (create; update takes the same minus ``id``).

    The optional flags default to None, "not said": an update leaves such a field as it is, and the service
    never reports the write-only ones, so no default could stand for what it holds. A create fills the API's
    defaults (``catalog.WEBHOOK_CREATE_DEFAULTS``).
    """

    id: WebhookId = Field(
        description="Unique identifier within the app. A new webhook's id: letters and digits, at most 50 (an "
        "existing one is kept as the service has it)"
    )
    name: HeldName = Field(title="Name",
        description="Display name, at most 50 characters (a longer one the service holds is kept)")
    webhookURL: WebhookURL = Field(title="URL", description="Target URL for deliveries: https, at most 255 characters")
    useBasicAuth: bool | None = Field(
        None, title="Use Basic Auth",
        description="Whether Basic Auth is applied on deliveries (write-only: the service never reports it). "
        "Left out: left as it is (a new webhook: false)"
    )
    username: Username | None = Field(None, title="Basic Auth username",
        description="Basic Auth username: letters and digits, at most 50")
    password: Annotated[Password | None, Secret("PASSWORD")] = Field(
        None, title="Basic Auth password",
        description="Basic Auth password (secret): write ${ENV_VAR} in a draft; at most 100 letters and digits"
    )
    enabled: bool | None = Field(
        None, title="Enabled",
        description="Whether the webhook is active and receives events. Left out: left as it is (a new "
        "webhook: true)"
    )
    retryOnFailure: bool | None = Field(
        None, title="Retry on failure",
        description="Retry a failed delivery twice, after 10 s then 30 s (write-only: the service never "
        "reports it). Left out: left as it is (a new webhook: false)"
    )

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

    triggers: Annotated[list[HeldTriggerId], AfterValidator(_unique)] = Field(
        default_factory=list,
        description="Trigger ids that fire this webhook (one the documented list lacks is kept, but cannot be added)",
    )

    def body(self) -> dict[str, object]:
        """The API body (no triggers: they have their own endpoint)."""
        return self.model_dump(mode="json", exclude={"triggers"}, exclude_none=True)
