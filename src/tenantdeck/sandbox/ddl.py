"""The sandbox's SQLite schema and connection settings, shared by the store and the bulk loader.

Documents the API returns whole (app records, widget configurations, webhook bodies, settings) are kept as JSON
in TEXT columns: the sandbox never queries inside them, and storing what was validated keeps round-trips exact.
Webhook passwords live in their own column so that serialising a webhook document can never leak one.

Every extension's ``/v1/settings`` (SMS included) is one row of ``extension_settings``, keyed by app and extension
id: the routes are generated from the catalog, so a new extension needs no table. Push certificates are kept as a
fingerprint, a size and an upload time only (``push_certificates``): the sandbox never stores a certificate's bytes.
Schema changes are additive (``CREATE ... IF NOT EXISTS``) plus :func:`_migrate`, which brings a file written by
an older sandbox forward when it is opened.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import stat
from pathlib import Path

SCHEMA_VERSION = "2"

DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS apps (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    doc        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER
);
CREATE INDEX IF NOT EXISTS apps_live ON apps(deleted_at, seq);
CREATE TABLE IF NOT EXISTS extensions (
    app_id     TEXT NOT NULL,
    ext_id     TEXT NOT NULL,
    enabled    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, ext_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS widgets (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id        TEXT NOT NULL,
    widget_id     TEXT NOT NULL,
    configuration TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (app_id, widget_id)
);
CREATE INDEX IF NOT EXISTS widgets_by_app ON widgets(app_id, seq);
CREATE TABLE IF NOT EXISTS extension_settings (
    app_id     TEXT NOT NULL,
    ext_id     TEXT NOT NULL,
    settings   TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, ext_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS push_certificates (
    app_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    uploaded_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhooks (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id     TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    doc        TEXT NOT NULL,
    password   TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (app_id, webhook_id)
);
CREATE INDEX IF NOT EXISTS webhooks_by_app ON webhooks(app_id, seq);
CREATE TABLE IF NOT EXISTS webhook_triggers (
    app_id     TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    trigger_id TEXT NOT NULL,
    added_at   INTEGER NOT NULL,
    PRIMARY KEY (app_id, webhook_id, trigger_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS collaborators (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id TEXT NOT NULL,
    doc    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS collaborators_by_app ON collaborators(app_id, seq);
CREATE TABLE IF NOT EXISTS app_settings (
    app_id TEXT PRIMARY KEY,
    doc    TEXT NOT NULL
);
"""


#: SQLite's companions of a database file: they hold the same data (the WAL holds the latest writes)
_COMPANIONS = ("-wal", "-shm", "-journal")


def private_dir(directory: Path) -> None:
    """``directory`` created if missing and made 0700: the sandbox's own data directory (the user data dir),
    which holds a database with webhook passwords. Raises ``OSError`` when it cannot be created."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if stat.S_IMODE(directory.stat().st_mode) != 0o700:
        os.chmod(directory, 0o700)


def make_private(path: Path) -> None:
    """The database file (and its WAL, shared-memory and journal files) readable and writable by its owner only.

    A new file is created 0600 before SQLite opens it (SQLite then gives its companion files the same mode), in
    a directory created 0700 if missing; an existing file is brought to 0600 (sandboxes created before this were
    0644). A directory the user named (``--db``) is not changed: it may be shared on purpose. A file owned by
    someone else (chmod refused) is left to SQLite, which reports what it cannot open.
    """
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    for candidate in (path, *(path.with_name(path.name + suffix) for suffix in _COMPANIONS)):
        with contextlib.suppress(OSError):
            if stat.S_IMODE(candidate.stat().st_mode) & 0o077:
                os.chmod(candidate, 0o600)


def connect(db_path: Path | str) -> sqlite3.Connection:
    """Open (creating if needed) the sandbox database with the settings every user of it relies on.

    WAL lets readers proceed while one request writes; ``synchronous=NORMAL`` is durable across process crashes
    (only an OS crash can lose the last transactions), which is the right trade for a local sandbox.
    ``isolation_level=None`` hands transaction control to the store (explicit ``BEGIN IMMEDIATE``), so a
    read-check-write such as the 25-webhook limit is atomic even across processes.
    """
    path = Path(db_path)
    if str(db_path) != ":memory:":
        make_private(path)
    conn = sqlite3.connect(str(db_path), check_same_thread=False, isolation_level=None, timeout=10.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.executescript(DDL)
    _migrate(conn)
    # the account this database is: random, made once, kept by a reset (the same file is the same account), so a
    # draft pulled from one sandbox is never silently compared with another (both are `local` at sandbox.local)
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('account_id', ?)", (secrets.token_hex(8),))
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring a database written by an older sandbox to :data:`SCHEMA_VERSION`, in one transaction.

    Version 1 kept SMS settings in a table of their own (``sms_settings``); they are now the ``sms-notification``
    row of ``extension_settings``, so the same generic routes serve them. The rows are copied and the old table
    dropped; a second process opening the same file at the same time finds the table gone and does nothing.
    """
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sms_settings'").fetchone():
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sms_settings'").fetchone():
                conn.execute(
                    "INSERT OR IGNORE INTO extension_settings(app_id, ext_id, settings, updated_at)"
                    " SELECT app_id, 'sms-notification', settings, updated_at FROM sms_settings"
                )
                conn.execute("DROP TABLE sms_settings")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))


def account_id(conn: sqlite3.Connection) -> str:
    """The account id of the sandbox database behind ``conn`` (see :func:`connect`)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'account_id'").fetchone()
    return str(row[0])
