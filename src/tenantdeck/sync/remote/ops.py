"""Step kind -> client call. One place maps plan vocabulary to the API, so the executor stays generic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.sync.plan import Step


class OperationFailed(Exception):
    """The call returned, but the service reported that part of it did not apply (e.g. one trigger)."""


async def run_operation(
    client: ManagementClient, op: Step, app_id: str | None, payload: dict[str, Any]
) -> dict[str, Any]:
    """Perform ``op`` with a payload whose secrets are already resolved; returns ids the service assigned.

    ``app_id`` is the real id (for a new app, the one ``create_app`` returned earlier in this push).
    """
    kind = op.kind
    if kind == "create_app":
        app = await client.create_app(payload["name"], payload["region"], payload.get("version", "3"))
        return {"app_id": app.id}
    assert app_id is not None, f"{op.key}: no app id"
    if kind == "delete_app":
        await client.delete_app(app_id)
    elif kind == "set_extensions":
        result = await client.set_extensions(app_id, enabled=payload["enabled"], disabled=payload["disabled"])
        failed = sorted(k for k, ok in result.items() if not ok)
        if failed:
            raise OperationFailed(f"the service did not switch extension(s) {', '.join(failed)}")
    elif kind == "create_widget":
        return {"widget_id": await client.create_widget(app_id, payload["settings"])}
    elif kind == "update_widget":
        await client.update_widget(app_id, op.rid, payload["settings"])
    elif kind == "store_sms":
        await client.store_sms(app_id, payload["settings"])
    elif kind == "update_sms":
        await client.update_sms(app_id, payload["settings"])
    elif kind == "delete_sms":
        await client.delete_sms(app_id)
    elif kind == "create_webhook":
        await client.create_webhook(app_id, payload)
    elif kind == "update_webhook":
        await client.update_webhook(app_id, op.rid, payload)
    elif kind == "delete_webhook":
        await client.delete_webhook(app_id, op.rid)
    elif kind == "add_triggers":
        result = await client.add_triggers(app_id, op.rid, payload["ids"])
        failed = sorted(k for k, ok in result.items() if not ok)
        if failed:
            raise OperationFailed(f"the service did not add trigger(s) {', '.join(failed)}")
    elif kind == "remove_triggers":
        await client.remove_triggers(app_id, op.rid, payload["ids"])
    else:  # pragma: no cover - plans are built from KINDS
        raise ValueError(f"unknown operation kind {kind!r}")
    return {}
