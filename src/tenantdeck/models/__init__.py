"""Pydantic models of the draft and of the management API's bodies (core: never imports Textual)."""

from tenantdeck.models.app import App, AppCreate, Extensions
from tenantdeck.models.draft import FORMAT_VERSION, Draft
from tenantdeck.models.sms import SmsSettings
from tenantdeck.models.webhook import Webhook, WebhookBody
from tenantdeck.models.widget import (
    Main,
    MainPatch,
    Sidebar,
    SidebarPatch,
    Style,
    StylePatch,
    WidgetDraft,
    WidgetSettings,
)

__all__ = [
    "FORMAT_VERSION",
    "App",
    "AppCreate",
    "Draft",
    "Extensions",
    "Main",
    "MainPatch",
    "Sidebar",
    "SidebarPatch",
    "SmsSettings",
    "Style",
    "StylePatch",
    "Webhook",
    "WebhookBody",
    "WidgetDraft",
    "WidgetSettings",
]
