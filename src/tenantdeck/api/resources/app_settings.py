"""An app's settings (facts §3.5): read them, set booleans (map-settings), unmap them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tenantdeck.api.errors import Operation
from tenantdeck.api.resources.common import seg, success
from tenantdeck.api.transport import Transport
from tenantdeck.textsafe import shown


class AppSettingsApi(Transport):
    """Key -> value settings of an app; only booleans can be set."""

    async def get_app_settings(self, app_id: str) -> dict[str, Any]:
        """Key -> value; not every value is a bool (facts §3.5)."""
        op = Operation(f"get settings of app {app_id}", subject="settings", app_id=app_id)
        return (await self._call(op, "GET", f"/apps/{seg(app_id)}/settings")).optional_obj() or {}

    async def map_settings(self, app_id: str, settings: Mapping[str, bool]) -> dict[str, bool]:
        """Set boolean settings in one ``POST {"settings": {...}}`` (map-settings); returns key -> success.

        The service answers per key, so **a False is not done**: a key marked ``success: false``, or not in the
        answer at all, is False and the caller must report it. The vendor's schema maps booleans only: any other
        value is a :class:`TypeError` before a request is made. Setting a boolean twice is harmless (the POST is
        idempotent: the same body leaves the same settings), so a retry after a 5xx, a timeout or a lost
        connection simply sends it again, with no read-back. With nothing to set no request is made. Refusals
        (a list-valued key, an unknown app, ...) raise the :class:`ApiError` family like every call."""
        wanted = dict(settings)
        wrong = sorted(key for key, value in wanted.items() if not isinstance(value, bool))
        if wrong:  # keys are data (a draft's): escaped before they can reach a terminal
            more = f" and {len(wrong) - 5} more" if wrong[5:] else ""
            named = ", ".join(shown(key[:100]) for key in wrong[:5]) + more
            raise TypeError(f"map_settings sets booleans only; not a boolean: {named}")
        if not wanted:
            return {}
        op = Operation(f"set settings of app {app_id} ({', '.join(wanted)})", subject="settings", app_id=app_id)
        envelope = await self._call(op, "POST", f"/apps/{seg(app_id)}/settings", body={"settings": wanted})
        payload = envelope.optional_obj() or {}
        return {key: success(payload.get(key)) for key in wanted}

    async def unmap_settings(self, app_id: str) -> None:
        """``DELETE /apps/{appId}/settings`` (unmap-settings). Which keys the real service resets is not documented
        (facts §3.5), so the sync engine never calls it; it is here for tests and for completeness."""
        op = Operation(f"unmap settings of app {app_id}", subject="settings", app_id=app_id)
        (await self._call(op, "DELETE", f"/apps/{seg(app_id)}/settings")).check_success()
