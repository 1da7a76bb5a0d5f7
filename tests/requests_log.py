"""Every request the management client sends, by method and path: what a test asserts was (or was not) sent."""

from __future__ import annotations

from typing import Any

import pytest

from tenantdeck.api.client import ManagementClient


def record_requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that receives ``"METHOD /path"`` for each request from now on (the patch ends with the test)."""
    sent: list[str] = []
    original = ManagementClient._send_once

    async def counted(self: ManagementClient, method: str, path: str, *args: Any, **kw: Any) -> Any:
        sent.append(f"{method} {path}")
        return await original(self, method, path, *args, **kw)

    monkeypatch.setattr(ManagementClient, "_send_once", counted)
    return sent
