"""Tolerant parsing of the management API's response envelopes.

The service wraps answers in several ways (facts §1, §3, §7, §8, §13.7):

* ``{"data": {...}}`` or ``{"data": [...], "meta": {"pagination": {...}}}`` for plain resources;
* ``{"data": {"statusCode", "success", "responseTime", "body": {...}}}`` for extension settings, where ``body`` may
  hold ``data`` (``data.body.data``) or not (``data.body``, e.g. SMS store);
* doubly nested webhook answers: ``[{"data": {...}}]`` (create) and ``{"data": [{"data": {...}}]}`` (get, update).

Inside records, timestamps are integers or ISO strings and ids are integers or strings; callers get int epoch
seconds and ``str`` ids. Anything we cannot understand raises :class:`MalformedResponse` naming the operation,
the HTTP status and what was wrong, instead of a ``KeyError`` deep inside a command.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tenantdeck.api.errors import ApiError, MalformedResponse, Operation, build_error, one_line

_PROXY_KEYS = frozenset({"statusCode", "success", "responseTime"})
_MS_THRESHOLD = 100_000_000_000  # an epoch above this is in milliseconds (seconds would be year 5138)


class EnvelopeError(ValueError):
    """A reason why a value is not what we expected; turned into MalformedResponse with the operation."""


def kind_of(value: Any) -> str:
    """JSON type name for messages: object, array, string, number, boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def to_epoch(value: Any) -> int | None:
    """Int epoch seconds from an int, float, digit string or ISO-8601 string (naive means UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise EnvelopeError(f"expected a timestamp, got boolean {value}")
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise EnvelopeError(f"expected a timestamp, got {value}")
        seconds = int(value)
        return seconds // 1000 if abs(seconds) >= _MS_THRESHOLD else seconds
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit():
            return to_epoch(int(text))
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise EnvelopeError(f"expected a timestamp, got {one_line(value, 40)!r}") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return int(parsed.timestamp())
    raise EnvelopeError(f"expected a timestamp, got {kind_of(value)}")


def to_id(value: Any) -> str:
    """Ids arrive as strings or integers; we always hand out strings."""
    if isinstance(value, bool) or value is None:
        raise EnvelopeError(f"expected an id (string or integer), got {kind_of(value)}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value:
        return value
    raise EnvelopeError(f"expected an id (string or integer), got {kind_of(value)} {value!r}")


def normalise_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A copy with ``id`` as str and every ``…At`` timestamp (createdAt, updatedAt, …) as int epoch seconds."""
    out = dict(record)
    if "id" in out:
        out["id"] = to_id(out["id"])
    for key, value in record.items():
        if key.endswith("At") and not isinstance(value, Mapping | list):
            try:
                out[key] = to_epoch(value)
            except EnvelopeError as exc:
                raise EnvelopeError(f"{key}: {exc}") from None
    return out


