"""``tenantdeck listen``: a validating webhook receiver on loopback, one line (or JSON object) per delivery.

A thin shell over :mod:`tenantdeck.receiver`: parse the options, start the receiver, print each delivery. The
Basic Auth password is given only as ``${ENV_VAR}`` (quote it so the shell leaves it alone): a password on the
command line would sit in shell history and ``ps`` output. It is never printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal

import click

from tenantdeck import exitcodes
from tenantdeck.hosts import is_loopback_host

_BASIC = re.compile(r"^([^:]+):\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


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
@click.option("--json", "as_json", is_flag=True, help="One JSON object per delivery on stdout.")
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
def command(host: str, port: int, basic_auth: str | None, as_json: bool, max_body: int, keep: int) -> None:
    """Receive webhook deliveries and check each one against the event models.

    Accepts POST on any path and answers 200 at once (401 for wrong or missing Basic Auth); each delivery is
    then validated and printed: unknown triggers and invalid or unparseable payloads are flagged, never dropped.
    Ctrl-C or SIGTERM stops it: what was accepted is printed, then a summary on stderr; exit 130 or 143.
    """
    if not is_loopback_host(host):
        raise click.UsageError(f"refusing to listen on {host!r}: listen serves loopback only (127.0.0.1, ::1)")
    credentials = parse_basic_auth(basic_auth) if basic_auth is not None else None

    from tenantdeck.receiver import Receiver

    receiver = Receiver(host=host, port=port, basic_auth=credentials, max_body=max_body, keep=keep)

    stopped_by: list[int] = []

    async def run() -> None:
        try:
            await receiver.start()
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in stop_signals():
            loop.add_signal_handler(signum, lambda s=signum: (stopped_by.append(s), stop.set()))
        auth = f" (Basic Auth as {credentials[0]})" if credentials else ""
        click.echo(f"tenantdeck listen: receiving on {receiver.url}{auth}; Ctrl-C stops", err=True)
        shown = invalid = 0
        try:
            with receiver.subscribe() as deliveries:
                async def show() -> None:
                    nonlocal shown, invalid
                    async for delivery in deliveries:
                        if as_json:
                            click.echo(json.dumps(delivery.to_json(), ensure_ascii=False, separators=(",", ":")))
                        else:
                            click.echo(delivery.line())
                        shown += 1
                        invalid += not delivery.valid
                        if deliveries.queue.empty() and stop.is_set():
                            return

                printer = asyncio.create_task(show())
                await stop.wait()
                await receiver.stop()  # no new delivery; print what was accepted before the stop
                if deliveries.queue.empty():
                    printer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await printer
                missed = deliveries.missed
        finally:
            for signum in stop_signals():
                loop.remove_signal_handler(signum)
            await receiver.stop()
        lost = f", {missed} not printed (the output fell behind)" if missed else ""
        click.echo(f"tenantdeck listen: stopped; {shown} deliveries printed, {invalid} invalid{lost}", err=True)

    try:
        asyncio.run(run())
    except KeyboardInterrupt:  # Ctrl-C before the handlers were installed
        stopped_by.append(signal.SIGINT)
    if stopped_by:
        raise SystemExit(exitcodes.TERMINATED if stopped_by[0] == signal.SIGTERM else exitcodes.INTERRUPTED)


def stop_signals() -> list[signal.Signals]:
    """SIGTERM always stops cleanly (what CI runners, ``kill`` and tests send); SIGINT too, unless it was ignored
    when we started: a background job (``&``, ``nohup``, a CI step) ignores Ctrl-C on purpose, so we keep it so."""
    wanted = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        wanted.append(signal.SIGINT)
    return wanted
