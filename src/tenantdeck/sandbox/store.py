"""The sandbox's data layer: every read and write of the SQLite file goes through :class:`Store`.

Concurrency model: one connection per :class:`Store` (one per ``create_app``), guarded by a lock, with every
method doing a handful of indexed statements inside one transaction. Requests are served on the event loop and
each store call takes microseconds to a few milliseconds, so a lock is cheaper than a thread hop per request and
makes read-check-write sequences (per-app limits, unique ids) atomic. ``BEGIN IMMEDIATE`` extends that atomicity
to other processes using the same file (a second ``tenantdeck sandbox`` or :func:`tenantdeck.sandbox.bulk.populate`).

Methods take already-validated documents; they enforce what only the data can tell (existence, uniqueness,
per-app limits) and raise :class:`~tenantdeck.sandbox.errors.ApiError` with the API's codes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from tenantdeck.models.catalog import WEBHOOK_WRITE_ONLY
from tenantdeck.sandbox import errors, records
from tenantdeck.sandbox.ddl import account_id, connect
from tenantdeck.textsafe import shown

#: Sentinel for :meth:`Store.update_webhook`: keep the stored password (the API never returns it, so a client
#: that did not send one cannot be asking to clear it).
KEEP_PASSWORD: Any = object()


def dumps(doc: Any) -> str:
    """Compact JSON, as every document is stored (and as size bounds measure it)."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _now() -> int:
    return int(time.time())


