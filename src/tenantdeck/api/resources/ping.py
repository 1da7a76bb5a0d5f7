"""Diagnostics: one cheap authenticated call that says reachability, credentials and the server's clock."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from tenantdeck.api.errors import Operation
from tenantdeck.api.models import Ping
from tenantdeck.api.transport import Transport


class PingApi(Transport):
    """What `tenantdeck doctor` asks first."""

    async def ping(self) -> Ping:
        """One authenticated ``GET /apps?perPage=1`` without retries: reachability, credentials, server clock."""
        op = Operation("list apps (perPage=1)", subject="apps")
        envelope = await self._call(op, "GET", "/apps", params={"perPage": 1, "page": 1}, max_retries=0)
        envelope.items()  # the answer must look like the management API
        pagination = envelope.pagination()
        return Ping(
            status=envelope.status,
            elapsed=envelope.elapsed,
            server_date=_http_date(envelope.headers.get("date")),
            apps_total=pagination.total if pagination else None,
        )


def _http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
