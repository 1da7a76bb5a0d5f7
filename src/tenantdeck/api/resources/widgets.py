"""Chat widgets (v2): list, create (looked up before it is sent again), update."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tenantdeck.api.envelopes import Envelope, EnvelopeError, to_id
from tenantdeck.api.errors import ConflictError, Operation
from tenantdeck.api.models import RemoteWidget
from tenantdeck.api.resources.common import seg
from tenantdeck.api.transport import Transport

_SERVER_ADDED_WIDGET_KEYS = ("appId", "widgetId")


class WidgetsApi(Transport):
    """An app's chat widgets; a widget has no path of its own (its id travels in the body)."""

    @staticmethod
    def _widgets_path(app_id: str) -> str:
        return f"/apps/{seg(app_id)}/extensions/widget/v2/settings"

    async def list_widgets(self, app_id: str) -> list[RemoteWidget]:
        op = Operation(f"list chat widgets of app {app_id}", subject="widget", app_id=app_id)
        envelope = await self._call(op, "GET", self._widgets_path(app_id))
        out = []
        for i, item in enumerate(envelope.items()):
            config = item.get("configuration")
            try:
                widget_id = to_id(item.get("widgetId", config.get("widgetId") if isinstance(config, Mapping) else None))
            except EnvelopeError as exc:
                raise envelope.bad(f"widget {i}: widgetId: {exc}") from None
            if not isinstance(config, Mapping):
                raise envelope.bad(f"widget {widget_id}: 'configuration' is missing or not an object")
            settings = {k: v for k, v in config.items() if k not in _SERVER_ADDED_WIDGET_KEYS}
            out.append(RemoteWidget(widget_id=widget_id, settings=settings, raw=item))
        return out

    async def create_widget(self, app_id: str, settings: Mapping[str, Any]) -> str:
        """Creates a widget and returns its ``widgetId`` (``data.body.data.widgetId``)."""
        name = settings.get("name")
        op = Operation(f"create chat widget {name!r} in app {app_id}", subject="widget", app_id=app_id)

        async def snapshot() -> set[str]:
            return {w.widget_id for w in await self.list_widgets(app_id)}

        async def confirm(before: set[str] | None) -> str | None:
            new = [w for w in await self.list_widgets(app_id) if w.widget_id not in (before or set())]
            ours = [w for w in new if w.settings.get("name") == name]
            if len(ours) > 1 or (len(new) > 1 and not ours):
                raise ConflictError(
                    op, message=f"{len(new)} new widgets appeared while the create was retried",
                    hint="run `tenantdeck pull` and check the app's widgets",
                )
            return ours[0].widget_id if ours else None

        def parse(envelope: Envelope) -> str:
            payload = envelope.obj()
            try:
                return to_id(payload.get("widgetId"))
            except EnvelopeError as exc:
                raise envelope.bad(f"widgetId: {exc}") from None

        return await self._create(
            op, self._widgets_path(app_id), {"settings": dict(settings)},
            parse=parse, snapshot=snapshot, confirm=confirm,
        )

    async def update_widget(self, app_id: str, widget_id: str, settings: Mapping[str, Any]) -> None:
        """PUT with ``settings.widgetId`` (there is no per-widget path)."""
        op = Operation(f"update chat widget {widget_id} in app {app_id}", subject="widget", app_id=app_id)
        body = {"settings": {**settings, "widgetId": widget_id}}
        envelope = await self._call(op, "PUT", self._widgets_path(app_id), body=body)
        envelope.check_success()
