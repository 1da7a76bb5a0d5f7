"""``tenantdeck sandbox``: serve the embedded management-API sandbox over HTTP with uvicorn.

The socket is bound here, before uvicorn starts, so that the "listening on" line can name the real port
(also with ``--port 0``) and a busy port is a clear error instead of a uvicorn traceback. Binding to anything but
loopback needs ``--public``: the sandbox's credentials are well known, so exposing it is a deliberate act.

Output: messages (address, credentials, ``--access-log`` lines, a client's disconnect) on stderr; stdout carries
only the ``export TENANTDECK_BASE_URL=... TENANTDECK_KEY=... TENANTDECK_SECRET=...`` line, so a script can
``eval`` it. ``--reset`` empties the database and seeds it again (:mod:`tenantdeck.sandbox.reset`), then exits.
"""

from __future__ import annotations

import shlex
import socket
import sqlite3
import sys
from pathlib import Path

import click

from tenantdeck.hosts import is_loopback_host
from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET


def default_db_path() -> Path:
    """The same database the built-in ``local`` profile uses (``TENANTDECK_DATA_DIR`` honoured), so a served
    sandbox and the in-process one show the same account."""
    from tenantdeck.targets import SANDBOX_DB, data_dir

    return data_dir() / SANDBOX_DB


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv4 or IPv6), or a ClickException saying why not."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise click.ClickException(f"cannot resolve host {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _per_minute(value: str | None) -> int | None:
    """``600/min`` (or ``600``) -> 600; anything else is a usage error naming the form."""
    if value is None:
        return None
    text = value.strip().lower().removesuffix("/min").removesuffix("/m").strip()
    if not text.isdigit() or int(text) < 1:
        raise click.BadParameter(f"{value!r} is not a quota; write it as N/min, such as 600/min")
    return int(text)


@click.command("sandbox")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Interface to listen on (loopback only unless --public)."
)
@click.option(
    "--port", default=8787, show_default=True, type=click.IntRange(0, 65535), help="TCP port (0 picks a free one)."
)
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite file holding the sandbox's data  [default: sandbox.sqlite3 in the user data dir]",
)
@click.option("--key", default=DEFAULT_KEY, show_default=True, help="Value the `key` header must carry.")
@click.option(
    "--secret", default=DEFAULT_SECRET, help="Value the `secret` header must carry  [default: sandbox-secret]"
)
@click.option(
    "--latency", "latency_ms", default=0, type=click.IntRange(0, 60_000), metavar="MS",
    help="Delay every request by MS milliseconds (0 to 60000).  [default: 0 ms]",
)
@click.option(
    "--fail-rate", default=0.0, type=click.FloatRange(0.0, 1.0), metavar="P",
    help="Fail this fraction of requests (0 to 1) with 429/503.  [default: 0]",
)
@click.option(
    "--rate-limit", default=None, callback=lambda ctx, param, value: _per_minute(value), metavar="N/min",
    help="Enforce a quota of N requests per minute: 429 with Retry-After past it, X-Rate-Limit-Remaining on "
         "every answer.  [default: none]",
)
@click.option("--rng-seed", type=int, default=None, help="Seed for fault injection (repeatable failures).")
@click.option("--no-seed", is_flag=True, help="Do not add the sample apps to a new (or --reset) database.")
@click.option("--public", is_flag=True, help="Allow listening on a non-loopback interface.")
@click.option("--access-log", is_flag=True, help="Log every request line (never headers or bodies); off by default.")
@click.option(
    "--reset", is_flag=True,
    help="Empty the database (the local profile's, or --db) and seed the sample apps again, then exit.",
)
@click.option(
    "--max-body", default=1024 * 1024, show_default=True, type=click.IntRange(1024, 64 * 1024 * 1024), metavar="BYTES",
    help="Largest request body; larger ones are answered 413 before they are read.",
)
def command(
    host: str,
    port: int,
    db_path: Path | None,
    key: str,
    secret: str,
    latency_ms: int,
    fail_rate: float,
    rate_limit: int | None,
    rng_seed: int | None,
    no_seed: bool,
    public: bool,
    access_log: bool,
    reset: bool,
    max_body: int,
) -> None:
    """Serve the embedded sandbox management API over HTTP (or, with --reset, start its account afresh).

    It prints the address, the key and secret to use (the sandbox's own, well known: not secrets) and, on stdout,
    an `export TENANTDECK_BASE_URL=... TENANTDECK_KEY=... TENANTDECK_SECRET=...` line for another shell.
    """
    path = db_path if db_path is not None else default_db_path()
    if db_path is None:  # our own data directory: 0700, as the local profile keeps it (webhook passwords inside)
        from tenantdeck.sandbox.ddl import private_dir

        try:
            private_dir(path.parent)
        except OSError as exc:
            raise click.ClickException(f"cannot create the data directory {path.parent}: {exc.strerror}") from None
    if reset:
        _reset(path, seed=not no_seed)
        return
    if not is_loopback_host(host) and not public:
        raise click.UsageError(
            f"refusing to listen on {host!r}: it is not a loopback address and the sandbox's credentials are "
            "well known. Pass --public to expose it on purpose."
        )
    if not key or not secret:
        raise click.UsageError("--key and --secret must not be empty")

    import logging

    import uvicorn

    from tenantdeck.sandbox.app import create_app

    app = create_app(
        path, key=key, secret=secret, latency_ms=latency_ms, fail_rate=fail_rate, seed=not no_seed, rng_seed=rng_seed,
        max_body=max_body, rate_limit=rate_limit,
    )
    sock = bind_socket(host, port)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    faults = f"; latency {latency_ms} ms" if latency_ms else ""
    faults += f"; failing {fail_rate:.0%} of requests" if fail_rate else ""
    faults += f"; at most {rate_limit} requests per minute" if rate_limit else ""
    click.echo(f"tenantdeck sandbox listening on http://{shown_host}:{bound_port} (db: {path}{faults})", err=True)
    click.echo(f"key: {key}  secret: {secret}  (the sandbox's own credentials, not secrets); in another shell:",
               err=True)
    click.echo(export_line(client_url(host, bound_port), key, secret))
    sys.stdout.flush()
    config = uvicorn.Config(app, log_level="warning", access_log=access_log, lifespan="on", timeout_keep_alive=30)
    if access_log:  # log_level="warning" (quiet startup) would also silence the access log's INFO lines
        access = logging.getLogger("uvicorn.access")
        access.setLevel(logging.INFO)
        for handler in access.handlers:  # with every other message on stderr; stdout has the export line only
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(sys.stderr)
    uvicorn.Server(config).run(sockets=[sock])


