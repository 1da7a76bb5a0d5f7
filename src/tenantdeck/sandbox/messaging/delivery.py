"""Webhook delivery: each fired trigger is POSTed to every enabled webhook of the app subscribed to it.

The delivery is the JSON envelope (``{trigger, data, appId, region, webhook}``, see
:func:`tenantdeck.models.event_samples.envelope`), with ``Authorization: Basic`` when the webhook uses Basic Auth
(the stored password is read when the event fires and kept only in memory). A non-2xx answer or a network error
is retried after ``retry_delays`` (10 s, then 30 s, as the real service does) when ``retryOnFailure`` is on. The
delays are configurable so tests need not wait.

Every delivery has a row in ``webhook_deliveries``: status (``pending``, ``delivered``, ``failed``, ``blocked``,
``cancelled``), each attempt's status code or error and latency. The sandbox delivers **only to loopback hosts**
unless ``deliver_remote`` is set: a seeded or pushed webhook pointing at a real endpoint is logged as ``blocked``
instead of receiving test traffic.

Deliveries are asyncio tasks on the loop serving the request that fired them: under uvicorn they run in the
background; in process (ASGI transport) tests await :meth:`DeliveryWorker.drain`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from tenantdeck.hosts import is_loopback_host
from tenantdeck.models.event_samples import envelope
from tenantdeck.sandbox.store import Store
from tenantdeck.tls import verifying_context

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class DeliveryConfig:
    """Knobs fixed at ``create_app`` time."""

    #: Waits before the retries of a failed delivery (only with ``retryOnFailure``).
    retry_delays: tuple[float, ...] = (10.0, 30.0)
    #: Seconds a receiver has to answer one attempt.
    timeout: float = 5.0
    #: Deliver to non-loopback hosts too (off: such deliveries are logged as ``blocked``).
    deliver_remote: bool = False
    #: httpx transport for deliveries (tests: an ASGI transport to an in-process receiver).
    transport: httpx.AsyncBaseTransport | None = None


@dataclass(frozen=True)
class _Target:
    webhook_id: str
    url: str
    username: str | None
    password: str | None
    retry: bool


def _dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


class DeliveryWorker:
    """Fires triggers to webhooks and keeps the delivery log (see the module docstring)."""

    def __init__(self, store: Store, config: DeliveryConfig | None = None) -> None:
        self.store = store
        self.config = config or DeliveryConfig()
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx.AsyncClient | None = None

    # -- firing ---------------------------------------------------------------------------------------------

    def _targets(self, app_id: str, trigger: str) -> tuple[str, list[_Target]]:
        with self.store.transaction(write=False) as conn:
            row = conn.execute("SELECT doc FROM apps WHERE id = ?", (app_id,)).fetchone()
            region = json.loads(row[0]).get("region", "us") if row else "us"
            rows = conn.execute(
                "SELECT w.webhook_id, w.doc, w.password FROM webhooks w JOIN webhook_triggers t"
                " ON t.app_id = w.app_id AND t.webhook_id = w.webhook_id"
                " WHERE w.app_id = ? AND t.trigger_id = ? ORDER BY w.seq",
                (app_id, trigger),
            ).fetchall()
        targets: list[_Target] = []
        for webhook_id, doc_text, password in rows:
            doc = json.loads(doc_text)
            if not doc.get("enabled", True):
                continue
            basic = bool(doc.get("useBasicAuth"))
            targets.append(
                _Target(
                    webhook_id=webhook_id,
                    url=str(doc["webhookURL"]),
                    username=doc.get("username") if basic else None,
                    password=password if basic else None,
                    retry=bool(doc.get("retryOnFailure")),
                )
            )
        return region, targets

    def fire(self, app_id: str, events: list[Event]) -> list[int]:
        """Queue every event for every subscribed, enabled webhook; returns the new delivery ids.

        Must be called from a running event loop (a route handler): the attempts run as tasks on it.
        """
        ids: list[int] = []
        if not events:
            return ids
        loop = asyncio.get_running_loop()
        for trigger, data in events:
            region, targets = self._targets(app_id, trigger)
            for target in targets:
                payload = envelope(trigger, data, app_id=app_id, region=region, webhook_id=target.webhook_id)
                blocked = not self.config.deliver_remote and not is_loopback_host(urlsplit(target.url).hostname)
                delivery_id = self._insert(app_id, target, trigger, payload, "blocked" if blocked else "pending")
                ids.append(delivery_id)
                if blocked:
                    continue
                task = loop.create_task(self._deliver(delivery_id, target, payload))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return ids

    def _insert(self, app_id: str, target: _Target, trigger: str, payload: dict[str, Any], status: str) -> int:
        now = time.time()
        attempts: list[dict[str, Any]] = []
        if status == "blocked":
            attempts.append(
                {
                    "at": now,
                    "statusCode": None,
                    "latencyMs": 0,
                    "error": ("not sent: the sandbox delivers only to loopback hosts (127.0.0.1, ::1, localhost)"),
                }
            )
        with self.store.transaction(write=True) as conn:
            cur = conn.execute(
                "INSERT INTO webhook_deliveries(app_id, webhook_id, trigger_id, url, status, attempts, payload,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (app_id, target.webhook_id, trigger, target.url, status, _dumps(attempts), _dumps(payload), now, now),
            )
            return int(cur.lastrowid or 0)

    # -- attempts -------------------------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            self._client = httpx.AsyncClient(
                transport=self.config.transport, timeout=self.config.timeout, follow_redirects=False, trust_env=False,
                verify=verifying_context(trust_env=False),
            )
        return self._client

    async def _deliver(self, delivery_id: int, target: _Target, payload: dict[str, Any]) -> None:
        body = _dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "tenantdeck-sandbox-webhooks"}
        if target.username is not None and target.password is not None:
            token = base64.b64encode(f"{target.username}:{target.password}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
        delays = list(self.config.retry_delays) if target.retry else []
        attempts: list[dict[str, Any]] = []
        status = "failed"
        try:
            for attempt in range(len(delays) + 1):
                if attempt:
                    await asyncio.sleep(delays[attempt - 1])
                started = time.perf_counter()
                record: dict[str, Any] = {"at": time.time(), "statusCode": None, "error": None}
                try:
                    response = await self._http().post(target.url, content=body, headers=headers)
                    record["statusCode"] = response.status_code
                    ok = 200 <= response.status_code < 300
                    if not ok:
                        record["error"] = f"answered HTTP {response.status_code}"
                except httpx.HTTPError as exc:
                    ok = False
                    record["error"] = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                record["latencyMs"] = round((time.perf_counter() - started) * 1000, 3)
                attempts.append(record)
                done = ok or attempt == len(delays)
                status = "delivered" if ok else ("failed" if done else "pending")
                self._update(delivery_id, status, attempts)
                if ok:
                    return
        except asyncio.CancelledError:
            self._update(delivery_id, "cancelled", attempts)
            raise

    def _update(self, delivery_id: int, status: str, attempts: list[dict[str, Any]]) -> None:
        with self.store.transaction(write=True) as conn:
            conn.execute(
                "UPDATE webhook_deliveries SET status = ?, attempts = ?, updated_at = ? WHERE id = ?",
                (status, _dumps(attempts), time.time(), delivery_id),
            )

    async def drain(self) -> None:
        """Wait until every queued delivery has finished (all attempts, retries included)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel pending deliveries (logged as ``cancelled``) and close the HTTP client."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- the log --------------------------------------------------------------------------------------------

    def list_deliveries(
        self, app_id: str, *, webhook_id: str | None, trigger: str | None, status: str | None, limit: int, offset: int
    ) -> tuple[list[dict[str, Any]], int]:
        """Newest first: ``{id, webhookId, trigger, url, status, attempts, attemptLog, statusCode, latencyMs,
        payload, createdAt, updatedAt}`` (times in seconds, latency in milliseconds; never a password)."""
        where, params = "app_id = ?", [app_id]
        for column, value in (("webhook_id", webhook_id), ("trigger_id", trigger), ("status", status)):
            if value is not None:
                where += f" AND {column} = ?"
                params.append(value)
        with self.store.transaction(write=False) as conn:
            total = conn.execute(f"SELECT count(*) FROM webhook_deliveries WHERE {where}", params).fetchone()[0]
            rows = conn.execute(
                "SELECT id, webhook_id, trigger_id, url, status, attempts, payload, created_at, updated_at"
                f" FROM webhook_deliveries WHERE {where} ORDER BY id DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        items = []
        for did, webhook_id_, trigger_, url, status_, attempts_text, payload, created, updated in rows:
            attempts = json.loads(attempts_text)
            last = attempts[-1] if attempts else {}
            items.append(
                {
                    "id": did,
                    "webhookId": webhook_id_,
                    "trigger": trigger_,
                    "url": url,
                    "status": status_,
                    "attempts": len(attempts) if status_ != "blocked" else 0,
                    "attemptLog": attempts,
                    "statusCode": last.get("statusCode"),
                    "latencyMs": last.get("latencyMs"),
                    "payload": json.loads(payload),
                    "createdAt": created,
                    "updatedAt": updated,
                }
            )
        return items, int(total)
