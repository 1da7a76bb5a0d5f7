"""User preferences without Textual: theme files (validated, cached), remembered settings, the keymap."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from tenantdeck.prefs import keymap, settings, themes

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_themes_are_valid_and_include_dark_light_high_contrast(tmp_path: Path) -> None:
    loaded = themes.load_themes(tmp_path / "config", None)
    assert loaded.failures == []
    assert {"tenantdeck-dark", "tenantdeck-light", "tenantdeck-high-contrast"} <= set(loaded.themes)
    assert themes.DEFAULT_THEME in loaded.themes
    assert loaded.themes["tenantdeck-light"].kwargs["dark"] is False


def test_high_contrast_uses_only_exact_xterm_256_colours(tmp_path: Path) -> None:
    cube = {0, 0x5F, 0x87, 0xAF, 0xD7, 0xFF}
    greys = {8 + 10 * i for i in range(24)}
    spec = themes.load_themes(tmp_path, None).themes["tenantdeck-high-contrast"]
    colours = [v for k, v in spec.kwargs.items() if isinstance(v, str) and v.startswith("#")]
    colours += [v for v in spec.kwargs["variables"].values() if v.startswith("#")]
    assert len(colours) > 10
    for c in colours:
        r, g, b = (int(c[i : i + 2], 16) for i in (1, 3, 5))
        assert {r, g, b} <= cube or (r == g == b and r in greys), c


def test_themes_are_shipped_in_the_wheel_through_package_data() -> None:
    assert (ROOT / "src" / "tenantdeck" / "themes").resolve() == (ROOT / "themes").resolve()
    assert themes.BUNDLED_DIR.resolve() == (ROOT / "themes").resolve()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["tenantdeck"]
    assert "themes/*.yaml" in data


def test_broken_user_theme_is_reported_by_file_and_field(tmp_path: Path) -> None:
    user = themes.user_dir(tmp_path)
    user.mkdir(parents=True)
    (user / "mine.yaml").write_text("name: mine\ndark: true\nprimary: blueish\nbackgrund: '#000000'\n")
    (user / "syntax.yaml").write_text("name: [oops\n")
    (user / "good.yaml").write_text(
        "name: good\ndark: false\nprimary: '#336699'\nvariables: {footer-key-foreground: '#fff'}\n")
    loaded = themes.load_themes(tmp_path, None)
    assert "good" in loaded.themes and "mine" not in loaded.themes
    by_file = {f.path.name: f.message for f in loaded.failures}
    assert "primary: 'blueish' is not a colour" in by_file["mine.yaml"]
    assert "backgrund: unknown key" in by_file["mine.yaml"]
    assert "not valid YAML at line 1: the file ends before the list `[` started here" in by_file["syntax.yaml"]
    assert loaded.failure_for("mine") is not None


def test_a_folder_named_like_a_theme_file_is_said_not_skipped(tmp_path: Path) -> None:
    """Trial L, L10: ``themes/dir.yaml/`` was passed over without a word (doctor said ok); docs/security.md says a
    folder where a file is read is one clear problem."""
    user = themes.user_dir(tmp_path)
    (user / "dir.yaml").mkdir(parents=True)
    loaded = themes.load_themes(tmp_path, None)
    assert [(f.path.name, "is a directory" in f.message) for f in loaded.failures] == [("dir.yaml", True)]


def test_cache_avoids_pydantic_when_files_are_unchanged(tmp_path: Path) -> None:
    cache = themes.cache_path(tmp_path / "data")
    first = themes.load_themes(tmp_path, cache)
    assert first.validated >= 3 and json.loads(cache.read_text())["version"] == themes.MODEL_VERSION
    code = ("import sys; from pathlib import Path; from tenantdeck.prefs import themes\n"
            f"t = themes.load_themes(Path({str(tmp_path)!r}), Path({str(cache)!r}))\n"
            "print(t.validated, 'pydantic' in sys.modules, sorted(t.themes))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["0", "False"], out
    user = themes.user_dir(tmp_path)
    user.mkdir()
    (user / "x.yaml").write_text("name: x\ndark: true\nprimary: '#123456'\n")
    again = themes.load_themes(tmp_path, cache)
    assert again.validated == 1 and "x" in again.themes


def test_settings_round_trip_keep_unknown_keys_and_report_garbage(tmp_path: Path) -> None:
    assert settings.load(tmp_path).theme is None
    settings.settings_path(tmp_path).write_text("future: 1\ntheme: old\n")
    s = settings.load(tmp_path)
    s.theme = "tenantdeck-light"
    settings.save(tmp_path, s)
    again = settings.load(tmp_path)
    assert again.theme == "tenantdeck-light" and again.extra == {"future": 1}
    settings.settings_path(tmp_path).write_text("theme: [\n")
    assert "not valid YAML" in settings.load(tmp_path).problem
    settings.settings_path(tmp_path).write_text("- a\n")
    assert "expected a mapping" in settings.load(tmp_path).problem


def test_keymap_loads_good_entries_and_names_bad_ones(tmp_path: Path) -> None:
    assert keymap.load(tmp_path).bindings == {}
    keymap.keymap_path(tmp_path).write_text(
        "save: F5, alt+w\nproblems: [f9, ctrl+p]\napps.filter: 'not a key'\n'Bad Id': f3\nundo: 3\nquit: ctrl+b\n")
    km = keymap.load(tmp_path)
    assert km.bindings == {"save": "f5,alt+w", "problems": "f9,ctrl+p", "quit": "ctrl+b"}
    text = "\n".join(km.problems)
    assert "apps.filter: 'not a key' is not a key name" in text
    assert "'Bad Id' is not a binding id" in text
    assert "undo: keys must be text" in text
    assert keymap.risky_keys(km) == ["quit"]
    assert keymap.unknown_ids(km, {"save", "quit"}) == ["problems"]
    keymap.keymap_path(tmp_path).write_text("save: [\n")
    assert "not valid YAML at line" in keymap.load(tmp_path).problems[0]


def test_prefs_modules_import_neither_textual_nor_pydantic() -> None:
    code = ("import sys, tenantdeck.prefs.themes, tenantdeck.prefs.settings, tenantdeck.prefs.keymap, "
            "tenantdeck.draft.recovery, tenantdeck.locations\n"
            "print(any(m.split('.')[0] in ('textual', 'pydantic', 'httpx') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_a_keymap_entry_that_would_leave_an_action_without_a_key_is_refused(tmp_path: Path) -> None:
    """The rule without Textual: a key moves between bindings of one scope; an entry leaving another binding keyless
    is left out, one taking a key a priority binding of another class keeps is left out, one taking one of several
    keys applies and is said, and an entry that moves the other binding's key too is no clash."""
    app = [keymap.Bound("quit", ("ctrl+q",), "Quit", True, "App"), keymap.Bound("problems", ("f8",), "Problems",
                                                                                  False, "App"),
           keymap.Bound("save", ("f2", "ctrl+s"), "Save", False, "App"), keymap.Bound("help", ("f1",), "Help",
                                                                                         False, "App")]
    screen = [keymap.Bound("apps.filter", ("slash",), "Filter", False, "Apps"), *app]

    def refused(text: str) -> tuple[dict[str, str], list[str]]:
        (tmp_path / "keymap.yaml").write_text(text, encoding="utf-8")
        loaded = keymap.load(tmp_path)
        said = keymap.refuse_clashes(loaded, [app, screen])
        return loaded.bindings, said

    bindings, said = refused("problems: ctrl+q\n")
    assert bindings == {} and said == ["problems: ctrl+q is the only key of Quit (quit); entry left out"]
    bindings, said = refused("apps.filter: ctrl+q\n")
    assert bindings == {} and said == [
        "apps.filter: ctrl+q is the key of Quit (quit), which runs first; entry left out"]
    bindings, said = refused("help: ctrl+s\n")
    assert bindings == {"help": "ctrl+s"} and said == ["help: ctrl+s taken from Save (save), which keeps f2"]
    bindings, said = refused("problems: ctrl+q\nquit: ctrl+x\n")
    assert bindings == {"problems": "ctrl+q", "quit": "ctrl+x"} and said == []
    # A key the entry already had, which a priority binding of another class also has (the webhook form's Save on
    # f2): nothing changes there, so the docs' own example applies without a word (it was left out, trial K4).
    form = [keymap.Bound("webhook_form.save", ("f2",), "Save webhook", True, "WebhookForm"), *app]
    (tmp_path / "keymap.yaml").write_text("save: f2,alt+w\n", encoding="utf-8")
    loaded = keymap.load(tmp_path)
    assert keymap.refuse_clashes(loaded, [app, form]) == [] and loaded.bindings == {"save": "f2,alt+w"}
    (tmp_path / "keymap.yaml").write_text("help: f2\n", encoding="utf-8")  # a key it did not have: left out
    loaded = keymap.load(tmp_path)
    assert keymap.refuse_clashes(loaded, [app, form]) == [
        "help: f2 is the key of Save webhook (webhook_form.save), which runs first; entry left out"]


