"""Regression tests of issue 7: the push promise ("does exactly the diff, never clobbers, never leaves a mess that
cannot be finished, re-running finishes the job without duplicates"), each broken case through the CLI against a
real sandbox on 127.0.0.1 (the commands in process, the interrupted push as a real process), plus in-process
cases where only a fault injected into the engine can reach the state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import TransportError
from tenantdeck.cli import cli as tenantdeck_cli
from tenantdeck.draft import load_draft
from tenantdeck.models import App, WidgetSettings
from tenantdeck.sandbox import create_app
from tenantdeck.sync.workspace.state import Workspace
from tests import procs
from tests.fuzzing import examples
from tests.loopback import serve_on_loopback
from tests.models import factories
from tests.sync.helpers_push import (
    KEY,
    SECRET,
    app_named,
    edit_draft,
    forged,
    loaded,
    make_sandbox,
    run_pull,
    run_push,
    save_plan,
)

NEW_PW = "FreshHookPw77"
ENV = {"NEW_HOOK_PW": NEW_PW, "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "TrustTok11",
       "TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD": "TrustHook22", "GLOBEX_TWILIO_TOKEN": "GlobexTok33",
       "GLOBEX_WEBHOOK_PASSWORD": "GlobexHook44"}


# -- a real loopback sandbox and the CLI as a subprocess --------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, seed=True)
    with serve_on_loopback(app) as url:
        yield url


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "db.sqlite3", key=KEY, secret=SECRET, seed=True, latency_ms=25)
    with serve_on_loopback(app) as url:
        yield url


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    return {**env, "TENANTDECK_KEY": KEY, "TENANTDECK_SECRET": SECRET, "NO_COLOR": "1", **ENV, **extra}


def cli(url: str | None, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command as ``tenantdeck ARGS`` runs it, in this process (click's runner, the console script's group)
    with exactly the environment ``cli_env`` gives a child: these tests are about what a command does, not about
    its process (the interrupted push, which is, keeps a real one), and a start of Python costs ~1 s."""
    full = env or cli_env()
    args = (*args, "--base-url", url) if url is not None else args
    environ = {**{k: None for k in os.environ if k not in full}, **full}
    result = CliRunner().invoke(tenantdeck_cli, list(args), env=environ, prog_name="tenantdeck")
    err = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        err += "".join(traceback.format_exception(result.exception))  # what a child would have printed
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, err)


def run(coro_fn: Any, url: str) -> Any:
    async def go() -> Any:
        async with ManagementClient(url, KEY, SECRET) as c:
            return await coro_fn(c)

    return asyncio.run(go())


def app_names(url: str) -> list[str]:
    return sorted(a.name for a in run(lambda c: c.list_apps(), url))


def names_with(url: str, key: str, secret: str) -> list[str]:
    async def go() -> list[str]:
        async with ManagementClient(url, key, secret) as c:
            return sorted(a.name for a in await c.list_apps())

    return asyncio.run(go())


def pulled(url: str, tmp_path: Path) -> Path:
    draft = tmp_path / "d.yaml"
    out = cli(url, "pull", "--draft", str(draft))
    assert out.returncode == 0, out.stderr
    return draft


