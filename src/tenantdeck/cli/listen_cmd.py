"""``tenantdeck listen``: a validating webhook receiver on loopback, one line (or JSON object) per delivery.

A thin shell over :mod:`tenantdeck.receiver`: parse the options, start the receiver, print each delivery. The
Basic Auth password is given only as ``${ENV_VAR}`` (quote it so the shell leaves it alone): a password on the
command line would sit in shell history and ``ps`` output. It is never printed.

The output is the record of what was accepted (``--json`` feeds other tools), so every delivery answered is
written, in order, by a :class:`Printer` on its own thread: a slow or blocked stdout (a full pipe nobody reads)
never holds up the event loop that answers senders, and deliveries wait in a queue accounted in bytes instead of
being dropped. Only past :data:`BACKLOG_BYTES` waiting, a closed stdout, or a stdout that still takes nothing
:data:`DRAIN_SECONDS` after the stop does a delivery go unprinted, and the summary says how many.
"""

from __future__ import annotations

import asyncio
import io
import os
import queue
import re
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import click

from tenantdeck import exitcodes
from tenantdeck.cli.machine import format_option
from tenantdeck.hosts import is_loopback_host
from tenantdeck.textsafe import json_text, shown

if TYPE_CHECKING:
    from tenantdeck.receiver import Delivery, Receiver

