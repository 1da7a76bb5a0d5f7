"""`tenantdeck pull` against the real sandbox in process: draft, base snapshot, secrets, re-pull, CLI, failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import AuthError, MalformedResponse, TransportError
from tenantdeck.draft import load_draft
from tenantdeck.models import WidgetDraft
from tenantdeck.models.secrets import derived_secret_name, fingerprint
from tenantdeck.sandbox import create_app
from tenantdeck.sandbox.store import Store
from tenantdeck.sync.canonical import normalise_widget_settings
from tenantdeck.sync.kinds import canonical_app_from_draft
from tenantdeck.sync.remote.pull import PullError, pull
from tenantdeck.sync.remote_to_draft import (
    SecretNamer,
    extensions_from_canonical,
    widget_from_canonical,
)
from tenantdeck.sync.types import UNKNOWN
from tenantdeck.sync.workspace.state import Workspace
from tests.models import factories

KEY, SECRET = "test-key", "test-secret"
SEED_SECRETS = ("FakeSandboxPassword1", "sandboxfaketoken0000000000000000")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "db.sqlite3"


@pytest.fixture
def sandbox(db: Path) -> Any:
    return create_app(db, key=KEY, secret=SECRET, seed=True)


def run_pull(sandbox: Any, draft: Path, **kw: Any) -> Any:
    async def go() -> Any:
        async with ManagementClient("http://sandbox", KEY, SECRET, transport=httpx.ASGITransport(app=sandbox)) as c:
            return await pull(c, draft, profile="test", base_url="http://sandbox", **kw)

    return asyncio.run(go())


def call(sandbox: Any, method: str, *args: Any) -> Any:
    async def go() -> Any:
        async with ManagementClient("http://sandbox", KEY, SECRET, transport=httpx.ASGITransport(app=sandbox)) as c:
            return await getattr(c, method)(*args)

    return asyncio.run(go())


def all_text(root: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*")
                     if p.is_file() and not p.name.startswith("db.sqlite3") and p.name != "secret.key")


def app_named(draft_path: Path, name: str) -> Any:
    loaded = load_draft(draft_path).draft
    assert loaded is not None
    return next(a for a in loaded.apps if a.name == name)


# --- pull into a new draft ---------------------------------------------------------------------------------------


def test_pull_writes_a_valid_secret_free_draft_and_base(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    result = run_pull(sandbox, draft)

    loaded = load_draft(draft)
    assert loaded.ok, [p.render() for p in loaded.problems]
    assert [p for p in loaded.problems if p.is_error] == []
    assert loaded.draft is not None
    names = [a.name for a in loaded.draft.apps]
    assert names == sorted(names) == ["Acme Support", "Globex Community", "Initech Field Chat"]
    assert (result.apps, result.widgets, result.webhooks) == (3, 1, 3)
    assert result.summary().startswith("pulled 3 apps (1 widget, 3 webhooks, 5 extension settings, 1 team member) "
                                       "into tenantdeck.yaml; base in tenantdeck.lock.json (cache ")

    text = all_text(tmp_path)
    for secret in SEED_SECRETS:
        assert secret not in text

    acme = app_named(draft, "Acme Support")
    assert acme.sms.twilioAuthToken == "${TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN}"
    orders = next(h for h in acme.webhooks if h.id == "orders")
    # Basic Auth is set on the service (seeded), but the service never reports it and tenantdeck never pushed it:
    # nothing is invented, the fields are left out (so left as they are)
    assert (orders.useBasicAuth, orders.username, orders.password, orders.retryOnFailure) == (None,) * 4
    audit = next(h for h in acme.webhooks if h.id == "audit")
    assert audit.password is None and audit.enabled is False
    assert "polls" in acme.extensions.enabled

    ws = Workspace(draft)
    base = ws.load_base()
    assert set(base) == {a.id for a in loaded.draft.apps}
    acme_base = base[acme.id]
    key = ws.secret_key()
    assert acme_base["sms"]["twilioAuthToken"] == {"fingerprint": fingerprint(SEED_SECRETS[1], key)}
    assert acme_base["webhooks"]["orders"]["password"] == UNKNOWN
    assert ws.read_meta()["profile"] == "test"


def test_pulled_draft_and_base_agree(sandbox: Any, tmp_path: Path) -> None:
    """Right after a pull, the draft's canonical form is the base's (but for secrets the service never shows)."""
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    ws = Workspace(draft)
    loaded = load_draft(draft).draft
    base = ws.load_base()
    key = ws.secret_key()
    env = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": SEED_SECRETS[1]}
    for i, app in enumerate(loaded.apps):
        local = canonical_app_from_draft(loaded, i, secret_key=key, env=env)
        remote = base[app.id]
        for hook_id, hook in remote["webhooks"].items():  # what the service does not report, the draft leaves out
            remote["webhooks"][hook_id] = {k: v for k, v in hook.items() if v != UNKNOWN and k != "password"}
        for hook in local["webhooks"].values():
            hook.pop("password", None)
        assert local["widgets"] == remote["widgets"]
        assert local["webhooks"] == remote["webhooks"]
        assert local["sms"] == remote["sms"]
        managed = local["extensions"] or {}
        assert all(remote["extensions"][k] == v for k, v in managed.items())


# --- re-pull into an edited draft --------------------------------------------------------------------------------


def _adopt_preset(draft: Path) -> None:
    """Hand edit: move the Acme widget's settings into a preset, make the widget extend it, add comments."""
    from tenantdeck.draft import save_draft
    from tenantdeck.models import Draft, WidgetSettings

    text = draft.read_text()
    loaded = load_draft(draft).draft
    apps = list(loaded.apps)
    i = next(i for i, a in enumerate(apps) if a.name == "Acme Support")
    widget = apps[i].widgets[0]
    preset = WidgetSettings.model_validate({**normalise_widget_settings(widget.overrides()), "name": "Support preset"})
    new_widget = WidgetDraft.model_validate({"id": widget.id, "extends": "support", "name": "Support widget"})
    apps[i] = apps[i].model_copy(update={"widgets": [new_widget]})
    edited = Draft.model_validate({"format": 1, "presets": {"support": preset}, "apps": apps})
    text = save_draft(draft, edited, original_text=text)
    assert "        extends: support\n" in text
    text = text.replace("        extends: support\n",
                        "        # the support look, shared by every tenant\n        extends: support\n")
    text = text.replace("presets:\n", "# presets are hand-made\npresets:\n", 1)
    text = text.replace("    webhooks:\n      - id: orders",
                        "    webhooks:\n      # order hooks: ask ops\n      - id: orders")
    draft.write_text(text)
    assert load_draft(draft).ok


