"""``tenantdeck doctor`` checks the target the other commands on the draft use: the one the draft records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import SANDBOX_DB, local_target


def test_doctor_in_a_folder_whose_draft_records_its_own_sandbox_checks_that_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial: in the demo folder doctor reported on the user's `local` sandbox, while diff, push and audit talked
    to the demo's own sandbox database the draft records."""
    data = tmp_path / "data"
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(data))
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    draft = demo / "tenantdeck.yaml"
    pull_target(local_target(db_path=demo / "demo.sqlite3"), draft)
    monkeypatch.chdir(demo)
    result = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    document = json.loads(result.stdout)
    (resolved,) = [c for c in document["checks"] if c["name"] == "target resolved"]
    assert resolved["status"] == "ok"
    assert "records" in resolved["detail"] and "tenantdeck.yaml" in resolved["detail"], resolved
    assert "demo.sqlite3" in resolved["detail"], resolved
    assert not (data / SANDBOX_DB).exists()  # the user's own sandbox was never opened


def test_doctor_reads_every_config_file_it_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A docs-only trial (F29): in a folder whose draft records its sandbox, doctor said all ``ok`` with a
    profiles.yaml that ``diff --profile`` refused, located. Each config file doctor lists is read by its own loader:
    the broken profiles file fails (exit 1, located and escaped), bad settings, keymap and theme values warn, each
    naming the file and the key (F17)."""
    data, config = tmp_path / "data", tmp_path / "config"
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(data))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(config))
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    pull_target(local_target(db_path=demo / "demo.sqlite3"), demo / "tenantdeck.yaml")
    monkeypatch.chdir(demo)
    (config / "themes").mkdir(parents=True)
    (config / "settings.yaml").write_text("theme: nope\nevents_port: -5\n", encoding="utf-8")
    (config / "keymap.yaml").write_text("undo: 12345\n", encoding="utf-8")
    (config / "themes" / "mine.yaml").write_text("name: mine\ndark: true\nprimary: not-a-colour\n", encoding="utf-8")
    ok = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    checks = {c["name"]: c for c in json.loads(ok.stdout)["checks"]}
    assert checks["profiles file"]["status"] == "ok", checks["profiles file"]
    settings = checks["settings file"]
    assert settings["status"] == "warn"
    assert "settings.yaml: events_port: -5 is not a port number" in settings["detail"], settings
    assert "settings.yaml: theme: 'nope': no theme file is named so" in settings["detail"], settings
    assert checks["keymap file"]["status"] == "warn" and "undo: keys must be text" in checks["keymap file"]["detail"]
    assert checks["theme files"]["status"] == "warn" and "mine.yaml" in checks["theme files"]["detail"]
    assert ok.exit_code == 0  # warnings: the editor leaves the values out and starts

    (config / "profiles.yaml").write_text('profiles:\n  "bad\\e[2Jname":\n    base_url: 5\n', encoding="utf-8")
    broken = CliRunner().invoke(cli, ["doctor"])
    assert broken.exit_code == 1, broken.stdout
    (line,) = [ln for ln in broken.stdout.splitlines() if ln.startswith("FAIL  profiles file")]
    assert "profiles.yaml:3:" in line and "base_url" in line and "\x1b" not in line and "\\x1b[2J" in line, line
    (resolved,) = [ln for ln in broken.stdout.splitlines() if "target resolved" in ln]
    assert resolved.startswith("ok"), resolved  # the target is the draft's sandbox: profiles.yaml is not read there


def doctor_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, dict[str, str]]]:
    """``doctor --format json`` with the config directory ``tmp_path/config``: (exit code, checks by name)."""
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["doctor", "--format", "json"])
    return result.exit_code, {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_doctor_warns_of_every_theme_file_the_editor_leaves_out(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial K4: doctor said ``ok`` for theme files that pass the file's schema but that Textual cannot use (a
    variable that is no colour, one naming another variable, a text style that is none), which the editor then
    left out at start with a notice. Doctor asks the editor's own rule (tui/appearance.usable_themes) and warns,
    naming each file and the variable; the good file in the same folder is not named, and a remembered theme
    whose file is left out is said so in the settings check."""
    themes = tmp_path / "config" / "themes"
    themes.mkdir(parents=True)
    head = "dark: true\nprimary: '#2e86de'\nvariables:\n"
    (themes / "notcolour.yaml").write_text(f"name: notcolour\n{head}  footer-key-foreground: 'not a colour;'\n")
    (themes / "reference.yaml").write_text(f"name: reference\n{head}  footer-background: $primary\n")
    (themes / "style.yaml").write_text(f"name: style\n{head}  block-cursor-text-style: shiny\n")
    (themes / "good.yaml").write_text(f"name: good\n{head}  footer-key-foreground: '#ff0000 50%'\n")
    (tmp_path / "config" / "settings.yaml").write_text("theme: style\n")
    code, checks = doctor_checks(tmp_path, monkeypatch)
    detail = checks["theme files"]["detail"]
    assert checks["theme files"]["status"] == "warn", checks["theme files"]
    assert f"{themes / 'notcolour.yaml'}: Textual cannot use it: variables: footer-key-foreground: " \
           "'not a colour;' is not a colour" in detail, detail
    assert f"{themes / 'reference.yaml'}: Textual cannot use it: variables: footer-background: '$primary': " \
           "a variable cannot name another" in detail, detail
    assert f"{themes / 'style.yaml'}: Textual cannot use it: variables: block-cursor-text-style: 'shiny' is " \
           "not a text style" in detail, detail
    assert "good.yaml" not in detail
    settings = checks["settings file"]
    assert settings["status"] == "warn" and "theme: 'style': its file is left out: " in settings["detail"], settings
    assert "style.yaml: Textual cannot use it" in settings["detail"], settings
    assert code == 0  # warnings: the editor leaves the files out and starts