_BASIC = re.compile(r"^([^:]+):\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
#: Deliveries waiting for stdout may hold this much (counted as their body sizes plus a little) before new ones
#: are counted as not printed: memory stays bounded even when nobody reads the output for a long time.
BACKLOG_BYTES = 256 * 1024 * 1024
#: After the stop, how long the deliveries still waiting may take to reach stdout.
DRAIN_SECONDS = 10.0
#: What one delivery costs on top of its body (its record, its rendered line).
_RECORD_OVERHEAD = 1024


def parse_basic_auth(value: str, env: dict[str, str] | os._Environ[str] = os.environ) -> tuple[str, str]:
    """``USER:${VAR}`` -> ``(user, value of VAR)``, or a UsageError that never echoes a password."""
    match = _BASIC.fullmatch(value)
    if match is None:
        user = value.split(":", 1)[0] if ":" in value else "USER"
        raise click.UsageError(
            f"--basic-auth takes USER:${{ENV_VAR}} (for example '{user}:${{HOOK_PASSWORD}}', in single quotes); "
            "the password is read from that environment variable, never from the command line"
        )
    user, var = match.groups()
    if var not in env or not env[var]:
        raise click.UsageError(f"--basic-auth: environment variable {var} is not set (it holds the password)")
    return user, env[var]


@click.command("listen")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback interface to listen on.")
@click.option(
    "--port",
    default=8788,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="TCP port (0 picks a free one; the listening line names it).",
)
@click.option(
    "--basic-auth",
    "basic_auth",
    metavar="USER:${ENV_VAR}",
    default=None,
    help="Require this Basic Auth; the password comes from the environment variable.",
)
@format_option(help="json: JSON Lines on stdout, one object per delivery (docs/json-output.md).")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json (kept for scripts).")
@click.option(
    "--max-body",
    default=1024 * 1024,
    show_default=True,
    type=click.IntRange(1, 64 * 1024 * 1024),
    help="Largest payload accepted, in bytes (larger ones are answered 413 and flagged).",
)
@click.option(
    "--keep", default=500, show_default=True, type=click.IntRange(1, 100_000), help="Deliveries kept in memory."
)
@click.option(
    "--read-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds a sender may take for its request headers, and again for its body (then 408).",
)
def command(
    host: str, port: int, basic_auth: str | None, fmt: str, as_json: bool, max_body: int, keep: int,
    read_timeout: float,
) -> None:
    """Receive webhook deliveries and check each one against the event models.

    Accepts POST on any path and answers 200 at once (401 for wrong or missing Basic Auth); each delivery is
    then validated and printed: unknown triggers and invalid, unparseable or too deeply nested payloads are
    flagged, never dropped. A slow reader of the output never delays the answers. Ctrl-C or SIGTERM stops it:
    what was accepted is printed, then a summary on stderr; exit 130 or 143.
    """
    if not is_loopback_host(host):
        raise click.UsageError(f"refusing to listen on {host!r}: listen serves loopback only (127.0.0.1, ::1)")
    credentials = parse_basic_auth(basic_auth) if basic_auth is not None else None

    from tenantdeck.receiver import Receiver

    receiver = Receiver(
        host=host,
        port=port,
        basic_auth=credentials,
        max_body=max_body,
        keep=keep,
        header_timeout=read_timeout,
        body_timeout=read_timeout,
    )

    stopped_by: list[int] = []

    async def run() -> None:
        printer = Printer(render_json if as_json or fmt == "json" else render_line)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def started() -> None:
            for signum in stop_signals():
                loop.add_signal_handler(signum, lambda s=signum: (stopped_by.append(s), stop.set()))
            auth = f" (Basic Auth as {credentials[0]})" if credentials else ""
            click.echo(f"tenantdeck listen: receiving on {receiver.url}{auth}; Ctrl-C stops", err=True)

        try:
            await serve(receiver, printer, stop, started)
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        finally:
            for signum in stop_signals():
                loop.remove_signal_handler(signum)
        lost = f", {printer.unprinted} not printed ({printer.why_unprinted})" if printer.unprinted else ""
        click.echo(
            f"tenantdeck listen: stopped; {printer.printed} deliveries printed, {printer.invalid} invalid{lost}",
            err=True,
        )

    try:
        asyncio.run(run())
    except KeyboardInterrupt:  # Ctrl-C before the handlers were installed
        stopped_by.append(signal.SIGINT)
    if stopped_by:
        raise SystemExit(exitcodes.TERMINATED if stopped_by[0] == signal.SIGTERM else exitcodes.INTERRUPTED)


async def serve(receiver: Receiver, printer: Printer, stop: asyncio.Event, started: Callable[[], None]) -> None:
    """Print every delivery ``receiver`` answers until ``stop`` is set, then drain the printer.

    The printer listens *before* the receiver starts: the socket accepts as soon as it is bound, and a sender that
    connects at once is answered while :meth:`Receiver.start` is still waiting for the server, so a listener added
    after the start missed the first delivery (answered 200, never printed: about one run in five). ``OSError``
    from binding is the caller's to word; the printer is closed in every case.
    """
    remove = receiver.add_listener(printer.offer)
    try:
        await receiver.start()
        started()
        await stop.wait()
        await receiver.stop()  # no new delivery; what was accepted before the stop is still printed
    finally:
        remove()
        await receiver.stop()
        await asyncio.to_thread(printer.close, DRAIN_SECONDS)


def render_json(delivery: Delivery) -> str:
    return json_text(delivery.to_json(), separators=(",", ":"))


def render_line(delivery: Delivery) -> str:
    return shown(delivery.line())  # the path and problems come from the sender: escaped, never interpreted


class Printer:
    """Writes each delivery, in order, from a thread of its own; see the module docstring.

    :meth:`offer` runs on the receiver's event loop and only queues (it never blocks, never raises). The thread
    renders and writes straight to the file descriptor (``os.write``), not through ``sys.stdout``: a write stuck
    on a full pipe then holds no lock that the interpreter's exit would wait for.
    """

    def __init__(self, render: Callable[[Delivery], str], out: TextIO | None = None) -> None:
        self._render = render
        self._out = out if out is not None else sys.stdout
        try:
            self._fd: int | None = self._out.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):  # a captured stream (tests): write through it
            self._fd = None
        self._queue: queue.SimpleQueue[Delivery | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._backlog = 0
        self._closed = False
        self._broken = False
        self._final = False
        self.accepted = 0
        self.printed = 0
        self.invalid = 0
        #: not printed, by cause, so the summary can say why; with ``printed`` they add up to every offer
        self.over_backlog = 0
        self.failed = 0
        self.left_waiting = 0
        self._thread = threading.Thread(target=self._run, name="listen-printer", daemon=True)
        self._thread.start()

    @property
    def unprinted(self) -> int:
        return self.over_backlog + self.failed + self.left_waiting

    @property
    def why_unprinted(self) -> str:
        causes = []
        if self.over_backlog:
            causes.append(f"the output fell behind by more than {BACKLOG_BYTES // (1024 * 1024)} MiB")
        if self.failed:
            causes.append("stdout was closed")
        if self.left_waiting:
            causes.append(f"stdout took nothing more for {DRAIN_SECONDS:g} s after the stop")
        return "; ".join(causes)

    def offer(self, delivery: Delivery) -> None:
        cost = delivery.size + _RECORD_OVERHEAD
        with self._lock:
            if self._closed or self._backlog + cost > BACKLOG_BYTES:
                self.over_backlog += 1
                return
            self._backlog += cost
            self.accepted += 1
        self._queue.put(delivery)

    def close(self, timeout: float) -> None:
        """No more deliveries; wait up to ``timeout`` seconds for the waiting ones to be written. What has not been
        written by then is counted as not printed, and the counts are final (the thread, a daemon, may stay blocked
        in its write until the process ends)."""
        with self._lock:
            self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)
        with self._lock:
            self._final = True
            self.left_waiting = self.accepted - self.printed - self.failed

    def _run(self) -> None:
        while (delivery := self._queue.get()) is not None:
            with self._lock:
                self._backlog -= delivery.size + _RECORD_OVERHEAD
                broken = self._broken
            ok = False
            if not broken:
                try:
                    self._write(self._render(delivery) + "\n")
                    ok = True
                except OSError:  # EPIPE and friends: nobody will see the rest either
                    broken = True
            with self._lock:
                self._broken = broken
                if self._final:
                    continue
                if ok:
                    self.printed += 1
                    self.invalid += not delivery.valid
                else:
                    self.failed += 1

    def _write(self, text: str) -> None:
        if self._fd is None:
            self._out.write(text)
            self._out.flush()
            return
        data = memoryview(text.encode("utf-8", "backslashreplace"))
        while data:
            data = data[os.write(self._fd, data) :]


def stop_signals() -> list[signal.Signals]:
    """SIGTERM always stops cleanly (what CI runners, ``kill`` and tests send); SIGINT too, unless it was ignored
    when we started: a background job (``&``, ``nohup``, a CI step) ignores Ctrl-C on purpose, so we keep it so."""
    wanted = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        wanted.append(signal.SIGINT)
    return wanted
