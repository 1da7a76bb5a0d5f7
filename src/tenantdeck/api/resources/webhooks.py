"""Webhooks and their triggers (every call sends ``X-Webhook-Version: 2``, the new webhook system)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tenantdeck.api.envelopes import Envelope
from tenantdeck.api.errors import ConflictError, NotFoundError, Operation, one_line
from tenantdeck.api.resources.common import APP_GONE_CODES, LIST_PER_PAGE, seg, success
from tenantdeck.api.transport import Transport

TRIGGERS_PER_PAGE = 100  # list-triggers takes no perPage; its example answers per_page 100


class WebhooksApi(Transport):
    """An app's webhooks (facts §7): list, get, create (looked up before it is sent again), update,
    delete; list, add and remove a webhook's triggers."""

    @staticmethod
    def _webhook_path(app_id: str, webhook_id: str | None = None) -> str:
        base = f"/apps/{seg(app_id)}/webhooks"
        return base if webhook_id is None else f"{base}/{seg(webhook_id)}"

    async def list_webhooks(self, app_id: str) -> list[dict[str, Any]]:
        op = Operation(f"list webhooks of app {app_id}", subject="webhook", app_id=app_id)
        return await self._paged(  # list-webhooks declares perPage (and searchKey), not page
            op, self._webhook_path(app_id), per_page=LIST_PER_PAGE, default_per_page=LIST_PER_PAGE,
            page_declared=False, webhook=True, extract=lambda e: e.records(),
        )

    async def get_webhook(self, app_id: str, webhook_id: str) -> dict[str, Any] | None:
        """The webhook, or None when it does not exist (a missing *app* still raises)."""
        op = Operation(f"get webhook {webhook_id!r} of app {app_id}", subject="webhook", app_id=app_id)
        try:
            envelope = await self._call(op, "GET", self._webhook_path(app_id, webhook_id), webhook=True)
        except NotFoundError as exc:
            if exc.code in APP_GONE_CODES:
                raise
            return None
        return envelope.record()

    async def create_webhook(self, app_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        webhook_id = body.get("id")
        if not isinstance(webhook_id, str) or not webhook_id:
            raise ValueError("create_webhook needs a body with a non-empty string 'id'")
        op = Operation(f"create webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)

        async def confirm(_: None) -> dict[str, Any] | None:
            current = await self.get_webhook(app_id, webhook_id)
            if current is None:
                return None
            for key in ("name", "webhookURL"):
                if key in current and key in body and current[key] != body[key]:
                    raise ConflictError(
                        op, message=f"a webhook with id {webhook_id!r} exists with a different {key}",
                        hint="run `tenantdeck pull` and review the diff",
                    )
            return current

        return await self._create(
            op, self._webhook_path(app_id), dict(body), parse=lambda env: env.record(), confirm=confirm,
            webhook=True,
        )

    async def update_webhook(self, app_id: str, webhook_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """PUT takes every field except ``id`` (facts §7)."""
        op = Operation(f"update webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)
        payload = {k: v for k, v in body.items() if k != "id"}
        envelope = await self._call(op, "PUT", self._webhook_path(app_id, webhook_id), body=payload, webhook=True)
        envelope.check_success()
        found = envelope.optional_obj()
        return envelope.normalise(found) if found is not None else {}

    async def delete_webhook(self, app_id: str, webhook_id: str) -> None:
        op = Operation(f"delete webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)
        envelope = await self._call(
            op, "DELETE", self._webhook_path(app_id, webhook_id), webhook=True, gone_ok_on_retry=True
        )
        envelope.check_success()

    async def list_triggers(self, app_id: str, webhook_id: str) -> list[str]:
        op = Operation(f"list triggers of webhook {webhook_id!r} in app {app_id}", subject="webhook", app_id=app_id)

        def extract(envelope: Envelope) -> list[str]:
            node = envelope.payload()
            if node is None:
                return []
            if not isinstance(node, list):
                raise envelope.bad("expected an array of triggers")
            ids = []
            for item in node:
                trigger = item.get("id", item.get("trigger")) if isinstance(item, Mapping) else item
                if not isinstance(trigger, str) or not trigger:
                    raise envelope.bad(f"a trigger has no id: {one_line(repr(item), 60)}")
                ids.append(trigger)
            return ids

        return await self._paged(  # list-triggers declares no paging parameter; its example pages by 100
            op, f"{self._webhook_path(app_id, webhook_id)}/triggers", per_page=None,
            default_per_page=TRIGGERS_PER_PAGE, page_declared=False, webhook=True, extract=extract,
        )

    async def add_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> dict[str, bool]:
        """Idempotent; the service reports per trigger, so partial success is possible (id -> success)."""
        wanted = list(ids)
        op = Operation(
            f"add triggers {', '.join(wanted)} to webhook {webhook_id!r} in app {app_id}",
            subject="webhook", app_id=app_id,
        )
        envelope = await self._call(
            op, "POST", f"{self._webhook_path(app_id, webhook_id)}/triggers", body={"triggerIds": wanted},
            webhook=True,
        )
        payload = envelope.optional_obj() or {}
        if payload.get("success") is True and not any(t in payload for t in wanted):
            return dict.fromkeys(wanted, True)  # a single overall success flag
        return {t: success(payload.get(t)) for t in wanted}

    async def remove_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> None:
        """DELETE with a JSON body ``{"triggerIds": [...]}``."""
        wanted = list(ids)
        op = Operation(
            f"remove triggers {', '.join(wanted)} from webhook {webhook_id!r} in app {app_id}",
            subject="webhook", app_id=app_id,
        )
        envelope = await self._call(
            op, "DELETE", f"{self._webhook_path(app_id, webhook_id)}/triggers", body={"triggerIds": wanted},
            webhook=True,
        )
        envelope.check_success()
