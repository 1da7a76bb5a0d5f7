"""A renamed existing app is not "in sync" in the Apps list.

The service has no update-app call, so push can only note the new name and leave it; the Apps list computed from
the base snapshot must still say the draft differs from it (a trial saw "in sync" after changing `name:`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sync.test_state_reuse import open_editor


def test_a_renamed_app_is_modified_not_in_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = open_editor(tmp_path, monkeypatch)
    editor.session.set("apps[1].name", "Globex Renamed")
    states = editor.compute_app_states()
    assert states == {"apps[0]": "in sync", "apps[1]": "modified", "apps[2]": "in sync"}


def test_a_rename_made_outside_the_editor_is_modified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = open_editor(tmp_path, monkeypatch)
    path = Path(editor.session.path)
    path.write_text(path.read_text(encoding="utf-8").replace("name: Tenant 1\n", "name: Globex Renamed\n"),
                    encoding="utf-8")
    editor.session.reload()
    assert editor.compute_app_states()["apps[1]"] == "modified"
