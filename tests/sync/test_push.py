"""Push against the real sandbox in process: merge, conflicts, secrets, creates with id write-back, faults, resume."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.models import App, WidgetSettings
from tenantdeck.sync.remote.fetch import fetch_live
from tenantdeck.sync.workspace.history import read_history
from tenantdeck.sync.workspace.journal import Journal, read_journal
from tenantdeck.sync.workspace.local import compare_local, load_local, plan_local
from tenantdeck.sync.workspace.state import Workspace
from tests.models import factories
from tests.sync.helpers_push import (
    app_named,
    call,
    client_for,
    edit_draft,
    live_summary,
    loaded,
    make_sandbox,
    run_pull,
    run_push,
    save_plan,
)

TOKEN_VAR, HOOK_VAR = "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN", "TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD"
SECRETS = {TOKEN_VAR: "TokenValueXq81", HOOK_VAR: "HookPwValueZz93", "NEW_HOOK_PW": "NewHookPwKk27"}


def live_plan(sandbox: Any, draft: Path, env: dict[str, str]) -> Any:
    local = load_local(draft, env)

    async def go() -> Any:
        async with client_for(sandbox) as c:
            return await fetch_live(c, local.app_ids(), secret_key=local.secret_key)

    return plan_local(local, compare_local(local, asyncio.run(go())))


def everything_written(tmp_path: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*")
                     if p.is_file() and not p.name.startswith("db.sqlite3") and p.name != "secret.key")


def add_new_app(d: Any, name: str = "Brand New") -> None:
    d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
    d.apps.append(App.model_validate(factories.app(
        name, webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])))


def test_push_merges_local_and_remote_changes_of_one_widget(sandbox: Any, draft: Path, tmp_path: Path) -> None:
    def change(d: Any) -> None:
        acme = app_named(d, "Acme Support")
        acme.widgets[0].main.send_gifs = True
        acme.webhooks[0].name = "Orders v2"
        acme.webhooks[1].triggers = [*acme.webhooks[1].triggers, "message_sent"]

    edit_draft(draft, change)
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = call(sandbox, "list_widgets", acme_id)
    remote = {**widget.settings, "style": {**widget.settings["style"], "primary_color": "#FF0000"}}
    call(sandbox, "update_widget", acme_id, widget.widget_id, remote)

    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    live = live_summary(sandbox)["apps"]["Acme Support"]
    settings = live["widget_settings"][widget.widget_id]
    assert settings["main"]["send_gifs"] is True and settings["style"]["primary_color"] == "#FF0000"
    assert "message_sent" in live["triggers"]["audit"]
    assert call(sandbox, "get_webhook", acme_id, "orders")["name"] == "Orders v2"

    after = live_plan(sandbox, draft, SECRETS)
    assert after.operations == [] and after.conflicts == []
    assert [(d.path, d.after) for d in after.drift] == [("style.primary_color", "#FF0000")]

    ws = Workspace(draft)
    (record,) = read_history(ws.history_path)
    assert record["result"] == "complete" and record["counts"]["applied"] == 4 and record["who"]
    events = [r["event"] for r in read_journal(Path(record["journal"]))]
    assert events[0] == "start" and events[-1] == "end" and events.count("done") == 4
    text = everything_written(tmp_path) + err
    for value in SECRETS.values():
        assert value not in text


def test_the_history_names_the_journal_wherever_it_is_read_from(sandbox: Any, draft: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A push given the draft by a relative path records its journal by an absolute one, as it records the draft:
    ``history`` and the editor's push summary read the record from any folder (a relative journal path was found
    from the push's folder only; trial J, J12)."""
    def change(d: Any) -> None:
        app_named(d, "Acme Support").widgets[0].main.send_gifs = True

    edit_draft(draft, change)
    monkeypatch.chdir(draft.parent)
    code, err = run_push(sandbox, Path(draft.name), SECRETS)
    assert code == exitcodes.OK, err
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    (record,) = read_history(Workspace(draft).history_path)
    assert Path(record["journal"]).is_absolute() and Path(record["draft"]).is_absolute(), record
    assert [r["event"] for r in read_journal(Path(record["journal"]))][-1] == "end"


