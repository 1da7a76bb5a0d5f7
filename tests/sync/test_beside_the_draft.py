"""Trial L, L3: the files beside a draft keep to its folder after every link, read or written.

A pull request can commit ``tenantdeck.lock.json``, ``tenantdeck.policies.yaml``, ``tenantdeck.targets.yaml``,
``.gitignore`` or anything under ``.tenantdeck/`` as a symbolic link, and git checks it out as one. Each case of the
trial, through the CLI against the embedded sandbox as a CI job runs it: the command refuses with the link and where
it leads (exit 1, as an unreadable file), nothing outside the folder is created or changed, and a push refused so
sends nothing (the service's value is still the old one).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tenantdeck import exitcodes
from tenantdeck.targets import local_target
from tests.sync.test_committed_base import env_of, flip_gifs, run

OUTSIDE = "outside the draft's folder"


def live_gifs(tmp_path: Path) -> Any:
    async def go() -> Any:
        async with local_target(env_of(tmp_path)).client() as client:
            app = next(a for a in await client.list_apps() if a.name == "Acme Support")
            return (await client.list_widgets(app.id))[0].settings["main"]["send_gifs"]

    return asyncio.run(go())


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """A pulled draft in ``repo/`` (lock file and workspace beside it), and an empty ``outside/`` next to ``repo/``."""
    path = tmp_path / "repo" / "tenantdeck.yaml"
    path.parent.mkdir()
    (tmp_path / "outside").mkdir()
    assert run(tmp_path, "pull", "--draft", str(path)).exit_code == exitcodes.OK
    return path


def outside_files(tmp_path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (tmp_path / "outside").iterdir()}


def refused_push(tmp_path: Path, draft: Path, *also: str) -> Result:
    """A push of one toggle: refused (exit 1) naming the link, with nothing sent."""
    flip_gifs(draft)
    result = run(tmp_path, "push", "--yes", "--prefer", "draft", "--draft", str(draft), *also)
    assert result.exit_code == exitcodes.ERROR, result.output
    assert live_gifs(tmp_path) is False  # refused before any write to the service
    return result


@pytest.mark.parametrize("command", ["push", "pull", "diff"])
def test_a_lock_file_linked_to_nothing_outside_is_never_created(draft: Path, tmp_path: Path, command: str) -> None:
    lock = draft.with_name("tenantdeck.lock.json")
    lock.unlink()
    created = tmp_path / "outside" / "created-by-push.json"
    lock.symlink_to(created)
    if command == "push":
        result = refused_push(tmp_path, draft)
    else:
        result = run(tmp_path, command, "--draft", str(draft))
        assert result.exit_code == exitcodes.ERROR, result.output
    assert f"tenantdeck.lock.json: resolves to {created.resolve()}, {OUTSIDE}" in result.output
    assert not created.exists() and outside_files(tmp_path) == {}
    assert "Traceback" not in result.output


def test_a_lock_file_linked_to_a_valid_lock_outside_is_neither_read_nor_overwritten(draft: Path,
                                                                                   tmp_path: Path) -> None:
    lock = draft.with_name("tenantdeck.lock.json")
    other = tmp_path / "outside" / "other.lock.json"
    shutil.copy(lock, other)
    lock.unlink()
    lock.symlink_to(other)
    before = outside_files(tmp_path)
    result = refused_push(tmp_path, draft)
    assert f"resolves to {other.resolve()}, {OUTSIDE}" in result.output
    assert outside_files(tmp_path) == before


def test_a_history_linked_outside_is_not_appended_to(draft: Path, tmp_path: Path) -> None:
    rc = tmp_path / "outside" / "rc"
    rc.write_text("echo existing-rc\n")
    history = draft.parent / ".tenantdeck" / "tenantdeck" / "history.jsonl"
    history.symlink_to(rc)
    result = refused_push(tmp_path, draft)
    assert f"history.jsonl: resolves to {rc.resolve()}, {OUTSIDE}" in result.output
    assert rc.read_text() == "echo existing-rc\n"
    shown = run(tmp_path, "history", "--draft", str(draft))
    assert shown.exit_code == exitcodes.ERROR and OUTSIDE in shown.output


def test_a_history_linked_to_the_draft_inside_the_folder_is_not_appended_to(draft: Path, tmp_path: Path) -> None:
    """In the folder, but a file appended to in place: a link there would aim the push's record at the draft."""
    history = draft.parent / ".tenantdeck" / "tenantdeck" / "history.jsonl"
    history.symlink_to("../../tenantdeck.yaml")
    flip_gifs(draft)
    before = draft.read_bytes()
    result = run(tmp_path, "push", "--yes", "--draft", str(draft))
    assert result.exit_code == exitcodes.ERROR, result.output
    assert "history.jsonl: is a symbolic link (to ../../tenantdeck.yaml)" in result.output
    assert draft.read_bytes() == before and live_gifs(tmp_path) is False


