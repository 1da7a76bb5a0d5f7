"""The sandbox as the real service may answer: a wrapper that hides what the vendor's list of extensions does not
report (a per-app ``enabled``) and records every write that reaches it, and helpers that put into the sandbox's
store what its own API would refuse but the real service may hold (the dashboard's and older APIs' values).

Issue 34: lax on read, strict on write. The writes log is the proof that a push right after a pull sends nothing.
"""

from __future__ import annotations

import json
from typing import Any

_READS = frozenset({"GET", "HEAD", "OPTIONS"})


class ServiceLike:
    """An ASGI app around the sandbox: ``writes`` lists ``(method, path)`` of every request that is not a read;
    ``hide_enabled`` drops the per-app ``enabled`` flag from the extension list, as the vendor's example has none."""

    def __init__(self, app: Any, *, hide_enabled: bool = False) -> None:
        self.app = app
        self.state = app.state
        self.hide_enabled = hide_enabled
        self.writes: list[tuple[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in _READS:
            self.writes.append((scope["method"], scope["path"]))
        if not (self.hide_enabled and scope["method"] == "GET" and scope["path"].endswith("/extensions")):
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body = bytearray()

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                body.extend(message.get("body", b""))

        await self.app(scope, receive, capture)
        doc = json.loads(bytes(body))
        for item in doc.get("data") or []:
            item.pop("enabled", None)
        out = json.dumps(doc).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(out)).encode())]})
        await send({"type": "http.response.body", "body": out})


def hold_extension_settings(sandbox: Any, app_id: str, ext: str, settings: dict[str, Any], *,
                            enabled: bool = True) -> None:
    """Store ``settings`` for ``ext`` as they are (no request model: the real service holds what others wrote)."""
    with sandbox.state.store.transaction(write=True) as conn:
        conn.execute("INSERT OR REPLACE INTO extension_settings VALUES (?, ?, ?, 0)",
                     (app_id, ext, json.dumps(settings)))
        conn.execute("INSERT OR REPLACE INTO extensions VALUES (?, ?, ?, 0)", (app_id, ext, int(enabled)))


def hold_collaborator(sandbox: Any, app_id: str, email: str, role: str) -> None:
    """A team member the dashboard added, whatever our model says of the email."""
    doc = {"id": f"c-{abs(hash(email)) % 10**8}", "name": email.split("@")[0] or "someone", "email": email,
           "role": role, "createdAt": 0}
    with sandbox.state.store.transaction(write=True) as conn:
        conn.execute("INSERT INTO collaborators(app_id, doc) VALUES (?, ?)", (app_id, json.dumps(doc)))


def hold_app_settings(sandbox: Any, app_id: str, settings: dict[str, Any]) -> None:
    """App settings the dashboard or an older API wrote, on top of what the app holds: any JSON value, any key
    (map-settings would take booleans only)."""
    with sandbox.state.store.transaction(write=True) as conn:
        row = conn.execute("SELECT doc FROM app_settings WHERE app_id = ?", (app_id,)).fetchone()
        doc = {**(json.loads(row[0]) if row else {}), **settings}
        conn.execute("INSERT OR REPLACE INTO app_settings(app_id, doc) VALUES (?, ?)", (app_id, json.dumps(doc)))


def hold_widget_values(sandbox: Any, app_id: str, values: dict[str, dict[str, Any]]) -> str:
    """Values another tool wrote into the app's first widget (``{"style": {"primary_color": ...}}``, merged per
    section); returns the widget's id."""
    store = sandbox.state.store
    widget_id, config = store.list_widgets(app_id)[0]
    for section, fields in values.items():
        config[section] = {**(config.get(section) or {}), **fields}
    store.update_widget(app_id, widget_id, config)
    return widget_id


def hold_app_fields(sandbox: Any, app_id: str, fields: dict[str, Any]) -> None:
    """An app's own fields (``name``, ``region``, ``version``) as the dashboard or an older API may have written
    them, any JSON value (the sandbox's create would refuse a name with a newline or a region ``mars``)."""
    with sandbox.state.store.transaction(write=True) as conn:
        doc = json.loads(conn.execute("SELECT doc FROM apps WHERE id = ?", (app_id,)).fetchone()[0])
        doc.update(fields)
        name = doc.get("name")
        conn.execute("UPDATE apps SET doc = ?, name = ? WHERE id = ?",
                     (json.dumps(doc), name if isinstance(name, str) else json.dumps(name), app_id))