def add_app(draft: Path, name: str, **fields: Any) -> None:
    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        d.apps.append(App.model_validate(factories.app(name, **fields)))

    edit_draft(draft, change)


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """Make ``path`` unwritable even for root (``chattr +i``), as the issue's reproduction does."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
        pytest.skip("cannot make a file immutable here (chattr unavailable or unsupported by this filesystem)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


# -- 1. a create that landed is applied, whatever happens after --------------------------------------------------


@pytest.mark.e2e
def test_unwritable_draft_is_refused_before_the_first_write(server: str, tmp_path: Path) -> None:
    draft = pulled(server, tmp_path)
    add_app(draft, "Brand New", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    before = app_names(server)
    with immutable(draft):
        out = cli(server, "push", "--draft", str(draft), "--yes")
    assert out.returncode == exitcodes.ERROR, out.stderr
    assert "cannot write" in out.stderr and str(draft) in out.stderr and "nothing was pushed" in out.stderr
    assert app_names(server) == before, "nothing may be created when its id cannot be recorded"


def test_a_create_whose_id_cannot_reach_the_draft_is_applied_and_adopted_next_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    add_app(draft, "Brand New", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])

    from tenantdeck.sync.remote import push as push_mod

    real_write = push_mod.DraftIds.write

    def broken(self: Any, **kw: Any) -> bool:
        raise PermissionError(1, "Operation not permitted", str(self.path))

    monkeypatch.setattr(push_mod.DraftIds, "write", broken)
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    assert "0 failed" in err and "could not be written" in err and "next push adopts them" in err
    assert app_named(loaded(draft), "Brand New").id is None

    monkeypatch.setattr(push_mod.DraftIds, "write", real_write)
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    assert "adopted" in err
    from tests.sync.helpers_push import live_summary

    assert live_summary(sandbox)["app_names"].count("Brand New") == 1
    new_id = app_named(loaded(draft), "Brand New").id
    assert new_id and new_id == live_summary(sandbox)["apps"]["Brand New"]["id"]
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK and "No changes" in err, err


def test_created_ids_are_written_back_in_one_save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)

    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        for i in range(12):
            d.apps.append(App.model_validate(factories.app(f"Batch {i}", webhooks=[])))

    edit_draft(draft, change)
    from tenantdeck.draft import save as save_mod

    saves: list[str] = []
    real = save_mod.write_atomic

    def counting(path: Any, text: str, **kw: Any) -> None:
        saves.append(str(path))
        real(path, text, **kw)

    monkeypatch.setattr(save_mod, "write_atomic", counting)
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.OK, err
    assert saves.count(str(draft)) == 1, "12 apps and 12 widgets created: one draft save, not 24"
    assert all(a.id and all(w.id for w in a.widgets) for a in loaded(draft).apps)


# -- 2. the base follows values both sides agree on ------------------------------------------------------------------


@pytest.mark.e2e
def test_a_settled_conflict_advances_the_base_so_a_later_remote_change_is_never_overwritten(
        server: str, tmp_path: Path) -> None:
    draft = pulled(server, tmp_path)
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = run(lambda c: c.list_widgets(acme_id), server)

    def remote_color(color: str) -> None:
        settings = run(lambda c: c.list_widgets(acme_id), server)[0].settings
        settings = {**settings, "style": {**settings["style"], "primary_color": color}}
        run(lambda c: c.update_widget(acme_id, widget.widget_id, settings), server)

    def local_color(color: str) -> None:
        def change(d: Any) -> None:
            w = app_named(d, "Acme Support").widgets[0]
            if w.style is None:  # a widget extending a preset: override the one value
                from tenantdeck.models.widget import Style

                w.style = Style.model_validate({"primary_color": color})
            else:
                w.style.primary_color = color

        edit_draft(draft, change)

    local_color("#111111")
    remote_color("#222222")
    assert cli(server, "diff", "--draft", str(draft)).returncode == exitcodes.CONFLICT
    local_color("#222222")  # settled: take the live value
    out = cli(server, "push", "--draft", str(draft), "--yes")
    assert out.returncode == exitcodes.OK, out.stderr

    offline = cli(None, "diff", "--draft", str(draft), "--offline")
    assert offline.returncode == exitcodes.OK, offline.stdout + offline.stderr
    assert "primary_color" not in offline.stdout

    remote_color("#333333")  # someone changes it later on the service
    diff = cli(server, "diff", "--draft", str(draft), "--format", "json")
    assert diff.returncode == exitcodes.OK, diff.stdout + diff.stderr
    data = json.loads(diff.stdout)
    assert data["operations"] == []
    assert any(d["path"] == "style.primary_color" and d["after"] == "#333333" for d in data["drift"])
    out = cli(server, "push", "--draft", str(draft), "--yes")
    assert out.returncode == exitcodes.OK, out.stderr
    live = run(lambda c: c.list_widgets(acme_id), server)[0].settings
    assert live["style"]["primary_color"] == "#333333", "the push overwrote a remote change"


# -- 3. a saved plan resumes ----------------------------------------------------------------------------------------


def _journal_lines(journal_dir: Path) -> int:
    if not journal_dir.is_dir():
        return 0
    return sum(p.read_bytes().count(b"\n") for p in journal_dir.glob("*.jsonl"))


@pytest.mark.e2e
@pytest.mark.slow
def test_an_interrupted_saved_plan_is_finished_by_the_same_command(slow_server: str, tmp_path: Path) -> None:
    url = slow_server
    draft = pulled(url, tmp_path)
    for name in ("Plan A", "Plan B"):
        add_app(draft, name, webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    plan_file = tmp_path / "p.json"
    out = cli(url, "plan", "--draft", str(draft), "-o", str(plan_file))
    assert out.returncode in (0, 2), out.stderr
    journal_dir = Workspace(draft).journal_dir
    cmd = [sys.executable, "-m", "tenantdeck", "push", str(plan_file), "--yes", "--base-url", url,
           "--concurrency", "1"]
    proc = procs.start(cmd, ctrl_c=True, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _journal_lines(journal_dir) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    proc.wait(30)

    again = subprocess.run(cmd, env=cli_env(), capture_output=True, text=True, timeout=120)
    assert again.returncode == exitcodes.OK, again.stderr
    assert "stale" not in again.stderr and "changed since the plan" not in again.stderr
    names = app_names(url)
    assert names.count("Plan A") == 1 and names.count("Plan B") == 1, names
    assert all(a.id for a in loaded(draft).apps)
    assert cli(url, "diff", "--draft", str(draft)).returncode == exitcodes.OK


def test_a_saved_plan_with_a_failed_operation_is_finished_by_pushing_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    add_app(draft, "Plan C", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    from tests.sync.test_push import live_plan

    plan = live_plan(sandbox, draft, ENV)
    plan_file = tmp_path / "p.json"
    save_plan(plan, plan_file)

    from tenantdeck.api.errors import ServerError
    from tenantdeck.sync.remote import ops

    real = ops.run_operation
    failed: list[str] = []

    async def flaky(client: Any, op: Any, app_id: Any, payload: Any) -> Any:
        if op.kind == "add_triggers" and not failed:
            failed.append(op.key)
            raise ServerError("add triggers", status=503, message="Service Unavailable")
        return await real(client, op, app_id, payload)

    monkeypatch.setattr(ops, "run_operation", flaky)
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.PARTIAL, err
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.OK, err
    assert "earlier run" in err and "stale" not in err
    from tests.sync.helpers_push import live_summary

    live = live_summary(sandbox)
    assert live["app_names"].count("Plan C") == 1
    assert live["apps"]["Plan C"]["triggers"]["fresh"] == sorted(factories.webhook("fresh")["triggers"])


# -- 4. secret values the service would refuse are found before the first write ------------------------------------


@pytest.mark.e2e
def test_a_secret_value_the_service_refuses_stops_the_push_before_any_write(server: str, tmp_path: Path) -> None:
    draft = pulled(server, tmp_path)
    add_app(draft, "Brand New", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    before = app_names(server)
    out = cli(server, "push", "--draft", str(draft), "--yes", env=cli_env(NEW_HOOK_PW="has-a-dash"))
    assert out.returncode == exitcodes.ERROR, out.stderr
    assert "has-a-dash" not in out.stderr + out.stdout
    assert re.search(rf"{re.escape(str(draft))}:\d+:\d+: error: apps\[\d+\]\.webhooks\[0\]\.password: the value of "
                     r"\$\{NEW_HOOK_PW\} would be refused", out.stderr), out.stderr
    assert "letters and digits" in out.stderr
    assert app_names(server) == before


# -- 5. same-name apps ------------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_init_then_push_against_the_seeded_sandbox_never_silently_duplicates_an_app(
        server: str, tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    assert cli(None, "init", str(draft)).returncode == 0
    before = app_names(server)
    out = cli(server, "push", "--draft", str(draft), "--yes")
    assert out.returncode == exitcodes.CONFLICT, out.stderr
    assert 'already has an app named "Acme Support"' in out.stderr and "--adopt-existing" in out.stderr
    assert app_names(server) == before

    out = cli(server, "push", "--draft", str(draft), "--yes", "--adopt-existing")
    assert out.returncode == exitcodes.OK, out.stderr
    after = app_names(server)
    assert after.count("Acme Support") == 1, "adopted, not created again"
    assert sorted(set(after) - set(before)) == ["Globex"], "only the sample's app the service lacks is created"
    ids = {a.name: a.id for a in loaded(draft).apps}
    live_ids = {a.name: a.id for a in run(lambda c: c.list_apps(), server)}
    assert ids["Acme Support"] == live_ids["Acme Support"]


@pytest.mark.e2e
def test_same_name_apps_on_the_service_pull_into_a_draft_that_validates(server: str, tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    assert cli(None, "init", str(draft)).returncode == 0
    out = cli(server, "push", "--draft", str(draft), "--yes", "--allow-duplicate-names")
    assert out.returncode == exitcodes.OK, out.stderr
    assert app_names(server).count("Acme Support") == 2
    fresh = tmp_path / "fresh.yaml"
    assert cli(server, "pull", "--draft", str(fresh)).returncode == 0
    result = load_draft(fresh)
    assert result.ok, [p.render() for p in result.problems]
    assert cli(None, "validate", str(fresh)).returncode == 0


# -- behaviour users notice -------------------------------------------------------------------------------------------


def test_progress_and_summary_count_the_same_things(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    add_app(draft, "Counted", webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])
    from tenantdeck.api.errors import ValidationFailed
    from tenantdeck.sync.remote import ops

    real = ops.run_operation

    async def failing(client: Any, op: Any, app_id: Any, payload: Any) -> Any:
        if op.kind == "create_webhook":
            raise ValidationFailed("create webhook", status=422, message="refused")
        return await real(client, op, app_id, payload)

    monkeypatch.setattr(ops, "run_operation", failing)
    code, err = run_push(sandbox, draft, ENV)
    assert code == exitcodes.PARTIAL, err
    # the progress line is the TUI's (sync.progress.PushProgress): done of total, and the failed among them
    progress = re.findall(r"push: (\d+)/(\d+) done(?: · (\d+) failed)?", err)[-1]
    summary = re.search(r"(\d+) applied, (\d+) failed, (\d+) not attempted", err)
    assert summary is not None, err
    assert (progress[2] or "0") == summary.group(2), err
    assert int(progress[0]) == int(progress[1]) == sum(int(g) for g in summary.groups())


def test_a_service_that_stops_answering_stops_the_push_with_one_clear_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)

    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        for i in range(6):
            d.apps.append(App.model_validate(factories.app(f"Gone {i}", webhooks=[])))

    edit_draft(draft, change)
    from tenantdeck.sync.remote import ops

    sent: list[str] = []

    async def refused(client: Any, op: Any, app_id: Any, payload: Any) -> Any:
        sent.append(op.key)
        raise TransportError(op.kind.replace("_", " "), message="connection refused", kind="connect")

    monkeypatch.setattr(ops, "run_operation", refused)
    code, err = run_push(sandbox, draft, ENV, concurrency=1)
    assert code == exitcodes.PARTIAL, err
    assert len(sent) == 3, "no new operation starts once the service is gone"
    assert "stopped answering; run the same push again" in err
    assert err.count("not attempted: ") >= 3 and "(the service stopped answering)" in err


def test_diff_shows_drift_as_drift_and_pull_adopts_it(tmp_path: Path) -> None:
    from tenantdeck.sync.render import render_text
    from tests.sync.helpers_push import call
    from tests.sync.test_push import live_plan

    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = call(sandbox, "list_widgets", acme_id)
    main = widget.settings["main"]
    call(sandbox, "update_widget", acme_id, widget.widget_id,
         {**widget.settings, "main": {**main, "send_gifs": not main["send_gifs"]}})
    text = render_text(live_plan(sandbox, draft, {}))
    assert "No changes. The service matches the draft." not in text
    assert "drift" in text and "send_gifs" in text
    run_pull(sandbox, draft)
    text = render_text(live_plan(sandbox, draft, {}))
    assert "No changes. The service matches the draft." in text and "send_gifs" not in text


def test_pull_never_silently_moves_a_draft_app_to_another_region(tmp_path: Path) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    acme = app_named(loaded(draft), "Acme Support")
    other_region = "eu" if acme.region != "eu" else "in"

    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        d.apps = [a for a in d.apps if a.name != "Acme Support"]
        d.apps.append(App.model_validate({**factories.app("Acme Support", webhooks=[]), "region": other_region}))

    edit_draft(draft, change)
    result = run_pull(sandbox, draft)
    assert any("region" in n and "both are kept" in n for n in result.notes), result.notes
    apps = [a for a in loaded(draft).apps if a.name == "Acme Support"]
    assert sorted((a.region, a.id is None) for a in apps) == sorted([(acme.region, False), (other_region, True)])


# -- settling conflicts field by field (issue 11's CLI half) ----------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("way", ["theirs", "mine"])
def test_a_conflict_is_settled_field_by_field_from_the_command_line(server: str, tmp_path: Path, way: str) -> None:
    draft = pulled(server, tmp_path)
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = run(lambda c: c.list_widgets(acme_id), server)

    def remote(settings_change: dict[str, Any]) -> None:
        settings = run(lambda c: c.list_widgets(acme_id), server)[0].settings
        settings = {**settings, "style": {**settings["style"], **settings_change}}
        run(lambda c: c.update_widget(acme_id, widget.widget_id, settings), server)

    def local(d: Any) -> None:
        w = app_named(d, "Acme Support").widgets[0]
        w.style.primary_color = "#111111"
        w.style.background_color = "#ABCDEF"

    edit_draft(draft, local)
    remote({"primary_color": "#222222", "background_color": "#FEDCBA"})
    diff = cli(server, "diff", "--draft", str(draft))
    assert diff.returncode == exitcodes.CONFLICT
    keys = re.findall(r"--take-theirs (\S+)", diff.stdout)
    assert sorted(k.rsplit("/", 1)[1] for k in keys) == ["style.background_color", "style.primary_color"]
    primary = next(k for k in keys if k.endswith("primary_color"))

    # settle one field; the other is still a conflict, so nothing is pushed
    out = cli(server, "push", "--draft", str(draft), "--yes", f"--take-{way}", primary)
    assert out.returncode == exitcodes.CONFLICT, out.stderr
    assert "background_color" in out.stderr and "primary_color (style" not in out.stderr.split("Conflicts")[-1]
    out = cli(server, "push", "--draft", str(draft), "--yes", f"--take-{way}-all")
    assert out.returncode == exitcodes.OK, out.stderr
    live = run(lambda c: c.list_widgets(acme_id), server)[0].settings["style"]
    text = draft.read_text(encoding="utf-8")
    if way == "theirs":
        assert (live["primary_color"], live["background_color"]) == ("#222222", "#FEDCBA")
        assert "#222222" in text and "#111111" not in text
    else:
        assert (live["primary_color"], live["background_color"]) == ("#111111", "#ABCDEF")
        assert "#111111" in text
    assert cli(server, "diff", "--draft", str(draft)).returncode == exitcodes.OK


def test_pushing_an_applied_saved_plan_again_is_told_apart_from_the_push_in_the_history(tmp_path: Path) -> None:
    """Trial: the second push of a saved plan recorded "complete, applied=1", like the push that applied it."""
    from tenantdeck.sync.workspace.history import read_history, render_history_text
    from tests.sync.test_push import live_plan

    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    text = draft.read_text(encoding="utf-8")
    at = text.index("primary_color:")
    end = text.index("\n", at)
    draft.write_text(text[:at] + 'primary_color: "#FF0000"' + text[end:], encoding="utf-8")  # one operation
    plan_file = tmp_path / "change.json"
    save_plan(live_plan(sandbox, draft, ENV), plan_file)
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.OK, err
    code, err = run_push(sandbox, None, ENV, plan_file=plan_file)
    assert code == exitcodes.OK, err
    first, again = read_history(Workspace(draft).history_path)[-2:]
    n = first["counts"]["applied"]
    assert n >= 1 and first["counts"]["already"] == 0
    assert f"{n} of its operations {'was' if n == 1 else 'were'} applied by an earlier run" in err
    assert again["counts"]["applied"] == n and again["counts"]["already"] == n  # `applied` keeps its meaning
    text = render_history_text([first, again]).splitlines()
    rows = [line for line in text if not line.startswith(" ")]
    assert f"applied={n} failed" in rows[0] and "already" not in rows[0]
    assert f"applied=0 already={n} failed" in rows[1]


@settings(max_examples=examples(100), deadline=None)
@given(credential=st.text(min_size=1, max_size=40), before=st.text(max_size=10), after=st.text(max_size=10),
       other=st.text(max_size=60))
def test_a_value_holding_a_credential_in_any_case_is_found(credential: str, before: str, after: str,
                                                           other: str) -> None:
    """``preflight.holds_credential``: a long credential anywhere in a value, in any letter case, is found; a
    short one as the whole value (trimmed); a value that does not hold it is not flagged."""
    from tenantdeck.sync.preflight import CONTAINED_FROM, holds_credential

    assume(credential.strip())
    whole = holds_credential(f" {credential.upper()}\n", [credential])
    assert whole or credential.upper().casefold() != credential.casefold()  # a case mapping that changes length
    if len(credential.strip()) >= CONTAINED_FROM:
        assert holds_credential(before + credential + after, [credential])
    if credential.strip().casefold() not in other.casefold():
        assert not holds_credential(other, [credential])


def test_a_secret_holding_the_management_credential_is_never_sent(tmp_path: Path) -> None:
    """Trial J, J13: a webhook password of ``${PROD_SECRET}`` (the variable a profile signs in with), pointed at
    another host, was pushed: the service then sent the account's management secret as Basic Auth on every event.
    Whatever variable holds the target's key or secret, ``plan``/``diff`` and ``push`` refuse it before any write,
    naming the variable, never the value; ``validate`` refuses the default credential names offline. The secret
    here is a valid webhook password (letters and digits), as the trial's was: nothing else refuses it."""
    secret = "Psecret12345"
    app = create_app(tmp_path / "db.sqlite3", key="pkey12345", secret=secret, seed=True)
    env = cli_env(TENANTDECK_KEY="pkey12345", TENANTDECK_SECRET=secret, COPY_OF_SECRET=secret)
    with serve_on_loopback(app) as server:
        draft = tmp_path / "d.yaml"
        assert cli(server, "pull", "--draft", str(draft), env=env).returncode == 0
        add_app(draft, "Brand New", webhooks=[factories.webhook("fresh", password="${COPY_OF_SECRET}")])
        before = names_with(server, "pkey12345", secret)
        for command in (("plan", str(draft)), ("diff", str(draft)), ("push", "--draft", str(draft), "--yes")):
            out = cli(server, *command, env=env)
            assert out.returncode == exitcodes.ERROR, (command, out.stderr)
            assert secret not in out.stderr + out.stdout
            said = out.stdout + out.stderr
            assert re.search(r":\d+:\d+: error: apps\[\d+\]\.webhooks\[0\]\.password: \$\{COPY_OF_SECRET\} holds "
                             r"the credential tenantdeck signs in to the service with", said), command
        # inside a longer value, in another case (trial L, L5: an exact match only was refused)
        out = cli(server, "push", "--draft", str(draft), "--yes", env={**env, "COPY_OF_SECRET": f"x{secret.upper()}x"})
        assert out.returncode == exitcodes.ERROR and "${COPY_OF_SECRET} holds the credential" in out.stderr, out.stderr
        assert names_with(server, "pkey12345", secret) == before

    text = draft.read_text(encoding="utf-8").replace("${COPY_OF_SECRET}", "${TENANTDECK_SECRET}")
    draft.write_text(text, encoding="utf-8")
    checked = cli(None, "validate", str(draft), env=env)
    assert checked.returncode == exitcodes.ERROR, checked.stdout
    assert re.search(r":\d+:\d+: error: apps\[\d+\]\.webhooks\[0\]\.password: \$\{TENANTDECK_SECRET\} is the "
                     r"credential tenantdeck signs in to the service with", checked.stdout), checked.stdout


