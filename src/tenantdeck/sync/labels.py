"""Human labels for every comparable field, taken from the catalog so a plan speaks the admin's language."""

from __future__ import annotations

from tenantdeck.models import catalog

WEBHOOK_LABELS = {
    "name": "Name",
    "webhookURL": "URL",
    "useBasicAuth": "Use Basic Auth",
    "username": "Basic Auth username",
    "password": "Basic Auth password",
    "enabled": "Enabled",
    "retryOnFailure": "Retry on failure",
}
SMS_LABELS = {
    "fromMobileNo": "Sender number",
    "messageDelay": "Seconds unread before an SMS",
    "twilioAccountSid": "Twilio account SID",
    "twilioAuthToken": "Twilio auth token",
    "websiteURL": "Website URL",
}
APP_LABELS = {"name": "App name", "region": "Region", "version": "App version"}

#: (resource kind, field) pairs holding a SecretState instead of a value.
SECRET_FIELDS = frozenset({("webhook", "password"), ("sms", "twilioAuthToken")})


def is_secret(kind: str, path: str) -> bool:
    return (kind, path) in SECRET_FIELDS


def absent_is_unchanged(kind: str, path: str) -> bool:
    """A field the draft leaves out is left as it is on the service (not cleared, not reset to a default).

    True for secrets (the API cannot clear one; an update without it keeps it) and for every optional webhook
    field: several are write-only (never reported), and an update that omits a field keeps it.
    """
    return kind == "webhook" or is_secret(kind, path)


def label(kind: str, path: str) -> str:
    """The human label of ``path`` inside a resource of ``kind`` (falls back to the path itself)."""
    if kind == "widget":
        section, _, key = path.partition(".")
        if section == "main" and key in catalog.TOGGLES_BY_KEY:
            return catalog.TOGGLES_BY_KEY[key].label
        if section == "style" and key in catalog.STYLE_LABELS:
            return catalog.STYLE_LABELS[key]
        if section == "sidebar" and key in catalog.SIDEBAR_LABELS:
            return catalog.SIDEBAR_LABELS[key]
        return {"name": "Widget name", "version": "Widget version"}.get(path, path)
    if kind == "webhook":
        return WEBHOOK_LABELS.get(path, path)
    if kind == "triggers":
        return f"Trigger {path}"
    if kind == "sms":
        return SMS_LABELS.get(path, path)
    if kind == "extensions":
        return f"Extension {path}"
    if kind == "app":
        return APP_LABELS.get(path, path)
    return path
