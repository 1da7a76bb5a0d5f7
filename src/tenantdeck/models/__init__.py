"""Pydantic models of the draft and of the management API's bodies (core: never imports Textual).

The package is lazy: ``import tenantdeck.models`` and ``from tenantdeck.models import catalog`` import no pydantic;
the model classes (pydantic itself is about 0.1 s of imports, the models' schemas about 0.05 s more) are built on
first access to one of the names below. A UI paints a draft from its parsed data and validates in a worker, so the
first paint never waits for pydantic.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing would be most of what this package costs
if TYPE_CHECKING:
    from typing import Any

    from tenantdeck.models.app import App, AppCreate, Extensions
    from tenantdeck.models.draft import FORMAT_VERSION, Draft
    from tenantdeck.models.sms import SmsSettings
    from tenantdeck.models.team import Team
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

#: public name -> the submodule that defines it
_HOMES: dict[str, str] = {
    "App": "app",
    "AppCreate": "app",
    "Extensions": "app",
    "FORMAT_VERSION": "draft",
    "Draft": "draft",
    "SmsSettings": "sms",
    "Team": "team",
    "Webhook": "webhook",
    "WebhookBody": "webhook",
    "Main": "widget",
    "MainPatch": "widget",
    "Sidebar": "widget",
    "SidebarPatch": "widget",
    "Style": "widget",
    "StylePatch": "widget",
    "WidgetDraft": "widget",
    "WidgetSettings": "widget",
}

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
    "Team",
    "Webhook",
    "WebhookBody",
    "WidgetDraft",
    "WidgetSettings",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
