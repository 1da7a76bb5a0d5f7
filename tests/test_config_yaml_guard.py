"""Every YAML file the tool reads goes through the draft's guarded reader (issue 19, item 11): a "billion laughs"
profiles, settings, theme, keymap or credentials file is one located error, at once, never a hang or a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tenantdeck import exitcodes
from tenantdeck.draft import recovery
from tenantdeck.draft.configyaml import ConfigFileError, load_file
from tenantdeck.prefs import keymap, settings, themes
from tenantdeck.targets import ProfileError, load_credentials_file, load_profiles

#: Nine levels of nine aliases: 9**9 (387 million) strings once expanded; yaml.safe_load never finishes it.
LAUGHS = "".join(
    [
        'lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n',
        *(f"lol{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)),
    ]
)
ALIAS_MESSAGE = "anchors and aliases are not supported"


def test_a_billion_laughs_profiles_file_is_one_located_error_from_doctor(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.yaml").write_text(LAUGHS, encoding="utf-8")
    env = {"TENANTDECK_CONFIG_DIR": str(config), "TENANTDECK_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "tenantdeck", "doctor"],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == exitcodes.ERROR, done.stdout + done.stderr
    assert f"{config / 'profiles.yaml'}:1:" in done.stdout and ALIAS_MESSAGE in done.stdout, done.stdout
    assert "in a profiles file" in done.stdout and "Traceback" not in done.stdout + done.stderr


def test_profiles_and_credentials_files_refuse_aliases_depth_and_size(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(LAUGHS, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profiles(profiles)
    assert caught.value.problem is not None and caught.value.problem.line == 1 and ALIAS_MESSAGE in str(caught.value)

    profiles.write_text("profiles:\n  x: " + "[" * 200 + "]" * 200 + "\n", encoding="utf-8")
    with pytest.raises(ProfileError, match="nested more than 64 levels deep; a profiles file is far shallower"):
        load_profiles(profiles)

    profiles.write_text("# " + "x" * (2 * 1024 * 1024) + "\n", encoding="utf-8")
    with pytest.raises(ProfileError, match="a profiles file is limited to 1024 KiB"):
        load_profiles(profiles)

    profiles.write_text("profiles: {}\ndefault: local\ndefault: local\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"profiles.yaml:3:1: error: default: the key 'default' is given twice"):
        load_profiles(profiles)

    creds = tmp_path / "staging.credentials"
    creds.write_text("key: &k abc\nsecret: *k\n", encoding="utf-8")
    creds.chmod(0o600)
    with pytest.raises(ProfileError, match=ALIAS_MESSAGE):
        load_credentials_file(creds, "staging")


def test_settings_keymap_and_theme_files_report_an_alias_bomb_and_fall_back(tmp_path: Path) -> None:
    (tmp_path / "settings.yaml").write_text(LAUGHS, encoding="utf-8")
    loaded = settings.load(tmp_path)
    assert loaded.theme is None and loaded.extra == {}
    assert loaded.problem.startswith(f"{tmp_path / 'settings.yaml'}:1:") and ALIAS_MESSAGE in loaded.problem

    (tmp_path / "keymap.yaml").write_text(LAUGHS, encoding="utf-8")
    keys = keymap.load(tmp_path)
    assert keys.bindings == {} and ALIAS_MESSAGE in keys.problems[0] and "at line 1" in keys.problems[0]

    user = themes.user_dir(tmp_path)
    user.mkdir()
    (user / "laughs.yaml").write_text("name: laughs\ndark: true\nprimary: '#000000'\n" + LAUGHS, encoding="utf-8")
    failures = {f.path.name: f.message for f in themes.load_themes(tmp_path, None).failures}
    assert ALIAS_MESSAGE in failures["laughs.yaml"] and "at line 4" in failures["laughs.yaml"]


def test_a_recovery_file_with_aliases_is_set_aside_as_broken(tmp_path: Path) -> None:
    path = tmp_path / "recovery-1.yaml"
    path.write_text("format: 1\n" + LAUGHS, encoding="utf-8")
    got = recovery.read(path)
    assert got.text == "" and ALIAS_MESSAGE in got.problem


def test_the_loader_gives_safe_load_data_for_ordinary_files(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb: [yes, '0777', 1.5]\nc: {d: null}\n", encoding="utf-8")
    assert load_file(path, "test file") == {"a": 1, "b": [True, "0777", 1.5], "c": {"d": None}}
    path.write_text("# only a comment\n", encoding="utf-8")
    assert load_file(path, "test file") is None
    with pytest.raises(ConfigFileError, match="cannot read the test file: no such file"):
        load_file(tmp_path / "missing.yaml", "test file")


def test_a_targets_file_with_an_anchor_is_named_as_a_targets_file(tmp_path: Path) -> None:
    """Trial L, L10: the targets file's anchor error said "not supported in a draft" (the policies and profiles files
    name themselves): it is read by the draft's reader, its words said of this file."""
    from tenantdeck.draft.target_overrides import target_problems

    draft = tmp_path / "d.yaml"
    draft.write_text("format: 1\napps: []\n", encoding="utf-8")
    (tmp_path / "d.targets.yaml").write_text("format: 1\ntargets:\n  prod: &a0 {}\n  stage: *a0\n", encoding="utf-8")
    (problem, *_) = target_problems(draft)
    assert "anchors and aliases are not supported in a targets file" in problem.message, problem.message