def test_a_new_saved_plan_equal_to_an_applied_one_is_pushed_not_taken_for_its_earlier_run(tmp_path: Path) -> None:
    """Trial L, L2: a toggle turned on (saved plan, pushed), off (pushed), on again: the new ``on2.json`` has the
    operations of ``on1.json``, and the journal matched saved plans by their operations' hash, so it was reported
    "1 applied (1 by an earlier run)", exit 0, with nothing sent and ``diff`` still showing the change. A saved
    plan resumes its own runs only. Fails without the plan's own id: the last push sends nothing."""
    from tests.sync.test_push import live_plan

    env: dict[str, str] = {}  # the trial's: the draft's secrets unset, so each plan is the one toggle
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)

    def gifs(on: bool) -> None:
        edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").widgets[0].main, "send_gifs", on))

    def live_gifs() -> bool:
        from tests.sync.helpers_push import call

        acme = app_named(loaded(draft), "Acme Support").id
        return bool(call(sandbox, "list_widgets", acme)[0].settings["main"]["send_gifs"])

    gifs(True)
    on1 = live_plan(sandbox, draft, env)
    save_plan(on1, tmp_path / "on1.json")
    code, err = run_push(sandbox, None, env, plan_file=tmp_path / "on1.json")
    assert code == exitcodes.OK and live_gifs() is True, err
    gifs(False)
    code, err = run_push(sandbox, draft, env)
    assert code == exitcodes.OK and live_gifs() is False, err
    gifs(True)
    on2 = live_plan(sandbox, draft, env)
    assert on2.plan_hash() == on1.plan_hash() and on2.plan_id != on1.plan_id  # the same requests, another plan
    save_plan(on2, tmp_path / "on2.json")
    code, err = run_push(sandbox, None, env, plan_file=tmp_path / "on2.json")
    assert code == exitcodes.OK, err
    assert "earlier run" not in err and "Push complete: 1 applied, 0 failed" in err, err
    assert live_gifs() is True
    # and on1.json, pushed again, is still its own earlier run (applied, not sent again: the service moved since
    # only by this same value)
    code, err = run_push(sandbox, None, env, plan_file=tmp_path / "on1.json")
    assert code == exitcodes.OK and "1 by an earlier run" in err, err


