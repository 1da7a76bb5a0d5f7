"""-v / --debug / TENANTDECK_LOG: what the command line says about its requests, and what it never says."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.cli.logs import level_for


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE",
                 "TENANTDECK_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    yield
    logger = logging.getLogger("tenantdeck")  # what the commands configured: not for the tests after these
    for handler in [h for h in logger.handlers if not isinstance(h, logging.NullHandler)]:
        logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)


def test_flags_win_over_the_environment() -> None:
    assert level_for(0, False, None) == logging.WARNING
    assert level_for(1, False, None) == logging.INFO
    assert level_for(2, False, "warning") == level_for(0, True, None) == logging.DEBUG
    assert level_for(0, False, "DEBUG") == logging.DEBUG and level_for(0, False, "chatty") == logging.WARNING
    assert level_for(1, False, "debug") == logging.INFO


def test_debug_shows_each_request_and_never_a_credential() -> None:
    from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET

    result = CliRunner().invoke(cli, ["--debug", "pull", "--draft", "d.yaml"])
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("debug: ")]
    assert lines and lines[0].startswith("debug: GET /apps?perPage=100&page=1 -> 200 in ")
    assert all(line.endswith("(attempt 1)") for line in lines)
    assert DEFAULT_KEY not in result.stderr and DEFAULT_SECRET not in result.stderr
    quiet = CliRunner().invoke(cli, ["pull", "--draft", "d.yaml"])
    assert quiet.exit_code == 0 and "debug:" not in quiet.stderr
    via_env = CliRunner().invoke(cli, ["pull", "--draft", "d.yaml"], env={"TENANTDECK_LOG": "debug"})
    assert "debug: GET /apps" in via_env.stderr


def test_verbose_says_each_retry_of_a_throttled_request() -> None:
    env = {"TENANTDECK_SANDBOX_FAIL_RATE": "0.3", "TENANTDECK_SANDBOX_RNG_SEED": "7",
           "TENANTDECK_SANDBOX_RETRY_AFTER": "0"}
    result = CliRunner().invoke(cli, ["-v", "pull", "--draft", "d.yaml"], env=env)
    assert result.exit_code == 0, result.stderr
    retries = [line for line in result.stderr.splitlines() if "; retrying (" in line]
    assert retries and all(line.startswith("info: ") and "HTTP " in line for line in retries)


@pytest.mark.slow
def test_an_unreachable_host_is_not_silence() -> None:
    """Each failed connection is said as it is retried, with the attempt, the limit and the request timeout."""
    env = {"TENANTDECK_KEY": "k-1234", "TENANTDECK_SECRET": "s-5678"}
    result = CliRunner().invoke(cli, ["pull", "--base-url", "http://127.0.0.1:9", "--draft", "d.yaml"], env=env)
    assert result.exit_code == exitcodes.ERROR
    said = [line for line in result.stderr.splitlines() if line.startswith("note: list apps: could not connect")]
    assert [line.split("retrying (")[1].split(")")[0] for line in said] == [f"{n}/5" for n in range(1, 6)]
    assert all("each request waits up to 30 s" in line for line in said)
    assert result.stderr.splitlines()[-1].startswith("error: list apps failed: could not connect to 127.0.0.1")
    assert "s-5678" not in result.stderr
