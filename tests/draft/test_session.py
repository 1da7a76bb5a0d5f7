"""DraftSession: edits, incremental problems, splice saves that keep everything else byte for byte, undo/redo."""

from __future__ import annotations

import difflib
import os
import textwrap
from pathlib import Path

import pytest

from tenantdeck.draft import load_draft, load_text
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.session import (
    Change,
    ChangedOnDisk,
    ChangeKind,
    DraftSession,
    PathNotFound,
    ReadOnlyDraft,
    parse_path,
)
from tenantdeck.problems import format_path
from tests.models.factories import draft as draft_data
from tests.models.factories import webhook

SAMPLE = sample_text("schema.json")


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "d.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def rendered(problems: list) -> list[str]:
    return [p.render() for p in problems]


def test_open_gives_the_same_problems_as_validate(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        format: 1
        apps:
          - name: Acme
            region: mars
          - name: Acme
            region: us
            webhooks:
              - id: a
                name: A
                webhookURL: http://example.com/x
            extensions:
              enabled: yes
        """,
    )
    session = DraftSession.open(path)
    assert rendered(session.problems) == rendered(load_draft(path).problems) or set(
        rendered(load_draft(path).problems)
    ) <= set(rendered(session.problems))
    assert session.problems and all(p.line > 0 for p in session.problems)


def test_toggle_and_save_is_a_one_line_diff(sample: Path) -> None:
    session = DraftSession.open(sample)
    assert session.problems == [] and not session.dirty
    assert session.set("presets.support.main.send_gifs", True) == []
    assert session.dirty
    result = session.save()
    assert result.method == "splice"
    after = sample.read_text(encoding="utf-8")
    assert changed_lines(SAMPLE, after) == [
        "-      send_gifs: false                                  # Allow GIFs",
        "+      send_gifs: true                                   # Allow GIFs",
    ]
    assert not session.dirty
    assert (sample.parent / "tenantdeck.yaml.bak").read_text(encoding="utf-8") == SAMPLE


def test_edits_keep_comments_and_read_back_as_the_data(sample: Path) -> None:
    session = DraftSession.open(sample)
    session.insert("apps[1].webhooks", webhook("second", triggers=["message_sent"]))
    session.set("apps[0].extensions.disabled", ["e2ee"])
    session.delete("apps[1].sms")
    session.insert("apps[0].widgets[0].main.send_files", False)
    session.set("apps[0].name", "Acme 'Support'")
    session.save()
    after = sample.read_text(encoding="utf-8")
    for comment in ("# everything from presets.support ...", "# quoted: a bare 3 is a number", "# Allow GIFs"):
        assert comment in after
    reloaded = load_text(after)
    assert reloaded.ok, rendered(reloaded.problems)
    assert reloaded.doc.data == session.data
    assert [h.id for h in reloaded.draft.apps[1].webhooks] == ["globexevents", "second"]
    # a new override key goes where the model orders it (send_files before send_gifs), in the draft's indentation
    assert "          send_files: false\n          send_gifs: true\n" in after


def test_insert_uses_the_drafts_own_indentation(tmp_path: Path) -> None:
    text = """\
    format: 1
    presets: {}
    apps:
    - name: Acme    # list dashes at their key's column
      region: us
      webhooks:
      - id: a
        name: A
        webhookURL: https://example.com/a
        triggers: [message_sent]
    """
    path = write(tmp_path, text)
    session = DraftSession.open(path)
    hook = {"id": "b", "name": "B", "webhookURL": "https://example.com/b", "triggers": ["message_sent"]}
    session.insert("apps[0].webhooks", hook)
    session.insert("apps", {"name": "Beta", "region": "eu", "extensions": {"enabled": ["polls"], "disabled": []}})
    session.save()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(textwrap.dedent(text).rstrip("\n"))  # everything before is untouched
    assert "\n  - id: b\n    name: B\n" in after
    assert "\n- name: Beta\n  region: eu\n  extensions:\n    enabled: [polls]\n" in after
    assert load_text(after).doc.data == session.data


def test_undo_and_redo_restore_the_text_exactly(sample: Path) -> None:
    session = DraftSession.open(sample)
    versions = [session.text]
    session.set("apps[1].webhooks[0].enabled", False)
    versions.append(session.text)
    session.insert("apps", {"name": "New", "region": "us"})
    versions.append(session.text)
    session.delete("apps[0]")
    versions.append(session.text)
    session.insert("presets.sales", session.get("presets.support"))
    versions.append(session.text)
    for expected in reversed(versions[:-1]):
        assert session.undo() is not None
        assert session.text == expected
    assert session.undo() is None and not session.dirty
    for expected in versions[1:]:
        session.redo()
        assert session.text == expected
    assert load_text(session.text).doc.data == session.data


def test_transaction_is_one_undo_step_and_rolls_back_on_error(sample: Path) -> None:
    session = DraftSession.open(sample)
    problems = session.set_many([(f"apps[{i}].region", "in") for i in range(2)])
    assert problems == []
    assert [r.region for r in session.app_rows()] == ["in", "in"]
    session.undo()
    assert session.text == SAMPLE
    with pytest.raises(PathNotFound), session.transaction():
        session.set("apps[0].region", "us")
        session.set("apps[7].region", "us")
    assert session.text == SAMPLE and not session.can_undo


def models_of(session: DraftSession) -> list[object]:
    """The session's app models, each as the data now would validate (None: it does not)."""
    models = session.validated_models()
    assert models is not None
    return [a.model_dump() if a is not None else None for a in models[0]]


def fresh_models(session: DraftSession) -> list[object]:
    """The app models of the session's text, read and validated from scratch."""
    return [a.model_dump() for a in load_text(session.text).draft.apps]


def test_undoing_an_app_removal_validates_the_app_put_back(sample: Path) -> None:
    """Trial J16: the undo put the app back in the data with no model, so the change states read it as "unknown"
    and the review's load_result as a draft that does not validate, while the problems said none."""
    session = DraftSession.open(sample)
    whole = models_of(session)
    session.delete("apps[1]")
    session.undo()
    assert models_of(session) == whole and session.load_result().draft is not None
    session.redo()
    session.undo()
    assert models_of(session) == whole and session.problems == []
    session.insert("apps[0]", {"name": "New", "region": "us"})
    session.undo()
    session.redo()  # the inserted app, put back by the redo
    assert models_of(session) == fresh_models(session) and session.load_result().draft is not None


def test_a_transaction_that_moves_apps_checks_each_app_at_its_new_index(sample: Path) -> None:
    """An app edited, then an app above it removed, in one step: the edited app is checked where it now is, and
    the undo checks both where they are again (the indexes an edit noted move with the apps)."""
    session = DraftSession.open(sample)
    whole = models_of(session)
    with session.transaction():
        session.set("apps[1].name", "Renamed")
        session.delete("apps[0]")
    assert [a["name"] for a in models_of(session)] == ["Renamed"]
    session.undo()
    assert models_of(session) == whole and session.load_result().draft is not None
    session.redo()
    assert [a["name"] for a in models_of(session)] == ["Renamed"]


def test_a_transaction_rolled_back_after_removing_an_app_keeps_its_model(sample: Path) -> None:
    session = DraftSession.open(sample)
    whole = models_of(session)
    with pytest.raises(PathNotFound), session.transaction():
        session.delete("apps[0]")
        session.set("apps[7].region", "us")
    assert session.text == SAMPLE
    assert models_of(session) == whole and session.load_result().draft is not None


def test_edit_returns_problems_of_what_it_touched(sample: Path) -> None:
    session = DraftSession.open(sample)
    problems = session.set("apps[0].widgets[0].main.send_gifs", "yes")
    assert [(format_path(p.path), p.code) for p in problems] == [("apps[0].widgets[0].main.send_gifs", "bool_type")]
    assert problems[0].line == session.line_of("apps[0].widgets[0].main.send_gifs")
    assert session.problems == problems
    session.undo()
    # a preset edit re-checks every app whose widgets extend it
    problems = session.set("presets.support.main.enable_message_translation", True)
    assert {p.path[:2] for p in problems} == {("apps", 0)}  # Acme does not enable message-translation
    assert any(p.code == "extension_required" for p in problems)
    assert session.undo() == []
    assert session.problems == []


def test_problems_under_a_path_are_those_of_the_whole_list_under_it(sample: Path) -> None:
    session = DraftSession.open(sample)
    session.set("apps[0].widgets[0].main.send_gifs", "yes")
    session.set("apps[1].webhooks[0].webhookURL", "ftp://nowhere")
    session.set("apps[1].name", session.get("apps[0].name"))  # a cross-app problem (the same name twice)
    session.set("presets.support.style.primary_color", "red")
    everything = session.problems
    assert len({p.path[:2] for p in everything}) >= 3
    for path in ("apps[0]", "apps[0].widgets[0]", "apps[0].widgets[0].main.send_gifs", "apps[1]",
                 "apps[1].webhooks", "apps[1].name", "presets.support", "presets", "apps", "", "apps[0].sms"):
        n = len(parse_path(path))
        assert session.problems_under(path) == [p for p in everything if tuple(p.path[:n]) == parse_path(path)], path


def test_problems_move_with_the_lines_above_them(sample: Path) -> None:
    session = DraftSession.open(sample)
    session.set("apps[1].webhooks[0].webhookURL", "ftp://nowhere")
    line = session.problems[0].line
    session.insert("apps[0].webhooks", [webhook("x")])  # more lines above the problem
    moved = session.problems[0]
    assert moved.line == line + len(session.get("apps[0].webhooks[0]")) + 1  # the key `webhooks:` too
    assert rendered(session.problems) == rendered(load_text(session.text, session.file).problems)


def test_changed_on_disk_is_refused_touch_is_not(sample: Path) -> None:
    session = DraftSession.open(sample)
    session.set("apps[0].region", "us")
    os.utime(sample, ns=(1, 1))  # touched: same content
    assert not session.changed_on_disk()
    sample.write_text(SAMPLE.replace("Globex", "Initech"), encoding="utf-8")
    with pytest.raises(ChangedOnDisk) as info:
        session.save()
    assert info.value.problem.code == "changed-on-disk"
    assert "Initech" in sample.read_text(encoding="utf-8")
    session.save(force=True)
    assert "Globex" in sample.read_text(encoding="utf-8") and not session.changed_on_disk()
    sample.write_text(SAMPLE.replace("Globex", "Initech"), encoding="utf-8")
    session.reload()
    assert session.get("apps[1].name") == "Initech" and not session.dirty and not session.can_undo


def test_a_draft_with_a_syntax_error_opens_read_only(tmp_path: Path) -> None:
    path = write(tmp_path, "format: 1\napps:\n  - name: [unclosed\n")
    session = DraftSession.open(path)
    assert session.read_only and session.data is None
    assert [p.code for p in session.problems] == ["yaml-truncated"]
    assert session.problems[0].line > 0
    with pytest.raises(ReadOnlyDraft) as info:
        session.set("apps[0].name", "x")
    assert "yaml-truncated" not in str(info.value) and "cannot be edited" in str(info.value)


def test_open_without_validation_does_not_need_pydantic(sample: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom tenantdeck.draft.session import DraftSession\n"
        f"s = DraftSession.open({str(sample)!r}, validate=False)\n"
        "assert [r.name for r in s.app_rows()] == ['Acme Support', 'Globex']\n"
        "print('pydantic' in sys.modules)\n"
        "s.validate_all()\nprint(s.validated, len(s.problems))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "0"]


def test_literal_secrets_are_refused(sample: Path) -> None:
    session = DraftSession.open(sample)
    with pytest.raises(Exception, match="literal secret"):
        session.set("apps[1].webhooks[0].password", "hunter2")
    with pytest.raises(Exception, match="literal secret"):
        session.insert("apps[0].webhooks", webhook("y", password="hunter2"))
    assert session.text == SAMPLE and not session.can_undo
    session.set("apps[1].webhooks[0].password", "${OTHER}")


def test_listeners_versions_and_paths(sample: Path) -> None:
    session = DraftSession.open(sample)
    seen: list[Change] = []
    stop = session.subscribe(seen.append)
    version = session.version
    session.set("apps[0].region", "in")
    session.undo()
    stop()
    session.redo()
    assert [(c.kind, c.paths) for c in seen] == [("set", ("apps[0].region",)), ("undo", ("apps[0].region",))]
    assert session.version == version + 3
    assert parse_path("apps[3].widgets[0].main.send_gifs") == ("apps", 3, "widgets", 0, "main", "send_gifs")
    with pytest.raises(PathNotFound):
        session.get("apps[9]")
    with pytest.raises(PathNotFound):
        session.insert("apps[0].name", "again")
    assert session.line_of("apps[1].webhooks[0].enabled") == SAMPLE.splitlines().index("        enabled: true") + 1


def test_a_save_is_told_to_listeners_once(sample: Path) -> None:
    """One save, one broadcast: listeners (the TUI's editor) are told by the session and by no one else."""
    session = DraftSession.open(sample)
    seen: list[Change] = []
    session.subscribe(seen.append)
    session.set("apps[0].region", "in")
    session.save()
    assert [c.kind for c in seen] == [ChangeKind.SET, ChangeKind.SAVE]
    assert seen[-1].kind == "save"  # a ChangeKind is still its old string
    session.save()  # nothing to write: nothing to tell
    assert [c.kind for c in seen] == [ChangeKind.SET, ChangeKind.SAVE]


def test_what_splicing_cannot_express_falls_back_to_ruamel(tmp_path: Path) -> None:
    path = write(tmp_path, "format: 1  # keep me\npresets: {}\napps: []\n")
    session = DraftSession.open(path)
    session.insert("apps", {"name": "First", "region": "us"})  # `apps: []` becomes a block list
    result = session.save()
    assert result.method == "ruamel"
    after = path.read_text(encoding="utf-8")
    assert "# keep me" in after and load_text(after).doc.data == session.data
    session.set("apps[0].region", "eu")
    assert session.save().method == "splice"


def test_factory_draft_round_trip(tmp_path: Path) -> None:
    from tenantdeck.draft.emit import emit

    path = tmp_path / "d.yaml"
    path.write_text(emit(draft_data()), encoding="utf-8")
    session = DraftSession.open(path)
    assert session.problems == []
    session.delete("presets.support")
    assert any(p.code == "unknown_preset" for p in session.problems)
    session.undo()
    assert session.problems == []


def test_a_snapshot_is_not_changed_by_later_edits_nor_by_undo(sample: Path) -> None:
    """``snapshot`` hands a worker the data of one moment (F5's pull, F8's problems): no part of it is shared with
    the session, whatever the user edits next."""
    session = DraftSession.open(sample)
    version, data = session.snapshot()
    before = repr(data)
    session.set("apps[0].name", "Renamed")
    session.insert("apps[1].webhooks", webhook("second", triggers=["message_sent"]))
    session.set("apps[0].extensions.disabled", ["e2ee"])
    session.delete("apps[1].sms")
    session.undo()
    assert repr(data) == before and version != session.version
    data["apps"][0]["name"] = "Changed in the worker"  # and the other way round
    assert session.data["apps"][0]["name"] == "Renamed"


def test_a_snapshot_keeps_values_the_fast_copy_does_not_take(tmp_path: Path) -> None:
    """A YAML timestamp parses to a ``date``, which ``marshal`` refuses: the snapshot is still a full copy, with the
    value's own type."""
    import datetime as dt

    path = write(tmp_path, """\
        format: 1
        presets: {}
        apps:
        - name: 2024-01-02
          region: us
        """)
    session = DraftSession.open(path)
    _, data = session.snapshot()
    assert data == session.data and data["apps"][0]["name"] == dt.date(2024, 1, 2)
    assert data["apps"][0] is not session.data["apps"][0]
