"""Fast bulk loading of a sandbox database, for benchmarks and load tests.

``populate`` writes straight to SQLite in one transaction (thousands of apps per second), instead of going
through HTTP: a benchmark of ``pull`` should measure pulling, not setting up. The records are built by the same
helpers as the API and the seed, so they are indistinguishable from pushed ones.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.sandbox import records, samples
from tenantdeck.sandbox.ddl import connect
from tenantdeck.sandbox.store import insert_app

REGIONS = ("us", "eu", "in")


def _dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"))


def populate(
    db_path: Path | str,
    n_apps: int,
    *,
    name_prefix: str = "Bench app",
    widgets_per_app: int = 1,
    webhooks_per_app: int = 2,
    triggers: Sequence[str] = ("message_sent", "group_created"),
    enabled_extensions: Sequence[str] = ("widget", "polls", "reactions"),
    extension_settings: Mapping[str, Mapping[str, Any]] | None = None,
    mark_seeded: bool = True,
) -> list[str]:
    """Insert ``n_apps`` apps, each with ``widgets_per_app`` full widgets and ``webhooks_per_app`` webhooks.

    Apps are named ``f"{name_prefix} {i:04d}"`` and cycle through the regions. Webhooks get ids ``hook1``,
    ``hook2``… (Basic Auth on the first, with a fake password) and the given triggers.
    ``extension_settings`` (extension id -> settings, stored as given) go to every app, to measure pulls with them.
    ``mark_seeded`` (default) stops ``create_app(seed=True)`` from adding the three sample apps later, so the
    database holds exactly what was populated. Returns the new app ids in insertion order.
    """
    unknown = sorted(set(triggers) - set(catalog.TRIGGER_IDS))
    if unknown:
        raise ValueError(f"unknown trigger ids: {', '.join(unknown)}")
    now = int(time.time())
    widget = _dumps(samples.widget_configuration("Bench widget"))
    hooks: list[tuple[str, str, str | None]] = []
    for h in range(1, webhooks_per_app + 1):
        doc, password = samples.webhook(
            f"hook{h}",
            f"Bench hook {h}",
            f"https://hooks.bench.example/{h}",
            username="benchuser" if h == 1 else None,
            password=f"BenchFakePassword{h}" if h == 1 else None,
        )
        hooks.append((doc["id"], _dumps(doc), password))

    app_ids = [records.new_app_id() for _ in range(n_apps)]
    conn = connect(db_path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for i, app_id in enumerate(app_ids):
            insert_app(conn, app_id, f"{name_prefix} {i:04d}", REGIONS[i % len(REGIONS)], "3", now)
        conn.executemany(
            "INSERT INTO widgets(app_id, widget_id, configuration, created_at, updated_at) VALUES (?,?,?,?,?)",
            [(a, records.new_widget_id(), widget, now, now) for a in app_ids for _ in range(widgets_per_app)],
        )
        conn.executemany(
            "INSERT INTO webhooks(app_id, webhook_id, doc, password, created_at, updated_at) VALUES (?,?,?,?,?,?)",
            [(a, hid, doc, pw, now, now) for a in app_ids for hid, doc, pw in hooks],
        )
        conn.executemany(
            "INSERT INTO webhook_triggers VALUES (?, ?, ?, ?)",
            [(a, hid, t, now) for a in app_ids for hid, _, _ in hooks for t in triggers],
        )
        conn.executemany(
            "INSERT OR REPLACE INTO extensions VALUES (?, ?, 1, ?)",
            [(a, e, now) for a in app_ids for e in enabled_extensions],
        )
        conn.executemany(
            "INSERT INTO extension_settings VALUES (?, ?, ?, ?)",
            [(a, ext, _dumps(dict(doc)), now) for a in app_ids for ext, doc in (extension_settings or {}).items()],
        )
        if mark_seeded:
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('seeded', ?)", (str(now),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
    return app_ids