def test_doctor_warns_of_every_keymap_entry_the_editor_leaves_out_or_says(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial K4: doctor said ``ok`` (``n key(s) remapped``) for a keymap.yaml whose entries the editor left out
    at start with a notice: a clash taking Quit's only key, a key of a binding that runs first, an id no binding
    has, keys a terminal takes, a key name Textual does not know (left out first: Quit keeps ctrl+q). Doctor
    settles the keymap against the app's bindings as the editor does (tui/appearance.keymap_problems) and warns,
    naming the file and each entry."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "keymap.yaml").write_text("problems: ctrl+q\nhelp: f2\nnosuch.binding: f9\nundo: ctrl+b\n"
                                        "quit: notakey\n")
    code, checks = doctor_checks(tmp_path, monkeypatch)
    keys = checks["keymap file"]
    assert keys["status"] == "warn", keys
    assert keys["detail"].startswith(f"{config / 'keymap.yaml'}: "), keys
    for said in ("problems: ctrl+q is the only key of Quit (quit); entry left out",
                 "help: f2 is the key of Save webhook (webhook_form.save), which runs first; entry left out",
                 "no key has the id nosuch.binding",
                 "undo: only keys tmux, screen or terminals often take",
                 "quit: 'notakey' is not a key name Textual knows"):
        assert said in keys["detail"], keys
    assert code == 0


def test_doctor_says_ok_for_a_keymap_and_a_theme_the_editor_uses_whole(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The same checks leave a good keymap (docs/configuration.md's example) and theme file alone: ``ok``; so is a
    remembered theme of Textual's own (``nord``), which the editor uses (doctor warned of it)."""
    config = tmp_path / "config"
    (config / "themes").mkdir(parents=True)
    (config / "keymap.yaml").write_text("save: f2,alt+w\napps.filter: [f, slash]\n")
    (config / "settings.yaml").write_text("theme: nord\n")  # one of Textual's own: the editor uses it
    (config / "themes" / "ocean.yaml").write_text("name: ocean\ndark: true\nprimary: '#2e86de'\nvariables:\n"
                                                  "  footer-key-foreground: '#7cc0ff'\n")
    code, checks = doctor_checks(tmp_path, monkeypatch)
    assert checks["keymap file"] == {"name": "keymap file", "status": "ok", "detail": "2 key(s) remapped"}
    assert checks["theme files"]["status"] == "ok", checks["theme files"]
    assert checks["settings file"] == {"name": "settings file", "status": "ok", "detail": "read"}
    assert code == 0


def test_doctor_without_textual_warns_and_reads_the_files_with_their_own_loaders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Doctor now asks the editor's rules, which need Textual; doctor is run when something is wrong, so a Textual
    that does not import is a warning naming the editor, not a traceback, and the files are still read."""
    import sys

    import tenantdeck.tui

    config = tmp_path / "config"
    config.mkdir()
    (config / "keymap.yaml").write_text("undo: 12345\n")
    monkeypatch.setitem(sys.modules, "tenantdeck.tui.appearance", None)  # its import raises ImportError
    monkeypatch.delattr(tenantdeck.tui, "appearance", raising=False)
    code, checks = doctor_checks(tmp_path, monkeypatch)
    assert checks["editor"]["status"] == "warn" and "`tenantdeck edit` cannot start" in checks["editor"]["detail"]
    assert checks["keymap file"]["status"] == "warn" and "undo: keys must be text" in checks["keymap file"]["detail"]
    assert checks["theme files"]["status"] == "ok"
    assert code == 0
