"""Async client of the platform's management API (facts §2 for the paths, §3 to §10 for the shapes).

:class:`ManagementClient` is the HTTP transport (:mod:`tenantdeck.api.transport`: connection, limits, retries,
errors, redaction, paging, create-then-confirm) with every resource group of :mod:`tenantdeck.api.resources` on
it, so a caller writes ``client.list_apps()`` or ``client.update_team(...)`` and never sees the split. To add a
call: put it in its group's module (or a new group, added to the bases below), through ``self._call``,
``self._paged`` or ``self._create``.
"""

from __future__ import annotations

from tenantdeck.api.errors import Operation
from tenantdeck.api.resources.app_settings import AppSettingsApi
from tenantdeck.api.resources.apps import AppsApi
from tenantdeck.api.resources.ping import PingApi
from tenantdeck.api.resources.push_certificates import PushCertificatesApi
from tenantdeck.api.resources.sms import SmsApi
from tenantdeck.api.resources.team import TeamApi
from tenantdeck.api.resources.webhooks import WebhooksApi
from tenantdeck.api.resources.widgets import WidgetsApi
from tenantdeck.api.transport import Transport

__all__ = ["ManagementClient", "Operation"]


class ManagementClient(AppsApi, SmsApi, WidgetsApi, WebhooksApi, TeamApi, AppSettingsApi, PushCertificatesApi,
                       PingApi, Transport):
    """Async client; use as ``async with ManagementClient(...) as client:`` (or call :meth:`aclose`).

    Its arguments are :class:`~tenantdeck.api.transport.Transport`'s (timeouts, retries, rate and concurrency
    limits, the injectable ``sleep``); its methods are the resource groups' (``SmsApi`` brings the extensions').
    """
