"""Saving: atomic, .bak kept, mode preserved, comments and order kept, one changed line per toggled value."""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tenantdeck.draft import dump_draft_text, load_draft, load_text, save_draft
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.save import guess_indentation, merge_text, write_atomic
from tenantdeck.models import Webhook
from tenantdeck.problems import ProblemError

SAMPLE = sample_text("schema.json")


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.fixture
def draft_file(tmp_path: Path) -> Path:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def test_unchanged_draft_saves_byte_identical(draft_file: Path) -> None:
    result = load_draft(draft_file)
    assert result.ok
    save_draft(draft_file, result.draft, original_text=SAMPLE)
    assert draft_file.read_text(encoding="utf-8") == SAMPLE


def test_toggling_one_value_changes_exactly_one_line(draft_file: Path) -> None:
    result = load_draft(draft_file)
    assert result.draft is not None
    result.draft.presets["support"].main.send_gifs = True
    save_draft(draft_file, result.draft, original_text=SAMPLE)
    after = draft_file.read_text(encoding="utf-8")
    assert changed_lines(SAMPLE, after) == [
        "-      send_gifs: false                                  # Allow GIFs",
        "+      send_gifs: true                                   # Allow GIFs",
    ]
    assert load_text(after).draft.presets["support"].main.send_gifs is True


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_diff_shows_one_changed_line(draft_file: Path, tmp_path: Path) -> None:
    before = tmp_path / "before.yaml"
    shutil.copy(draft_file, before)
    result = load_draft(draft_file)
    assert result.draft is not None
    result.draft.apps[1].webhooks[0].enabled = False
    save_draft(draft_file, result.draft, original_text=SAMPLE)
    diff = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", "--unified=0", str(before), str(draft_file)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    body = [line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert body == ["-        enabled: true", "+        enabled: false"]


def test_comments_survive_structural_changes(draft_file: Path) -> None:
    result = load_draft(draft_file)
    draft = result.draft
    assert draft is not None
    draft.apps[1].webhooks.append(
        Webhook(id="second", name="Second", webhookURL="https://hooks.example.com/2", triggers=["message_sent"])
    )
    draft.apps[0].extensions.disabled = ["e2ee"]
    save_draft(draft_file, draft, original_text=SAMPLE)
    after = draft_file.read_text(encoding="utf-8")
    for comment in (
        "# everything from presets.support ...",
        "# quoted: a bare 3 is a number",
        "# set GLOBEX_WEBHOOK_PASSWORD where you push",
        "# Allow GIFs",
    ):
        assert comment in after
    reloaded = load_text(after)
    assert reloaded.ok, [p.render() for p in reloaded.problems]
    assert [h.id for h in reloaded.draft.apps[1].webhooks] == ["globexevents", "second"]
    assert reloaded.draft.apps[0].extensions.disabled == ["e2ee"]
    assert changed_lines(SAMPLE, after)[0] == "-      disabled: []"


def test_list_items_matched_by_identity(draft_file: Path) -> None:
    result = load_draft(draft_file)
    draft = result.draft
    assert draft is not None
    draft.apps.reverse()
    draft.apps[0].name = "Globex Corp"  # renamed: still matched, by position of its neighbours
    save_draft(draft_file, draft, original_text=SAMPLE)
    reloaded = load_text(draft_file.read_text(encoding="utf-8"))
    assert [a.name for a in reloaded.draft.apps] == ["Globex Corp", "Acme Support"]
    assert "# everything from presets.support ..." in draft_file.read_text(encoding="utf-8")


def test_removed_key_disappears(draft_file: Path) -> None:
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[1].sms = None
    save_draft(draft_file, draft, original_text=SAMPLE)
    after = draft_file.read_text(encoding="utf-8")
    assert "twilioAuthToken" not in after and "sms:" not in after
    assert load_text(after).draft.apps[1].sms is None


