"""Step -> client call: the one entry the executor uses; each kind's module makes its own calls
(:meth:`tenantdeck.sync.kinds.base.Kind.call`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenantdeck.sync.kinds import kind_of_step
from tenantdeck.sync.kinds.base import StepFailed

if TYPE_CHECKING:
    from tenantdeck.api.client import ManagementClient
    from tenantdeck.sync.plan import Step


async def run_operation(client: ManagementClient, op: Step, app_id: str | None,
                        payload: dict[str, Any]) -> dict[str, Any]:
    """Perform ``op`` with a payload whose secrets are already resolved; returns ids the service assigned.

    ``app_id`` is the real id (for a new app, the one ``create_app`` returned earlier in this push).
    """
    return await kind_of_step(op.kind).call(client, op, app_id, payload)


__all__ = ["StepFailed", "run_operation"]