class Store:
    """SQLite-backed state of one sandbox account."""

    def __init__(self, db_path: Path | str) -> None:
        self.db_path = str(db_path)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(db_path)

    # -- plumbing -------------------------------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, reopened if :meth:`close` ran (e.g. a lifespan shutdown followed by reuse)."""
        if self._conn is None:
            self._conn = connect(self.db_path)
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def _tx(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def transaction(self, *, write: bool) -> AbstractContextManager[sqlite3.Connection]:
        """This store's transaction, for the sandbox's other areas (messaging) that share its file and lock."""
        return self._tx(write=write)

    @staticmethod
    def _require_app(conn: sqlite3.Connection, app_id: str) -> None:
        row = conn.execute("SELECT 1 FROM apps WHERE id = ? AND deleted_at IS NULL", (app_id,)).fetchone()
        if row is None:
            raise errors.not_found_app(app_id)

    @staticmethod
    def _require_webhook(conn: sqlite3.Connection, app_id: str, webhook_id: str) -> sqlite3.Row | tuple[Any, ...]:
        row = conn.execute(
            "SELECT doc, created_at, updated_at FROM webhooks WHERE app_id = ? AND webhook_id = ?",
            (app_id, webhook_id),
        ).fetchone()
        if row is None:
            raise errors.not_found_webhook(webhook_id)
        return row

    # -- meta -----------------------------------------------------------------------------------------------

    def account_id(self) -> str:
        """This database's account id: what tells two sandboxes apart (both are ``local`` at sandbox.local)."""
        with self._lock:
            return account_id(self.conn)

    def seed_if_new(self, seed: Callable[[sqlite3.Connection], object]) -> bool:
        """Run ``seed(conn)`` in a transaction if this database file is new; True if it ran.

        "New" means never seeded (a flag in ``meta``) and holding no apps at all, deleted ones included: an
        account whose apps were all deleted stays empty, and a file filled by
        :func:`tenantdeck.sandbox.bulk.populate` or used unseeded before is left as it is.
        """
        with self._tx(write=True) as conn:
            has_apps = conn.execute("SELECT 1 FROM apps LIMIT 1").fetchone() is not None
            claimed = conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('seeded', ?)", (str(_now()),)
            ).rowcount
            if has_apps or not claimed:
                return False
            seed(conn)
            return True

    # -- apps -----------------------------------------------------------------------------------------------

    def create_app(self, name: str, region: str, version: str) -> dict[str, Any]:
        now = _now()
        with self._tx(write=True) as conn:
            return insert_app(conn, records.new_app_id(), name, region, version, now)

    def list_apps(self, search: str | None, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        where = "deleted_at IS NULL"
        params: list[Any] = []
        if search:
            where += " AND (instr(lower(name), lower(?)) > 0 OR instr(id, lower(?)) > 0)"
            params += [search, search]
        with self._tx(write=False) as conn:
            total = conn.execute(f"SELECT count(*) FROM apps WHERE {where}", params).fetchone()[0]
            rows = conn.execute(
                f"SELECT doc FROM apps WHERE {where} ORDER BY seq LIMIT ? OFFSET ?", [*params, limit, offset]
            ).fetchall()
        return [json.loads(r[0]) for r in rows], total

    def delete_app(self, app_id: str) -> int:
        """Schedule deletion (the real service archives for 30 days); the app disappears at once."""
        now = _now()
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            conn.execute("UPDATE apps SET deleted_at = ? WHERE id = ?", (now, app_id))
        return now + records.DELETE_GRACE_SECONDS

    # -- extensions -----------------------------------------------------------------------------------------

    def extension_states(self, app_id: str) -> dict[str, bool]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            rows = conn.execute("SELECT ext_id, enabled FROM extensions WHERE app_id = ?", (app_id,)).fetchall()
        return {ext_id: bool(enabled) for ext_id, enabled in rows}

    def set_extensions(self, app_id: str, enabled: Iterable[str], disabled: Iterable[str]) -> None:
        now = _now()
        rows = [(app_id, e, 1, now) for e in enabled] + [(app_id, d, 0, now) for d in disabled]
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            conn.executemany("INSERT OR REPLACE INTO extensions VALUES (?, ?, ?, ?)", rows)

    # -- chat widgets ---------------------------------------------------------------------------------------

    def create_widget(self, app_id: str, configuration: dict[str, Any], limit: int) -> str:
        now = _now()
        widget_id = records.new_widget_id()
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            count = conn.execute("SELECT count(*) FROM widgets WHERE app_id = ?", (app_id,)).fetchone()[0]
            if count >= limit:
                raise errors.ApiError(
                    422, errors.WIDGET_LIMIT_REACHED, f"An app can have at most {limit} chat widgets."
                )
            conn.execute(
                "INSERT INTO widgets(app_id, widget_id, configuration, created_at, updated_at) VALUES (?,?,?,?,?)",
                (app_id, widget_id, dumps(configuration), now, now),
            )
        return widget_id

    def update_widget(self, app_id: str, widget_id: str, configuration: dict[str, Any]) -> None:
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            cur = conn.execute(
                "UPDATE widgets SET configuration = ?, updated_at = ? WHERE app_id = ? AND widget_id = ?",
                (dumps(configuration), _now(), app_id, widget_id),
            )
            if cur.rowcount == 0:
                raise errors.ApiError(
                    404, errors.WIDGET_NOT_FOUND, f"The chat widget {widget_id!r} does not exist in this app."
                )

    def widget_configuration(self, app_id: str, widget_id: str) -> dict[str, Any] | None:
        """One widget's stored configuration, or None (no such app or widget)."""
        with self._tx(write=False) as conn:
            row = conn.execute(
                "SELECT configuration FROM widgets WHERE app_id = ? AND widget_id = ?", (app_id, widget_id)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def list_widgets(self, app_id: str) -> list[tuple[str, dict[str, Any]]]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            rows = conn.execute(
                "SELECT widget_id, configuration FROM widgets WHERE app_id = ? ORDER BY seq", (app_id,)
            ).fetchall()
        return [(wid, json.loads(cfg)) for wid, cfg in rows]

    # -- extension settings (every extension's /v1/settings, SMS included) ---------------------------------------

    def extension_settings(self, app_id: str, ext_id: str) -> dict[str, Any] | None:
        """The stored settings of one extension of an app, or None; 404 ``ERR_APP_NOT_FOUND`` for an unknown app."""
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            row = conn.execute(
                "SELECT settings FROM extension_settings WHERE app_id = ? AND ext_id = ?", (app_id, ext_id)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def write_extension_settings(
        self,
        app_id: str,
        ext_id: str,
        build: Callable[[dict[str, Any] | None], dict[str, Any]],
        *,
        must_exist: bool,
    ) -> dict[str, Any]:
        """Store ``build(stored)`` as the extension's settings and return it, in one write transaction.

        ``build`` gets what is stored (None when nothing is) and may refuse with an ``ApiError`` (data-masking
        merges its custom masks into the stored ones and checks the size of the result), so the read, the merge
        and the write are atomic. ``must_exist`` (an update) refuses with 404 ``ERR_SETTINGS_NOT_FOUND`` when
        nothing is stored yet.
        """
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            row = conn.execute(
                "SELECT settings FROM extension_settings WHERE app_id = ? AND ext_id = ?", (app_id, ext_id)
            ).fetchone()
            if row is None and must_exist:
                raise errors.settings_not_found(ext_id)
            doc = build(None if row is None else dict(json.loads(row[0])))
            conn.execute(
                "INSERT OR REPLACE INTO extension_settings(app_id, ext_id, settings, updated_at) VALUES (?,?,?,?)",
                (app_id, ext_id, dumps(doc), _now()),
            )
        return doc

    def delete_extension_settings(self, app_id: str, ext_id: str) -> None:
        """Forget the extension's settings; 404 ``ERR_SETTINGS_NOT_FOUND`` when none are stored."""
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            cur = conn.execute("DELETE FROM extension_settings WHERE app_id = ? AND ext_id = ?", (app_id, ext_id))
            if cur.rowcount == 0:
                raise errors.settings_not_found(ext_id)

    # -- push certificates (fingerprints only) -------------------------------------------------------------------

    def record_certificate(self, app_id: str, kind: str, sha256: str, size: int) -> dict[str, bool]:
        """Record an uploaded certificate (``kind`` ``p12`` or ``p8``) by fingerprint, replacing the app's previous
        one of that kind; returns which kinds the app now has. The bytes themselves are never stored."""
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            conn.execute(
                "INSERT OR REPLACE INTO push_certificates(app_id, kind, sha256, size, uploaded_at) VALUES (?,?,?,?,?)",
                (app_id, kind, sha256, size, _now()),
            )
            return self._certificate_kinds(conn, app_id)

    def certificates(self, app_id: str) -> dict[str, bool]:
        """``{"p12": bool, "p8": bool}``: which certificates the app has."""
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            return self._certificate_kinds(conn, app_id)

    def certificate_record(self, app_id: str, kind: str) -> dict[str, Any] | None:
        """``{sha256, size, uploadedAt}`` of one stored certificate (for tests and the seed's checks), or None."""
        with self._tx(write=False) as conn:
            row = conn.execute(
                "SELECT sha256, size, uploaded_at FROM push_certificates WHERE app_id = ? AND kind = ?", (app_id, kind)
            ).fetchone()
        return None if row is None else {"sha256": row[0], "size": row[1], "uploadedAt": row[2]}

    @staticmethod
    def _certificate_kinds(conn: sqlite3.Connection, app_id: str) -> dict[str, bool]:
        kinds = {r[0] for r in conn.execute("SELECT kind FROM push_certificates WHERE app_id = ?", (app_id,))}
        return {"p12": "p12" in kinds, "p8": "p8" in kinds}

    # -- webhooks -------------------------------------------------------------------------------------------

    @staticmethod
    def _webhook_out(doc: str, created_at: int, updated_at: int) -> dict[str, Any]:
        """What the API answers: never the write-only fields (facts §7), as the real service."""
        out: dict[str, Any] = {k: v for k, v in json.loads(doc).items() if k not in WEBHOOK_WRITE_ONLY}
        out["createdAt"] = created_at
        out["updatedAt"] = updated_at
        return out

    def create_webhook(self, app_id: str, doc: dict[str, Any], password: str | None, limit: int) -> dict[str, Any]:
        """Insert a webhook; ``doc`` must not contain the password (it is stored in its own column)."""
        assert "password" not in doc
        now = _now()
        webhook_id = doc["id"]
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            exists = conn.execute(
                "SELECT 1 FROM webhooks WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id)
            ).fetchone()
            if exists:
                raise errors.ApiError(
                    409, errors.WEBHOOK_ALREADY_EXISTS, f"A webhook with id {webhook_id!r} already exists."
                )
            count = conn.execute("SELECT count(*) FROM webhooks WHERE app_id = ?", (app_id,)).fetchone()[0]
            if count >= limit:
                raise errors.ApiError(422, errors.WEBHOOK_LIMIT_REACHED, f"An app can have at most {limit} webhooks.")
            conn.execute(
                "INSERT INTO webhooks(app_id, webhook_id, doc, password, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                (app_id, webhook_id, dumps(doc), password, now, now),
            )
        return self._webhook_out(dumps(doc), now, now)

    def list_webhooks(
        self, app_id: str, search: str | None, limit: int, offset: int
    ) -> tuple[list[dict[str, Any]], int]:
        where = "app_id = ?"
        params: list[Any] = [app_id]
        if search:
            where += " AND instr(lower(json_extract(doc, '$.name')), lower(?)) > 0"
            params.append(search)
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            total = conn.execute(f"SELECT count(*) FROM webhooks WHERE {where}", params).fetchone()[0]
            rows = conn.execute(
                f"SELECT doc, created_at, updated_at FROM webhooks WHERE {where} ORDER BY seq LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        return [self._webhook_out(*r) for r in rows], total

    def get_webhook(self, app_id: str, webhook_id: str) -> dict[str, Any]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            row = self._require_webhook(conn, app_id, webhook_id)
        return self._webhook_out(*row)

    def update_webhook(self, app_id: str, webhook_id: str, doc: dict[str, Any], password: Any) -> dict[str, Any]:
        """Replace a webhook's fields; ``password`` is a string, ``None`` (clear) or :data:`KEEP_PASSWORD`."""
        assert "password" not in doc
        now = _now()
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            row = self._require_webhook(conn, app_id, webhook_id)
            if password is KEEP_PASSWORD:
                stored = conn.execute(
                    "SELECT password FROM webhooks WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id)
                ).fetchone()[0]
                if doc.get("useBasicAuth") and stored is None:
                    raise errors.validation_error(
                        {"password": ["is required: useBasicAuth is true and no password is stored"]}
                    )
                conn.execute(
                    "UPDATE webhooks SET doc = ?, updated_at = ? WHERE app_id = ? AND webhook_id = ?",
                    (dumps(doc), now, app_id, webhook_id),
                )
            else:
                conn.execute(
                    "UPDATE webhooks SET doc = ?, password = ?, updated_at = ? WHERE app_id = ? AND webhook_id = ?",
                    (dumps(doc), password, now, app_id, webhook_id),
                )
        return self._webhook_out(dumps(doc), row[1], now)

    def delete_webhook(self, app_id: str, webhook_id: str) -> None:
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            self._require_webhook(conn, app_id, webhook_id)
            conn.execute("DELETE FROM webhooks WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id))
            conn.execute("DELETE FROM webhook_triggers WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id))

    def webhook_doc(self, app_id: str, webhook_id: str) -> dict[str, Any]:
        """The stored fields, write-only ones included (not the password): what an update starts from, and what
        tests look at to see what was really set. The API never answers with it."""
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            row = self._require_webhook(conn, app_id, webhook_id)
        doc: dict[str, Any] = json.loads(row[0])
        return doc

    def webhook_password(self, app_id: str, webhook_id: str) -> str | None:
        """For tests only: the API itself never returns a webhook password."""
        with self._tx(write=False) as conn:
            row = conn.execute(
                "SELECT password FROM webhooks WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id)
            ).fetchone()
        return None if row is None else row[0]

    # -- triggers -------------------------------------------------------------------------------------------

    def add_triggers(self, app_id: str, webhook_id: str, trigger_ids: list[str]) -> dict[str, bool]:
        """Attach triggers; returns, per id, whether it was newly attached (False: it already was)."""
        now = _now()
        out: dict[str, bool] = {}
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            self._require_webhook(conn, app_id, webhook_id)
            for trigger_id in trigger_ids:
                cur = conn.execute(
                    "INSERT OR IGNORE INTO webhook_triggers VALUES (?, ?, ?, ?)",
                    (app_id, webhook_id, trigger_id, now),
                )
                out[trigger_id] = cur.rowcount == 1
        return out

    def list_triggers(self, app_id: str, webhook_id: str, limit: int, offset: int) -> tuple[list[str], int]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            self._require_webhook(conn, app_id, webhook_id)
            total = conn.execute(
                "SELECT count(*) FROM webhook_triggers WHERE app_id = ? AND webhook_id = ?", (app_id, webhook_id)
            ).fetchone()[0]
            rows = conn.execute(
                "SELECT trigger_id FROM webhook_triggers WHERE app_id = ? AND webhook_id = ?"
                " ORDER BY added_at, trigger_id LIMIT ? OFFSET ?",
                (app_id, webhook_id, limit, offset),
            ).fetchall()
        return [r[0] for r in rows], total

    def remove_triggers(self, app_id: str, webhook_id: str, trigger_ids: list[str]) -> None:
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            self._require_webhook(conn, app_id, webhook_id)
            conn.executemany(
                "DELETE FROM webhook_triggers WHERE app_id = ? AND webhook_id = ? AND trigger_id = ?",
                [(app_id, webhook_id, t) for t in trigger_ids],
            )

    # -- team -------------------------------------------------------------------------------------------------

    def list_collaborators(self, app_id: str) -> list[dict[str, Any]]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            rows = conn.execute("SELECT doc FROM collaborators WHERE app_id = ? ORDER BY seq", (app_id,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def update_team(
        self, app_id: str, roles: dict[str, str], remove: list[str], *, limit: int, key: Callable[[str], str]
    ) -> None:
        """Give each email in ``roles`` its role (adding it if new) and remove the ``remove`` emails, all or nothing.

        Emails are matched through ``key`` (case-insensitively, see :func:`~.validation.email_key`); a role change
        keeps the collaborator's id, name and ``createdAt``. Refused, with nothing changed (the transaction rolls
        back): the owner's email anywhere (422 ``ERR_ALREADY_AN_OWNER``: the owner can be neither given a role
        nor removed), removing an email that is not on the team (404 ``ERR_NOT_A_COLLABORATOR``, like an unknown
        id in the extension toggle's lists), and more than ``limit`` collaborators afterwards, the owner included
        (422 ``ERR_COLLABORATOR_LIMIT_REACHED``, like the widget and webhook limits).
        """
        now = _now()
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            rows = conn.execute(
                "SELECT seq, doc FROM collaborators WHERE app_id = ? ORDER BY seq", (app_id,)
            ).fetchall()
            team: dict[str, tuple[int, dict[str, Any]]] = {}
            for seq, doc in rows:
                member = json.loads(doc)
                team.setdefault(key(str(member.get("email", ""))), (seq, member))
            owners = {k for k, (_, member) in team.items() if member.get("role") == "owner"}
            named_owner = [e for e in (*roles, *remove) if key(e) in owners]
            if named_owner:
                raise errors.ApiError(
                    422, errors.ALREADY_AN_OWNER,
                    f"{named_owner[0]!r} is the app's owner: the owner cannot be given a role or removed.",
                )
            missing = [e for e in remove if key(e) not in team]
            if missing:
                raise errors.ApiError(
                    404, errors.NOT_A_COLLABORATOR,
                    f"Not a collaborator of this app: {', '.join(repr(e) for e in missing[:5])}"
                    + (f" and {len(missing) - 5} more." if len(missing) > 5 else "."),
                )
            added = [e for e in roles if key(e) not in team]
            size = len(team) + len(added) - len(remove)
            if size > limit:
                raise errors.ApiError(
                    422, errors.COLLABORATOR_LIMIT_REACHED,
                    f"An app can have at most {limit} collaborators, its owner included; this change makes {size}.",
                )
            for email in remove:
                conn.execute("DELETE FROM collaborators WHERE seq = ?", (team[key(email)][0],))
            for email, role in roles.items():
                if email in added:
                    conn.execute(
                        "INSERT INTO collaborators(app_id, doc) VALUES (?, ?)",
                        (app_id, dumps(records.collaborator_record(email, role, now))),
                    )
                else:
                    seq, member = team[key(email)]
                    if member.get("role") != role:
                        doc = dumps({**member, "role": role})
                        conn.execute("UPDATE collaborators SET doc = ? WHERE seq = ?", (doc, seq))

    # -- settings (list, map booleans, unmap) -------------------------------------------------------------------

    def app_settings(self, app_id: str) -> dict[str, Any]:
        with self._tx(write=False) as conn:
            self._require_app(conn, app_id)
            row = conn.execute("SELECT doc FROM app_settings WHERE app_id = ?", (app_id,)).fetchone()
        return {} if row is None else json.loads(row[0])

    def map_settings(self, app_id: str, settings: dict[str, bool], *, limit: int) -> None:
        """Set boolean settings, all or nothing (one transaction: a refusal rolls everything back).

        A key whose current value is not a boolean (a list such as ``...advanced.included``) is refused (422
        ``ERR_BAD_REQUEST``): the vendor's map-settings takes booleans only, so such a value is the service's to
        report, never ours to overwrite. A key the app does not have yet is added (the vendor's schema allows any
        key; the GET then reports it), up to ``limit`` settings per app (422 ``ERR_BAD_REQUEST`` beyond).
        """
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            row = conn.execute("SELECT doc FROM app_settings WHERE app_id = ?", (app_id,)).fetchone()
            current: dict[str, Any] = {} if row is None else json.loads(row[0])
            fixed = sorted(k for k in settings if k in current and not isinstance(current[k], bool))
            if fixed:
                raise errors.validation_error(
                    {f"settings.{shown(k[:100])}": [f"holds {_json_kind(current[k])}, not a boolean: "
                                                    "map-settings sets booleans only"] for k in fixed}
                )  # fmt: skip
            size = len(current.keys() | settings.keys())
            if size > limit:
                raise errors.validation_error(
                    {"settings": [f"an app holds at most {limit} settings; this would make {size}"]}
                )
            current.update(settings)
            conn.execute("INSERT OR REPLACE INTO app_settings(app_id, doc) VALUES (?, ?)", (app_id, dumps(current)))

    def unmap_settings(self, app_id: str) -> None:
        """Back to a fresh app's settings. What the real service's unmap resets is not documented (facts §3.5
        [U]: no body is declared); a full reset is the one reading that leaves the GET well defined afterwards."""
        with self._tx(write=True) as conn:
            self._require_app(conn, app_id)
            conn.execute("INSERT OR REPLACE INTO app_settings(app_id, doc) VALUES (?, ?)",
                         (app_id, dumps(records.default_app_settings())))


def _json_kind(value: Any) -> str:
    """``a list``, ``a string``, ...: what a stored JSON value is, for a refusal that says why."""
    kinds = {list: "a list", dict: "an object", str: "a string", int: "a number", float: "a number"}
    return "null" if value is None else kinds.get(type(value), "a non-boolean value")


def insert_app(
    conn: sqlite3.Connection,
    app_id: str,
    name: str,
    region: str,
    version: str,
    now: int,
    *,
    collaborators: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Insert one app with its owner collaborator and default settings (inside the caller's transaction)."""
    record = records.app_record(app_id, name, region, version, now)
    conn.execute("INSERT INTO apps(id, name, doc, created_at) VALUES (?, ?, ?, ?)", (app_id, name, dumps(record), now))
    conn.executemany(
        "INSERT INTO collaborators(app_id, doc) VALUES (?, ?)",
        [(app_id, dumps(c)) for c in (collaborators or [records.owner_collaborator(now)])],
    )
    conn.execute(
        "INSERT INTO app_settings(app_id, doc) VALUES (?, ?)",
        (app_id, dumps(settings if settings is not None else records.default_app_settings())),
    )
    return record
