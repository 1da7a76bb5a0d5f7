"""A committable base (issue 19, item 2): the lock file beside the draft is what a fresh clone diffs against.

Through the CLI against the in-process sandbox, as a CI job on a fresh checkout runs it: pull, commit (the draft
and ``tenantdeck.lock.json``; ``.tenantdeck/`` is gitignored, so it is gone), someone changes a colour in the
dashboard, the job pushes an unrelated toggle. The colour must stay; the secret must not "rotate". Without any
base, a difference is a conflict (exit 3) naming the field, and ``--prefer draft`` says which side wins.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.targets import local_target

COLOUR, THEIRS = "'#03A9F4'", "#ABCDEF"
TOKEN_VAR = "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN"


def env_of(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "sandbox"),
            "NO_COLOR": "1", **extra}


def run(tmp_path: Path, *args: str, **env: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=env_of(tmp_path, **env), catch_exceptions=False)


def service(tmp_path: Path, method: str, *args: Any) -> Any:
    async def go() -> Any:
        async with local_target(env_of(tmp_path)).client() as client:
            return await getattr(client, method)(*args)

    return asyncio.run(go())


def acme(tmp_path: Path) -> tuple[str, Any]:
    app = next(a for a in service(tmp_path, "list_apps") if a.name == "Acme Support")
    return app.id, service(tmp_path, "list_widgets", app.id)[0]


def dashboard_colour_change(tmp_path: Path) -> None:
    app_id, widget = acme(tmp_path)
    settings = dict(widget.settings)
    settings["style"] = {**settings["style"], "primary_color": THEIRS}
    service(tmp_path, "update_widget", app_id, widget.widget_id, settings)


def flip_gifs(draft: Path) -> None:
    text = draft.read_text(encoding="utf-8")
    assert text.count("send_gifs: false") == 1
    draft.write_text(text.replace("send_gifs: false", "send_gifs: true"), encoding="utf-8")


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A fresh checkout of a pulled draft: the draft and its lock file, no ``.tenantdeck/``."""
    draft = tmp_path / "repo" / "tenantdeck.yaml"
    draft.parent.mkdir()
    assert run(tmp_path, "pull", "--draft", str(draft)).exit_code == 0
    shutil.rmtree(draft.parent / ".tenantdeck")
    return draft


def test_a_fresh_clone_pushes_its_toggle_and_keeps_the_dashboard_colour(clone: Path, tmp_path: Path) -> None:
    token = service(tmp_path, "get_sms", acme(tmp_path)[0])["twilioAuthToken"]
    dashboard_colour_change(tmp_path)
    flip_gifs(clone)
    result = run(tmp_path, "push", "--yes", "--draft", str(clone), **{TOKEN_VAR: token})
    assert result.exit_code == exitcodes.OK, result.output
    assert "will rotate" not in result.output
    assert f'"{THEIRS}" -> "#03A9F4"' not in result.output  # the colour is drift to keep, not a change to send
    assert f'"#03A9F4" -> "{THEIRS}"' in result.output
    widget = acme(tmp_path)[1].settings
    assert widget["style"]["primary_color"] == THEIRS
    assert widget["main"]["send_gifs"] is True
    # the lock file followed the push: a second fresh clone is in sync with the service
    shutil.rmtree(clone.parent / ".tenantdeck")
    again = run(tmp_path, "diff", "--draft", str(clone), **{TOKEN_VAR: token})
    assert again.exit_code == exitcodes.OK, again.output


def test_offline_without_the_key_a_locked_secret_is_unknown_never_a_rotation(clone: Path, tmp_path: Path) -> None:
    # offline on a fresh clone there is no account secret: the lock file's fingerprints cannot be checked
    result = run(tmp_path, "diff", "--offline", "--draft", str(clone), **{TOKEN_VAR: "another-value"})
    assert result.exit_code == exitcodes.OK, result.output
    assert "rotate" not in result.output


def test_with_no_base_and_no_lock_a_difference_is_a_conflict_until_a_side_is_preferred(
        clone: Path, tmp_path: Path) -> None:
    (clone.parent / "tenantdeck.lock.json").unlink(missing_ok=True)
    dashboard_colour_change(tmp_path)
    flip_gifs(clone)
    before = clone.read_bytes()
    refused = run(tmp_path, "push", "--yes", "--draft", str(clone))
    assert refused.exit_code == exitcodes.CONFLICT, refused.output
    assert "Primary colour" in refused.output and "Allow GIFs" in refused.output
    assert acme(tmp_path)[1].settings["main"]["send_gifs"] is False  # nothing written
    assert clone.read_bytes() == before

    kept = run(tmp_path, "diff", "--draft", str(clone), "--prefer", "live")
    assert kept.exit_code == exitcodes.OK, kept.output  # the service's values win: nothing to push

    pushed = run(tmp_path, "push", "--yes", "--draft", str(clone), "--prefer", "draft")
    assert pushed.exit_code == exitcodes.OK, pushed.output
    widget = acme(tmp_path)[1].settings
    assert widget["main"]["send_gifs"] is True and widget["style"]["primary_color"] == COLOUR.strip("'")