def _gifs_on(draft: Path) -> None:
    """The trial's edit: every ``send_gifs: false`` of the pulled draft turned true."""
    draft.write_text(draft.read_text(encoding="utf-8").replace("send_gifs: false", "send_gifs: true"),
                     encoding="utf-8")


def test_a_saved_plan_edited_with_its_hash_made_again_is_refused_by_the_cli(server: str, tmp_path: Path) -> None:
    """Trial L, L1, as the trial ran it: `plan -o`, then a change that is in neither the draft nor the reviewed
    plan (a primary colour to black) added to the file with its plan_hash computed again, then `push plan.json`:
    it was pushed (exit 0). Now refused before any request (exit 1), saying to make the plan again. Fails without
    the signature."""
    import hashlib

    draft = pulled(server, tmp_path)
    _gifs_on(draft)
    plan_file = tmp_path / "plan.json"
    out = cli(server, "plan", "--draft", str(draft), "-o", str(plan_file))
    assert out.returncode == exitcodes.CHANGES, out.stderr
    doc = forged(json.loads(plan_file.read_text(encoding="utf-8")), "primary_color")
    doc["plan_hash"] = hashlib.sha256(json.dumps(doc["operations"], sort_keys=True,
                                                 separators=(",", ":")).encode()).hexdigest()[:16]
    plan_file.write_text(json.dumps(doc), encoding="utf-8")

    def widgets() -> list[Any]:
        return [w.settings for a in run(lambda c: c.list_apps(), server)
                for w in run(lambda c, a=a: c.list_widgets(a.id), server)]

    before = widgets()
    out = cli(server, "push", str(plan_file), "--yes")
    assert out.returncode == exitcodes.ERROR, out.stderr
    assert f"{plan_file}: signature: does not match this file" in out.stderr
    assert "make the plan again with `tenantdeck plan -o FILE`" in out.stderr
    assert "Push complete" not in out.stderr
    assert widgets() == before  # nothing sent: no colour, not even the reviewed toggle


