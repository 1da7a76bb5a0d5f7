"""Blocking facade over :class:`~tenantdeck.api.client.ManagementClient` for the CLI.

One :class:`asyncio.Runner` (one event loop) lives as long as the facade, so the httpx connection pool, the
rate limiter and an in-process sandbox transport all stay on the same loop across calls. Do not use it from
inside a running event loop (the TUI and async code use ``ManagementClient`` directly).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.models import Ping, RemoteApp, RemoteExtension, RemoteWidget

T = TypeVar("T")


class SyncClient:
    """``with SyncClient(base_url, key, secret, **kw) as client: client.list_apps()``.

    Takes the same arguments as ``ManagementClient``; :meth:`wrap` adopts an existing async client instead.
    """

    def __init__(self, base_url: str, key: str, secret: str, **kwargs: Any) -> None:
        self._client = ManagementClient(base_url, key, secret, **kwargs)
        self._runner: asyncio.Runner | None = None

    @classmethod
    def wrap(cls, client: ManagementClient) -> SyncClient:
        self = cls.__new__(cls)
        self._client = client
        self._runner = None
        return self

    @property
    def async_client(self) -> ManagementClient:
        return self._client

    def __repr__(self) -> str:
        return f"SyncClient({self._client!r})"

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner.run(coro)

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Closes the HTTP client and the event loop; safe to call twice."""
        runner, self._runner = self._runner, None
        if runner is None:
            runner = asyncio.Runner()
        try:
            runner.run(self._client.aclose())
        finally:
            runner.close()

    # apps
    def list_apps(self, search: str | None = None) -> list[RemoteApp]:
        return self._run(self._client.list_apps(search))

    def find_apps_by_name(self, name: str) -> list[RemoteApp]:
        return self._run(self._client.find_apps_by_name(name))

    def create_app(self, name: str, region: str, version: str = "3", *,
                   skip_sample_data: bool | None = None) -> RemoteApp:
        return self._run(self._client.create_app(name, region, version, skip_sample_data=skip_sample_data))

    def delete_app(self, app_id: str) -> None:
        return self._run(self._client.delete_app(app_id))

    # extensions
    def list_extensions(self, app_id: str) -> list[RemoteExtension]:
        return self._run(self._client.list_extensions(app_id))

    def set_extensions(self, app_id: str, enabled: Iterable[str] = (), disabled: Iterable[str] = ()) -> dict[str, bool]:
        return self._run(self._client.set_extensions(app_id, enabled, disabled))

    # widgets
    def list_widgets(self, app_id: str) -> list[RemoteWidget]:
        return self._run(self._client.list_widgets(app_id))

    def create_widget(self, app_id: str, settings: Mapping[str, Any]) -> str:
        return self._run(self._client.create_widget(app_id, settings))

    def update_widget(self, app_id: str, widget_id: str, settings: Mapping[str, Any]) -> None:
        return self._run(self._client.update_widget(app_id, widget_id, settings))

    # SMS
    def get_sms(self, app_id: str) -> dict[str, Any] | None:
        return self._run(self._client.get_sms(app_id))

    def store_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        return self._run(self._client.store_sms(app_id, settings))

    def update_sms(self, app_id: str, settings: Mapping[str, Any]) -> None:
        return self._run(self._client.update_sms(app_id, settings))

    def delete_sms(self, app_id: str) -> None:
        return self._run(self._client.delete_sms(app_id))

    # webhooks
    def list_webhooks(self, app_id: str) -> list[dict[str, Any]]:
        return self._run(self._client.list_webhooks(app_id))

    def get_webhook(self, app_id: str, webhook_id: str) -> dict[str, Any] | None:
        return self._run(self._client.get_webhook(app_id, webhook_id))

    def create_webhook(self, app_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._run(self._client.create_webhook(app_id, body))

    def update_webhook(self, app_id: str, webhook_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._run(self._client.update_webhook(app_id, webhook_id, body))

    def delete_webhook(self, app_id: str, webhook_id: str) -> None:
        return self._run(self._client.delete_webhook(app_id, webhook_id))

    def list_triggers(self, app_id: str, webhook_id: str) -> list[str]:
        return self._run(self._client.list_triggers(app_id, webhook_id))

    def add_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> dict[str, bool]:
        return self._run(self._client.add_triggers(app_id, webhook_id, ids))

    def remove_triggers(self, app_id: str, webhook_id: str, ids: Iterable[str]) -> None:
        return self._run(self._client.remove_triggers(app_id, webhook_id, ids))

    # read-only
    def list_collaborators(self, app_id: str) -> list[dict[str, Any]]:
        return self._run(self._client.list_collaborators(app_id))

    def get_app_settings(self, app_id: str) -> dict[str, Any]:
        return self._run(self._client.get_app_settings(app_id))

    def ping(self) -> Ping:
        return self._run(self._client.ping())
