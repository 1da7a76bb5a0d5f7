"""Sample data for a brand-new sandbox, so ``pull`` and the TUI have something real to show on first run.

Three apps, one per region: the first is fully configured (widget, SMS, a profanity filter, two webhooks with
Basic Auth and triggers, extensions, extra collaborators, app settings), the second holds moderation extension settings
(profanity filter, data masking, report user), the third push notification settings with an uploaded .p8.
Seeding happens once per database file (see :meth:`tenantdeck.sandbox.store.Store.seed_if_new`); all secrets are
fake, and every document is deterministic (only ids and timestamps vary).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from typing import Any

from tenantdeck.sandbox import records, samples
from tenantdeck.sandbox.store import insert_app


def _dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _webhook(conn: sqlite3.Connection, app_id: str, now: int, triggers: list[str], **kw: Any) -> None:
    doc, password = samples.webhook(**kw)
    conn.execute(
        "INSERT INTO webhooks(app_id, webhook_id, doc, password, created_at, updated_at) VALUES (?,?,?,?,?,?)",
        (app_id, doc["id"], _dumps(doc), password, now, now),
    )
    conn.executemany(
        "INSERT INTO webhook_triggers VALUES (?, ?, ?, ?)", [(app_id, doc["id"], t, now) for t in triggers]
    )


def _extensions(conn: sqlite3.Connection, app_id: str, now: int, enabled: list[str], disabled: list[str]) -> None:
    conn.executemany(
        "INSERT INTO extensions VALUES (?, ?, ?, ?)",
        [(app_id, e, 1, now) for e in enabled] + [(app_id, d, 0, now) for d in disabled],
    )


def _extension_settings(conn: sqlite3.Connection, app_id: str, now: int, settings: dict[str, dict[str, Any]]) -> None:
    conn.executemany(
        "INSERT INTO extension_settings VALUES (?, ?, ?, ?)",
        [(app_id, ext_id, _dumps(doc), now) for ext_id, doc in settings.items()],
    )


def seed(conn: sqlite3.Connection) -> list[str]:
    """Insert the sample apps inside the caller's transaction; returns their ids."""
    now = int(time.time())
    ids = [records.new_app_id() for _ in range(3)]

    # 1. A fully configured support app in the US.
    support = ids[0]
    insert_app(
        conn, support, "Acme Support", "us", "3", now - 86_400 * 40,
        collaborators=[
            records.owner_collaborator(now - 86_400 * 40),
            {"id": "dev-ana", "name": "Ana Developer", "email": "ana@acme.example", "role": "developer",
             "createdAt": now - 86_400 * 20},
            {"id": "mod-raj", "name": "Raj Moderator", "email": "raj@acme.example", "role": "moderator",
             "createdAt": now - 86_400 * 10},
        ],
    )  # fmt: skip
    _extensions(conn, support, now, ["widget", "polls", "reactions", "stickers", "sms-notification",
                                     "profanity-filter"], ["e2ee"])
    conn.execute(
        "INSERT INTO widgets(app_id, widget_id, configuration, created_at, updated_at) VALUES (?,?,?,?,?)",
        (support, records.new_widget_id(), _dumps(samples.widget_configuration("Support widget")), now, now),
    )
    _extension_settings(conn, support, now, {
        "sms-notification": samples.sms_settings(),
        "profanity-filter": samples.extension_settings("profanity-filter", {"dropMessage": False,
                                                                           "badwords": ["darn"]}),
    })
    _webhook(
        conn, support, now, ["message_sent", "group_member_joined"],
        webhook_id="orders", name="Order events", url="https://hooks.acme.example/chat/orders",
        username="acmehooks", password="FakeSandboxPassword1", retry=True,
    )  # fmt: skip
    _webhook(
        conn, support, now, ["message_deleted", "user_blocked", "call_initiated"],
        webhook_id="audit", name="Audit trail", url="https://audit.acme.example/ingest", enabled=False,
    )  # fmt: skip

    # 2. An EU community app with moderation extensions and one webhook.
    community = ids[1]
    insert_app(conn, community, "Globex Community", "eu", "3", now - 86_400 * 12)
    _extensions(conn, community, now, ["data-masking", "profanity-filter", "report-user", "mentions"], [])
    _extension_settings(conn, community, now, samples.moderation_settings())
    _webhook(
        conn, community, now, ["group_created", "group_deleted"],
        webhook_id="groups", name="Group lifecycle", url="https://globex.example/webhooks/groups",
    )  # fmt: skip

    # 3. A fresh app in India with push notifications only.
    initech = ids[2]
    insert_app(conn, initech, "Initech Field Chat", "in", "3", now - 3_600)
    _extensions(conn, initech, now, ["push-notification"], [])
    _extension_settings(conn, initech, now, {"push-notification": samples.push_settings()})
    conn.execute(
        "INSERT INTO push_certificates VALUES (?, 'p8', ?, ?, ?)",
        (initech, hashlib.sha256(samples.FAKE_P8).hexdigest(), len(samples.FAKE_P8), now),
    )
    return ids