def test_a_workspace_folder_linked_outside_gets_nothing_made_in_it(draft: Path, tmp_path: Path) -> None:
    shutil.rmtree(draft.parent / ".tenantdeck")
    (draft.parent / ".tenantdeck").symlink_to(tmp_path / "outside")
    result = refused_push(tmp_path, draft)
    assert f".tenantdeck: resolves to {(tmp_path / 'outside').resolve()}, {OUTSIDE}" in result.output
    assert outside_files(tmp_path) == {}
    pulled = run(tmp_path, "pull", "--draft", str(draft))
    assert pulled.exit_code == exitcodes.ERROR and OUTSIDE in pulled.output
    assert outside_files(tmp_path) == {}


def test_a_lock_file_linked_inside_the_folder_is_replaced_not_written_through(draft: Path, tmp_path: Path) -> None:
    """The ``.bak`` rule for every write beside a draft: a link that stays in the folder is read, then replaced by
    the new file; the file it led to is left as it was (here a copy of the lock file a pull request pointed it at,
    which a push that wrote through the link would have changed)."""
    lock = draft.with_name("tenantdeck.lock.json")
    kept = draft.with_name("kept.lock.json")
    shutil.copy(lock, kept)
    before = kept.read_bytes()
    lock.unlink()
    lock.symlink_to("kept.lock.json")
    flip_gifs(draft)
    result = run(tmp_path, "push", "--yes", "--draft", str(draft))
    assert result.exit_code == exitcodes.OK, result.output
    assert live_gifs(tmp_path) is True
    assert not lock.is_symlink() and lock.read_bytes() != before
    assert kept.read_bytes() == before


def test_init_does_not_write_through_a_gitignore_link(tmp_path: Path) -> None:
    folder, outside = tmp_path / "repo", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "x").write_text("keep\n")
    (folder / ".gitignore").symlink_to(outside / "x")
    result = run(tmp_path, "init", str(folder / "tenantdeck.yaml"))
    assert result.exit_code == exitcodes.ERROR, result.output
    assert f".gitignore: resolves to {(outside / 'x').resolve()}, {OUTSIDE}" in result.output
    assert (outside / "x").read_text() == "keep\n"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore"]  # refused before the draft was written


def test_init_does_not_make_its_workspace_through_a_link(tmp_path: Path) -> None:
    folder, outside = tmp_path / "repo", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / ".tenantdeck").symlink_to(outside)
    result = run(tmp_path, "init", str(folder / "tenantdeck.yaml"))
    assert result.exit_code == exitcodes.ERROR and OUTSIDE in result.output, result.output
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", ["tenantdeck.policies.yaml", "tenantdeck.targets.yaml"])
def test_a_policies_or_targets_file_linked_outside_is_not_read(draft: Path, tmp_path: Path, name: str) -> None:
    linked = tmp_path / "outside" / "file.yaml"
    linked.write_text("format: 1\npolicies:\n  - name: ghp_SECRETINNAME\n    apps: '*'\n    check: {required: name}\n"
                      "    message: m\n" if "policies" in name else "format: 1\ntargets: {}\n")
    draft.with_name(name).symlink_to(linked)
    result = run(tmp_path, "validate", str(draft))
    assert result.exit_code == exitcodes.ERROR, result.output
    assert f"{name}:1:1: error: " in result.output and f"resolves to {linked.resolve()}, {OUTSIDE}" in result.output
    assert "ghp_SECRETINNAME" not in result.output
    pushed = refused_push(tmp_path, draft)
    assert OUTSIDE in pushed.output


def test_an_explicit_policies_file_elsewhere_is_still_read(draft: Path, tmp_path: Path) -> None:
    """``--policies FILE`` is the user's own choice, not a file beside the draft: it may live anywhere."""
    rules = tmp_path / "outside" / "rules.yaml"
    rules.write_text("format: 1\npolicies:\n  - name: named-rule\n    nonsense: 1\n")
    result = run(tmp_path, "validate", str(draft), "--policies", str(rules))
    assert "policies[0].nonsense: rule named-rule: unknown key" in result.output, result.output  # it was read
    assert OUTSIDE not in result.output