def test_conflicts_refuse_the_push(sandbox: Any, draft: Path) -> None:
    edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").widgets[0].style, "primary_color", "#111111"))
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = call(sandbox, "list_widgets", acme_id)
    call(sandbox, "update_widget", acme_id, widget.widget_id,
         {**widget.settings, "style": {**widget.settings["style"], "primary_color": "#222222"}})
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.CONFLICT
    assert "Primary colour (style.primary_color)" in err and '"#111111"' in err and '"#222222"' in err
    assert call(sandbox, "list_widgets", acme_id)[0].settings["style"]["primary_color"] == "#222222"
    assert not Workspace(draft).history_path.exists()


def test_a_secret_the_plan_sends_must_be_set_before_any_request(sandbox: Any, draft: Path) -> None:
    from tenantdeck.models import Webhook

    new_hook = Webhook(id="fresh", name="Fresh", webhookURL="https://example.com/fresh", useBasicAuth=True,
                       username="fresh", password="${FRESH_HOOK_PASSWORD}", triggers=["message_sent"])
    edit_draft(draft, lambda d: app_named(d, "Acme Support").webhooks.append(new_hook))
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.ERROR
    assert "FRESH_HOOK_PASSWORD" in err and "apps[0].webhooks[2].password" in err and "nothing was pushed" in err
    acme_id = app_named(loaded(draft), "Acme Support").id
    assert call(sandbox, "get_webhook", acme_id, "fresh") is None


def test_an_unset_secret_the_plan_does_not_send_is_only_a_warning(sandbox: Any, draft: Path) -> None:
    def rename(d: Any) -> None:
        hook = app_named(d, "Acme Support").webhooks[0]
        hook.name = "Renamed"
        hook.password = f"${{{HOOK_VAR}}}"  # referenced, never pushed (pull leaves a write-only password out)

    edit_draft(draft, rename)
    code, err = run_push(sandbox, draft, {TOKEN_VAR: "x"})
    assert code == exitcodes.OK
    assert HOOK_VAR in err and "left as it is on the service" in err
    assert call(sandbox, "get_webhook", app_named(loaded(draft), "Acme Support").id, "orders")["name"] == "Renamed"


def test_no_terminal_and_no_yes_refuses(sandbox: Any, draft: Path) -> None:
    edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").webhooks[0], "name", "Renamed"))
    code, err = run_push(sandbox, draft, SECRETS, yes=False, interactive=False)
    assert code == exitcodes.USAGE and "pass --yes" in err  # a usage matter, as `tenantdeck` alone in CI


def test_create_app_writes_ids_back_and_second_push_is_a_no_op(sandbox: Any, draft: Path, tmp_path: Path) -> None:
    draft.write_text("# keep this comment\n" + draft.read_text())
    edit_draft(draft, add_new_app)
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    new = app_named(loaded(draft), "Brand New")
    assert new.id and new.widgets[0].id
    assert draft.read_text().startswith("# keep this comment\n")
    live = live_summary(sandbox)
    assert live["app_names"].count("Brand New") == 1
    assert live["apps"]["Brand New"]["widgets"] == ["Brand New support"]
    assert live["apps"]["Brand New"]["triggers"] == {"fresh": ["group_created", "message_sent"]}
    assert new.id in Workspace(draft).load_base()

    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK and "No changes" in err
    assert live_summary(sandbox)["app_names"].count("Brand New") == 1
    for value in SECRETS.values():
        assert value not in everything_written(tmp_path)


def test_interrupted_create_is_adopted_not_duplicated(sandbox: Any, draft: Path) -> None:
    """An intent without "done" (killed after the POST landed): the next push finds the app by name."""
    edit_draft(draft, add_new_app)
    ws = Workspace(draft)
    with Journal.new(ws.journal_dir, "crashed", beside=ws.folder) as journal:
        journal.write("intent", op="new:Brand New/create_app", kind="create_app", app_id=None,
                      app_name="Brand New", rid="", name="Brand New")
    created = call(sandbox, "create_app", "Brand New", "us")
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.OK, err
    assert "adopted" in err
    assert app_named(loaded(draft), "Brand New").id == created.id
    assert live_summary(sandbox)["app_names"].count("Brand New") == 1


