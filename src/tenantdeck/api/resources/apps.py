"""Apps: list (every page), find by name, create (looked up before it is sent again), delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tenantdeck.api.envelopes import EnvelopeError, to_id
from tenantdeck.api.errors import ConflictError, MalformedResponse, Operation
from tenantdeck.api.models import RemoteApp
from tenantdeck.api.resources.common import seg
from tenantdeck.api.transport import Transport

APPS_PER_PAGE = 100


class AppsApi(Transport):
    """The account's apps (facts §3)."""

    def _remote_app(self, op: Operation, record: Mapping[str, Any], status: int = 200) -> RemoteApp:
        try:
            app_id = to_id(record.get("id", record.get("appId")))
        except EnvelopeError as exc:
            raise MalformedResponse(op, status=status, message=f"unexpected response: app id: {exc}") from None
        name = record.get("name")
        region = record.get("region")
        if not isinstance(region, str):
            app_region = record.get("appRegion")
            region = app_region.get("id") if isinstance(app_region, Mapping) else None
        if not isinstance(name, str) or not isinstance(region, str):
            raise MalformedResponse(
                op, status=status, message=f"unexpected response: app {app_id} lacks a name or region"
            )
        version = record.get("version")
        created_at = record.get("createdAt")
        return RemoteApp(
            id=app_id,
            name=name,
            region=region,
            version=str(version) if isinstance(version, str | int) and not isinstance(version, bool) else None,
            created_at=created_at if isinstance(created_at, int) else None,
            raw=dict(record),
        )

    async def list_apps(self, search: str | None = None) -> list[RemoteApp]:
        """All apps of the account (every page); ``search`` is the service's ``searchKey`` (id or name)."""
        op = Operation("list apps" + (f" matching {search!r}" if search else ""), subject="apps")
        records = await self._paged(
            op, "/apps", per_page=APPS_PER_PAGE, default_per_page=APPS_PER_PAGE, page_declared=True,
            params={"searchKey": search} if search else None, extract=lambda env: env.records(),
        )
        return [self._remote_app(op, r) for r in records]

    async def find_apps_by_name(self, name: str) -> list[RemoteApp]:
        """Apps whose name is exactly ``name`` (``searchKey`` also matches ids and substrings)."""
        return [app for app in await self.list_apps(search=name) if app.name == name]

    async def create_app(
        self, name: str, region: str, version: str = "3", *, skip_sample_data: bool | None = None
    ) -> RemoteApp:
        op = Operation(f"create app {name!r} in region {region}", subject="app")
        body: dict[str, Any] = {"name": name, "region": region, "version": version}
        if skip_sample_data is not None:
            body["skipSampleData"] = skip_sample_data

        async def snapshot() -> set[str]:
            return {app.id for app in await self.find_apps_by_name(name)}

        async def confirm(before: set[str] | None) -> RemoteApp | None:
            new = [app for app in await self.find_apps_by_name(name) if app.id not in (before or set())]
            if len(new) > 1:
                raise ConflictError(
                    op, message=f"{len(new)} new apps named {name!r} appeared while the create was retried",
                    hint="run `tenantdeck pull`, keep one and delete the others",
                )
            return new[0] if new else None

        return await self._create(
            op, "/apps", body,
            parse=lambda env: self._remote_app(op, env.record(), env.status),
            snapshot=snapshot, confirm=confirm,
        )

    async def delete_app(self, app_id: str) -> None:
        """Schedules the app for deletion (the service archives it for 30 days)."""
        op = Operation(f"delete app {app_id}", subject="app", app_id=app_id)
        envelope = await self._call(op, "DELETE", f"/apps/{seg(app_id)}", gone_ok_on_retry=True)
        envelope.check_success()
