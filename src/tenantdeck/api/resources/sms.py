"""SMS: the legacy ``sms-notification`` extension's settings, under the names the SMS kind calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tenantdeck.api.resources.extensions import SMS, ExtensionsApi


class SmsApi(ExtensionsApi):
    """The extension settings calls with the extension id filled in."""

    async def get_sms(self, app_id: str) -> dict[str, Any] | None:
        """The five SMS settings (without the server-added ``appId``), or None when not configured."""
        return await self.get_extension_settings(app_id, SMS)

    async def store_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        await self.store_extension_settings(app_id, SMS, settings)

    async def update_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        await self.update_extension_settings(app_id, SMS, settings)

    async def delete_sms(self, app_id: str) -> None:
        await self.delete_extension_settings(app_id, SMS)
