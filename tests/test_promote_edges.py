"""Issue 38: the rough edges of ``promote`` and of two accounts in one job, through the real command, against two
sandboxes served on loopback (staging and production, named in profiles.yaml: :func:`two_accounts`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import yaml

from tenantdeck import exitcodes
from tests import test_promote_cli
from tests.loopback import Sandbox
from tests.sync.test_promote import draft_text
from tests.test_promote_cli import run
from tests.yamltext import has_id

two_accounts = test_promote_cli.two_accounts  # the fixture: two sandboxes, two profiles


def promote_has_every_option_it_names(text: str) -> None:
    """Every ``--option`` a promote prints is one promote has (a hint naming another command's option is a
    usage error the user meets next)."""
    import re

    from tenantdeck.cli.promote_cmd import command

    have = {opt for param in command.params for opt in param.opts}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
    assert named <= have, named - have


def client_of(env: dict[str, str], profile: str) -> Any:
    """The management client of ``profile``, as the dashboard (another writer) uses the account."""
    from tenantdeck.api.client import ManagementClient

    profiles = yaml.safe_load((Path(env["TENANTDECK_CONFIG_DIR"]) / "profiles.yaml").read_text())["profiles"]
    spec = profiles[profile]
    return ManagementClient(spec["base_url"], env[spec["key_env"]], env[spec["secret_env"]])


def dashboard_sets_color(env: dict[str, str], profile: str, color: str) -> None:
    """The dashboard of ``profile`` changes the first widget's primary colour of app Acme."""
    async def write() -> None:
        async with client_of(env, profile) as client:
            (app,) = [a for a in await client.list_apps() if a.name == "Acme"]
            widget = (await client.list_widgets(app.id))[0]
            style = {**widget.settings.get("style", {}), "primary_color": color}
            await client.update_widget(app.id, widget.widget_id, {**widget.settings, "style": style})

    asyncio.run(write())


def live_color(env: dict[str, str], profile: str) -> str:
    async def read() -> str:
        async with client_of(env, profile) as client:
            (app,) = [a for a in await client.list_apps() if a.name == "Acme"]
            return str((await client.list_widgets(app.id))[0].settings["style"]["primary_color"])

    return asyncio.run(read())


def staging_and_production(env: dict[str, str], tmp_path: Path) -> Path:
    """The draft pushed to staging, then to production (a target of its targets file); returns the draft."""
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    pushed = run(env, "push", "--profile", "production", "--yes")
    assert pushed.exit_code == 0, pushed.stderr
    return draft


