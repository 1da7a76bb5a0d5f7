"""The messaging area's tables, created beside the management tables in the same SQLite file.

Users, groups and messages are kept as the JSON documents the chat API returns (the sandbox never queries inside
them); what the sandbox does query (membership, scopes, unread counts, delivery status) has its own columns.
"""

from __future__ import annotations

import sqlite3

MESSAGING_DDL = """
CREATE TABLE IF NOT EXISTS chat_api_keys (
    app_id     TEXT PRIMARY KEY,
    api_key    TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chat_users (
    app_id TEXT NOT NULL,
    uid    TEXT NOT NULL,
    doc    TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_blocks (
    app_id      TEXT NOT NULL,
    uid         TEXT NOT NULL,
    blocked_uid TEXT NOT NULL,
    blocked_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid, blocked_uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_groups (
    app_id TEXT NOT NULL,
    guid   TEXT NOT NULL,
    doc    TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    PRIMARY KEY (app_id, guid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_members (
    app_id    TEXT NOT NULL,
    guid      TEXT NOT NULL,
    uid       TEXT NOT NULL,
    scope     TEXT NOT NULL,
    joined_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, guid, uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_bans (
    app_id    TEXT NOT NULL,
    guid      TEXT NOT NULL,
    uid       TEXT NOT NULL,
    banned_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, guid, uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chat_messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    sender          TEXT NOT NULL,
    category        TEXT NOT NULL,
    doc             TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_messages_by_conversation ON chat_messages(app_id, conversation_id, id);
CREATE TABLE IF NOT EXISTS chat_reactions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id     TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    uid        TEXT NOT NULL,
    reaction   TEXT NOT NULL,
    reacted_at INTEGER NOT NULL,
    UNIQUE (app_id, message_id, uid, reaction)
);
CREATE TABLE IF NOT EXISTS chat_unread (
    app_id          TEXT NOT NULL,
    uid             TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    unread          INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid, conversation_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT NOT NULL,
    webhook_id  TEXT NOT NULL,
    trigger_id  TEXT NOT NULL,
    url         TEXT NOT NULL,
    status      TEXT NOT NULL,
    attempts    TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_app ON webhook_deliveries(app_id, id);
"""


def create_tables(conn: sqlite3.Connection) -> None:
    conn.executescript(MESSAGING_DDL)
