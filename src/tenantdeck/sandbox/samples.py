"""Realistic sample documents (widget configuration, webhooks, SMS, extension settings) used by the seed and the bulk
loader.

Built from :mod:`tenantdeck.models.catalog` defaults and normalised through the draft's own models, so sample
data is exactly what a client would have pushed, and a model change cannot leave stale samples behind.
All secrets here are obviously fake values.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from tenantdeck.models import SmsSettings, WebhookBody, WidgetSettings, catalog
from tenantdeck.models.extension_catalog import BY_ID
from tenantdeck.models.extension_settings import request_model


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


#: A PEM-shaped stand-in for a private key: a DER SEQUENCE around the text "SANDBOX-FAKE-NOT-A-KEY", so it has the
#: shape the sandbox's .p8 check asks for and is obviously no key at all.
FAKE_PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----\nMBZTQU5EQk9YLUZBS0UtTk9ULUEtS0VZ\n-----END PRIVATE KEY-----\n"
#: What the seed records as an uploaded APNs .p8 (only its fingerprint is stored; the bytes are this fake text).
FAKE_P8 = FAKE_PRIVATE_KEY.encode("ascii")


def extension_settings(ext_id: str, settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` checked by the API's own request model for ``ext_id`` and stored as a client would have sent
    them (the removal fields, such as ``deleteCustomRegexData``, are part of a request, not of what is stored), so a
    catalog change that makes a sample invalid fails the seed's test, not a demo."""
    doc = request_model(ext_id).model_validate(settings).model_dump(mode="json", exclude_none=True)
    for _, removal in BY_ID[ext_id].removals:
        doc.pop(removal, None)
    return doc


def moderation_settings() -> dict[str, dict[str, Any]]:
    """Profanity filter, data masking and report-user settings of a community app."""
    return {
        "profanity-filter": extension_settings("profanity-filter", {
            "dropMessage": False, "badwords": ["darn", "heck", "frak", "smeg"],
        }),
        "data-masking": extension_settings("data-masking", {
            "dropMessage": False,
            "defaultRegexData": [
                {"id": "1", "name": "US Phone numbers", "regex": r"[2-9]\d{2}-\d{3}-\d{4}", "enableFlag": True},
                {"id": "2", "name": "Emails", "regex": r"\w+([.-]?\w+)*@\w+([.-]?\w+)*(\.\w{2,10})+",
                 "enableFlag": True},
                {"id": "3", "name": "SSN", "regex": r"\d{3}-\d{2}-\d{4}", "enableFlag": False},
            ],
            "customregexData": [{"id": "order-number", "name": "Order numbers", "regex": r"ORD-\d{6}"}],
            "deleteCustomRegexData": [],
        }),
        "report-user": extension_settings("report-user", {
            "maxReports": 3, "useWebhook": True, "webhookURL": "https://globex.example/webhooks/reports",
        }),
    }  # fmt: skip


def push_settings() -> dict[str, Any]:
    """Push notifications through FCM and APNs with fake credentials (the private key is not a key)."""
    return extension_settings("push-notification", {
        "version": 2,
        "pushProvider": 0,
        "fcmCredentials": {
            "project_id": "initech-field-chat", "client_email": "push@initech-field-chat.iam.example",
            "private_key": FAKE_PRIVATE_KEY, "private_key_id": "0000sandbox0000",
        },
        "useP8": True, "keyId": "SANDBOXKEY", "teamId": "SANDBOXTEAM", "bundleId": "com.initech.fieldchat",
        "sendApnsProduction": False,
        "sendNewMessageNotification": True, "sendIncomingCallNotification": True, "sendMissedCallNotification": True,
    })  # fmt: skip