def test_a_keymap_entry_on_a_key_the_ui_does_not_know_is_left_out_before_clashes_are_settled(tmp_path: Path) -> None:
    """``quit: notakey`` passes the file's syntax; the UI's key names (here a stand-in for Textual's) refuse it, the
    entry is left out first, so Quit keeps ctrl+q and ``problems: ctrl+q`` is then refused as a clash."""
    quit_ = keymap.Bound("quit", ("ctrl+q",), "Quit", True, "App")
    problems = keymap.Bound("problems", ("f8",), "Problems", False, "App")
    (tmp_path / "keymap.yaml").write_text("quit: notakey,f10\nproblems: ctrl+q\n", encoding="utf-8")
    loaded = keymap.load(tmp_path)
    said = keymap.settle(loaded, [[quit_, problems]], {"quit", "problems"}, lambda key: key != "notakey")
    assert said == ["quit: 'notakey' is not a key name Textual knows (e.g. f5, ctrl+r, alt+x, shift+tab, "
                    "question_mark); entry left out",
                    "problems: ctrl+q is the only key of Quit (quit); entry left out"]
    assert loaded.bindings == {}


def test_every_bad_settings_value_is_said_with_the_file_and_the_key(tmp_path: Path) -> None:
    """settings.yaml with a bad theme and a bad port (a docs-only trial, F17): each is said, naming the file and the
    key, and left out; before, a theme that was not text replaced the port's problem."""
    (tmp_path / "settings.yaml").write_text("theme: 5\nevents_port: -5\n", encoding="utf-8")
    loaded = settings.load(tmp_path)
    assert loaded.theme is None and loaded.events_port is None
    path = tmp_path / "settings.yaml"
    assert loaded.problems == [f"{path}: theme: 5 is not a theme's name; using the default",
                               f"{path}: events_port: -5 is not a port number from 0 to 65535; using 8788"]
