"""Extensions of an app: which are on (list, enable/disable in one call), and their settings
(``/extensions/{extId}/v1/settings``; SMS is one of them, :mod:`tenantdeck.api.resources.sms`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tenantdeck.api.envelopes import Envelope
from tenantdeck.api.errors import MalformedResponse, NotFoundError, Operation
from tenantdeck.api.models import RemoteExtension
from tenantdeck.api.resources.common import APP_GONE_CODES, LIST_PER_PAGE, seg, success
from tenantdeck.api.transport import Transport
from tenantdeck.models import extension_catalog

SMS = "sms-notification"


def _ext_subject(ext_id: str) -> str:
    """What an operation on an extension's settings is about, in messages: SMS keeps its own word."""
    return "sms" if ext_id == SMS else "extension settings"


class ExtensionsApi(Transport):
    """Enable, disable and list extensions; read, store, replace and delete their settings."""

    async def list_extensions(self, app_id: str) -> list[RemoteExtension]:
        op = Operation(f"list extensions of app {app_id}", subject="extensions", app_id=app_id)
        records = await self._paged(  # list-extensions declares perPage only
            op, f"/apps/{seg(app_id)}/extensions", per_page=LIST_PER_PAGE, default_per_page=LIST_PER_PAGE,
            page_declared=False, extract=lambda env: env.records(),
        )
        out = []
        for record in records:
            if "id" not in record:
                raise MalformedResponse(op, status=200, message="unexpected response: an extension has no id")
            enabled = record.get("enabled")
            out.append(
                RemoteExtension(
                    id=record["id"],
                    name=str(record.get("name") or record["id"]),
                    enabled=enabled if isinstance(enabled, bool) else None,
                    raw=record,
                )
            )
        return out

    async def set_extensions(
        self, app_id: str, enabled: Iterable[str] = (), disabled: Iterable[str] = ()
    ) -> dict[str, bool]:
        """Enable/disable extensions in one idempotent call; returns extension id -> success (per id)."""
        on, off = list(enabled), list(disabled)
        op = Operation(
            f"set extensions of app {app_id} (enable {', '.join(on) or '-'}; disable {', '.join(off) or '-'})",
            subject="extensions", app_id=app_id,
        )
        envelope = await self._call(
            op, "POST", f"/apps/{seg(app_id)}/extensions", body={"enabled": on, "disabled": off}
        )
        payload = envelope.optional_obj() or {}
        result: dict[str, bool] = {}
        for group, ids in (("enabled", on), ("disabled", off)):
            reported = payload.get(group)
            reported = reported if isinstance(reported, Mapping) else {}
            for ext_id in ids:
                result[ext_id] = success(reported.get(ext_id))
        return result

    @staticmethod
    def _ext_path(app_id: str, ext_id: str) -> str:
        return f"/apps/{seg(app_id)}/extensions/{seg(ext_id)}/v1/settings"

    async def get_extension_settings(self, app_id: str, ext_id: str) -> dict[str, Any] | None:
        """The extension's settings (without the server-added ``appId``; a field the GET reports under another name
        than the request's, stickers' ``customMasterStickersData``, under the request's), or None when none are
        stored (404 ERR_SETTINGS_NOT_FOUND, or an empty object). Secrets arrive in clear: the caller fingerprints
        them and drops the value."""
        op = Operation(f"get {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        try:
            envelope = await self._call(op, "GET", self._ext_path(app_id, ext_id))
        except NotFoundError as exc:
            if exc.code in APP_GONE_CODES:
                raise
            return None
        payload = envelope.optional_obj()
        if payload is None:
            return None
        spec = extension_catalog.BY_ID.get(ext_id)
        known = {s.key for s in spec.settings} if spec is not None else set()
        # Tolerate the settings object without its `settings` wrapper.
        bare = payload if known & set(payload) else None
        settings = payload.get("settings", bare)
        if settings is None or settings == {}:
            return None
        if not isinstance(settings, Mapping):
            raise envelope.bad("'settings' is not an object")
        out = {k: v for k, v in settings.items() if k != "appId"}
        for setting in spec.settings if spec is not None else ():
            if setting.reported_as and setting.reported_as in out and setting.key not in out:
                out[setting.key] = out.pop(setting.reported_as)
        return out

    async def store_extension_settings(self, app_id: str, ext_id: str, settings: Mapping[str, Any]) -> None:
        """Create the extension's settings: ``POST``, or ``PUT`` where the API stores with it (data-masking,
        stickers). A POST whose answer was lost is read back before it is sent again."""
        spec = extension_catalog.BY_ID.get(ext_id)
        op = Operation(f"store {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        wanted = dict(settings)
        if spec is not None and spec.store == "PUT":
            (await self._call(op, "PUT", self._ext_path(app_id, ext_id), body={"settings": wanted})).check_success()
            return

        async def confirm(_: None) -> bool | None:
            current = await self.get_extension_settings(app_id, ext_id)
            if current is not None and all(current.get(k) == v for k, v in wanted.items()):
                return True
            return None

        def parse(envelope: Envelope) -> bool:
            envelope.check_success()
            return True

        await self._create(op, self._ext_path(app_id, ext_id), {"settings": wanted}, parse=parse, confirm=confirm)

    async def update_extension_settings(self, app_id: str, ext_id: str, settings: Mapping[str, Any]) -> None:
        """Replace the extension's settings (``PUT``, the whole object: the caller sends the live values it does not
        change, so a field the draft did not change keeps the service's value)."""
        op = Operation(f"update {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        envelope = await self._call(op, "PUT", self._ext_path(app_id, ext_id), body={"settings": dict(settings)})
        envelope.check_success()

    async def delete_extension_settings(self, app_id: str, ext_id: str) -> None:
        op = Operation(f"delete {ext_id} settings of app {app_id}", subject=_ext_subject(ext_id), app_id=app_id)
        envelope = await self._call(op, "DELETE", self._ext_path(app_id, ext_id), gone_ok_on_retry=True)
        envelope.check_success()
