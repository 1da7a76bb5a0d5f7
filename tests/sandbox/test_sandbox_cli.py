"""``tenantdeck sandbox``: host safety, option parsing, default database location."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck.cli import sandbox_cmd


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