def test_the_lock_file_is_deterministic_and_two_branches_merge(clone: Path, tmp_path: Path) -> None:
    lock = clone.parent / "tenantdeck.lock.json"
    first = lock.read_bytes()
    assert run(tmp_path, "pull", "--draft", str(clone)).exit_code == 0
    assert lock.read_bytes() == first  # the same account gives the same bytes: no churn in git
    doc = json.loads(first)
    assert set(doc) == {"apps", "format", "target"} and doc["target"]["account"].startswith("sandbox:")
    assert "sandbox_db" not in doc["target"]  # nothing about this machine
    ids = sorted(doc["apps"])
    assert len(ids) >= 2

    def branch(app_id: str, name: str) -> Path:
        changed = json.loads(first)
        changed["apps"][app_id]["app"]["name"] = name
        out = tmp_path / f"{name}.json"
        out.write_text(json.dumps(changed, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return out

    ours, theirs = branch(ids[0], "ours"), branch(ids[-1], "theirs")
    base = tmp_path / "base.json"
    base.write_bytes(first)
    merged = subprocess.run(["git", "merge-file", "-p", str(ours), str(base), str(theirs)],
                            capture_output=True, check=False)
    assert merged.returncode == 0, merged.stdout.decode()
    apps = json.loads(merged.stdout)["apps"]
    assert apps[ids[0]]["app"]["name"] == "ours" and apps[ids[-1]]["app"]["name"] == "theirs"


def two_clones_and_a_plan(tmp_path: Path) -> tuple[Path, Path, str, Path]:
    """Two admins' drafts pulled from the same account (``mine``, ``theirs``), the SMS token the drafts' variable
    needs, and a saved plan of ``mine`` with one toggle flipped (Allow GIFs)."""
    mine, theirs = (tmp_path / name / "tenantdeck.yaml" for name in ("mine", "theirs"))
    for draft in (mine, theirs):
        draft.parent.mkdir()
        assert run(tmp_path, "pull", "--draft", str(draft)).exit_code == 0
    token = service(tmp_path, "get_sms", acme(tmp_path)[0])["twilioAuthToken"]
    flip_gifs(mine)
    plan = tmp_path / "mine.plan.json"
    assert run(tmp_path, "plan", "--draft", str(mine), "-o", str(plan), **{TOKEN_VAR: token}).exit_code == 2
    return mine, theirs, token, plan


def test_a_refused_push_leaves_the_committed_base_as_it_was(tmp_path: Path) -> None:
    """Trial J, J1: a saved plan made stale by another admin's push (the same toggle, and one more) is refused
    (exit 3); the one value both now agree on used to be written into the lock file all the same, a committed file
    changed by a command that changed nothing. A refusal writes nothing; the push that goes ahead records the
    agreement, as before."""
    mine, theirs, token, plan = two_clones_and_a_plan(tmp_path)
    flip_gifs(theirs)
    text = theirs.read_text(encoding="utf-8")
    assert text.count("allow_creating_polls: true") == 1
    theirs.write_text(text.replace("allow_creating_polls: true", "allow_creating_polls: false"), encoding="utf-8")
    pushed = run(tmp_path, "push", "--yes", "--draft", str(theirs), **{TOKEN_VAR: token})
    assert pushed.exit_code == exitcodes.OK, pushed.output

    workspace = mine.parent
    before = {p.relative_to(workspace): p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    refused = run(tmp_path, "push", str(plan), "--yes", **{TOKEN_VAR: token})
    assert refused.exit_code == exitcodes.CONFLICT, refused.output
    assert "stale" in refused.output
    after = {p.relative_to(workspace): p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    changed = sorted(str(k) for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert after[Path("tenantdeck.lock.json")] == before[Path("tenantdeck.lock.json")], changed
    assert not [c for c in changed if "cache" in c or (c.endswith(".json") and "history" not in c)], changed

    agreed = run(tmp_path, "push", "--yes", "--draft", str(mine), **{TOKEN_VAR: token})
    assert agreed.exit_code == exitcodes.OK, agreed.output  # nothing to send: both agree
    assert (workspace / "tenantdeck.lock.json").read_bytes() != before[Path("tenantdeck.lock.json")]


def test_a_saved_plan_pushes_only_into_the_draft_it_was_made_from(tmp_path: Path) -> None:
    """Trial J, J10: the plan's draft_path (which picks the draft, and the workspace whose base, journal and history
    the push writes, when --draft is not given) is not covered by its hash; pointed at another workspace's draft,
    the plan was pushed and that workspace's base advanced, so its next push reverted the change. It is refused
    before any request (exit 1): by its signature (trial L, L1), and, signed again by whoever holds the
    credentials, by the draft it names; the same plan still pushes from its own draft."""
    from tenantdeck.sync.remote.planfile import signature

    mine, theirs, token, plan = two_clones_and_a_plan(tmp_path)
    doc = json.loads(plan.read_text(encoding="utf-8"))
    assert doc["draft_path"] == str(mine)
    moved = tmp_path / "moved.plan.json"
    moved.write_text(json.dumps({**doc, "draft_path": str(theirs)}), encoding="utf-8")
    lock = theirs.parent / "tenantdeck.lock.json"
    before = lock.read_bytes()

    refused = run(tmp_path, "push", str(moved), "--yes", **{TOKEN_VAR: token})
    assert refused.exit_code == exitcodes.ERROR, refused.output
    assert "signature: does not match this file" in refused.output
    resigned = {**doc, "draft_path": str(theirs)}
    moved.write_text(json.dumps({**resigned, "signature": signature(resigned, local_target(env_of(tmp_path))
                                                                    .plan_key())}), encoding="utf-8")
    refused = run(tmp_path, "push", str(moved), "--yes", **{TOKEN_VAR: token})
    assert refused.exit_code == exitcodes.ERROR, refused.output
    assert "draft_path" in refused.output and "not the draft this plan was made from" in refused.output
    assert lock.read_bytes() == before
    assert acme(tmp_path)[1].settings["main"]["send_gifs"] is False  # nothing sent

    pushed = run(tmp_path, "push", str(plan), "--yes", **{TOKEN_VAR: token})
    assert pushed.exit_code == exitcodes.OK, pushed.output
    assert acme(tmp_path)[1].settings["main"]["send_gifs"] is True
    assert lock.read_bytes() == before


def test_a_conflict_key_that_names_none_is_said_even_when_there_is_no_conflict(clone: Path, tmp_path: Path) -> None:
    """Trial J, J12: ``--take-theirs`` with a mistyped key was silently accepted when the plan had no conflict (it
    is said when there are conflicts); a typo in a CI command line would pass unnoticed. Said either way, as a
    warning; nothing else changes."""
    token = service(tmp_path, "get_sms", acme(tmp_path)[0])["twilioAuthToken"]
    for command in ("diff", "push"):
        args = [command, "--draft", str(clone), "--take-theirs", "nope/widget:x/main.send_gifs"]
        result = run(tmp_path, *args, *(["--yes"] if command == "push" else []), **{TOKEN_VAR: token})
        assert result.exit_code == exitcodes.OK, result.output
        assert "nope/widget:x/main.send_gifs: no conflict has this name" in result.output, result.output


def test_the_services_developer_named_in_the_drafts_team_is_a_role_change_and_the_owner_an_error(
        clone: Path, tmp_path: Path) -> None:
    """Trial K, K3: the service's developer written in the draft's team passed validate without a word. A developer
    named as moderator is a role change (issue 34: planned and shown as one): validate says so at the email's line, as
    a warning. The owner is refused by the service (422 ERR_ALREADY_AN_OWNER): validate says so at its line, as an
    error, and diff and push refuse it before anything is sent (they planned it, and the push failed at the
    service)."""
    app_id = acme(tmp_path)[0]
    owner = "boss@acme.example"  # the sandbox's own owner@sandbox.invalid is no address a draft may hold
    with sqlite3.connect(local_target(env_of(tmp_path)).sandbox_db) as db:
        db.execute("UPDATE collaborators SET doc = json_set(doc, '$.email', ?) WHERE app_id = ? AND "
                   "json_extract(doc, '$.role') = 'owner'", (owner, app_id))
    assert run(tmp_path, "pull", "--draft", str(clone)).exit_code == exitcodes.OK  # the base lists the owner
    text = clone.read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if "raj@acme.example" in line)
    for email, code, says in (("ANA@Acme.Example", exitcodes.OK, "ANA@Acme.Example is this app's developer on the "
                               "service: a push changes their role from developer to moderator"),
                              (owner.upper(), exitcodes.ERROR, f"{owner.upper()} is this app's owner on the service")):
        edited = [*lines[:at], lines[at].replace("raj@acme.example", email), *lines[at + 1:]]
        clone.write_text("\n".join(edited) + "\n", encoding="utf-8")
        checked = run(tmp_path, "validate", str(clone))
        assert checked.exit_code == code, checked.output
        assert f"{clone}:{at + 1}:" in checked.output and says in checked.output, checked.output
    before = {c["email"]: c["role"] for c in service(tmp_path, "list_collaborators", app_id)}
    for command in ("diff", "push"):
        result = run(tmp_path, command, "--draft", str(clone), *(["--yes"] if command == "push" else []))
        assert result.exit_code == exitcodes.ERROR, result.output
        assert "is this app's owner on the service" in result.output, result.output
    assert {c["email"]: c["role"] for c in service(tmp_path, "list_collaborators", app_id)} == before
