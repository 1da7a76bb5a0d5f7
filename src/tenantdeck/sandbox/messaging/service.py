"""The messaging area's data and rules: users, groups, members, messages, reactions, receipts, unread counts.

Every mutating method runs in one store transaction and returns ``(result, events)`` where ``events`` are the
``(trigger, data)`` pairs the action fires; the route hands them to the delivery worker *after* the transaction
committed, so a receiver never hears of something a failed request did not do. Payloads are built with
:mod:`tenantdeck.models.event_samples` builders, the same ones the sample generator uses.

Rules from the spec's Limits: a group with more than :data:`LARGE_GROUP` members gets no unread-count updates,
and delivery/read receipts are sent only for groups with at most :data:`LARGE_GROUP` online members.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from typing import Any

from tenantdeck.models.event_samples import action_message as build_action_message
from tenantdeck.models.event_samples import (
    entity,
    group_conversation_id,
    group_object,
    user_conversation_id,
    user_object,
)
from tenantdeck.models.messages import (
    GroupCreate,
    GroupMembersBody,
    GroupUpdate,
    MessageBody,
    MessageUpdate,
    UserCreate,
    mentioned_uids,
)
from tenantdeck.sandbox.errors import ApiError
from tenantdeck.sandbox.messaging.ddl import create_tables
from tenantdeck.sandbox.store import Store

#: Above this many members a group's conversations and unread counts are not updated; above this many online
#: members no receipts are sent (service-spec.md, Limits).
LARGE_GROUP = 300

Event = tuple[str, dict[str, Any]]

SYSTEM_USER = "app_system"


def _dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _now() -> int:
    return int(time.time())


def _seen_by(user: dict[str, Any], actor: str) -> dict[str, Any]:
    """A user as an event about what ``actor`` did to them shows them: with their one-to-one conversation with the
    actor (published user_blocked, member events, mentions)."""
    if actor == user["uid"]:
        return user
    return {**user, "conversationId": user_conversation_id(actor, user["uid"])}


def _member_event_group(group: dict[str, Any], now: int | None) -> dict[str, Any]:
    """The group as member events show it: membership changes stamp ``updatedAt`` (``None``: not stamped, as the
    published group_member_added), and ``updatedBy`` belongs to group updates only."""
    out = {k: v for k, v in group.items() if k not in ("updatedAt", "updatedBy")}
    if now is not None:
        out["updatedAt"] = now
    return out


def not_found(code: str, what: str) -> ApiError:
    return ApiError(404, code, f"{what} does not exist.")


def bad_request(code: str, message: str) -> ApiError:
    return ApiError(400, code, message)


class ChatService:
    """Messaging state of every app in one sandbox database (shares the management store's connection)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        create_tables(store.conn)  # executescript commits by itself: run it outside a store transaction

    # -- credentials ----------------------------------------------------------------------------------------

    def api_key(self, app_id: str) -> str:
        """The app's chat API key (``fullAccess``), created on first use; 404 for an unknown app."""
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            row = conn.execute("SELECT api_key FROM chat_api_keys WHERE app_id = ?", (app_id,)).fetchone()
            if row is not None:
                return str(row[0])
            key = secrets.token_hex(20)
            conn.execute("INSERT INTO chat_api_keys VALUES (?, ?, ?)", (app_id, key, _now()))
            return key

    def app_for_key(self, app_id: str, api_key: str) -> bool:
        with self.store.transaction(write=False) as conn:
            row = conn.execute(
                "SELECT k.api_key FROM chat_api_keys k JOIN apps a ON a.id = k.app_id"
                " WHERE k.app_id = ? AND a.deleted_at IS NULL",
                (app_id,),
            ).fetchone()
        import hmac

        return row is not None and hmac.compare_digest(str(row[0]).encode(), api_key.encode("utf-8", "replace"))

    @staticmethod
    def _require_app(conn: sqlite3.Connection, app_id: str) -> str:
        row = conn.execute("SELECT doc FROM apps WHERE id = ? AND deleted_at IS NULL", (app_id,)).fetchone()
        if row is None:
            raise ApiError(404, "ERR_APP_NOT_FOUND", f"The app {app_id!r} does not exist or has been deleted.")
        return str(json.loads(row[0]).get("region", "us"))

    # -- users ----------------------------------------------------------------------------------------------

    @staticmethod
    def _user(conn: sqlite3.Connection, app_id: str, uid: str) -> dict[str, Any]:
        if uid == SYSTEM_USER:
            return user_object(SYSTEM_USER, "System", avatar="", last_active_at=_now(), created_at=_now())
        row = conn.execute("SELECT doc FROM chat_users WHERE app_id = ? AND uid = ?", (app_id, uid)).fetchone()
        if row is None:
            raise not_found("ERR_UID_NOT_FOUND", f"The user with uid {uid!r}")
        doc: dict[str, Any] = json.loads(row[0])
        return doc

    def create_user(self, app_id: str, body: UserCreate) -> dict[str, Any]:
        now = _now()
        doc = user_object(
            body.uid,
            body.name,
            avatar=body.avatar or "",
            status=body.status,
            role=body.role,
            last_active_at=now,
            created_at=now,
        )
        for key in ("link", "metadata", "tags"):
            value = getattr(body, key)
            if value is not None:
                doc[key] = value
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            seq = conn.execute("SELECT count(*) FROM chat_users WHERE app_id = ?", (app_id,)).fetchone()[0]
            try:
                conn.execute("INSERT INTO chat_users VALUES (?, ?, ?, ?)", (app_id, body.uid, _dumps(doc), seq))
            except sqlite3.IntegrityError:
                raise ApiError(409, "ERR_UID_ALREADY_EXISTS", f"A user with uid {body.uid!r} already exists.") from None
        return doc

    def get_user(self, app_id: str, uid: str) -> dict[str, Any]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            return self._user(conn, app_id, uid)

    def list_users(self, app_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            total = conn.execute("SELECT count(*) FROM chat_users WHERE app_id = ?", (app_id,)).fetchone()[0]
            rows = conn.execute(
                "SELECT doc FROM chat_users WHERE app_id = ? ORDER BY seq LIMIT ? OFFSET ?", (app_id, limit, offset)
            ).fetchall()
        return [json.loads(r[0]) for r in rows], total

    def set_presence(self, app_id: str, uid: str, status: str) -> tuple[dict[str, Any], list[Event]]:
        """Sandbox extra: a user connects (online) or disconnects (offline); fires the connection event."""
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            user = self._user(conn, app_id, uid)
            changed = user["status"] != status
            user["status"] = status
            user["lastActiveAt"] = now
            conn.execute("UPDATE chat_users SET doc = ? WHERE app_id = ? AND uid = ?", (_dumps(user), app_id, uid))
        ms = int(time.time() * 1000)
        data = {
            "timestamp": ms,
            "user": user,
            "status": status,
            "currentConnection": {
                "action": "connect" if status == "online" else "disconnect",
                "appInfo": {
                    "version": "sandbox",
                    "apiVersion": "3.0",
                    "origin": "tenantdeck-sandbox",
                    "uts": ms,
                    "clientIp": "127.0.0.1",
                },
                "platform": "rest",
                "userAgent": "tenantdeck-sandbox",
                "connectedAt": ms,
            },
            "userPresenceChanged": changed,
        }
        return user, [("user_connection_status_changed", data)]

    def block(self, app_id: str, uid: str, others: list[str], *, unblock: bool) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            by = self._user(conn, app_id, uid)
            users = {o: self._user(conn, app_id, o) for o in others}
            for other in others:
                if unblock:
                    conn.execute(
                        "DELETE FROM chat_blocks WHERE app_id = ? AND uid = ? AND blocked_uid = ?", (app_id, uid, other)
                    )
                else:
                    conn.execute("INSERT OR IGNORE INTO chat_blocks VALUES (?, ?, ?, ?)", (app_id, uid, other, now))
        verb = "unblocked" if unblock else "blocked"
        result = {
            o: {"success": True, "message": f"The user with UID {uid} has {verb} user with UID {o} successfully."}
            for o in others
        }
        users = {o: _seen_by(user, uid) for o, user in users.items()}
        return result, [("user_unblocked" if unblock else "user_blocked", {"users": users, "by": by})]

    # -- groups ---------------------------------------------------------------------------------------------

    def _group_row(self, conn: sqlite3.Connection, app_id: str, guid: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM chat_groups WHERE app_id = ? AND guid = ?", (app_id, guid)).fetchone()
        if row is None:
            raise not_found("ERR_GUID_NOT_FOUND", f"The group with guid {guid!r}")
        doc: dict[str, Any] = json.loads(row[0])
        return doc

    def _counts(self, conn: sqlite3.Connection, app_id: str, guid: str) -> tuple[int, int]:
        members = conn.execute(
            "SELECT count(*) FROM chat_members WHERE app_id = ? AND guid = ?", (app_id, guid)
        ).fetchone()[0]
        online = conn.execute(
            "SELECT count(*) FROM chat_members m JOIN chat_users u ON u.app_id = m.app_id AND u.uid = m.uid"
            " WHERE m.app_id = ? AND m.guid = ? AND json_extract(u.doc, '$.status') = 'online'",
            (app_id, guid),
        ).fetchone()[0]
        return int(members), int(online)

    def _group(self, conn: sqlite3.Connection, app_id: str, guid: str, **extra: Any) -> dict[str, Any]:
        """The group as events and answers show it (counts computed now, no password)."""
        doc = self._group_row(conn, app_id, guid)
        members, online = self._counts(conn, app_id, guid)
        out = group_object(
            guid,
            doc["name"],
            group_type=doc["type"],
            members_count=members,
            online_members_count=online,
            owner=doc["owner"],
            created_at=doc["createdAt"],
            updatedAt=doc.get("updatedAt"),
            updatedBy=doc.get("updatedBy"),
            **extra,
        )
        for key in ("description", "icon", "metadata", "tags"):
            if doc.get(key) is not None:
                out[key] = doc[key]
        return out

    def _member_scope(self, conn: sqlite3.Connection, app_id: str, guid: str, uid: str) -> str | None:
        row = conn.execute(
            "SELECT scope FROM chat_members WHERE app_id = ? AND guid = ? AND uid = ?", (app_id, guid, uid)
        ).fetchone()
        return None if row is None else str(row[0])

    def _add_member(self, conn: sqlite3.Connection, app_id: str, guid: str, uid: str, scope: str, now: int) -> bool:
        banned = conn.execute(
            "SELECT 1 FROM chat_bans WHERE app_id = ? AND guid = ? AND uid = ?", (app_id, guid, uid)
        ).fetchone()
        if banned:
            return False
        cur = conn.execute("INSERT OR IGNORE INTO chat_members VALUES (?, ?, ?, ?, ?)", (app_id, guid, uid, scope, now))
        return cur.rowcount == 1

    def create_group(
        self, app_id: str, body: GroupCreate, on_behalf_of: str | None
    ) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        owner = body.owner or on_behalf_of
        if not owner:
            raise bad_request("ERR_BAD_REQUEST", "Name the group's owner (body owner or the onBehalfOf header).")
        doc: dict[str, Any] = {
            "guid": body.guid,
            "name": body.name,
            "type": body.type,
            "owner": owner,
            "createdAt": now,
        }
        for key in ("description", "icon", "metadata", "tags"):
            if getattr(body, key) is not None:
                doc[key] = getattr(body, key)
        if body.password:
            doc["password"] = body.password
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            self._user(conn, app_id, owner)
            seq = conn.execute("SELECT count(*) FROM chat_groups WHERE app_id = ?", (app_id,)).fetchone()[0]
            try:
                conn.execute("INSERT INTO chat_groups VALUES (?, ?, ?, ?)", (app_id, body.guid, _dumps(doc), seq))
            except sqlite3.IntegrityError:
                raise ApiError(
                    409, "ERR_GUID_ALREADY_EXISTS", f"A group with guid {body.guid!r} already exists."
                ) from None
            self._add_member(conn, app_id, body.guid, owner, "admin", now)
            if body.members is not None:
                for scope, uids in (
                    ("admin", body.members.admins),
                    ("moderator", body.members.moderators),
                    ("participant", body.members.participants),
                ):
                    for uid in uids:
                        self._user(conn, app_id, uid)
                        self._add_member(conn, app_id, body.guid, uid, scope, now)
            uids = [
                r[0]
                for r in conn.execute(
                    "SELECT uid FROM chat_members WHERE app_id = ? AND guid = ? ORDER BY joined_at, uid",
                    (app_id, body.guid),
                )
            ]
            members = {uid: self._user(conn, app_id, uid) for uid in uids}
            group = self._group(conn, app_id, body.guid)
        # the event shows the group as its creator sees it (published group_created: scope, joinedAt, hasJoined,
        # no online count); the answer keeps the counts
        created = {k: v for k, v in group.items() if k != "onlineMembersCount"}
        created.update({"scope": "admin", "joinedAt": now, "hasJoined": True})
        return group, [("group_created", {"group": created, "members": members})]

    def get_group(self, app_id: str, guid: str) -> dict[str, Any]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            return self._group(conn, app_id, guid)

    def list_groups(self, app_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            total = conn.execute("SELECT count(*) FROM chat_groups WHERE app_id = ?", (app_id,)).fetchone()[0]
            guids = [
                r[0]
                for r in conn.execute(
                    "SELECT guid FROM chat_groups WHERE app_id = ? ORDER BY seq LIMIT ? OFFSET ?",
                    (app_id, limit, offset),
                )
            ]
            return [self._group(conn, app_id, g) for g in guids], total

    def update_group(
        self, app_id: str, guid: str, body: GroupUpdate, on_behalf_of: str | None
    ) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        events: list[Event] = []
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._group_row(conn, app_id, guid)
            old_owner = doc["owner"]
            changes = body.model_dump(exclude_none=True, exclude={"owner"})
            if body.owner is not None and body.owner != old_owner:
                if self._member_scope(conn, app_id, guid, body.owner) is None:
                    raise bad_request("ERR_NOT_A_MEMBER", f"The new owner {body.owner!r} is not a member of the group.")
                doc["owner"] = body.owner
                conn.execute(
                    "UPDATE chat_members SET scope = 'admin' WHERE app_id = ? AND guid = ? AND uid = ?",
                    (app_id, guid, body.owner),
                )
            doc.update(changes)
            doc["updatedAt"] = now
            doc["updatedBy"] = on_behalf_of or SYSTEM_USER
            conn.execute("UPDATE chat_groups SET doc = ? WHERE app_id = ? AND guid = ?", (_dumps(doc), app_id, guid))
            group = self._group(conn, app_id, guid)
            if changes:
                events.append(("group_updated", {"group": group}))
            if doc["owner"] != old_owner:
                events.append(("group_owner_transferred", {"group": {**group, "oldOwner": old_owner}}))
        return group, events

    def delete_group(self, app_id: str, guid: str, on_behalf_of: str | None = None) -> list[Event]:
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            group = self._group(conn, app_id, guid)
            group.update({"updatedAt": _now(), "updatedBy": on_behalf_of or SYSTEM_USER})
            for table in ("chat_groups", "chat_members", "chat_bans"):
                conn.execute(f"DELETE FROM {table} WHERE app_id = ? AND guid = ?", (app_id, guid))
        return [("group_deleted", {"group": group})]

    def add_members(
        self, app_id: str, guid: str, body: GroupMembersBody, on_behalf_of: str | None
    ) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        result: dict[str, dict[str, Any]] = {}
        added: dict[str, dict[str, Any]] = {}
        banned: dict[str, dict[str, Any]] = {}
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            self._group_row(conn, app_id, guid)
            by = self._user(conn, app_id, on_behalf_of or SYSTEM_USER)
            for scope_key, scope in (("admins", "admin"), ("moderators", "moderator"), ("participants", "participant")):
                result[scope_key] = {}
                for uid in getattr(body, scope_key):
                    try:
                        user = self._user(conn, app_id, uid)
                    except ApiError as exc:
                        result[scope_key][uid] = {"success": False, "error": {"code": exc.code, "message": exc.message}}
                        continue
                    if self._add_member(conn, app_id, guid, uid, scope, now):
                        added[uid] = user
                        result[scope_key][uid] = {"success": True}
                    else:
                        result[scope_key][uid] = {
                            "success": False,
                            "error": {
                                "code": "ERR_ALREADY_JOINED",
                                "message": f"{uid} is already a member or is banned.",
                            },
                        }
            result["usersToBan"] = {}
            for uid in body.usersToBan:
                user = self._user(conn, app_id, uid)
                self._ban(conn, app_id, guid, uid, now)
                banned[uid] = user
                result["usersToBan"][uid] = {"success": True}
            group = self._group(conn, app_id, guid)
        events: list[Event] = []
        if added:
            added_group = _member_event_group(group, None)
            members = {uid: _seen_by(user, by["uid"]) for uid, user in added.items()}
            events.append(("group_member_added", {"group": added_group, "members": members, "by": by}))
        if banned:
            members = {uid: _seen_by(user, by["uid"]) for uid, user in banned.items()}
            events.append(("group_member_banned", {"group": _member_event_group(group, now), "members": members,
                                                   "by": by}))
        return result, events

    def list_members(self, app_id: str, guid: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            self._group_row(conn, app_id, guid)
            total = conn.execute(
                "SELECT count(*) FROM chat_members WHERE app_id = ? AND guid = ?", (app_id, guid)
            ).fetchone()[0]
            rows = conn.execute(
                "SELECT uid, scope, joined_at FROM chat_members WHERE app_id = ? AND guid = ?"
                " ORDER BY joined_at, uid LIMIT ? OFFSET ?",
                (app_id, guid, limit, offset),
            ).fetchall()
            return [
                {**self._user(conn, app_id, uid), "scope": scope, "joinedAt": joined} for uid, scope, joined in rows
            ], total

    def _ban(self, conn: sqlite3.Connection, app_id: str, guid: str, uid: str, now: int) -> None:
        conn.execute("DELETE FROM chat_members WHERE app_id = ? AND guid = ? AND uid = ?", (app_id, guid, uid))
        conn.execute("INSERT OR IGNORE INTO chat_bans VALUES (?, ?, ?, ?)", (app_id, guid, uid, now))

    def remove_member(self, app_id: str, guid: str, uid: str, on_behalf_of: str | None, *, how: str) -> list[Event]:
        """``how``: ``kick`` (by an admin), ``leave`` (the member itself), ``ban``, ``unban``."""
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._group_row(conn, app_id, guid)
            user = self._user(conn, app_id, uid)
            by = self._user(conn, app_id, on_behalf_of or SYSTEM_USER)
            if how == "unban":
                cur = conn.execute(
                    "DELETE FROM chat_bans WHERE app_id = ? AND guid = ? AND uid = ?", (app_id, guid, uid)
                )
                if cur.rowcount == 0:
                    raise bad_request("ERR_NOT_BANNED", f"{uid!r} is not banned from the group.")
            elif how == "ban":
                self._ban(conn, app_id, guid, uid, now)
            else:
                if uid == doc["owner"]:
                    raise bad_request(
                        "ERR_OWNER_CANNOT_LEAVE", "The owner cannot leave or be kicked; transfer ownership first."
                    )
                cur = conn.execute(
                    "DELETE FROM chat_members WHERE app_id = ? AND guid = ? AND uid = ?", (app_id, guid, uid)
                )
                if cur.rowcount == 0:
                    raise bad_request("ERR_NOT_A_MEMBER", f"{uid!r} is not a member of the group.")
            group = self._group(conn, app_id, guid)
        group = _member_event_group(group, now)
        if how == "leave":
            return [("group_member_left", {"group": group, "members": {uid: user}})]
        trigger = {"kick": "group_member_kicked", "ban": "group_member_banned", "unban": "group_member_unbanned"}[how]
        return [(trigger, {"group": group, "members": {uid: _seen_by(user, by["uid"])}, "by": by})]

    def join(self, app_id: str, guid: str, uid: str, password: str | None) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._group_row(conn, app_id, guid)
            user = self._user(conn, app_id, uid)
            if doc["type"] == "private":
                raise ApiError(403, "ERR_GROUP_JOIN_NOT_ALLOWED", "A private group can only be joined when added.")
            if doc["type"] == "password" and password != doc.get("password"):
                raise ApiError(403, "ERR_WRONG_GROUP_PASS", "The group password is wrong.")
            if self._member_scope(conn, app_id, guid, uid) is not None:
                raise bad_request("ERR_ALREADY_JOINED", f"{uid!r} is already a member of the group.")
            if not self._add_member(conn, app_id, guid, uid, "participant", now):
                raise ApiError(403, "ERR_BANNED_GROUPMEMBER", f"{uid!r} is banned from the group.")
            group = self._group(conn, app_id, guid, scope="participant", joinedAt=now, hasJoined=True)
        plain = {k: v for k, v in group.items() if k not in ("scope", "joinedAt", "hasJoined")}
        return group, [("group_member_joined", {"group": _member_event_group(plain, now), "members": {uid: user}})]

    def change_scope(self, app_id: str, guid: str, uid: str, scope: str, on_behalf_of: str | None) -> list[Event]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._group_row(conn, app_id, guid)
            old = self._member_scope(conn, app_id, guid, uid)
            if old is None:
                raise bad_request("ERR_NOT_A_MEMBER", f"{uid!r} is not a member of the group.")
            if uid == doc["owner"] and scope != "admin":
                raise bad_request("ERR_OWNER_SCOPE", "The owner's scope is always admin.")
            conn.execute(
                "UPDATE chat_members SET scope = ? WHERE app_id = ? AND guid = ? AND uid = ?",
                (scope, app_id, guid, uid),
            )
            user = self._user(conn, app_id, uid)
            by = self._user(conn, app_id, on_behalf_of or SYSTEM_USER)
            group = self._group(conn, app_id, guid)
        member = {**_seen_by(user, by["uid"]), "scope": scope, "oldScope": old}
        group = _member_event_group(group, now)
        return [("group_member_scope_changed", {"group": group, "members": {uid: member}, "by": by})]

    def list_bans(self, app_id: str, guid: str) -> list[dict[str, Any]]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            self._group_row(conn, app_id, guid)
            rows = conn.execute(
                "SELECT uid FROM chat_bans WHERE app_id = ? AND guid = ? ORDER BY banned_at, uid", (app_id, guid)
            ).fetchall()
            return [self._user(conn, app_id, r[0]) for r in rows]

    # -- messages -------------------------------------------------------------------------------------------

    def _insert_message(self, conn: sqlite3.Connection, app_id: str, doc: dict[str, Any]) -> dict[str, Any]:
        cur = conn.execute(
            "INSERT INTO chat_messages(app_id, conversation_id, sender, category, doc) VALUES (?, ?, ?, ?, '{}')",
            (app_id, doc["conversationId"], doc["sender"], doc["category"]),
        )
        doc["id"] = str(cur.lastrowid)
        conn.execute("UPDATE chat_messages SET doc = ? WHERE id = ?", (_dumps(doc), cur.lastrowid))
        return doc

    def _message(self, conn: sqlite3.Connection, app_id: str, message_id: str) -> dict[str, Any]:
        row = None
        if message_id.isdigit():
            row = conn.execute(
                "SELECT doc FROM chat_messages WHERE app_id = ? AND id = ?", (app_id, int(message_id))
            ).fetchone()
        if row is None:
            raise not_found("ERR_MESSAGE_NOT_FOUND", f"The message {message_id!r}")
        doc: dict[str, Any] = json.loads(row[0])
        return doc

    def _save_message(self, conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE chat_messages SET doc = ? WHERE id = ?", (_dumps(doc), int(doc["id"])))

    def send_message(self, app_id: str, sender: str, body: MessageBody) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            sender_user = self._user(conn, app_id, sender)
            if body.receiverType == "user":
                receiver_obj = self._user(conn, app_id, body.receiver)
                conversation = user_conversation_id(sender, body.receiver)
                receiver_entity = entity({**receiver_obj, "conversationId": conversation}, "user")
            else:
                if self._member_scope(conn, app_id, body.receiver, sender) is None:
                    self._group_row(conn, app_id, body.receiver)
                    raise ApiError(403, "ERR_NOT_A_MEMBER", f"{sender!r} is not a member of group {body.receiver!r}.")
                receiver_entity = entity(self._group(conn, app_id, body.receiver), "group")
                conversation = group_conversation_id(body.receiver)
            data = dict(body.data)
            text = data.get("text")
            mentions: dict[str, Any] = {}
            if isinstance(text, str):
                for uid in mentioned_uids(text):
                    exists = conn.execute(
                        "SELECT doc FROM chat_users WHERE app_id = ? AND uid = ?", (app_id, uid)
                    ).fetchone()
                    if exists is not None:
                        mentions[uid] = _seen_by(json.loads(exists[0]), sender)
            if mentions:
                data["mentions"] = mentions
            data["entities"] = {"sender": entity(sender_user, "user"), "receiver": receiver_entity}
            doc: dict[str, Any] = {
                "conversationId": conversation,
                "sender": sender,
                "receiverType": body.receiverType,
                "receiver": body.receiver,
                "category": body.category,
                "type": body.type,
                "data": data,
                "sentAt": now,
                "updatedAt": now,
            }
            if body.tags:
                doc["tags"] = body.tags
            doc = {"id": "", **doc}
            self._insert_message(conn, app_id, doc)
            self._count_unread(conn, app_id, doc)
        events: list[Event] = [("message_sent", {"message": doc})]
        if mentions:
            events.append(("user_mentioned", {"message": doc}))
        return doc, events

    def _recipients(self, conn: sqlite3.Connection, app_id: str, message: dict[str, Any]) -> list[str] | None:
        """Who counts this message as unread; None for a group above :data:`LARGE_GROUP` members (not updated)."""
        if message["receiverType"] == "user":
            return [message["receiver"]] if message["receiver"] != message["sender"] else []
        members, _ = self._counts(conn, app_id, message["receiver"])
        if members > LARGE_GROUP:
            return None
        rows = conn.execute(
            "SELECT uid FROM chat_members WHERE app_id = ? AND guid = ? AND uid != ?",
            (app_id, message["receiver"], message["sender"]),
        ).fetchall()
        return [r[0] for r in rows]

    def _count_unread(self, conn: sqlite3.Connection, app_id: str, message: dict[str, Any]) -> None:
        for uid in self._recipients(conn, app_id, message) or []:
            conn.execute(
                "INSERT INTO chat_unread VALUES (?, ?, ?, 1) ON CONFLICT(app_id, uid, conversation_id)"
                " DO UPDATE SET unread = unread + 1",
                (app_id, uid, message["conversationId"]),
            )

    def get_message(self, app_id: str, message_id: str) -> dict[str, Any]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            return self._message(conn, app_id, message_id)

    def _action(
        self, conn: sqlite3.Connection, app_id: str, action: str, by: dict[str, Any], on: dict[str, Any], now: int
    ) -> dict[str, Any]:
        for_ = on["data"]["entities"]["receiver"]
        doc = build_action_message(
            message_id="",
            action=action,
            by=by,
            for_=for_,
            on=on,
            conversation_id=on["conversationId"],
            sender=by["uid"],
            receiver=on["receiver"],
            receiver_type=on["receiverType"],
            now=now,
        )
        return self._insert_message(conn, app_id, doc)

    def edit_message(
        self, app_id: str, message_id: str, editor: str, body: MessageUpdate
    ) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._message(conn, app_id, message_id)
            by = self._user(conn, app_id, editor)
            if doc.get("deletedAt"):
                raise bad_request("ERR_MESSAGE_DELETED", "A deleted message cannot be edited.")
            if doc["sender"] != editor:
                raise ApiError(403, "ERR_PERMISSION_DENIED", "Only the sender can edit a message.")
            if body.data is not None:
                doc["data"] = {**body.data, "entities": doc["data"]["entities"]}
            if body.tags is not None:
                doc["tags"] = body.tags
            doc.update({"editedAt": now, "editedBy": editor, "updatedAt": now})
            self._save_message(conn, doc)
            action = self._action(conn, app_id, "edited", by, doc, now)
        return action, [("message_edited", {"message": action})]

    def delete_message(
        self, app_id: str, message_id: str, deleter: str | None, *, permanent: bool
    ) -> tuple[dict[str, Any], list[Event]]:
        """Soft delete keeps the message (marked ``deletedAt``/``deletedBy``); permanent delete removes it."""
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._message(conn, app_id, message_id)
            by = self._user(conn, app_id, deleter or SYSTEM_USER)
            doc.update({"deletedAt": now, "deletedBy": by["uid"], "updatedAt": now})
            if permanent:
                conn.execute("DELETE FROM chat_messages WHERE app_id = ? AND id = ?", (app_id, int(doc["id"])))
                conn.execute("DELETE FROM chat_reactions WHERE app_id = ? AND message_id = ?", (app_id, int(doc["id"])))
            else:
                self._save_message(conn, doc)
            # the event shows the deleted message without its content (the published message_deleted has only
            # the entities left in its data); history keeps it for a soft delete
            gone = {**doc, "data": {"entities": doc["data"]["entities"]}}
            action = self._action(conn, app_id, "deleted", by, gone, now)
        return action, [("message_deleted", {"message": action})]

    def list_messages(
        self,
        app_id: str,
        *,
        conversation_id: str | None,
        limit: int,
        before: int | None,
        after: int | None,
        hide_deleted: bool,
    ) -> list[dict[str, Any]]:
        """Messages oldest first; ``before``/``after`` are exclusive id cursors (newest page when neither)."""
        where, params = "app_id = ?", [app_id]
        if conversation_id is not None:
            where += " AND conversation_id = ?"
            params.append(conversation_id)
        if before is not None:
            where += " AND id < ?"
            params.append(before)
        if after is not None:
            where += " AND id > ?"
            params.append(after)
        if hide_deleted:
            where += " AND json_extract(doc, '$.deletedAt') IS NULL"
        order = "ASC" if after is not None else "DESC"
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            rows = conn.execute(
                f"SELECT doc FROM chat_messages WHERE {where} ORDER BY id {order} LIMIT ?", [*params, limit]
            ).fetchall()
        docs = [json.loads(r[0]) for r in rows]
        return docs if order == "ASC" else docs[::-1]

    def react(
        self, app_id: str, message_id: str, uid: str, reaction: str, *, remove: bool
    ) -> tuple[dict[str, Any], list[Event]]:
        now = _now()
        with self.store.transaction(write=True) as conn:
            self._require_app(conn, app_id)
            doc = self._message(conn, app_id, message_id)
            user = self._user(conn, app_id, uid)
            mid = int(doc["id"])
            row = conn.execute(
                "SELECT id, reacted_at FROM chat_reactions WHERE app_id = ? AND message_id = ?"
                " AND uid = ? AND reaction = ?",
                (app_id, mid, uid, reaction),
            ).fetchone()
            if remove:
                if row is None:
                    raise not_found("ERR_REACTION_NOT_FOUND", f"The reaction {reaction!r} by {uid!r}")
                conn.execute("DELETE FROM chat_reactions WHERE id = ?", (row[0],))
                reaction_id, reacted_at = row
            elif row is not None:
                raise ApiError(409, "ERR_REACTION_ALREADY_EXISTS", f"{uid!r} already reacted with {reaction!r}.")
            else:
                cur = conn.execute(
                    "INSERT INTO chat_reactions(app_id, message_id, uid, reaction, reacted_at) VALUES (?, ?, ?, ?, ?)",
                    (app_id, mid, uid, reaction, now),
                )
                reaction_id, reacted_at = cur.lastrowid, now
        data = {
            "id": str(reaction_id),
            "messageId": doc["id"],
            "reaction": reaction,
            "uid": uid,
            "reactedAt": reacted_at,
            "reactedBy": user,
        }
        return data, [("message_reaction_removed" if remove else "message_reaction_added", {"reaction": data})]

    def list_reactions(self, app_id: str, message_id: str) -> list[dict[str, Any]]:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            doc = self._message(conn, app_id, message_id)
            rows = conn.execute(
                "SELECT id, uid, reaction, reacted_at FROM chat_reactions WHERE app_id = ?"
                " AND message_id = ? ORDER BY id",
                (app_id, int(doc["id"])),
            ).fetchall()
            return [
                {
                    "id": str(i),
                    "messageId": doc["id"],
                    "reaction": r,
                    "uid": u,
                    "reactedAt": at,
                    "reactedBy": self._user(conn, app_id, u),
                }
                for i, u, r, at in rows
            ]

    # -- conversations, receipts, unread counts -------------------------------------------------------------

    def conversation_id(self, app_id: str, me: str, with_type: str, with_id: str) -> str:
        with self.store.transaction(write=False) as conn:
            self._require_app(conn, app_id)
            self._user(conn, app_id, me)
            if with_type == "user":
                self._user(conn, app_id, with_id)
                return user_conversation_id(me, with_id)
            self._group_row(conn, app_id, with_id)
            return group_conversation_id(with_id)

    def conversation(self, app_id: str, me: str, with_type: str, with_id: str) -> dict[str, Any]:
        conversation = self.conversation_id(app_id, me, with_type, with_id)
        with self.store.transaction(write=False) as conn:
            row = conn.execute(
                "SELECT unread FROM chat_unread WHERE app_id = ? AND uid = ? AND conversation_id = ?",
                (app_id, me, conversation),
            ).fetchone()
            last = conn.execute(
                "SELECT doc FROM chat_messages WHERE app_id = ? AND conversation_id = ? ORDER BY id DESC LIMIT 1",
                (app_id, conversation),
            ).fetchone()
            with_obj = self._user(conn, app_id, with_id) if with_type == "user" else self._group(conn, app_id, with_id)
        out: dict[str, Any] = {
            "conversationId": conversation,
            "conversationType": with_type,
            "unreadMessageCount": 0 if row is None else int(row[0]),
            "conversationWith": with_obj,
        }
        if last is not None:
            out["lastMessage"] = json.loads(last[0])
        return out

    def mark(
        self, app_id: str, me: str, with_type: str, with_id: str, message_id: str, action: str
    ) -> tuple[dict[str, Any], list[Event]]:
        """``me`` marks a conversation delivered or read up to ``message_id``; read resets the unread count."""
        now = _now()
        conversation = self.conversation_id(app_id, me, with_type, with_id)
        with self.store.transaction(write=True) as conn:
            message = self._message(conn, app_id, message_id)
            if message["conversationId"] != conversation:
                raise bad_request("ERR_BAD_REQUEST", f"Message {message_id!r} is not in this conversation.")
            stamp = "readAt" if action == "read" else "deliveredAt"
            if with_type == "user" and message["sender"] != me and stamp not in message:
                message[stamp] = now  # what edits and deletes show of the message later (published examples)
                if action == "read" and "deliveredAt" not in message:
                    message["deliveredAt"] = now
                self._save_message(conn, message)
            reader = self._user(conn, app_id, me)
            receipts = True
            if with_type == "group":
                members, online = self._counts(conn, app_id, with_id)
                receipts = online <= LARGE_GROUP
                update = members <= LARGE_GROUP
            else:
                update = True
            if action == "read" and update:
                later = conn.execute(
                    "SELECT count(*) FROM chat_messages WHERE app_id = ? AND conversation_id = ? AND id > ?"
                    " AND sender != ? AND category != 'action'",
                    (app_id, conversation, int(message["id"]), me),
                ).fetchone()[0]
                conn.execute(
                    "INSERT INTO chat_unread VALUES (?, ?, ?, ?) ON CONFLICT(app_id, uid, conversation_id)"
                    " DO UPDATE SET unread = excluded.unread",
                    (app_id, me, conversation, int(later)),
                )
        result = {"success": True, "message": f"The conversation is marked as {action} up to message {message_id}."}
        if not receipts:
            return result, []
        user = {k: reader[k] for k in ("uid", "name", "avatar", "lastActiveAt", "role", "status")}
        user.update({"hasBlockedMe": False, "blockedByMe": False, "deactivatedAt": 0})
        data = {
            "receiver": message["sender"] if with_type == "user" else with_id,
            "receiverType": with_type,
            "type": "receipts",
            "sender": me,
            "messageSender": message["sender"],
            "body": {"action": action, "messageId": message["id"], "user": user, "timestamp": now},
        }
        trigger = "message_read_receipt" if action == "read" else "message_delivery_receipt"
        return result, [(trigger, data)]

    def region(self, app_id: str) -> str:
        with self.store.transaction(write=False) as conn:
            return self._require_app(conn, app_id)
