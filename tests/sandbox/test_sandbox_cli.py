"""``tenantdeck sandbox``: host safety, option parsing, default database location, what it prints, ``--reset``."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tenantdeck.cli import sandbox_cmd
from tests import procs


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_non_loopback_host_needs_public(host: str) -> None:
    result = CliRunner().invoke(sandbox_cmd.command, ["--host", host])
    assert result.exit_code != 0
    assert "--public" in result.output and "loopback" in result.output


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True), ("0.0.0.0", False)],
)
def test_is_loopback_host(host: str, loopback: bool) -> None:
    assert sandbox_cmd.is_loopback_host(host) is loopback


def test_bad_values_are_usage_errors() -> None:
    runner = CliRunner()
    assert runner.invoke(sandbox_cmd.command, ["--fail-rate", "2"]).exit_code == 2
    assert runner.invoke(sandbox_cmd.command, ["--port", "70000"]).exit_code == 2
    assert runner.invoke(sandbox_cmd.command, ["--key", ""]).exit_code == 2


def test_default_db_is_in_the_user_data_dir() -> None:
    path = sandbox_cmd.default_db_path()
    assert path.name == "sandbox.sqlite3" and "tenantdeck" in str(path)


def test_busy_port_is_a_clear_error() -> None:
    sock = sandbox_cmd.bind_socket("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        with pytest.raises(Exception, match="cannot listen"):
            sandbox_cmd.bind_socket("127.0.0.1", port)
    finally:
        sock.close()


def test_registered_in_the_cli() -> None:
    from tenantdeck.cli import COMMANDS

    assert COMMANDS["sandbox"][0] == "sandbox_cmd"
    assert isinstance(sandbox_cmd.command.name, str)
    assert Path(sandbox_cmd.__file__).name == "sandbox_cmd.py"


# --- what `tenantdeck sandbox` tells the user, and --reset (issue 7) --------------------------------------------


def test_export_line_is_ready_to_paste() -> None:
    line = sandbox_cmd.export_line("http://127.0.0.1:8787", "sandbox-key", "sand box'secret")
    assert line == (
        "export TENANTDECK_BASE_URL=http://127.0.0.1:8787 TENANTDECK_KEY=sandbox-key "
        "TENANTDECK_SECRET='sand box'\"'\"'secret'"
    )
    assert sandbox_cmd.client_url("0.0.0.0", 80) == "http://127.0.0.1:80"
    assert sandbox_cmd.client_url("::", 80) == "http://[::1]:80"
    assert sandbox_cmd.client_url("::1", 80) == "http://[::1]:80"


def _app_names(db: Path) -> list[str]:
    from tenantdeck.sandbox.store import Store

    store = Store(db)
    try:
        return [a["name"] for a in store.list_apps(None, 100, 0)[0]]
    finally:
        store.close()


def test_reset_wipes_and_seeds_the_local_profiles_database(tmp_path: Path) -> None:
    from tenantdeck.cli import cli
    from tenantdeck.sandbox import create_app
    from tenantdeck.sandbox.store import Store

    env = {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
           "TENANTDECK_BASE_URL": ""}
    db = tmp_path / "data" / "sandbox.sqlite3"
    create_app(db, key="k", secret="s", seed=True)  # what the `local` profile opens
    seeded = _app_names(db)
    store = Store(db)
    store.create_app("Acme Support", "us", "3")  # the duplicate an `init` + `push` used to make
    store.close()
    assert _app_names(db) == [*seeded, "Acme Support"]

    runner = CliRunner()
    result = runner.invoke(cli, ["sandbox", "--reset"], env=env)
    assert result.exit_code == 0, result.output
    assert f"reset the sandbox database {db}: it now holds 3 sample apps" in result.output
    assert _app_names(db) == seeded
    pulled = runner.invoke(cli, ["pull", "--draft", str(tmp_path / "d.yaml")], env=env)
    assert pulled.exit_code == 0, pulled.output  # the main job works again


def test_reset_with_no_seed_leaves_an_empty_account_that_stays_empty(tmp_path: Path) -> None:
    from tenantdeck.sandbox import create_app

    db = tmp_path / "other.sqlite3"
    result = CliRunner().invoke(sandbox_cmd.command, ["--reset", "--no-seed", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "it now holds no apps" in result.output
    create_app(db, key="k", secret="s", seed=True)  # opened again by the `local` profile: not re-seeded
    assert _app_names(db) == []


def _start(db: Path, *extra: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start `tenantdeck sandbox` on a free port; returns the process and the variables of its export line."""
    return procs.sandbox(db, *extra)


def _stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = procs.stop(proc)
    assert proc.returncode == -signal.SIGTERM, err  # uvicorn shuts down gracefully, then re-raises the signal
    return out, err


def _disconnect_mid_request(base_url: str, key: str, secret: str) -> None:
    """Headers and half a body, then gone: the server is left waiting for the rest of the body."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(
            f"POST /apps HTTP/1.1\r\nHost: {host}\r\nkey: {key}\r\nsecret: {secret}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na".encode()
        )
        time.sleep(0.3)


def _disconnect_before_the_answer(base_url: str, key: str, secret: str) -> None:
    """A whole request, then gone while the sandbox (with --latency) is still working on the answer."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(f"GET /apps HTTP/1.1\r\nHost: {host}\r\nkey: {key}\r\nsecret: {secret}\r\n\r\n".encode())
        time.sleep(0.05)


@pytest.mark.e2e
@pytest.mark.parametrize("access_log", [False, True])
def test_served_sandbox_says_how_to_connect_and_a_disconnect_is_one_line(tmp_path: Path, access_log: bool) -> None:
    proc, values = _start(tmp_path / "db.sqlite3", "--latency", "200", *(["--access-log"] if access_log else []))
    try:
        base_url = values["TENANTDECK_BASE_URL"]
        assert values["TENANTDECK_KEY"] == "sandbox-key" and values["TENANTDECK_SECRET"] == "sandbox-secret"
        answer = httpx.get(f"{base_url}/apps", headers={"key": values["TENANTDECK_KEY"],
                                                         "secret": values["TENANTDECK_SECRET"]})
        assert answer.status_code == 200
        _disconnect_mid_request(base_url, values["TENANTDECK_KEY"], values["TENANTDECK_SECRET"])
        _disconnect_before_the_answer(base_url, values["TENANTDECK_KEY"], values["TENANTDECK_SECRET"])
        time.sleep(0.6)
    finally:
        out, err = _stop(proc)
    assert out == ""  # the export line was the only thing on stdout
    assert "latency 200 ms" in err.splitlines()[0]
    assert "key: sandbox-key  secret: sandbox-secret  (the sandbox's own credentials, not secrets)" in err
    assert err.count("client disconnected before its POST /apps request was complete") == 1, err
    assert "Traceback" not in err and "Exception in ASGI application" not in err
    assert ('"GET /apps HTTP/1.1" 200' in err) is access_log, err