def test_push_converges_against_a_flaky_service(tmp_path: Path) -> None:
    good = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(good, draft)

    def change(d: Any) -> None:
        add_new_app(d)
        for app in d.apps:
            for w in app.widgets:
                w.main.send_gifs = True
            for h in app.webhooks:
                h.retryOnFailure = not h.retryOnFailure

    edit_draft(draft, change)
    flaky = make_sandbox(tmp_path / "db.sqlite3", fail_rate=0.3, rng_seed=7)
    codes = []
    for _ in range(6):
        code, err = run_push(flaky, draft, SECRETS)
        codes.append(code)
        if code == exitcodes.OK:
            break
        assert code == exitcodes.PARTIAL, err
    assert codes[-1] == exitcodes.OK, codes
    plan = live_plan(good, draft, SECRETS)
    assert plan.operations == [] and plan.conflicts == []
    live = live_summary(good)
    assert live["app_names"].count("Brand New") == 1
    for app in live["apps"].values():
        assert len(app["widgets"]) == len(set(app["widgets"]))


def test_saved_plan_is_refused_when_a_touched_resource_moved(sandbox: Any, draft: Path, tmp_path: Path) -> None:
    edit_draft(draft, lambda d: setattr(app_named(d, "Acme Support").widgets[0].main, "send_gifs", True))
    plan = live_plan(sandbox, draft, SECRETS)
    plan_file = tmp_path / "plan.json"
    save_plan(plan, plan_file)
    assert plan.fingerprints and all(v.startswith("sha256:") for v in plan.fingerprints.values())

    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = call(sandbox, "list_widgets", acme_id)
    call(sandbox, "update_widget", acme_id, widget.widget_id, {**widget.settings, "main": {
        **widget.settings["main"], "share_location": True}})
    code, err = run_push(sandbox, None, SECRETS, plan_file=plan_file)
    assert code == exitcodes.CONFLICT
    assert "stale" in err and "Allow sharing location (main.share_location)" in err
    assert call(sandbox, "list_widgets", acme_id)[0].settings["main"]["send_gifs"] is False

    fresh = live_plan(sandbox, draft, SECRETS)
    save_plan(fresh, plan_file)
    code, err = run_push(sandbox, None, SECRETS, plan_file=plan_file)
    assert code == exitcodes.OK, err
    settings = call(sandbox, "list_widgets", acme_id)[0].settings
    assert settings["main"]["send_gifs"] is True and settings["main"]["share_location"] is True


def test_saved_plan_resolves_secrets_at_push_time_only(sandbox: Any, draft: Path, tmp_path: Path) -> None:
    edit_draft(draft, add_new_app)
    plan = live_plan(sandbox, draft, SECRETS)
    plan_file = save_plan(plan, tmp_path / "plan.json")
    text = plan_file.read_text(encoding="utf-8")
    for value in SECRETS.values():
        assert value not in text
    assert '"var": "NEW_HOOK_PW"' in text
    code, err = run_push(sandbox, None, {k: v for k, v in SECRETS.items() if k != "NEW_HOOK_PW"},
                         plan_file=plan_file)
    assert code == exitcodes.ERROR and "NEW_HOOK_PW" in err
    code, err = run_push(sandbox, None, SECRETS, plan_file=plan_file)
    assert code == exitcodes.OK, err
    assert live_summary(sandbox)["apps"]["Brand New"]["webhooks"] == ["fresh"]


def test_failed_operation_makes_a_partial_push_with_reasons(sandbox: Any, draft: Path) -> None:
    acme_id = app_named(loaded(draft), "Acme Support").id

    def change(d: Any) -> None:
        d.apps[0].webhooks[0].name = "Renamed"
        d.apps[1].webhooks[0].name = "Also renamed"

    edit_draft(draft, change)
    call(sandbox, "delete_app", acme_id)  # the update of that app's webhook will fail
    code, err = run_push(sandbox, draft, SECRETS)
    # the app vanished remotely: that is reported as a conflict before anything runs
    assert code == exitcodes.CONFLICT and "not found on the service" in err