def test_repull_keeps_comments_presets_and_reference_names(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    _adopt_preset(draft)
    orders_url = "        webhookURL: https://hooks.acme.example/chat/orders\n"
    draft.write_text(draft.read_text().replace(orders_url, orders_url + "        password: ${ORDERS_PW}\n"))
    before = draft.read_text()

    run_pull(sandbox, draft)
    after = draft.read_text()
    assert after == before  # nothing changed remotely: not one byte differs

    # now the service changes one toggle; the re-pull writes exactly that as an override
    acme = app_named(draft, "Acme Support")
    widget = acme.widgets[0]
    settings = load_draft(draft).draft.presets["support"].model_dump(mode="json", exclude_none=True)
    settings["name"] = "Support widget"
    settings["main"]["send_gifs"] = True
    call(sandbox, "update_widget", acme.id, widget.id, settings)

    run_pull(sandbox, draft)
    text = draft.read_text()
    assert "# the support look, shared by every tenant" in text
    assert "# order hooks: ask ops" in text
    assert "# presets are hand-made" in text
    assert "${ORDERS_PW}" in text
    repulled = app_named(draft, "Acme Support").widgets[0]
    assert repulled.extends == "support"
    assert repulled.overrides() == {"name": "Support widget", "main": {"send_gifs": True}}
    assert load_draft(draft).ok


def test_app_filter_leaves_other_apps_untouched(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    globex = app_named(draft, "Globex Community")
    acme = app_named(draft, "Acme Support")
    text = draft.read_text().replace("name: Group lifecycle", "name: Group lifecycle  # local edit")
    text = text.replace("name: Order events", "name: Orders renamed locally")
    draft.write_text(text)

    result = run_pull(sandbox, draft, app_ids=[globex.id])
    assert result.apps == 1
    text = draft.read_text()
    assert "Orders renamed locally" in text  # Acme not pulled: local edit kept
    assert "name: Group lifecycle  # local edit" in text
    assert set(Workspace(draft).load_base()) >= {acme.id, globex.id}


def test_unknown_app_id_is_a_pull_error_and_writes_nothing(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    with pytest.raises(PullError, match="no app with id nope"):
        run_pull(sandbox, draft, app_ids=["nope"])
    assert not draft.exists()
    assert not (tmp_path / ".tenantdeck").exists()


def test_deleted_app_and_webhook_leave_draft_and_base_but_local_work_stays(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    globex = app_named(draft, "Globex Community")
    acme = app_named(draft, "Acme Support")
    # local work not pushed yet: a new app (no id) and a new webhook on Acme
    text = draft.read_text()
    text += ("  - name: Brand new tenant\n    region: us\n")
    text = text.replace(
        "    webhooks:\n      - id: orders",
        "    webhooks:\n      - id: pending\n        name: Pending\n        webhookURL: https://p.example/h\n"
        "      - id: orders",
    )
    draft.write_text(text)
    assert load_draft(draft).ok
    call(sandbox, "delete_app", globex.id)
    call(sandbox, "delete_webhook", acme.id, "audit")

    result = run_pull(sandbox, draft)
    loaded = load_draft(draft).draft
    assert [a.name for a in loaded.apps] == ["Acme Support", "Brand new tenant", "Initech Field Chat"]
    assert result.removed_apps == ["Globex Community"]
    hooks = [h.id for h in app_named(draft, "Acme Support").webhooks]
    assert hooks == ["pending", "orders"]
    assert any("not on the service yet" in n for n in result.notes)
    assert globex.id not in Workspace(draft).load_base()


def test_pull_refuses_a_draft_that_does_not_parse(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text("format: 1\napps: [\n")
    with pytest.raises(PullError, match="cannot pull into"):
        run_pull(sandbox, draft)
    assert draft.read_text() == "format: 1\napps: [\n"


# --- conversion units --------------------------------------------------------------------------------------------


def test_a_link_planted_while_a_pull_reads_the_service_is_not_written_through(sandbox: Any, tmp_path: Path) -> None:
    """A pull into a new file (no text to compare) wrote through a symbolic link put at the draft's name while it
    read the service, into the file the link named. Refused (atomic.Redirected, naming both); nothing written."""
    from tenantdeck.atomic import Redirected

    draft = tmp_path / "tenantdeck.yaml"
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("victim content\n")

    async def go() -> Any:
        async with ManagementClient("http://sandbox", KEY, SECRET, transport=httpx.ASGITransport(app=sandbox)) as c:
            listing = c.list_apps

            async def planting(*args: Any, **kwargs: Any) -> Any:
                draft.symlink_to(victim)  # someone who can write the draft's folder, mid-pull
                return await listing(*args, **kwargs)

            c.list_apps = planting  # type: ignore[method-assign]
            return await pull(c, draft, profile="test", base_url="http://sandbox")

    with pytest.raises(Redirected) as refused:
        asyncio.run(go())
    assert f"{draft} is now a symbolic link to {victim}" in str(refused.value)
    assert victim.read_text() == "victim content\n" and draft.is_symlink()


def test_widget_that_unsets_a_preset_value_is_written_complete() -> None:
    from tenantdeck.models import WidgetSettings

    preset = WidgetSettings.model_validate({**factories.full_settings("P"),
                                            "sidebar": {**factories.full_settings()["sidebar"],
                                                        "user_settings": True}})
    remote = normalise_widget_settings(factories.full_settings("Remote"))  # no user_settings at all
    old = WidgetDraft.model_validate({"id": "w1", "extends": "p"})
    widget = widget_from_canonical("w1", remote, existing=old, presets={"p": preset})
    assert widget.extends is None
    assert widget.name == "Remote"
    assert normalise_widget_settings(widget.overrides()) == remote


def test_extensions_keep_only_managed_disabled_ids() -> None:
    from tenantdeck.models import Extensions

    states = {"polls": True, "e2ee": False, "gifs-giphy": False, "stickers": True}
    old = Extensions.model_validate({"enabled": ["stickers"], "disabled": ["e2ee"]})
    new = extensions_from_canonical(states, old)
    assert new.enabled == ["stickers", "polls"] and new.disabled == ["e2ee"]
    assert extensions_from_canonical(None, old) is old
    assert extensions_from_canonical(None, None) is None


def test_derived_secret_names_and_collisions() -> None:
    assert derived_secret_name("Acme Inc.", "hook1", "PASSWORD") == "TENANTDECK_ACME_INC_HOOK1_PASSWORD"
    namer = SecretNamer()
    a = namer.name_for("a1/webhook/h", None, "Acme Inc", "a1", "h", "PASSWORD")
    b = namer.name_for("a2/webhook/h", None, "Acme-Inc", "a2", "h", "PASSWORD")
    assert a == "${TENANTDECK_ACME_INC_H_PASSWORD}"
    assert b == "${TENANTDECK_ACME_INC_H_A2_PASSWORD}"
    assert namer.name_for("a3/sms", "${MY_TOKEN}", "X", "a3", "TWILIO_AUTH_TOKEN") == "${MY_TOKEN}"


def test_webhook_fields_not_returned_are_never_invented() -> None:
    """Issue 8: a field the service does not report is left out of the draft (not kept from the old draft, not
    defaulted): only the reference name of a secret survives, as it is a name, not a value."""
    from tenantdeck.models import Webhook
    from tenantdeck.sync.remote_to_draft import webhook_from_canonical

    old = Webhook.model_validate(factories.webhook("h1", password="${OLD_PW}"))
    state = {"name": "New name", "webhookURL": "https://e.example/h1", "useBasicAuth": UNKNOWN,
             "username": UNKNOWN, "enabled": True, "retryOnFailure": UNKNOWN, "password": UNKNOWN,
             "triggers": ["message_sent"]}
    hook = webhook_from_canonical("h1", state, existing=old, app_name="Acme", app_id="a1", namer=SecretNamer())
    assert hook.name == "New name" and hook.enabled is True
    assert (hook.useBasicAuth, hook.username, hook.retryOnFailure) == (None, None, None)
    assert hook.password == "${OLD_PW}"
    assert hook.triggers == ["message_sent"]


def test_webhook_fields_last_pushed_are_written_from_the_base() -> None:
    from tenantdeck.sync.canonical import with_last_pushed
    from tenantdeck.sync.remote_to_draft import webhook_from_canonical, write_only_note

    live = {"id": "a1", "webhooks": {"h1": {"name": "N", "webhookURL": "https://e.example/h1", "enabled": True,
                                            "useBasicAuth": UNKNOWN, "username": UNKNOWN, "password": UNKNOWN,
                                            "retryOnFailure": UNKNOWN, "triggers": []}}}
    base = {"id": "a1", "webhooks": {"h1": {"name": "Old", "enabled": False, "useBasicAuth": True,
                                            "username": "acme", "password": {"fingerprint": "hmac-sha256:x"},
                                            "retryOnFailure": UNKNOWN, "triggers": []}}}
    state = with_last_pushed(live, base)["webhooks"]["h1"]
    assert state["name"] == "N" and state["enabled"] is True  # what the service reports wins
    assert state["useBasicAuth"] is True and state["username"] == "acme" and state["retryOnFailure"] == UNKNOWN
    hook = webhook_from_canonical("h1", state, existing=None, app_name="Acme", app_id="a1", namer=SecretNamer())
    assert (hook.useBasicAuth, hook.username, hook.retryOnFailure) == (True, "acme", None)
    assert hook.password == "${TENANTDECK_ACME_H1_PASSWORD}"
    note = write_only_note(state)
    assert note == ("tenantdeck: not reported by the service: useBasicAuth, username, retryOnFailure, password "
                    "(one the draft leaves out is left as the service has it)")


# --- failures ----------------------------------------------------------------------------------------------------


def _pull_with(transport: httpx.AsyncBaseTransport, draft: Path, **client_kw: Any) -> Any:
    async def go() -> Any:
        async with ManagementClient("http://sandbox", KEY, SECRET, transport=transport, max_retries=0,
                                    **client_kw) as c:
            return await pull(c, draft)

    return asyncio.run(go())


def test_wrong_credentials_raise_auth_error(sandbox: Any, tmp_path: Path) -> None:
    async def go() -> None:
        async with ManagementClient("http://sandbox", KEY, "wrong", transport=httpx.ASGITransport(app=sandbox)) as c:
            await pull(c, tmp_path / "d.yaml")

    with pytest.raises(AuthError) as info:
        asyncio.run(go())
    assert "wrong" not in str(info.value)
    assert not (tmp_path / "d.yaml").exists()


def test_malformed_and_timeout(tmp_path: Path) -> None:
    garbage = httpx.MockTransport(lambda request: httpx.Response(200, text="<html>hello</html>"))
    with pytest.raises(MalformedResponse):
        _pull_with(garbage, tmp_path / "d.yaml")

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(TransportError):
        _pull_with(httpx.MockTransport(slow), tmp_path / "d.yaml")
    assert not (tmp_path / "d.yaml").exists()


# --- CLI ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    env = {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE", "TENANTDECK_KEY", "TENANTDECK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)

    async def no_wait(_: float) -> None:
        return None

    monkeypatch.setattr(asyncio, "sleep", no_wait)  # retries of the failure tests run instantly
    yield env


def _cli(args: list[str]) -> Any:
    from tenantdeck.cli import cli

    return CliRunner().invoke(cli, args, standalone_mode=True)


def test_cli_pull_local_profile(cli_env: dict[str, str], tmp_path: Path) -> None:
    result = _cli(["pull", "--profile", "local", "--draft", "mine.yaml"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert ("pulled 3 apps (1 widget, 3 webhooks, 5 extension settings, 1 team member) into mine.yaml; base in "
            "mine.lock.json (cache .tenantdeck/mine/)") in result.stderr
    assert load_draft(tmp_path / "mine.yaml").ok
    for secret in SEED_SECRETS:
        assert secret not in result.stderr
        assert secret not in all_text(tmp_path / ".tenantdeck")
        assert secret not in (tmp_path / "mine.yaml").read_text()


def test_cli_unreachable_host_is_one_error_line_after_its_retries(cli_env: dict[str, str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENANTDECK_KEY", "k-secret-value")
    monkeypatch.setenv("TENANTDECK_SECRET", "s-secret-value")
    result = _cli(["pull", "--base-url", "http://127.0.0.1:9", "--draft", "d.yaml"])
    assert result.exit_code == exitcodes.ERROR
    *retries, last = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr and last.startswith("error: list apps failed")
    # the wait is not silence: each retry of the connection is said as it happens (tests/test_cli_logs.py)
    assert len(retries) == 5 and all(line.startswith("note: list apps: could not connect") for line in retries)
    assert "secret-value" not in result.stderr


def test_cli_unknown_app_is_one_line(cli_env: dict[str, str], tmp_path: Path) -> None:
    result = _cli(["pull", "--profile", "local", "--app", "nope"])
    assert result.exit_code == exitcodes.ERROR
    assert result.stderr.strip().splitlines() == [
        "error: no app with id nope on the service; `tenantdeck pull` without --app lists them all"
    ]
    assert not (tmp_path / "tenantdeck.yaml").exists()


def test_cli_auth_failure(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tenantdeck import targets as profiles

    real = profiles.local_target

    def wrong_secret(env: Any = None) -> Any:
        target = real(env)
        target.secret = "not-the-secret"
        return target

    monkeypatch.setattr(profiles, "local_target", wrong_secret)
    result = _cli(["pull", "--profile", "local"])
    assert result.exit_code == exitcodes.ERROR, result.stderr
    assert "HTTP 401" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "not-the-secret" not in result.stderr


def test_base_json_is_plain_and_has_no_secret(sandbox: Any, tmp_path: Path) -> None:
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    for path in Workspace(draft).base_dir.glob("*.json"):
        doc = json.loads(path.read_text())
        assert doc["format"] == 1 and doc["app"]["id"] == path.stem
        assert not any(s in path.read_text() for s in SEED_SECRETS)


def test_store_really_holds_the_password_we_never_see(db: Path, sandbox: Any, tmp_path: Path) -> None:
    """Guards the secret tests above: the seed secret exists on the service side, so its absence means something."""
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    acme = app_named(draft, "Acme Support")
    assert Store(db).webhook_password(acme.id, "orders") == SEED_SECRETS[0]


def test_app_gone_between_list_and_read_is_not_found(tmp_path: Path) -> None:
    from tenantdeck.api.errors import NotFoundError

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/apps":
            return httpx.Response(200, json={"data": [{"id": "a1", "name": "A", "region": "us"}],
                                             "meta": {"pagination": {"current_page": 1, "total_pages": 1}}})
        return httpx.Response(404, json={"error": {"code": "ERR_APP_NOT_FOUND", "message": "no such app"}})

    with pytest.raises(NotFoundError) as info:
        _pull_with(httpx.MockTransport(handler), tmp_path / "d.yaml")
    assert "a1" in str(info.value)
    assert not (tmp_path / "d.yaml").exists()
    assert Workspace(tmp_path / "d.yaml").load_base() == {}


def test_pull_writes_every_toggle_and_field_explicitly(tmp_path: Path) -> None:
    """Issue 2: when the tool writes a draft it writes every toggle explicitly (no silent defaults)."""
    import yaml

    from tenantdeck.models import catalog
    from tests.sync.helpers_push import make_sandbox, run_pull

    draft = tmp_path / "tenantdeck.yaml"
    run_pull(make_sandbox(tmp_path / "db.sqlite3"), draft)
    data = yaml.safe_load(draft.read_text())
    widgets = [w for app in data["apps"] for w in app.get("widgets", [])]
    assert widgets and all("extends" not in w for w in widgets)
    for widget in widgets:
        assert set(widget["main"]) >= {t.key for t in catalog.MAIN_TOGGLES if t.default is not None}
        assert {"chats", "start_a_new_conversation", "group_listing"} <= set(widget["sidebar"])
        assert {"primary_color", "foreground_color", "custom_js"} <= set(widget["style"])
    for hook in (h for app in data["apps"] for h in app.get("webhooks", [])):
        assert {"enabled", "triggers"} <= set(hook)
        assert not {"useBasicAuth", "username", "retryOnFailure"} & set(hook)  # write-only, never pushed: unknown