@dataclass(frozen=True, slots=True)
class Pagination:
    """``meta.pagination`` (facts §4); ``total_pages`` is what ends a paged listing."""

    total: int | None
    per_page: int | None
    current_page: int
    total_pages: int

    @property
    def is_last(self) -> bool:
        return self.current_page >= self.total_pages


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What an error response said: code, message, details (all optional)."""

    code: str | None
    message: str | None
    details: Any


def parse_error_body(content: bytes, content_type: str | None) -> ErrorInfo:
    """Read ``{"error": {"code", "message", "details"}}`` and the variants seen in the wild.

    Also accepted: ``{"message": ...}``, ``{"error": "text"}``, ``{"data": {"success": false, "message"}}``, and
    bare or non-JSON bodies (their first line becomes the message).
    """
    text = content.decode("utf-8", errors="replace").strip()
    if not text:
        return ErrorInfo(None, None, None)
    try:
        doc = json.loads(text)
    except ValueError:
        if "html" in (content_type or "").lower() or text.lstrip().startswith("<"):
            return ErrorInfo(None, "the service answered with an HTML page, not JSON", None)
        return ErrorInfo(None, one_line(text, 200), None)
    if isinstance(doc, Mapping):
        err = doc.get("error")
        if isinstance(err, Mapping):
            msg = err.get("message") or err.get("devMessage")
            return ErrorInfo(_opt_str(err.get("code")), _opt_str(msg), err.get("details"))
        if isinstance(err, str):
            return ErrorInfo(_opt_str(doc.get("code")), err, doc.get("details"))
        data = doc.get("data")
        if isinstance(data, Mapping) and ("message" in data or "code" in data):
            return ErrorInfo(_opt_str(data.get("code")), _opt_str(data.get("message")), data.get("details"))
        if "message" in doc or "code" in doc:
            return ErrorInfo(_opt_str(doc.get("code")), _opt_str(doc.get("message")), doc.get("details"))
        if "detail" in doc:  # a bare FastAPI/Starlette error
            detail = doc["detail"]
            if isinstance(detail, str):
                return ErrorInfo(None, detail, None)
            return ErrorInfo(None, None, detail)
    if isinstance(doc, str):
        return ErrorInfo(None, doc, None)
    return ErrorInfo(None, one_line(text, 200), None)


def _opt_str(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def _strip_data(node: Any) -> Any:
    """``{"data": X}`` -> X and ``[{"data": X}]`` -> X, repeatedly (the doubly nested webhook answers)."""
    while True:
        if isinstance(node, Mapping) and set(node) == {"data"}:
            node = node["data"]
        elif isinstance(node, list) and len(node) == 1 and isinstance(node[0], Mapping) and set(node[0]) == {"data"}:
            node = node[0]["data"]
        else:
            return node


class Envelope:
    """One successful answer of the service, ready to be read as an object or a list of records.

    ``status`` and ``headers`` are kept for diagnostics (``doctor`` reads the ``Date`` header).
    """

    __slots__ = ("doc", "elapsed", "headers", "op", "status")

    def __init__(
        self,
        doc: Any,
        *,
        operation: Operation | str,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        elapsed: float = 0.0,
    ) -> None:
        self.doc = doc
        self.op = operation if isinstance(operation, Operation) else Operation(str(operation))
        self.status = status
        self.headers: Mapping[str, str] = headers or {}
        self.elapsed = elapsed

    @classmethod
    def from_bytes(
        cls,
        content: bytes,
        *,
        operation: Operation | str,
        status: int = 200,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        elapsed: float = 0.0,
    ) -> Envelope:
        """Decode a body; an empty body is ``None`` (fine for deletes), anything non-JSON is malformed."""
        text = content.decode("utf-8", errors="replace").strip()
        op = operation if isinstance(operation, Operation) else Operation(str(operation))
        if not text:
            return cls(None, operation=op, status=status, headers=headers, elapsed=elapsed)
        try:
            doc = json.loads(text)
        except ValueError:
            what = content_type or "no content type"
            raise MalformedResponse(
                op, status=status, message=f"the body is not JSON ({what}): {one_line(text, 80)!r}"
            ) from None
        return cls(doc, operation=op, status=status, headers=headers, elapsed=elapsed)

    def bad(self, reason: str) -> MalformedResponse:
        return MalformedResponse(self.op, status=self.status, message=f"unexpected response: {reason}")

    # --- unwrapping -------------------------------------------------------------------------------------------

    def payload(self) -> Any:
        """The meaningful part: below ``data``, below the extension proxy's ``body`` and ``body.data``."""
        doc = self.doc
        if doc is None:
            return None  # an empty body: fine for deletes and updates, an error where an object is needed
        if isinstance(doc, list):
            node: Any = doc  # `[{data:{…}}]`: the create-webhook example has no outer object
        elif isinstance(doc, Mapping):
            if "data" not in doc and set(doc) == {"settings"}:
                return dict(doc)  # the push-notification examples answer a bare {"settings": {...}}: read as one
            if "data" not in doc:
                if "error" in doc:
                    info = parse_error_body(json.dumps(doc).encode(), "application/json")
                    raise ApiError(self.op, status=self.status, code=info.code,
                                   message=info.message or "the service answered with an error body",
                                   details=info.details)
                raise self.bad(f"no 'data' key (keys: {', '.join(sorted(map(str, doc))[:8]) or 'none'})")
            node = doc["data"]
        else:
            raise self.bad(f"expected a JSON object, got {kind_of(doc)}")
        node = _strip_data(node)
        if isinstance(node, Mapping) and "body" in node and _PROXY_KEYS & set(node):
            self._check_proxy(node)
            node = node["body"]
            if isinstance(node, Mapping) and "data" in node:
                node = node["data"]
            node = _strip_data(node)
        return node

    def _check_proxy(self, node: Mapping[str, Any]) -> None:
        """An extension reply proxied inside HTTP 200 can still say it failed (``success: false``, 4xx/5xx)."""
        inner_status = node.get("statusCode")
        if not isinstance(inner_status, int) or isinstance(inner_status, bool):
            inner_status = None
        failed = node.get("success") is False or (inner_status is not None and inner_status >= 400)
        if not failed:
            return
        body = node.get("body")
        info = ErrorInfo(None, None, None)
        if isinstance(body, Mapping):
            info = parse_error_body(json.dumps(body).encode(), "application/json")
        status = inner_status if inner_status and inner_status >= 400 else 502
        raise build_error(
            self.op, status, code=info.code, message=info.message or "the extension reported success=false",
            details=info.details,
        )

    def obj(self) -> dict[str, Any]:
        """The payload as one object (a one-element list is accepted: webhook get/update examples)."""
        node = self.payload()
        if isinstance(node, list):
            if len(node) == 1 and isinstance(node[0], Mapping):
                node = _strip_data(node[0])
            else:
                raise self.bad(f"expected one object, got an array of {len(node)}")
        if not isinstance(node, Mapping):
            raise self.bad(f"expected an object, got {kind_of(node)}")
        return dict(node)

    def optional_obj(self) -> dict[str, Any] | None:
        """Like :meth:`obj` but ``null``/empty means "nothing there" (e.g. SMS not configured)."""
        node = self.payload()
        if node is None or node == {} or node == []:
            return None
        return self.obj()

    def items(self) -> list[dict[str, Any]]:
        """The payload as a list of objects; each ``{"data": {...}}`` item is unwrapped."""
        if self.doc is None:
            raise self.bad("expected an array, got an empty body")
        node = self.payload()
        if node is None:
            return []
        if not isinstance(node, list):
            raise self.bad(f"expected an array, got {kind_of(node)}")
        out: list[dict[str, Any]] = []
        for i, item in enumerate(node):
            item = _strip_data(item)
            if not isinstance(item, Mapping):
                raise self.bad(f"item {i} of the array is {kind_of(item)}, expected an object")
            out.append(dict(item))
        return out

    def records(self) -> list[dict[str, Any]]:
        """:meth:`items` with ids and timestamps normalised."""
        return [self.normalise(item, where=f"item {i}") for i, item in enumerate(self.items())]

    def record(self) -> dict[str, Any]:
        """:meth:`obj` with ids and timestamps normalised."""
        return self.normalise(self.obj())

    def normalise(self, record: Mapping[str, Any], where: str = "") -> dict[str, Any]:
        try:
            return normalise_record(record)
        except EnvelopeError as exc:
            raise self.bad(f"{where + ': ' if where else ''}{exc}") from None

    def check_success(self) -> None:
        """For answers like ``data{success, message}``: ``success: false`` is a failure, not a shrug."""
        if self.doc is None:
            return
        node = self.payload()
        if isinstance(node, Mapping) and node.get("success") is False:
            raise ApiError(
                self.op, status=self.status, code=_opt_str(node.get("code")),
                message=_opt_str(node.get("message")) or "the service reported success=false",
            )

    def pagination(self) -> Pagination | None:
        """``meta.pagination`` as ints, or None when there is no paging information."""
        if not isinstance(self.doc, Mapping):
            return None
        meta = self.doc.get("meta")
        if not isinstance(meta, Mapping):
            return None
        pag = meta.get("pagination")
        if not isinstance(pag, Mapping):
            return None
        try:
            current = _int(pag.get("current_page"))
            total_pages = _int(pag.get("total_pages"))
            total = _int(pag.get("total")) if pag.get("total") is not None else None
            per_page = _int(pag.get("per_page")) if pag.get("per_page") is not None else None
        except EnvelopeError as exc:
            raise self.bad(f"meta.pagination: {exc}") from None
        if current is None or total_pages is None:
            return None
        return Pagination(total=total, per_page=per_page, current_page=current, total_pages=total_pages)


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise EnvelopeError(f"expected an integer, got boolean {value}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise EnvelopeError(f"expected an integer, got {kind_of(value)} {value!r}")