def a_conflict(env: dict[str, str], draft: Path) -> str:
    """Staging's colour changed through the draft, production's in its dashboard: promote stops on the conflict
    and names its key; returns it."""
    text = draft.read_text()
    draft.write_text(text.replace("main: {send_gifs: false}", "main: {send_gifs: false}\n        style: "
                                  "{primary_color: '#222222'}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    dashboard_sets_color(env, "production", "#D32F2F")
    refused = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.CONFLICT, refused.stderr
    (conflict,) = json.loads(refused.stdout)["plan"]["conflicts"]
    assert f"--take-theirs {conflict['key']}" in refused.stderr
    promote_has_every_option_it_names(refused.stderr)
    return str(conflict["key"])


def test_take_theirs_keeps_the_destinations_value_in_this_and_later_promotions(
        two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    draft = staging_and_production(env, tmp_path)
    key = a_conflict(env, draft)
    taken = run(env, "promote", "staging", "production", "--yes", "--take-theirs", key)
    assert taken.exit_code == exitcodes.OK, taken.stderr
    assert live_color(env, "production") == "#D32F2F"
    # written in production's section: the next promotion keeps it too, and so does a push to production
    targets = yaml.safe_load((tmp_path / "tenantdeck.targets.yaml").read_text())
    widgets = targets["targets"]["production"]["apps"]["Acme"]["widgets"]
    assert widgets["Help desk"]["style"] == {"primary_color": "#D32F2F"}, widgets
    again = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["plan"]["operations"] == [], again.stderr
    assert run(env, "diff", "--profile", "production").exit_code == exitcodes.OK
    assert live_color(env, "staging") == "#222222"


def test_take_theirs_all(two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    draft = staging_and_production(env, tmp_path)
    a_conflict(env, draft)
    taken = run(env, "promote", "staging", "production", "--yes", "--take-theirs-all")
    assert taken.exit_code == exitcodes.OK, taken.stderr
    assert live_color(env, "production") == "#D32F2F"


def test_fields_the_service_never_reports_are_promoted(two_accounts: dict[str, str],
                                                      tmp_path: Path) -> None:
    """A webhook's Basic Auth user is never reported by the service: what staging was last sent (its base) is
    promoted, or the promotion says it is not; never a silent success with production's old value."""
    env = two_accounts
    draft = staging_and_production(env, tmp_path)
    draft.write_text(draft.read_text().replace("username: acme", "username: acme2"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    promoted = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert promoted.exit_code == 0, promoted.stderr
    changes = [c["path"] for op in json.loads(promoted.stdout)["plan"]["operations"] for c in op["changes"]]
    assert "username" in changes, promoted.stderr
    diff = run(env, "diff", "--profile", "production")
    assert diff.exit_code == exitcodes.OK, diff.stderr
    assert stored_webhook(tmp_path / "production.sqlite3", "audit")["username"] == "acme2"  # what production holds


def stored_webhook(db: Path, webhook_id: str) -> dict[str, Any]:
    """A webhook as the sandbox holds it, fields the API never reports (the Basic Auth user) included."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        (doc,) = conn.execute("SELECT doc FROM webhooks WHERE webhook_id = ?", (webhook_id,)).fetchone()
    return dict(json.loads(doc))


def restart_with_key(env: dict[str, str], tmp_path: Path, name: str, key: str) -> Any:
    """Stop sandbox ``name`` and serve its database again at the same address with another key (a rotation)."""
    url = yaml.safe_load((Path(env["TENANTDECK_CONFIG_DIR"]) / "profiles.yaml").read_text())["profiles"][name][
        "base_url"]
    test_promote_cli.RUNNING[name].stop()
    served = Sandbox(tmp_path / f"{name}.sqlite3", port=int(url.rsplit(":", 1)[1]), key=key)
    assert served.values["TENANTDECK_BASE_URL"] == url, served.values
    test_promote_cli.RUNNING[name] = served
    return served


def test_a_wrong_key_is_refused_credentials_and_a_rotated_one_is_recorded(two_accounts: dict[str, str],
                                                                         tmp_path: Path) -> None:
    """With the lock file committed, a mistyped key is "the credentials were refused" (exit 1), not "another
    account" (exit 8); after a rotation, the new key is the same account: recorded, and the job goes on."""
    env = two_accounts
    draft = staging_and_production(env, tmp_path)
    lock = (tmp_path / "tenantdeck.production.lock.json")
    apps_before = json.loads(lock.read_text())["apps"]
    for command in (("diff", "--profile", "production"), ("push", "--profile", "production", "--yes"),
                    ("promote", "staging", "production", "--yes")):
        typo = run({**env, "P_KEY": env["P_KEY"] + "x"}, *command)
        assert typo.exit_code == exitcodes.ERROR, (command, typo.stderr)
        assert "refused the credentials" in typo.stderr and "another account" not in typo.stderr, typo.stderr
        if command[0] == "promote":
            promote_has_every_option_it_names(typo.stderr)
    restart_with_key(env, tmp_path, "production", "rotated-key")
    env = {**env, "P_KEY": "rotated-key"}
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    promoted = run(env, "promote", "staging", "production", "--yes")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr
    assert "rotated key" in promoted.stderr, promoted.stderr
    after = json.loads(lock.read_text())
    assert after["target"]["account"] != "" and set(after["apps"]) == set(apps_before)
    assert run(env, "diff", "--profile", "production").exit_code == exitcodes.OK


def test_an_app_of_the_same_name_in_production(two_accounts: dict[str, str], tmp_path: Path) -> None:
    """Production already has an app named as the draft's (made in its dashboard): the clash names the options
    promote has and the targets file (production's id never goes into the draft); --adopt-existing takes it."""
    env = two_accounts
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(draft_text())
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")

    async def create() -> str:
        async with client_of(env, "production") as client:
            return str((await client.create_app("Acme", "eu")).id)

    existing = asyncio.run(create())
    before = draft.read_text()
    clash = run(env, "promote", "staging", "production", "--yes")
    assert clash.exit_code == exitcodes.CONFLICT, clash.stderr
    assert "targets.production.apps" in clash.stderr and "--adopt-existing" in clash.stderr, clash.stderr
    promote_has_every_option_it_names(clash.stderr)
    adopted = run(env, "promote", "staging", "production", "--yes", "--adopt-existing", "--prefer", "draft")
    assert adopted.exit_code == exitcodes.OK, adopted.stderr
    assert has_id((tmp_path / "tenantdeck.targets.yaml").read_text(), existing)
    assert draft.read_text() == before


def test_every_command_line_a_hint_names_parses(tmp_path: Path, monkeypatch: Any) -> None:
    """Every `tenantdeck ...` command line quoted in the source (messages and docstrings) parses with the real
    command, placeholders filled with a word: a hint that is itself a usage error (exit 64) is a bug. A value the
    word does not fit (a file that does not exist, a number) is fine: the shape of the line is what is checked.
    Synopses (``a|b``, ``[OPT]``, a redirection) are not command lines. A draft placeholder is an existing draft
    (push's positional must then refuse it), any other an existing file."""
    import re
    import shlex

    import click

    from tenantdeck.cli import cli

    root = Path(__file__).resolve().parent.parent / "src" / "tenantdeck"
    lines = {m for path in root.rglob("*.py") for m in re.findall(r"`(tenantdeck [^`\n]+)`", path.read_text())}
    lines = {line for line in lines if not re.search(r"[|\[>]|ARGS|\{args", line)}
    assert len(lines) > 10
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tenantdeck.yaml").write_text(draft_text())
    (tmp_path / "X").write_text("{}")
    failures = []
    for line in sorted(lines):
        filled = re.sub(r"\{[^}]*\}", lambda m: "tenantdeck.yaml" if "draft" in m.group() else "X", line)
        words = shlex.split(filled.replace("...", ""))[1:]
        name, cmd, rest = "tenantdeck", cli, words
        while isinstance(cmd, click.Group) and rest and not rest[0].startswith("-"):
            name, sub, rest = cmd.resolve_command(cmd.make_context(name, [], resilient_parsing=True), rest)
            assert sub is not None and name is not None, line
            cmd = sub
        try:
            cmd.make_context(name, list(rest))
        except (click.exceptions.Exit, click.BadParameter):
            pass  # --help; a word that is not a valid value
        except click.UsageError as exc:
            failures.append(f"`{line}`: {exc}")
    assert not failures, failures


def test_the_first_promotion_into_an_account_that_has_the_apps(two_accounts: dict[str, str],
                                                               tmp_path: Path) -> None:
    """Production has the apps (its ids in the targets file) but no base here yet (a fresh clone without its lock
    file): every difference is a conflict, and the refusal says --prefer is the way through; it is."""
    import shutil

    env = two_accounts
    draft = staging_and_production(env, tmp_path)
    (tmp_path / "tenantdeck.production.lock.json").unlink()
    shutil.rmtree(tmp_path / ".tenantdeck")
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    refused = run(env, "promote", "staging", "production", "--yes")
    assert refused.exit_code == exitcodes.CONFLICT, refused.stderr
    assert "no base for this account yet" in refused.stderr and "--prefer draft" in refused.stderr, refused.stderr
    promote_has_every_option_it_names(refused.stderr)
    promoted = run(env, "promote", "staging", "production", "--yes", "--prefer", "draft")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr
    assert (tmp_path / "tenantdeck.production.lock.json").is_file()
    # what is left is the secret a promotion never carries (its base has no record of it: docs/ci.md)
    diff = run(env, "diff", "--profile", "production", "--format", "json")
    changed = [c["path"] for op in json.loads(diff.stdout)["operations"] for c in op["changes"]]
    assert changed == ["password"], diff.stderr


def test_what_the_source_never_reported_nor_was_sent_is_named_not_promoted() -> None:
    """A webhook made in staging's dashboard with Basic Auth: the service never reports the user, tenantdeck never
    sent it, so nobody knows it: the promotion says it is not promoted (production keeps its own)."""
    from tenantdeck.sync.remote.promote import unreported_notices

    unknown = {"unknown": True}
    state = {"webhooks": {"audit": {"username": "acme", "useBasicAuth": True, "retryOnFailure": unknown},
                          "new": {"username": unknown, "useBasicAuth": unknown, "password": unknown}}}
    carried, missing = unreported_notices("Acme", state, "staging")
    assert "webhooks.audit.username" in carried and "webhooks.audit.useBasicAuth" in carried
    assert missing.startswith("app 'Acme': not promoted") and "webhooks.new.username" in missing
    assert "webhooks.audit.retryOnFailure" in missing and "password" not in carried + missing


def test_a_pulled_apps_settings_reach_an_account_that_does_not_have_the_app(two_accounts: dict[str, str],
                                                                            tmp_path: Path) -> None:
    """`pull` writes every setting the service reports, the list the API cannot set included (docs/ci.md's first
    step). A push or a promotion that creates the app elsewhere sends the booleans and leaves that list to the new
    app: refusing it would stop every first promotion of a pulled account (exit 3 with nothing to settle)."""
    env = two_accounts
    draft = tmp_path / "tenantdeck.yaml"
    settings = ("    settings:\n      core.conversations.updateOnReplies: true\n"
                "      core.notifications.push.advanced.included: [preferences, templates, providers.multiple]\n")
    draft.write_text(draft_text().replace("    region: eu\n", "    region: eu\n" + settings))
    created = run(env, "push", "--profile", "staging", "--yes")
    assert created.exit_code == exitcodes.OK, created.stderr
    assert "advanced.included" in created.stderr and "the API cannot set it" in created.stderr, created.stderr
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets:\n  production: {}\n")
    promoted = run(env, "promote", "staging", "production", "--yes")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr

    async def replies() -> object:
        async with client_of(env, "production") as client:
            (app,) = [a for a in await client.list_apps() if a.name == "Acme"]
            return (await client.get_app_settings(app.id))["core.conversations.updateOnReplies"]

    assert asyncio.run(replies()) is True
    for profile in ("staging", "production"):
        diff = run(env, "diff", "--profile", profile, "--format", "json")
        assert diff.exit_code == exitcodes.OK, (profile, diff.stdout)


def test_what_the_source_has_that_is_not_valid_is_said_to_be_the_sources(two_accounts: dict[str, str],
                                                                        tmp_path: Path) -> None:
    """Staging's dashboard turned message translation on without its extension: the promotion refuses it, placed
    at the draft's line for the value (where the draft says false), so the refusal says the value is staging's and
    where to fix it; a hint that only said "turn the toggle off" pointed at a line that already has it off."""
    env = two_accounts
    draft = tmp_path / "tenantdeck.yaml"
    enabled = "    extensions: {enabled: [widget, polls, reactions, stickers]}\n"  # the preset's toggles need them
    draft.write_text(draft_text().replace("    region: eu\n", "    region: eu\n" + enabled))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0

    async def translation_on() -> None:
        async with client_of(env, "staging") as client:
            (app,) = [a for a in await client.list_apps() if a.name == "Acme"]
            widget = (await client.list_widgets(app.id))[0]
            main = {**widget.settings.get("main", {}), "enable_message_translation": True}
            await client.update_widget(app.id, widget.widget_id, {**widget.settings, "main": main})

    asyncio.run(translation_on())
    refused = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.ERROR, refused.stderr
    assert "tenantdeck.yaml:" in refused.stderr and "enable_message_translation" in refused.stderr, refused.stderr
    assert "the values are staging's" in refused.stderr and "`tenantdeck pull --profile staging`" in refused.stderr
    assert json.loads(refused.stdout)["refusal"]["kind"] == "invalid_draft"


def test_a_rotated_secret_reads_the_bases_fingerprints_as_unknown_not_as_will_rotate(
        two_accounts: dict[str, str], tmp_path: Path) -> None:
    """docs/ci.md, "Rotating the key or the secret": after a new management secret the committed base's secret
    fingerprints (made with the old one) cannot be compared: the webhook password is neither "will rotate" nor
    pushed, and the promotion finds nothing to do."""
    env = two_accounts
    staging_and_production(env, tmp_path)
    lock = tmp_path / "tenantdeck.production.lock.json"
    url = yaml.safe_load((Path(env["TENANTDECK_CONFIG_DIR"]) / "profiles.yaml").read_text())["profiles"][
        "production"]["base_url"]
    test_promote_cli.RUNNING["production"].stop()
    test_promote_cli.RUNNING["production"] = Sandbox(tmp_path / "production.sqlite3", port=int(url.rsplit(":", 1)[1]),
                                                     key=env["P_KEY"], secret="rotated-secret")
    env = {**env, "P_SECRET": "rotated-secret"}
    import shutil

    shutil.rmtree(tmp_path / ".tenantdeck")  # a CI job's fresh clone: the lock file is its only base
    diff = run(env, "diff", "--profile", "production", "--format", "json")
    assert diff.exit_code == exitcodes.OK, diff.stderr
    assert "will rotate" not in diff.stderr, diff.stderr
    promoted = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr
    assert json.loads(promoted.stdout)["plan"]["operations"] == [], promoted.stderr
    assert "rotated-secret" not in lock.read_text()


def _first_promotion(env: dict[str, str], tmp_path: Path) -> tuple[Path, list[str]]:
    """Production has the apps but no base here (a fresh clone without its lock file), staging a change: promote
    stops on conflicts; returns the draft and the keys of the conflicts the refusal names."""
    import shutil

    draft = staging_and_production(env, tmp_path)
    (tmp_path / "tenantdeck.production.lock.json").unlink()
    shutil.rmtree(tmp_path / ".tenantdeck")
    draft.write_text(draft.read_text().replace("main: {send_gifs: false}", "main: {send_gifs: true}"))
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    refused = run(env, "promote", "staging", "production", "--yes", "--format", "json")
    assert refused.exit_code == exitcodes.CONFLICT, refused.stderr
    keys = [c["key"] for c in json.loads(refused.stdout)["plan"]["conflicts"] if c.get("key")]
    assert keys and "--take-mine KEY" in refused.stderr, refused.stderr
    return draft, keys


def _gifs_on_production(env: dict[str, str]) -> bool:
    async def read() -> bool:
        async with client_of(env, "production") as client:
            (app,) = [a for a in await client.list_apps() if a.name == "Acme"]
            return bool((await client.list_widgets(app.id))[0].settings["main"]["send_gifs"])

    return asyncio.run(read())


def test_take_mine_settles_a_first_promotion(two_accounts: dict[str, str], tmp_path: Path) -> None:
    """A trial found `--take-mine KEY`, the hint of a first promotion, did nothing there (exit 3 again: no base to
    record the live value in), while --take-theirs and --prefer draft worked. Each key it names now settles."""
    env = two_accounts
    _, keys = _first_promotion(env, tmp_path)
    taken = run(env, "promote", "staging", "production", "--yes", *[a for k in keys for a in ("--take-mine", k)])
    assert taken.exit_code == exitcodes.OK, taken.stderr
    assert "keeping the draft's value" in taken.stderr and _gifs_on_production(env) is True
    diff = run(env, "diff", "--profile", "production", "--format", "json")
    changed = {c["path"] for op in json.loads(diff.stdout)["operations"] for c in op["changes"]}
    # what is left is what the service never reports and so was never a conflict to settle (the webhook's
    # Basic Auth and its secret): --take-mine-all or --prefer draft sends those too (docs/ci.md)
    assert changed <= {"password", "useBasicAuth", "username"}, diff.stderr


def test_take_mine_all_settles_a_first_promotion(two_accounts: dict[str, str], tmp_path: Path) -> None:
    env = two_accounts
    _first_promotion(env, tmp_path)
    taken = run(env, "promote", "staging", "production", "--yes", "--take-mine-all")
    assert taken.exit_code == exitcodes.OK, taken.stderr
    assert _gifs_on_production(env) is True
    diff = run(env, "diff", "--profile", "production", "--format", "json")
    changed = [c["path"] for op in json.loads(diff.stdout)["operations"] for c in op["changes"]]
    assert changed == ["password"], diff.stderr  # the secret a promotion never carries, as with --prefer draft


def test_a_first_promote_without_a_targets_file_says_what_to_write(two_accounts: dict[str, str],
                                                                   tmp_path: Path) -> None:
    """Without tenantdeck.targets.yaml a first promote exited 8 ("another account ...") and never named the file
    that says production is a target of this draft."""
    env = two_accounts
    (tmp_path / "tenantdeck.yaml").write_text(draft_text())
    assert run(env, "push", "--profile", "staging", "--yes").exit_code == 0
    refused = run(env, "promote", "staging", "production", "--yes")
    assert refused.exit_code != exitcodes.OK
    assert "tenantdeck.targets.yaml" in refused.stderr and "production" in refused.stderr, refused.stderr
    assert "Check the profile's base_url" not in refused.stderr  # the credentials are right: no wrong advice
    promote_has_every_option_it_names(refused.stderr)
    (tmp_path / "tenantdeck.targets.yaml").write_text("format: 1\ntargets: {production: {}}\n")  # as it says
    promoted = run(env, "promote", "staging", "production", "--yes")
    assert promoted.exit_code == exitcodes.OK, promoted.stderr
