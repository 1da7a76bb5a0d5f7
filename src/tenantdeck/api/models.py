"""Plain result types of the management API client (frozen, so pull/diff can keep them as snapshots).

``raw`` keeps the service's full record (ids and timestamps normalised) for anything the typed fields leave out;
it is excluded from equality and hashing because it is a dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class RemoteApp:
    """One app as listed by ``GET /apps``."""

    id: str
    name: str
    region: str
    version: str | None
    created_at: int | None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RemoteExtension:
    """One extension of an app. ``enabled`` is None when the service does not say (the real API never does)."""

    id: str
    name: str
    enabled: bool | None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RemoteWidget:
    """One chat widget v2. ``settings`` is the listed ``configuration`` without the server-added ``appId`` and
    ``widgetId``, i.e. the shape of the ``settings`` request body."""

    widget_id: str
    settings: dict[str, Any] = field(hash=False)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Ping:
    """What ``doctor`` learns from one cheap authenticated call (``GET /apps?perPage=1``)."""

    status: int
    elapsed: float  # seconds
    server_date: datetime | None  # from the ``Date`` header, if the service sent one
    apps_total: int | None
