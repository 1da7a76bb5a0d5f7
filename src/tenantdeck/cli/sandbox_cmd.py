"""``tenantdeck sandbox``: serve the embedded management-API sandbox over HTTP with uvicorn.

The socket is bound here, before uvicorn starts, so that the one "listening on" line can name the real port
(also with ``--port 0``) and a busy port is a clear error instead of a uvicorn traceback. Binding to anything but
loopback needs ``--public``: the sandbox's credentials are well known, so exposing it is a deliberate act.
"""

from __future__ import annotations

import socket
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
    "--latency", "latency_ms", default=0, type=click.IntRange(0, 60_000), help="Delay every request by MS milliseconds."
)
@click.option(
    "--fail-rate", default=0.0, type=click.FloatRange(0.0, 1.0), help="Fail this fraction of requests with 429/503."
)
@click.option("--rng-seed", type=int, default=None, help="Seed for fault injection (repeatable failures).")
@click.option("--no-seed", is_flag=True, help="Do not add the sample apps to a new database.")
@click.option("--public", is_flag=True, help="Allow listening on a non-loopback interface.")
@click.option("--access-log", is_flag=True, help="Log every request line (never headers or bodies).")
def command(
    host: str,
    port: int,
    db_path: Path | None,
    key: str,
    secret: str,
    latency_ms: int,
    fail_rate: float,
    rng_seed: int | None,
    no_seed: bool,
    public: bool,
    access_log: bool,
) -> None:
    """Serve the embedded sandbox management API over HTTP."""
    if not is_loopback_host(host) and not public:
        raise click.UsageError(
            f"refusing to listen on {host!r}: it is not a loopback address and the sandbox's credentials are "
            "well known. Pass --public to expose it on purpose."
        )
    if not key or not secret:
        raise click.UsageError("--key and --secret must not be empty")

    import uvicorn

    from tenantdeck.sandbox.app import create_app

    path = db_path if db_path is not None else default_db_path()
    app = create_app(
        path, key=key, secret=secret, latency_ms=latency_ms, fail_rate=fail_rate, seed=not no_seed, rng_seed=rng_seed
    )
    sock = bind_socket(host, port)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    click.echo(f"tenantdeck sandbox listening on http://{shown_host}:{bound_port} (db: {path})", err=True)
    config = uvicorn.Config(app, log_level="warning", access_log=access_log, lifespan="on", timeout_keep_alive=30)
    uvicorn.Server(config).run(sockets=[sock])
