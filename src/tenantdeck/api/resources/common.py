"""What several resource groups share: a safe path segment, the per-item success report, list sizes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

LIST_PER_PAGE = 1000  # documented maximum for extensions and webhooks
#: a 404 with one of these codes is about the app, not the object asked for: it raises, never reads as "none"
APP_GONE_CODES = frozenset({"ERR_APP_NOT_FOUND", "ERR_APP_ARCHIVED"})


def seg(value: str) -> str:
    """One URL path segment; ids are user data and must not add slashes or queries."""
    return quote(str(value), safe="")


def success(report: Any) -> bool:
    """``{"success": true, "message": ...}`` or a bare bool; anything else counts as not confirmed."""
    if isinstance(report, Mapping):
        return report.get("success") is True
    return report is True
