"""The client against the real sandbox: in process (ASGITransport), with 30% injected failures, and over a real
loopback socket (uvicorn on 127.0.0.1, ephemeral port). Also ``tenantdeck doctor`` end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import Sleeps
from click.testing import CliRunner
from fastapi import FastAPI

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import AuthError, NotFoundError
from tenantdeck.cli import cli
from tenantdeck.sandbox import DEFAULT_KEY, DEFAULT_SECRET, create_app, samples
from tests.loopback import serve_on_loopback

APP_NAME = "tenantdeck client test"


def sandbox(tmp_path: Path, **kw: Any) -> FastAPI:
    kw.setdefault("seed", False)
    return create_app(tmp_path / "sandbox.sqlite3", key=DEFAULT_KEY, secret=DEFAULT_SECRET, **kw)


def in_process(app: FastAPI, **kw: Any) -> ManagementClient:
    kw.setdefault("retry_base_delay", 0.001)
    return ManagementClient("http://sandbox.local", DEFAULT_KEY, DEFAULT_SECRET,
                            transport=httpx.ASGITransport(app=app), **kw)


async def exercise(client: ManagementClient) -> None:
    """Every client operation once, in the order a push would use them, checking what the service kept."""
    app = await client.create_app(APP_NAME, "eu")
    assert (app.name, app.region, app.version) == (APP_NAME, "eu", "3")
    assert isinstance(app.created_at, int)
    assert [a.id for a in await client.find_apps_by_name(APP_NAME)] == [app.id]
    assert app.id in {a.id for a in await client.list_apps()}

    extensions = await client.list_extensions(app.id)
    assert {"polls", "reactions", "stickers"} <= {e.id for e in extensions}
    result = await client.set_extensions(app.id, enabled=["polls", "reactions"], disabled=["stickers"])
    assert result == {"polls": True, "reactions": True, "stickers": True}
    state = {e.id: e.enabled for e in await client.list_extensions(app.id)}
    assert (state["polls"], state["reactions"], state["stickers"]) == (True, True, False)

    settings = samples.widget_configuration("Support widget")
    widget_id = await client.create_widget(app.id, settings)
    [widget] = [w for w in await client.list_widgets(app.id) if w.widget_id == widget_id]
    assert widget.settings["name"] == "Support widget" and widget.settings["main"] == settings["main"]
    await client.update_widget(app.id, widget_id, {**settings, "name": "Renamed widget"})
    [widget] = [w for w in await client.list_widgets(app.id) if w.widget_id == widget_id]
    assert widget.settings["name"] == "Renamed widget"

    sms = samples.sms_settings()
    assert await client.get_sms(app.id) is None
    await client.store_sms(app.id, sms)
    assert await client.get_sms(app.id) == sms
    await client.update_sms(app.id, {**sms, "messageDelay": 120})
    assert (await client.get_sms(app.id) or {})["messageDelay"] == 120
    await client.delete_sms(app.id)
    assert await client.get_sms(app.id) is None

    doc, password = samples.webhook("hook1", "Hook one", "https://hooks.example.com/1", username="user1",
                                    password="Passw0rd1")
    created = await client.create_webhook(app.id, {**doc, "password": password})
    assert created["id"] == "hook1" and isinstance(created.get("createdAt"), int)
    assert [h["id"] for h in await client.list_webhooks(app.id)] == ["hook1"]
    updated = await client.update_webhook(app.id, "hook1", {**doc, "name": "Hook uno", "enabled": False})
    assert updated["name"] == "Hook uno"
    fetched = await client.get_webhook(app.id, "hook1")
    assert fetched is not None and fetched["enabled"] is False and "password" not in fetched
    assert await client.get_webhook(app.id, "nope") is None

    added = await client.add_triggers(app.id, "hook1", ["message_sent", "call_ended"])
    assert added == {"message_sent": True, "call_ended": True}
    assert sorted(await client.list_triggers(app.id, "hook1")) == ["call_ended", "message_sent"]
    await client.remove_triggers(app.id, "hook1", ["call_ended"])
    assert await client.list_triggers(app.id, "hook1") == ["message_sent"]
    await client.delete_webhook(app.id, "hook1")
    assert await client.list_webhooks(app.id) == []

    collaborators = await client.list_collaborators(app.id)
    assert collaborators and all(isinstance(c["id"], str) for c in collaborators)
    app_settings = await client.get_app_settings(app.id)
    assert isinstance(app_settings.get("core.notifications.push.advanced.included"), list)

    await client.delete_app(app.id)
    with pytest.raises(NotFoundError) as info:
        await client.list_webhooks(app.id)
    assert "may have been deleted" in str(info.value)


@pytest.mark.anyio
async def test_every_operation_in_process(tmp_path: Path) -> None:
    async with in_process(sandbox(tmp_path)) as client:
        await exercise(client)


@pytest.mark.anyio
async def test_nested_webhook_envelopes_in_process(tmp_path: Path) -> None:
    async with in_process(sandbox(tmp_path, webhook_envelope="nested")) as client:
        await exercise(client)


@pytest.mark.anyio
async def test_seeded_sandbox_pages_through_apps(tmp_path: Path) -> None:
    async with in_process(sandbox(tmp_path, seed=True)) as client:
        apps = await client.list_apps()
        assert len(apps) == len({a.id for a in apps}) >= 1
        for app in apps:
            await client.list_widgets(app.id)
            await client.list_webhooks(app.id)


@pytest.mark.anyio
async def test_thirty_percent_injected_failures_still_complete(tmp_path: Path) -> None:
    app = sandbox(tmp_path, fail_rate=0.3, rng_seed=1)
    sleeps = Sleeps()
    async with in_process(app, sleep=sleeps, max_retries=8) as client:
        await exercise(client)
    faults = app.state.faults
    assert faults.injected_429 > 0 and faults.injected_503 > 0
    assert len(sleeps.delays) >= faults.injected_429 + faults.injected_503 - 1  # nearly every fault was retried


@pytest.mark.anyio
async def test_wrong_secret_is_an_auth_error_without_the_secret(tmp_path: Path) -> None:
    wrong = "definitely-not-the-secret"
    client = ManagementClient("http://sandbox.local", DEFAULT_KEY, wrong,
                              transport=httpx.ASGITransport(app=sandbox(tmp_path)))
    async with client:
        with pytest.raises(AuthError) as info:
            await client.list_apps()
    assert info.value.status == 401 and wrong not in str(info.value)


# --- over a real socket ---------------------------------------------------------------------------------------------


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """uvicorn on 127.0.0.1 with an ephemeral port, in a thread; yields the base URL."""
    with serve_on_loopback(sandbox(tmp_path)) as url:
        yield url


@pytest.mark.e2e
@pytest.mark.anyio
async def test_every_operation_over_loopback(live_server: str) -> None:
    async with ManagementClient(live_server, DEFAULT_KEY, DEFAULT_SECRET, max_rps=200, concurrency=4) as client:
        await exercise(client)
        ping = await client.ping()
    assert ping.status == 200 and ping.server_date is not None


@pytest.mark.e2e
def test_doctor_over_loopback(live_server: str, isolated_env: dict[str, str]) -> None:
    env = {"TENANTDECK_BASE_URL": live_server, "TENANTDECK_KEY": DEFAULT_KEY, "TENANTDECK_SECRET": DEFAULT_SECRET}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("path  ")]
    assert [line.split()[0] for line in lines] == ["ok"] * 9 + ["info"]  # 5 of the service, 4 of config files
    assert [line[6:27].strip() for line in lines[5:9]] == ["profiles file", "settings file", "keymap file",
                                                         "theme files"]
    assert lines[9].startswith("info  moderation            not managed by tenantdeck") and "deprecated" in lines[9]
    assert f"-> {live_server}" in lines[0] and "HTTP 200 in" in lines[1]
    assert "loopback http to 127.0.0.1" in lines[3]
    assert lines[4].startswith("ok    clock skew") and lines[4].endswith(" s")
    assert DEFAULT_SECRET not in result.output and DEFAULT_KEY not in result.output


@pytest.mark.e2e
def test_doctor_with_wrong_credentials_over_loopback(live_server: str, isolated_env: dict[str, str]) -> None:
    secret = "wrong-secret-value-123"
    env = {"TENANTDECK_BASE_URL": live_server, "TENANTDECK_KEY": DEFAULT_KEY, "TENANTDECK_SECRET": secret}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert result.exit_code == 1
    assert "FAIL  credentials accepted" in result.output and "HTTP 401" in result.output
    assert "Hint: check TENANTDECK_KEY and TENANTDECK_SECRET" in result.output
    assert secret not in result.output and "Traceback" not in result.output


@pytest.mark.e2e
def test_doctor_unreachable(isolated_env: dict[str, str]) -> None:
    env = {"TENANTDECK_BASE_URL": "http://127.0.0.1:9", "TENANTDECK_KEY": "k-1234", "TENANTDECK_SECRET": "s-5678"}
    result = CliRunner().invoke(cli, ["doctor"], env=env)
    assert result.exit_code == 1
    reachable = result.output.splitlines()[1]
    assert reachable.startswith("FAIL  reachable ")
    assert reachable.endswith(
        "list apps (perPage=1) failed: could not connect to 127.0.0.1:9: All connection attempts failed. "
        "Hint: check --base-url and the network (is the service running?)"
    )
    assert "s-5678" not in result.output


# --- doctor in process ----------------------------------------------------------------------------------------------


def test_doctor_local_default(isolated_env: dict[str, str]) -> None:
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "ok    target resolved       local (built-in sandbox" in result.output
    assert "ok    TLS                   in-process sandbox (no network)" in result.output
    assert "ok    clock skew            not reported (no Date header)" in result.output


def test_doctor_lists_every_path_where_the_overrides_put_it(isolated_env: dict[str, str], tmp_path: Path) -> None:
    """One answer to "where does tenantdeck keep X": config, data and cache (caches never in the data directory),
    and the draft's workspace; the JSON document says the same."""
    cache = tmp_path / "my-cache"
    env = {"TENANTDECK_CACHE_DIR": str(cache)}
    text = CliRunner().invoke(cli, ["doctor", "--draft", "team.yaml"], env=env)
    assert text.exit_code == 0, text.output
    paths = {line[6:27].strip(): line[28:].split("  (")[0] for line in text.output.splitlines()
             if line.startswith("path  ")}
    config, data = isolated_env["TENANTDECK_CONFIG_DIR"], isolated_env["TENANTDECK_DATA_DIR"]
    assert paths["profiles"] == f"{config}/profiles.yaml" and paths["sandbox database"].startswith(data)
    assert paths["parse cache"] == f"{cache}/parse-cache" and paths["theme cache"].startswith(str(cache))
    assert paths["committed base"] == "team.lock.json" and paths["push history"].endswith("history.jsonl")
    doc = json.loads(CliRunner().invoke(cli, ["doctor", "--draft", "team.yaml", "--format", "json"], env=env).stdout)
    assert (doc["format_version"], doc["command"], doc["exit_code"], doc["ok"]) == (1, "doctor", 0, True)
    assert {p["what"]: p["path"] for p in doc["paths"]} == paths
    assert [c["status"] for c in doc["checks"]] == ["ok"] * 9 + ["info"]
    assert next(p for p in doc["paths"] if p["what"] == "sandbox database")["exists"] is True


def test_doctor_refused_target_is_one_line_and_exit_1(isolated_env: dict[str, str]) -> None:
    env = {"TENANTDECK_KEY": "k-1234", "TENANTDECK_SECRET": "s-5678"}
    result = CliRunner().invoke(cli, ["doctor", "--base-url", "http://mgmt.example.test"], env=env)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "FAIL  target resolved       --base-url: refusing to send the key and secret over plain http to "
        "mgmt.example.test; use https:// or pass --insecure"
    )
    assert "Traceback" not in result.output
