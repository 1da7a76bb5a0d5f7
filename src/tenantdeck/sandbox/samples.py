"""Realistic sample documents (widget configuration, webhooks, SMS) used by the seed and the bulk loader.

Built from :mod:`tenantdeck.models.catalog` defaults and normalised through the draft's own models, so sample
data is exactly what a client would have pushed, and a model change cannot leave stale samples behind.
All secrets here are obviously fake values.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from tenantdeck.models import SmsSettings, WebhookBody, WidgetSettings, catalog


@lru_cache(maxsize=8)
def _widget_cached(name: str, primary_color: str) -> dict[str, Any]:
    main: dict[str, Any] = {t.key: (t.default if t.default is not None else False) for t in catalog.MAIN_TOGGLES}
    main.update({"allow_message_reactions": True, "allow_creating_polls": True, "show_typing_indicators": True})
    settings = {
        "name": name,
        "version": catalog.WIDGET_VERSION,
        "style": {**catalog.STYLE_DEFAULTS, "primary_color": primary_color},
        "sidebar": {**catalog.SIDEBAR_DEFAULTS, "calls": True, "user_settings": True},
        "main": main,
    }
    return WidgetSettings.model_validate(settings).model_dump(mode="json", exclude_none=True)


def widget_configuration(name: str = "Support widget", primary_color: str = "#03A9F4") -> dict[str, Any]:
    """A complete, valid widget configuration (a fresh copy each call)."""
    return copy.deepcopy(_widget_cached(name, primary_color))


def webhook(
    webhook_id: str,
    name: str,
    url: str,
    *,
    username: str | None = None,
    password: str | None = None,
    enabled: bool = True,
    retry: bool = False,
) -> tuple[dict[str, Any], str | None]:
    """A validated webhook as (document without password, password)."""
    body: dict[str, Any] = {"id": webhook_id, "name": name, "webhookURL": url, "enabled": enabled}
    body["retryOnFailure"] = retry
    if username and password:
        body.update(useBasicAuth=True, username=username, password=password)
    doc = WebhookBody.model_validate(body).model_dump(mode="json")
    return doc, doc.pop("password")


def sms_settings() -> dict[str, Any]:
    """SMS settings with fake Twilio credentials."""
    return SmsSettings.model_validate(
        {
            "fromMobileNo": "+15005550006",
            "messageDelay": 60,
            "twilioAccountSid": "ACsandbox00000000000000000000000000",
            "twilioAuthToken": "sandboxfaketoken0000000000000000",
            "websiteURL": "https://support.example.com",
        }
    ).model_dump(mode="json")
