"""Typed errors of the management API client.

Every failure a user can meet while talking to the service ends up as one :class:`ApiError` whose ``str()`` is a
single line: what we were doing (``create webhook 'hook1' in app abc``), what the service said (HTTP status, its
error code and message) and what to do about it (a hint). The CLI prints that line and exits; the TUI shows it.

Errors deliberately carry no ``httpx.Request``/``Response``: those hold the ``key``/``secret`` headers and would
leak them into tracebacks and debuggers. Texts coming from the server are redacted by the client before they get
here (see :mod:`tenantdeck.api.redact`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.jsonlimits import BODY_MAX_BYTES, bytes_text
from tenantdeck.textsafe import shown

_MAX_TEXT = 300


@dataclass(frozen=True, slots=True)
class Operation:
    """What the client was doing, in the user's words, plus what a 404 hint needs to know."""

    description: str
    subject: str = ""  # "app", "webhook", "widget", "sms", "extensions", "triggers", ...
    app_id: str | None = None

    def __str__(self) -> str:
        return self.description


def one_line(text: str, limit: int = _MAX_TEXT) -> str:
    """Collapse whitespace (a server message may contain newlines or HTML) and cut long texts."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_details(details: Any) -> str:
    """``{"webhookURL": ["must be https"]}`` -> ``webhookURL: must be https`` (lists and strings also accepted)."""
    if details is None or details == {} or details == []:
        return ""
    if isinstance(details, Mapping):
        parts = []
        for field, msgs in details.items():
            text = ", ".join(str(m) for m in msgs) if isinstance(msgs, list | tuple) else str(msgs)
            parts.append(f"{field}: {text}" if text else str(field))
        return "; ".join(parts)
    if isinstance(details, list | tuple):
        return "; ".join(str(d) for d in details)
    return str(details)


class ApiError(Exception):
    """Base class: a call to the management API did not succeed.

    Attributes: ``operation`` (str), ``status`` (HTTP status or None when no response came), ``code`` (the
    service's error code, e.g. ``ERR_APP_NOT_FOUND``), ``message`` (the service's message or ours), ``hint`` (what
    the user can do), ``details`` (field -> messages when the service gave them) and ``attempts``.
    """

    default_hint = ""

    def __init__(
        self,
        operation: Operation | str,
        *,
        status: int | None = None,
        code: str | None = None,
        message: str | None = None,
        hint: str | None = None,
        details: Any = None,
        attempts: int = 1,
    ) -> None:
        self.op = operation if isinstance(operation, Operation) else Operation(str(operation))
        self.operation = self.op.description
        self.status = status
        self.code = code or None
        self.message = one_line(message) if message else None
        self.hint = hint if hint is not None else (self.default_hint or None)
        self.details = details
        self.attempts = attempts
        super().__init__(self._render())

    def _render(self) -> str:
        return self.text()

    def text(self, *, hint: bool = True, flags: bool = True) -> str:
        """The one line: what failed, the service's words, then the hint. ``hint=False`` leaves the hint out (a
        status line that has no room for it); ``flags=False`` words a hint's command-line flags as the profile
        settings that do the same (:data:`FLAG_SETTINGS`), for a renderer with no flags (the editor)."""
        head = f"{self.operation} failed"
        facts = []
        if self.status is not None:
            facts.append(f"HTTP {self.status}")
        if self.code:
            facts.append(self.code)
        text = head + (": " + " ".join(facts) if facts else "")
        if self.message:
            text += f": {self.message}"
        if self.attempts > 1:
            text += f" (after {self.attempts} attempts)"
        if self.hint and hint:
            said = self.hint if flags else without_flags(self.hint)
            text += (" " if text.endswith((".", "!", "?")) else ". ") + f"Hint: {said}"
        return shown(one_line(text, limit=1000))  # the service's words and our names of its objects are data

    def __str__(self) -> str:
        return self._render()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._render()!r})"

    def with_hint(self, hint: str) -> ApiError:
        """The same error with another hint (used when a create's outcome could not be confirmed)."""
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.hint = hint
        Exception.__init__(clone, clone._render())
        return clone


class AuthError(ApiError):
    """401/403: the key and secret were not accepted (or lack access)."""

    default_hint = "check TENANTDECK_KEY and TENANTDECK_SECRET, or the profile's credentials file"


class NotFoundError(ApiError):
    """404: the app, webhook or endpoint does not exist."""


class ConflictError(ApiError):
    """409, or a create whose outcome cannot be told apart from someone else's change."""

    default_hint = "it already exists or changed meanwhile; run `tenantdeck pull` and review the diff"


class ValidationFailed(ApiError):
    """400/422: the service rejected the request body."""


class PayloadTooLarge(ApiError):
    """413: the service refused the request body for its size. Never retried: the same body is refused again.
    ``sent`` is the body's size in bytes (None: unknown), ``limit`` the documented bound it was held to."""

    def __init__(self, *args: Any, sent: int | None = None, limit: int = BODY_MAX_BYTES, **kwargs: Any) -> None:
        self.sent = sent
        self.limit = limit
        kwargs.setdefault("hint", too_large_hint(sent, limit))
        super().__init__(*args, **kwargs)


def too_large_hint(sent: int | None, limit: int = BODY_MAX_BYTES) -> str:
    """What a 413 means and what to do: the body's size, the limit, and that ``validate`` checks it offline."""
    size = f"the request body was {bytes_text(sent)}; " if sent is not None else ""
    return (f"{size}the service takes at most {bytes_text(limit)} in one request body; shorten the value "
            "(`tenantdeck validate` names a value over the documented limits, docs/real-service.md). Not retried: "
            "the same body would be refused again")


_STATED_LIMIT = re.compile(r"(\d[\d,]*) bytes")


def stated_limit(message: str | None) -> int:
    """The limit a 413's message names (the sandbox says "larger than 1048576 bytes"), else the documented one."""
    found = _STATED_LIMIT.search(message or "")
    return int(found.group(1).replace(",", "")) if found else BODY_MAX_BYTES


#: the command-line flags a hint may name, and the profile setting (profiles.yaml) that does the same where there
#: are no flags (the editor): the hints keep one wording, the renderer picks the words (:meth:`ApiError.text`)
FLAG_SETTINGS = {
    "--max-rps": "the profile's max_rps (profiles.yaml)",
    "--base-url": "the base URL (TENANTDECK_BASE_URL or the profile's base_url)",
}


def without_flags(hint: str) -> str:
    """``hint`` with each flag of :data:`FLAG_SETTINGS` said as its profile setting."""
    for flag, setting in FLAG_SETTINGS.items():
        hint = hint.replace(flag, setting)
    return hint


class RateLimited(ApiError):
    """429 that persisted through all retries."""

    default_hint = "rate limited by the service; lower --max-rps or try again later"

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(*args, **kwargs)


class ServerError(ApiError):
    """5xx that persisted through all retries."""

    default_hint = "the service is failing; try again later"


class TransportError(ApiError):
    """No HTTP answer: connection refused, DNS, TLS, timeout, broken connection.

    ``kind`` is one of ``connect``, ``timeout``, ``tls``, ``network``.
    """

    default_hint = "check --base-url and the network"

    def __init__(self, *args: Any, kind: str = "network", **kwargs: Any) -> None:
        self.kind = kind
        super().__init__(*args, **kwargs)


class MalformedResponse(ApiError):
    """The service answered, but not in any envelope shape we know."""

    default_hint = (
        "the answer is not what the management API sends; check that --base-url points at it "
        "(e.g. https://apimgmt.cometchat.io)"
    )


def class_for_status(status: int) -> type[ApiError]:
    if status in (401, 403):
        return AuthError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status in (400, 422):
        return ValidationFailed
    if status == 413:
        return PayloadTooLarge
    if status == 429:
        return RateLimited
    if status >= 500:
        return ServerError
    return ApiError


_APP_GONE_CODES = frozenset({"ERR_APP_NOT_FOUND", "ERR_APP_ARCHIVED"})


def hint_for_status(
    op: Operation, status: int, code: str | None, details: Any, *, auth_hint: str | None = None
) -> str | None:
    """The advice shown after the service's own words; ``None`` means the class default applies."""
    if status == 401:
        return auth_hint or AuthError.default_hint
    if status == 403:
        return (
            "the credentials were refused for this operation; the account needs multi-tenancy enabled"
            + (f" and access to app {op.app_id}" if op.app_id else "")
        )
    if status == 404:
        if code in _APP_GONE_CODES or (op.app_id and op.subject == "app"):
            return f"the app {op.app_id} may have been deleted; run `tenantdeck pull` to refresh the draft"
        if code == "ERR_WEBHOOK_NOT_FOUND" or op.subject == "webhook":
            return "the webhook may have been deleted; run `tenantdeck pull` to refresh the draft"
        if op.app_id:
            return (
                f"the app {op.app_id} or this {op.subject or 'object'} may have been deleted; "
                "run `tenantdeck pull` to refresh the draft"
            )
        return "check that --base-url points at the management API"
    if status in (400, 422):
        text = format_details(details)
        return f"the server rejected a field: {text}" if text else "the server rejected the request body"
    if 300 <= status < 400:
        return "the service redirected; use the final address as --base-url"
    return None


def build_error(
    op: Operation,
    status: int,
    *,
    code: str | None = None,
    message: str | None = None,
    details: Any = None,
    attempts: int = 1,
    auth_hint: str | None = None,
    retry_after: float | None = None,
    sent: int | None = None,
) -> ApiError:
    """The typed error for an HTTP status, with the hint a user needs. ``sent``: the request body's size."""
    cls = class_for_status(status)
    hint = hint_for_status(op, status, code, details, auth_hint=auth_hint)
    if cls is ServerError and attempts > 1:
        hint = f"the service kept failing (HTTP {status}); try again later"
    kwargs: dict[str, Any] = {
        "status": status,
        "code": code,
        "message": message,
        "hint": hint,
        "details": details,
        "attempts": attempts,
    }
    if cls is RateLimited:
        return RateLimited(op, retry_after=retry_after, **kwargs)
    if cls is PayloadTooLarge:
        limit = stated_limit(message)
        kwargs["hint"] = too_large_hint(sent, limit)
        return PayloadTooLarge(op, sent=sent, limit=limit, **kwargs)
    return cls(op, **kwargs)
