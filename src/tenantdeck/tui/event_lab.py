"""The editor's own webhook receiver, kept for the whole session (not per screen).

Why here and not in the Events screen: deliveries must keep arriving while the admin is on the Webhooks tab
sending a test event to it, and leaving the Events screen must not lose them. The receiver itself is core
(:class:`tenantdeck.receiver.Receiver`); this only decides the port (the configured one, else a free one when it is
busy) and words what happened for a notification.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from tenantdeck.receiver import DEFAULT_HOST, DEFAULT_KEEP, DEFAULT_PORT, Receiver


@dataclass(frozen=True, slots=True)
class StartOutcome:
    """``running``: the receiver serves; ``notice``: what to tell the user (empty when nothing went wrong)."""

    running: bool
    notice: str = ""


class EventLab:
    """Holds the :class:`Receiver` of the Events screen; ``autostart`` False leaves it stopped until asked
    (pictures and tests that inject deliveries)."""

    def __init__(
        self,
        port: int | None = None,
        *,
        basic_auth: tuple[str, str] | None = None,
        keep: int = DEFAULT_KEEP,
        clock: Callable[[], datetime] | None = None,
        autostart: bool = True,
    ) -> None:
        self.wanted_port = DEFAULT_PORT if port is None else port
        self.autostart = autostart
        kwargs = {"clock": clock} if clock is not None else {}
        self.receiver = Receiver(host=DEFAULT_HOST, port=self.wanted_port, basic_auth=basic_auth, keep=keep,
                                 **kwargs)  # type: ignore[arg-type]

    @property
    def running(self) -> bool:
        return self.receiver.running

    async def start(self) -> StartOutcome:
        """Serve on the configured port; when it cannot be bound, on a free port instead, and say so."""
        if self.running:
            return StartOutcome(True)
        self.receiver.port = self.wanted_port
        try:
            await self.receiver.start()
            return StartOutcome(True)
        except OSError as exc:
            if self.wanted_port == 0:
                return StartOutcome(False, f"The receiver cannot listen on {DEFAULT_HOST}: {_why(exc)}.")
            first = _why(exc)
        self.receiver.port = 0
        try:
            await self.receiver.start()
        except OSError as exc:
            return StartOutcome(False, f"The receiver cannot listen on {DEFAULT_HOST}:{self.wanted_port} ({first}) "
                                       f"nor on a free port ({_why(exc)}).")
        return StartOutcome(True, f"Port {self.wanted_port} is {first}, so the receiver listens on "
                                  f"{self.receiver.url} instead (events_port in settings.yaml or "
                                  f"`tenantdeck edit --events-port N` chooses another).")

    def serves(self, url: str) -> bool:
        """``url`` is this receiver's address: a loopback host on the port it listens on (or will listen on)."""
        from urllib.parse import urlsplit

        from tenantdeck.hosts import is_loopback_host

        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return False
        own = self.receiver.port if self.running else self.wanted_port
        return parts.scheme == "http" and is_loopback_host(parts.hostname) and port == own and port != 0

    async def start_for(self, url: str) -> str:
        """Start the receiver when a test event is about to go to it and it is not listening yet (it used to wait
        for the Events screen, F3: until then a test event found "connection refused"). What to tell the user:
        empty when nothing was started."""
        if self.running or not self.autostart or not self.serves(url):
            return ""
        outcome = await self.start()
        if not outcome.running:
            return outcome.notice
        if outcome.notice:  # it listens on another port: this event goes to whatever holds the configured one
            return f"{outcome.notice} This test event still goes to {url}."
        return f"Started the editor's receiver on {self.receiver.url}: F3 shows what it gets."

    async def stop(self) -> None:
        await self.receiver.stop()


def _why(exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return "already in use (another tenantdeck or `tenantdeck listen`?)"
    if exc.errno == errno.EACCES:
        return "not allowed for this user"
    return (exc.strerror or str(exc) or type(exc).__name__).lower()
