"""Builders of valid draft data for tests: complete toggles, a preset, apps with widgets and webhooks."""

from __future__ import annotations

import copy
from typing import Any

from tenantdeck.models import catalog


def full_main(**overrides: bool) -> dict[str, bool]:
    main = {t.key: (t.default if t.default is not None else False) for t in catalog.MAIN_TOGGLES}
    main["show_stickers"] = False  # on by default, but needs the stickers extension
    main.update(overrides)
    return main


def full_settings(name: str = "Support", **main: bool) -> dict[str, Any]:
    return {
        "name": name,
        "version": "v2",
        "style": {
            "docked_layout_icon_background": "#03a9f4",
            "docked_layout_icon_close": catalog.STYLE_DEFAULTS["docked_layout_icon_close"],
            "docked_layout_icon_open": catalog.STYLE_DEFAULTS["docked_layout_icon_open"],
            "primary_color": "#03A9F4",
            "foreground_color": "#000000",
            "background_color": "#FFFFFF",
            "override_system_background_colors": True,
            "custom_js": "v2",
        },
        "sidebar": {
            "chats": True,
            "users": True,
            "groups": True,
            "calls": False,
            "recent_chat_listing": "all_chats",
            "user_listing": "all_users",
            "sidebar_navigation_sequence": ["chats", "users", "groups", "calls", "settings"],
            "start_a_new_conversation": "all_chats",
            "group_listing": "public_and_password_protected_groups",
        },
        "main": full_main(**main),
    }


def webhook(hook_id: str = "hook1", **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": hook_id,
        "name": f"Hook {hook_id}",
        "webhookURL": f"https://example.com/{hook_id}",
        "useBasicAuth": True,
        "username": "deliveries",
        "password": "${HOOK_PASSWORD}",
        "enabled": True,
        "retryOnFailure": False,
        "triggers": ["message_sent", "group_created"],
    }
    data.update(fields)
    return data


def app(name: str = "Acme", **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": name,
        "region": "us",
        "version": "3",
        "extensions": {"enabled": ["polls"], "disabled": []},
        "widgets": [{"extends": "support", "name": f"{name} support", "main": {"send_gifs": True}}],
        "webhooks": [webhook()],
    }
    data.update(fields)
    return data


def draft(*apps: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": 1,
        "presets": {"support": full_settings()},
        "apps": [copy.deepcopy(a) for a in apps] or [app()],
    }