def client_url(host: str, port: int) -> str:
    """The base URL a client on this machine uses: a wildcard listen address is reached through loopback."""
    bare = host.strip("[]")
    if bare in ("0.0.0.0", ""):
        bare = "127.0.0.1"
    elif bare == "::":
        bare = "::1"
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{bare}:{port}"


def export_line(base_url: str, key: str, secret: str) -> str:
    """``export TENANTDECK_BASE_URL=... TENANTDECK_KEY=... TENANTDECK_SECRET=...``, quoted for a POSIX shell."""
    from tenantdeck.targets import ENV_BASE_URL, ENV_KEY, ENV_SECRET

    pairs = ((ENV_BASE_URL, base_url), (ENV_KEY, key), (ENV_SECRET, secret))
    return "export " + " ".join(f"{name}={shlex.quote(value)}" for name, value in pairs)


def _reset(path: Path, *, seed: bool) -> None:
    from tenantdeck.sandbox.reset import reset_database

    try:
        apps = reset_database(path, seed=seed)
    except (OSError, sqlite3.Error) as exc:
        raise click.ClickException(f"cannot reset the sandbox database {path}: {exc}") from None
    what = f"{apps} sample app{'s' * (apps != 1)}" if seed else "no apps"
    click.echo(f"reset the sandbox database {path}: it now holds {what}", err=True)
    click.echo("drafts pulled from it before name apps that are gone: pull them again (or `tenantdeck init`)",
               err=True)
