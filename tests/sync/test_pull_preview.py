"""What a pull would change, computed before anything is written (the editor's pull): against the real sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tenantdeck.draft.session import DraftSession
from tenantdeck.sync.remote.pull import preview_pull_target, pull_target, record_pulled_base
from tenantdeck.sync.types import ABSENT
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.targets import local_target


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)
    return path


def _acme(session: DraftSession) -> tuple[int, str]:
    apps = session.get("apps")
    i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
    return i, apps[i]["id"]


async def _flip_remote(app_id: str) -> bool:
    async with local_target().client() as c:
        (widget,) = await c.list_widgets(app_id)
        main = widget.settings["main"]
        await c.update_widget(app_id, widget.widget_id, {**widget.settings, "main": {**main, "send_gifs": not main[
            "send_gifs"]}})
        created = await c.create_app("Pulled In", "eu")
        assert created.id
        return bool(not main["send_gifs"])


def test_a_fresh_pull_previews_nothing(draft: Path) -> None:
    session = DraftSession.open(draft)
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    assert result.preview.empty and result.preview.apps == []
    assert "nothing to pull" in result.preview.summary()


def test_the_preview_names_each_field_and_new_app_and_its_edits_write_only_those(draft: Path) -> None:
    text = draft.read_text(encoding="utf-8")
    draft.write_text("# my own comment at the top\n" + text, encoding="utf-8")
    session = DraftSession.open(draft)
    i, app_id = _acme(session)
    now = asyncio.run(_flip_remote(app_id))
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    preview = result.preview
    by_status = {a.status: a for a in preview.apps}
    changed = by_status["changed"]
    assert changed.name == "Acme Support"
    assert [(c.label, c.path, c.before, c.after) for c in changed.changes] == [
        ("Allow GIFs", "main.send_gifs", not now, now)]
    assert by_status["new"].name == "Pulled In"
    assert session.text == draft.read_text(encoding="utf-8")  # nothing written by the preview
    with session.transaction():
        for verb, path, value in preview.edits:
            session.delete(path) if verb == "delete" else getattr(session, verb)(path, value)
    assert session.get(f"apps[{i}].widgets[0].main.send_gifs") is now
    assert session.get("apps")[-1]["name"] == "Pulled In"
    assert session.text.startswith("# my own comment at the top\n")
    assert session.can_undo
    session.undo()  # one step takes the whole pull back
    assert session.text == draft.read_text(encoding="utf-8")


def test_the_base_advances_only_for_what_the_saved_draft_took(draft: Path) -> None:
    session = DraftSession.open(draft)
    _, app_id = _acme(session)
    asyncio.run(_flip_remote(app_id))
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    before = Workspace(draft).load_base()[app_id]
    # taken back before saving: the base stays, so the remote change is still drift, not a local edit
    record_pulled_base(draft, result.live, {})
    assert Workspace(draft).load_base()[app_id] == before
    with session.transaction():
        for verb, path, value in result.preview.edits:
            session.delete(path) if verb == "delete" else getattr(session, verb)(path, value)
    session.save()
    assert record_pulled_base(draft, result.live, {}) == 2  # Acme advanced, the new app recorded
    base = Workspace(draft).load_base()
    assert base[app_id] == result.live[app_id]
    again = asyncio.run(preview_pull_target(local_target(), draft, DraftSession.open(draft).data, {}))
    assert again.preview.empty


def test_defaults_the_service_fills_in_after_a_create_are_not_shown_as_changes(
        draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20 item 8: a webhook pushed without `enabled`, `useBasicAuth` or `retryOnFailure` comes back with the
    service's defaults; pulling then is not "Enabled: (none) -> true" (nor anything else)."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli

    text = draft.read_text(encoding="utf-8")
    hook = ("    webhooks:\n      - id: fresh\n        name: Fresh\n        webhookURL: https://fresh.example/hook\n"
            "        triggers: [message_sent]\n")
    marker = "    webhooks:\n"
    start = text.index("name: Globex Community")
    at = text.index(marker, start)
    draft.write_text(text[:at] + hook + text[at + len(marker):], encoding="utf-8")
    pushed = CliRunner().invoke(cli, ["push", "--yes", "--draft", str(draft)])
    assert pushed.exit_code == 0, pushed.output
    session = DraftSession.open(draft)
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    fields = [(c.resource, c.path) for a in result.preview.apps for c in a.changes]
    assert not any(path in ("enabled", "useBasicAuth", "retryOnFailure") for _, path in fields), fields


def test_a_team_and_settings_change_on_the_service_are_previewed_by_label(draft: Path) -> None:
    session = DraftSession.open(draft)
    i, app_id = _acme(session)

    async def change() -> None:
        async with local_target().client() as c:
            await c.update_team(app_id, admins=["kim@acme.example"])
            await c.map_settings(app_id, {"core.conversations.updateOnReplies": True})

    asyncio.run(change())
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    (changed,) = result.preview.apps
    assert sorted((c.label, c.path, c.before, c.after) for c in changed.changes) == [
        ("Conversations update on replies", "core.conversations.updateOnReplies", False, True),
        ("Team role", "kim@acme.example", ABSENT, "admin"),
    ]
    with session.transaction():
        for verb, path, value in result.preview.edits:
            session.delete(path) if verb == "delete" else getattr(session, verb)(path, value)
    assert session.get(("apps", i, "team", "admins")) == ["kim@acme.example"]
    assert session.get(("apps", i, "settings", "core.conversations.updateOnReplies")) is True


def test_settings_kept_verbatim_by_the_editors_pull_are_not_deletes(draft: Path, tmp_path: Path) -> None:
    """Issue 34: the editor's pull records in the base what it kept as the service holds it, like ``pull``."""
    import json
    import sqlite3

    from click.testing import CliRunner

    from tenantdeck.cli import cli

    session = DraftSession.open(draft)
    _, app_id = _acme(session)
    settings = {"sendGridApiKey": "SG.fake", "messageDelay": "120", "senderEmail": "ops@acme.example",
                "senderName": "Acme", "sendGridTemplateId": "d-1", "sendGridUnsubscribeGroupId": 4242,
                "useWebhook": False, "useWebhookBasicAuth": False, "sendEmailReplies": False}
    with sqlite3.connect(tmp_path / "data" / "sandbox.sqlite3") as db:
        db.execute("INSERT INTO extension_settings VALUES (?, 'email-notification', ?, 0)",
                   (app_id, json.dumps(settings)))
        db.execute("INSERT OR REPLACE INTO extensions VALUES (?, 'email-notification', 1, 0)", (app_id,))
    result = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    assert any("kept as the service holds it" in n for n in result.preview.notes)
    with session.transaction():
        for verb, path, value in result.preview.edits:
            session.delete(path) if verb == "delete" else getattr(session, verb)(path, value)
    session.save()
    record_pulled_base(draft, result.live, {})
    env = {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1",
           "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}
    diff = CliRunner().invoke(cli, ["diff", "--draft", str(draft)], env=env)
    assert diff.exit_code == 0, diff.output
    assert "No changes" in diff.output and "created remotely" not in diff.output, diff.output


def _push_hook_without_defaults(draft: Path) -> None:
    """The tutorial's webhook from the editor's form: Enabled, Retry and Basic Auth left unset."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli

    text = draft.read_text(encoding="utf-8")
    hook = ("    webhooks:\n      - id: fresh\n        name: Fresh\n        webhookURL: https://fresh.example/hook\n"
            "        triggers: [message_sent]\n")
    marker = "    webhooks:\n"
    at = text.index(marker, text.index("name: Globex Community"))
    draft.write_text(text[:at] + hook + text[at + len(marker):], encoding="utf-8")
    pushed = CliRunner().invoke(cli, ["push", "--yes", "--draft", str(draft)])
    assert pushed.exit_code == 0, pushed.output


def _pulled_changes(draft: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the preview's field changes, the values the CLI's pull then changed in the draft), both as (app, path)."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli
    from tenantdeck.sync.pull_preview import _diff_edits

    session = DraftSession.open(draft)
    before = session.data
    result = asyncio.run(preview_pull_target(local_target(), draft, before, {}))
    listed = sorted((a.name, c.path) for a in result.preview.apps for c in a.changes)
    pulled = CliRunner().invoke(cli, ["pull", "--draft", str(draft)])
    assert pulled.exit_code == 0, pulled.output
    after = DraftSession.open(draft).data
    edits: list = []
    _diff_edits((), before, after, edits)
    names = [a["name"] for a in before["apps"]]
    written = sorted((names[path[1]], str(path[-1])) for _, path, _ in edits)
    return listed, written


def test_a_pull_writes_only_what_its_preview_lists(draft: Path) -> None:
    """Trial: the preview listed one colour, the pull also wrote `useBasicAuth: false`, `enabled: true` and
    `retryOnFailure: false` into a webhook that left them out. Defaults of left-out keys are no difference."""
    _push_hook_without_defaults(draft)

    async def recolour() -> None:
        async with local_target().client() as c:
            app = next(a for a in await c.list_apps() if a.name == "Acme Support")
            widget = (await c.list_widgets(app.id))[0]
            style = widget.settings["style"]
            await c.update_widget(app.id, widget.widget_id,
                                  {**widget.settings, "style": {**style, "primary_color": "#FF0000"}})

    asyncio.run(recolour())
    listed, written = _pulled_changes(draft)
    assert listed == [("Acme Support", "style.primary_color")]
    assert written == [("Acme Support", "primary_color")]
    assert "enabled" not in draft.read_text(encoding="utf-8").split("id: fresh")[1].split("- id:")[0]


def test_a_left_out_key_the_service_holds_other_than_its_default_is_listed_and_written(draft: Path) -> None:
    _push_hook_without_defaults(draft)

    async def disable() -> None:
        async with local_target().client() as c:
            app = next(a for a in await c.list_apps() if a.name == "Globex Community")
            hook = await c.get_webhook(app.id, "fresh")
            assert hook is not None
            body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt")}
            await c.update_webhook(app.id, "fresh", {**body, "enabled": False})

    asyncio.run(disable())
    listed, written = _pulled_changes(draft)
    assert listed == [("Globex Community", "enabled")]
    assert written == listed


def test_the_preview_from_the_sessions_models_is_the_preview_from_its_data(draft: Path) -> None:
    """F5 hands the editor's validated models to the preview instead of validating the draft again: the preview is
    the same either way (changed, new and unchanged apps, their fields, notes and edits)."""
    session = DraftSession.open(draft)
    _, app_id = _acme(session)
    asyncio.run(_flip_remote(app_id))
    session.validate_all()
    loaded = session.load_result()
    assert loaded is not None and loaded.draft is not None
    again = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}))
    reused = asyncio.run(preview_pull_target(local_target(), draft, session.data, {}, draft=loaded.draft))
    assert reused.preview.apps and reused.preview.edits
    assert (reused.preview.apps, reused.preview.edits, reused.preview.notes, reused.preview.unchanged) == (
        again.preview.apps, again.preview.edits, again.preview.notes, again.preview.unchanged)
    assert reused.live == again.live


def _edited_on_both_sides(draft: Path) -> DraftSession:
    """The user's saved, unpushed edits (primary colour, Allow GIFs) and someone else's push (the widget's name,
    Show stickers, and the primary colour too)."""
    session = DraftSession.open(draft)
    i, app_id = _acme(session)
    widget = f"apps[{i}].widgets[0]"
    gifs = session.get(f"{widget}.main.send_gifs")
    with session.transaction():  # the user's own edits, saved, not pushed
        session.set(f"{widget}.style.primary_color", "#03A900")
        session.set(f"{widget}.main.send_gifs", not gifs)
    session.save()

    async def someone_else() -> None:  # meanwhile, on the service
        async with local_target().client() as c:
            (w,) = await c.list_widgets(app_id)
            s = w.settings
            await c.update_widget(app_id, w.widget_id, {
                **s, "name": "Support widget v2", "style": {**s["style"], "primary_color": "#111111"},
                "main": {**s["main"], "show_stickers": not s["main"]["show_stickers"]}})

    asyncio.run(someone_else())
    return session


def test_each_pulled_field_says_whose_change_it_is(draft: Path) -> None:
    """Trial J6: your unpushed edits (base == live), the service's changes (base == draft) and both (a conflict)
    were all one kind of row; ``y`` then discarded the user's edits unseen. The engine says which is which."""
    session = _edited_on_both_sides(draft)
    preview = asyncio.run(preview_pull_target(local_target(), draft, session.data, {})).preview
    (changed,) = preview.apps
    assert sorted((c.path, c.origin) for c in changed.changes) == [
        ("main.send_gifs", "local"), ("main.show_stickers", "remote"), ("name", "remote"),
        ("style.primary_color", "conflict")]
    assert preview.lost == 2
    assert "2 of your unpushed edit(s) would be lost (1 of them changed on the service too)." in preview.summary()


def test_the_cli_pull_names_each_unpushed_edit_it_discards(draft: Path) -> None:
    """``tenantdeck pull`` over the same draft writes the service's values, as it always did (it asks nothing), but
    no longer silently: each unpushed edit it replaced is a note in the editor's words, and JSON counts them."""
    import json

    from click.testing import CliRunner

    from tenantdeck.cli import cli

    _edited_on_both_sides(draft)
    result = CliRunner().invoke(cli, ["pull", "--draft", str(draft), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["discarded_edits"] == 2
    notes = [line for line in result.stderr.splitlines() if "discarded" in line]
    assert any("your edit, discarded: Allow GIFs (main.send_gifs)" in n for n in notes), result.stderr
    assert any("both: yours discarded: Primary colour" in n and '"#03A900" -> "#111111"' in n for n in notes), notes
    assert not any("Show stickers" in n for n in notes), notes  # the service's change: taken, nothing lost
    assert "2 unpushed edit(s) of yours in the draft were replaced" in result.stderr
    assert ".bak" in result.stderr
    again = CliRunner().invoke(cli, ["pull", "--draft", str(draft), "--format", "json"])
    assert json.loads(again.stdout)["discarded_edits"] == 0 and "replaced" not in again.stderr