def test_backup_keeps_the_previous_version(draft_file: Path) -> None:
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[0].name = "Renamed"
    save_draft(draft_file, draft, original_text=SAMPLE)
    assert (draft_file.parent / "tenantdeck.yaml.bak").read_text(encoding="utf-8") == SAMPLE
    assert "Renamed" in draft_file.read_text(encoding="utf-8")
    assert [p.name for p in draft_file.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_crash_mid_write_leaves_the_original_intact(draft_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[0].name = "Half written"
    real_replace = os.replace

    def crash(src: str, dst: str) -> None:
        if Path(dst) == draft_file:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        save_draft(draft_file, draft, original_text=SAMPLE)
    assert draft_file.read_text(encoding="utf-8") == SAMPLE
    leftovers = sorted(p.name for p in draft_file.parent.iterdir())
    assert leftovers == ["tenantdeck.yaml", "tenantdeck.yaml.bak"]


def test_file_mode_is_preserved(draft_file: Path) -> None:
    draft_file.chmod(0o600)
    draft = load_draft(draft_file).draft
    assert draft is not None
    save_draft(draft_file, draft, original_text=SAMPLE)
    assert stat.S_IMODE(draft_file.stat().st_mode) == 0o600


def test_new_file_written_atomically(tmp_path: Path) -> None:
    target = tmp_path / "new.yaml"
    write_atomic(target, "format: 1\n")
    assert target.read_text() == "format: 1\n"
    assert not (tmp_path / "new.yaml.bak").exists()


def test_refuses_to_write_a_literal_secret(draft_file: Path) -> None:
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[1].webhooks[0].password = "hunter2"
    with pytest.raises(ProblemError) as info:
        save_draft(draft_file, draft, original_text=SAMPLE)
    assert "hunter2" not in str(info.value)
    assert info.value.problem.key_path == "apps[1].webhooks[0].password"
    assert draft_file.read_text(encoding="utf-8") == SAMPLE
    with pytest.raises(ProblemError):
        dump_draft_text(draft)


def test_literal_secret_read_from_the_file_may_be_written_back(tmp_path: Path) -> None:
    text = SAMPLE.replace("${GLOBEX_WEBHOOK_PASSWORD}", "hunter2")
    path = tmp_path / "d.yaml"
    path.write_text(text)
    draft = load_draft(path).draft
    assert draft is not None
    draft.apps[0].name = "Renamed"
    save_draft(path, draft, original_text=text)
    assert "password: hunter2" in path.read_text()


def test_fresh_dump_quotes_what_yaml11_would_misread() -> None:
    draft = load_text(SAMPLE).draft
    assert draft is not None
    draft.apps[0].name = "no"
    draft.apps[1].name = "0777"
    draft.presets["support"].name = "1.10"
    text = dump_draft_text(draft)
    assert "name: 'no'" in text and "name: '0777'" in text and "name: '1.10'" in text
    assert "version: '3'" in text
    again = load_text(text)
    assert again.ok and again.draft == draft


def test_merge_quotes_changed_values_too(draft_file: Path) -> None:
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[0].name = "yes"
    after = merge_text(SAMPLE, draft)
    assert changed_lines(SAMPLE, after) == ["-  - name: Acme Support", "+  - name: 'yes'"]


def test_indentation_of_the_file_is_kept() -> None:
    text = 'format: 1\napps:\n- name: Acme\n  region: eu\n  version: "3"\n  extensions:\n    enabled: []\n'
    assert guess_indentation(text) == (2, 2, 0)
    draft = load_text(text).draft
    assert draft is not None
    draft.apps[0].region = "us"
    assert changed_lines(text, merge_text(text, draft)) == ["-  region: eu", "+  region: us"]


def test_assigning_an_id_keeps_the_item_and_its_comments(draft_file: Path) -> None:
    """What `push` does after creating an app: the item still pairs by name; `id` goes first (model order), so
    the `- ` moves to it and the old first line is re-emitted unchanged below it, comment included."""
    draft = load_draft(draft_file).draft
    assert draft is not None
    draft.apps[1].id = "globex123"
    draft.apps[0].widgets[0].id = "w1"
    after = merge_text(SAMPLE, draft)
    assert changed_lines(SAMPLE, after) == [
        "-      - extends: support       # everything from presets.support ...",
        "+      - id: w1",
        "+        extends: support       # everything from presets.support ...",
        "-  - name: Globex",
        "+  - id: globex123",
        "+    name: Globex",
    ]
    reloaded = load_text(after).draft
    assert reloaded is not None and reloaded.apps[1].id == "globex123"