def test_a_saved_plan_made_for_one_target_is_refused_by_another_with_other_credentials(tmp_path: Path) -> None:
    """The signature binds a plan to the credentials it was made with: `plan -o` against staging, `push` of the
    same file to production (other key and secret) is refused before any request, whatever else matches."""
    staging = create_app(tmp_path / "staging.sqlite3", key=KEY, secret=SECRET, seed=True)
    production = create_app(tmp_path / "prod.sqlite3", key="prod-key", secret="prod-secret", seed=True)
    with serve_on_loopback(staging) as s_url, serve_on_loopback(production) as p_url:
        draft = pulled(s_url, tmp_path)
        _gifs_on(draft)
        plan_file = tmp_path / "plan.json"
        assert cli(s_url, "plan", "--draft", str(draft), "-o", str(plan_file)).returncode == exitcodes.CHANGES
        prod_env = cli_env(TENANTDECK_KEY="prod-key", TENANTDECK_SECRET="prod-secret")
        out = cli(p_url, "push", str(plan_file), "--yes", "--rebind", env=prod_env)
        assert out.returncode == exitcodes.ERROR, out.stderr
        assert f"{plan_file}: signature: does not match" in out.stderr and "other credentials" in out.stderr
        assert "Push complete" not in out.stderr
        out = cli(s_url, "push", str(plan_file), "--yes")  # where it was made, it is pushed
        assert out.returncode == exitcodes.OK, out.stderr
