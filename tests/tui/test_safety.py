"""Pilot tests of the draft's safety and the user's preferences: quit confirm, SIGHUP -> recovery -> restore,
changes on disk, themes, keymap, palette, copy. Each asserts on the session and on the files."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tenantdeck.draft import recovery
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.screens.problems_screen import ProblemsScreen
from tenantdeck.tui.screens.restore import RestoreScreen
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import isolated, leave_recovery, notices, prepare, recovered_edit, run

GLOBEX_REGION = "apps[1].region"

__all__ = ["isolated"]  # the autouse fixture, imported


# -- quitting --------------------------------------------------------------------------------------------------


def test_quit_with_unsaved_changes_is_refused_until_confirmed(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        assert app.editor.set(GLOBEX_REGION, "us").ok
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, AppsScreen) and app.is_running
        assert app.editor.session.dirty and app.editor.get(GLOBEX_REGION) == "us"
        app.safety.checkpoint()
        assert recovery.recovery_path(draft).exists()
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
        assert not app.is_running

    run(app, body)
    assert "region: eu" in draft.read_text(), "nothing saved"
    assert not recovery.recovery_path(draft).exists(), "quitting on purpose leaves no recovery file"


def test_save_deletes_the_recovery_file(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set(GLOBEX_REGION, "in")
        assert app.safety.checkpoint() and not app.safety.checkpoint(), "written once per change"
        await pilot.press("f2")
        await pilot.pause()
        assert not recovery.recovery_path(draft).exists()

    run(app, body)
    assert "region: in" in draft.read_text()


# -- hang-up and restore ---------------------------------------------------------------------------------------


def test_sighup_writes_the_recovery_file_and_the_next_start_restores_it(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    original = draft.read_text()
    first = make_app(draft)

    async def edit_then_hang_up(pilot) -> None:  # type: ignore[no-untyped-def]
        assert first.editor.set(GLOBEX_REGION, "us").ok
        assert not recovery.recovery_path(draft).exists(), "no timer ran: the signal must write it"
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(5):
            await pilot.pause()

    run(first, edit_then_hang_up)
    assert first.safety.signalled == signal.SIGHUP and first.return_code == 128 + signal.SIGHUP
    path = recovery.recovery_path(draft)
    saved = recovery.read(path)
    assert saved.text == first.editor.session.text and "region: us" in saved.text
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert draft.read_text() == original

    second = make_app(draft)

    async def restore(pilot) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(second.screen, RestoreScreen)
        await pilot.press("r")
        await settle(pilot)
        session = second.editor.session
        assert session.dirty and session.text == saved.text and second.editor.get(GLOBEX_REGION) == "us"
        assert "*" in second.title
        assert recovery.interrupted(draft) == [], "the claimed file is gone once restored"
        assert recovery.read(path).text == saved.text, "a fresh checkpoint of the restored text"
        await pilot.press("f2")
        await pilot.pause()

    run(second, restore)
    assert draft.read_text() == saved.text
    assert "# tenantdeck: not reported by the service" in draft.read_text(), "comments kept"
    assert not path.exists()


@pytest.mark.parametrize("key", ["d", "k"])
def test_restore_modal_discard_and_keep_for_later(tmp_path: Path, key: str) -> None:
    draft = prepare(tmp_path)
    leave_recovery(draft)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(app.screen, RestoreScreen)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, AppsScreen) and not app.editor.session.dirty
        app.editor.set(GLOBEX_REGION, "in")
        app.safety.checkpoint()

    run(app, body)
    kept = [r for r in recovery.pending(draft) if r.kept]
    if key == "d":
        assert kept == []
    else:
        assert len(kept) == 1 and kept[0].text == recovered_edit(draft.read_text()), "not overwritten by this session"


def test_a_restore_that_crashed_is_not_offered_again(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    claimed = recovery.claim(recovery.read(leave_recovery(draft)))
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(app.screen, AppsScreen)
        assert claimed.name in notices(app)

    run(app, body)
    assert claimed.exists()


# -- changes on disk -------------------------------------------------------------------------------------------


def test_external_edit_is_reloaded_when_there_are_no_unsaved_edits(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.safety.check_disk()
        assert app.editor.get(GLOBEX_REGION) == "eu"
        draft.write_text(draft.read_text().replace("region: eu", "region: in"))
        app.safety.check_disk()
        await settle(pilot)
        assert app.editor.get(GLOBEX_REGION) == "in" and not app.editor.session.dirty
        assert "changed on disk and was reloaded" in notices(app)
        assert "in " in " ".join(str(c) for c in app.screen.query_one("DataTable").get_row("1"))

    run(app, body)


def test_a_draft_broken_on_disk_is_said_on_reload_and_in_place_of_the_apps(tmp_path: Path) -> None:
    """A reload that cannot parse the file said only "was reloaded", and the Apps screen showed "0 apps" and an
    empty table: the notice and the screen say it cannot be read, with the located line, and point at F8."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.safety.check_disk()
        lines = draft.read_text().splitlines(keepends=True)
        lines[6] = "    version: [3\n"
        draft.write_text("".join(lines))
        app.safety.check_disk()
        await settle(pilot)
        assert app.editor.session.read_only
        said = notices(app)
        assert "could not be read" in said and "F8" in said and "line " in said, said
        assert "was reloaded (you had no unsaved edits)" not in said
        note = app.screen.query_one("#unreadable")
        assert note.display and not app.screen.query_one("DataTable").display
        assert "cannot be read as a draft" in str(note.render()) and "F8" in str(note.render())

    run(app, body)


def test_external_edit_with_unsaved_edits_asks_and_keep_mine_stops_asking(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        draft.write_text(draft.read_text().replace("region: eu", "region: in"))
        app.safety.check_disk()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "changed on disk" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        app.safety.check_disk()
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen), "asked once per change on disk"
        assert app.editor.get("apps[0].region") == "eu" and app.editor.get(GLOBEX_REGION) == "eu"
        draft.write_text(draft.read_text() + "# again\n")
        app.safety.check_disk()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert not app.editor.session.dirty and app.editor.session.text.endswith("# again\n")

    run(app, body)


# -- themes, keymap, palette, clipboard ------------------------------------------------------------------------


def test_theme_is_remembered_and_a_broken_one_falls_back_with_a_notice(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def switch(pilot) -> None:  # type: ignore[no-untyped-def]
        assert app.theme == "tenantdeck-dark" and app.animation_level == "none"
        app.theme = "tenantdeck-high-contrast"
        await pilot.pause()

    run(app, switch)
    assert "theme: tenantdeck-high-contrast" in (tmp_path / "config" / "settings.yaml").read_text()

    again = make_app(draft)

    async def remembered(pilot) -> None:  # type: ignore[no-untyped-def]
        assert again.theme == "tenantdeck-high-contrast"

    run(again, remembered)

    themes = tmp_path / "config" / "themes"
    themes.mkdir()
    (themes / "mine.yaml").write_text("name: mine\ndark: true\nprimary: '#12345'\n")
    (tmp_path / "config" / "settings.yaml").write_text("theme: mine\n")
    broken = make_app(draft)

    async def fallback(pilot) -> None:  # type: ignore[no-untyped-def]
        assert broken.theme == "tenantdeck-dark"
        text = notices(broken)
        assert "mine.yaml" in text and "primary" in text and "Using tenantdeck-dark" in text

    run(broken, fallback)


def test_a_theme_whose_variables_textual_cannot_use_is_left_out_and_never_closes_the_editor(tmp_path: Path) -> None:
    """Trial J, J15: a user theme whose ``variables`` held ``not a colour at all;`` (or ``red`` + ESC ``[2J``) was
    accepted, and choosing it in the palette closed the editor with "Error in stylesheet". Each such file is left
    out at start with a notice naming it and the variable; the good ones in the same folder are offered; the
    palette cannot choose a left-out one, and the editor keeps running."""
    draft = prepare(tmp_path)
    themes = tmp_path / "config" / "themes"
    themes.mkdir(parents=True)
    (themes / "evil.yaml").write_text("name: evil\ndark: true\nprimary: '#ff0000'\nvariables:\n"
                                      "  footer-key-foreground: 'not a colour at all;'\n")
    (themes / "evil2.yaml").write_text("name: evil2\ndark: true\nprimary: '#ff0000'\nvariables:\n"
                                       "  footer-key-foreground: \"red\\e[2J\"\n")
    (themes / "evil3.yaml").write_text("name: evil3\ndark: true\nprimary: '#ff0000'\nvariables:\n"
                                       "  block-cursor-text-style: 'bold; }'\n  footer-background: $primary\n")
    (themes / "fine.yaml").write_text("name: fine\ndark: true\nprimary: '#ff0000'\nvariables:\n"
                                      "  footer-key-foreground: '#ff0000 50%'\n  block-cursor-text-style: bold\n"
                                      "  focus-row-background: red\n")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        text = notices(app)
        for name in ("evil.yaml", "evil2.yaml", "evil3.yaml"):
            assert name in text, text
        assert "footer-key-foreground" in text and "block-cursor-text-style" in text and "\x1b[" not in text
        assert "fine" in app.available_themes and not {"evil", "evil2", "evil3"} & set(app.available_themes)
        # doctor's view of the theme files (tenantdeck doctor, trial K4) is the editor's: the same names usable
        from tenantdeck.locations import config_dir
        from tenantdeck.prefs.themes import load_themes
        from tenantdeck.tui import appearance

        seen = load_themes(config_dir(), None)
        appearance.usable_themes(seen)
        assert appearance.theme_names(seen) == set(app.available_themes)
        assert {f.path.name for f in seen.failures} == {"evil.yaml", "evil2.yaml", "evil3.yaml"}
        app.theme = "fine"
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and app.theme == "fine"

    run(app, body)


def test_bad_settings_values_are_said_at_start_with_the_file_and_the_key(tmp_path: Path) -> None:
    """settings.yaml with an unknown theme and ``events_port: -5`` (a docs-only trial, F17): one Settings notice
    names the file and each key, and the editor starts with the default theme."""
    draft = prepare(tmp_path)
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "settings.yaml").write_text("theme: nope\nevents_port: -5\n")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        assert app.theme == "tenantdeck-dark"
        (said,) = [n.message for n in app._notifications if n.title == "Settings"]
        path = tmp_path / "config" / "settings.yaml"
        assert f"{path}: events_port: -5 is not a port number from 0 to 65535; using 8788" in said
        assert f"{path}: theme: Theme 'nope' cannot be used: no theme named 'nope'" in said

    run(app, body)


def test_no_color_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(prepare(tmp_path))
    assert app.no_color

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        from textual.filter import Monochrome, NoColor

        assert any(isinstance(f, NoColor | Monochrome) for f in app.get_line_filters())
        assert app.screen.has_pseudo_class("nocolor") or "nocolor" in app.pseudo_classes

    run(app, body)


def keymap_app(tmp_path: Path, keymap: str) -> TenantdeckApp:
    """The editor on the demo draft with ``keymap`` as the user's config/keymap.yaml."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "keymap.yaml").write_text(keymap)
    return make_app(prepare(tmp_path))


def test_user_keymap_is_applied_and_a_broken_entry_is_named(tmp_path: Path) -> None:
    app = keymap_app(tmp_path, "problems: f9\nsave: 'not a key'\nnope.nothing: f4\n")

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        text = notices(app)
        assert "keymap.yaml" in text and "save: 'not a key' is not a key name" in text
        assert "no key has the id nope.nothing" in text
        await pilot.press("f9")
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)

    run(app, body)


def test_a_keymap_entry_taking_quit_s_only_key_is_refused_with_a_notice(tmp_path: Path) -> None:
    """``problems: ctrl+q`` (a docs-only trial, F17) took Quit's only key without a word: ctrl+q opened Problems
    and nothing quit. The entry is left out and the notice names the file, the key and the action; an entry taking
    one of two keys (``help: ctrl+s``, Save keeps f2) applies and is said."""
    app = keymap_app(tmp_path, "problems: ctrl+q\nhelp: f1,ctrl+s\n")

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        from tenantdeck.tui.screens.help_screen import HelpScreen
        from tenantdeck.tui.widgets.footer import KeyFooter

        text = notices(app)
        assert "keymap.yaml" in text
        assert "problems: ctrl+q is the only key of Quit (quit); entry left out" in text
        assert "help: ctrl+s taken from Save (save), which keeps f2" in text
        assert "^q Quit" in app.screen.query_one(KeyFooter).text
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not isinstance(app.screen, ProblemsScreen)

    run(app, body)


def test_a_keymap_entry_on_a_key_textual_does_not_know_is_left_out_with_a_notice(tmp_path: Path) -> None:
    """Trial K4: ``quit: notakey`` passed the file's syntax and Textual applied it: the footer said "notakey Quit"
    and ctrl+q no longer quit. The entry is left out with a notice naming the file, the entry and the key; Quit
    keeps ctrl+q, and a good entry in the same file applies."""
    app = keymap_app(tmp_path, "quit: notakey\nproblems: f10\n")

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        from tenantdeck.tui.widgets.footer import KeyFooter

        text = notices(app)
        assert "keymap.yaml" in text and "quit: 'notakey' is not a key name Textual knows" in text, text
        assert "^q Quit" in app.screen.query_one(KeyFooter).text
        await pilot.press("f10")
        await settle(pilot)
        assert isinstance(app.screen, ProblemsScreen)

    run(app, body)


def test_palette_jumps_to_an_app_a_webhook_and_a_toggle(tmp_path: Path) -> None:
    from tenantdeck.tui.commands import TenantdeckCommands

    app = make_app(prepare(tmp_path))

    async def hits(query: str) -> list:  # type: ignore[type-arg]
        provider = TenantdeckCommands(app.screen, None)
        return [hit async for hit in provider.search(query)]

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        found = await hits("globex")
        texts = [h.text for h in found]
        assert "App: Globex Community" in texts
        assert any(t.startswith("Webhook: groups Group lifecycle") for t in texts)
        next(h for h in found if h.text == "App: Globex Community").command()
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == 1
        # Globex has no widget: no toggle of its own to focus, so none is offered (issue 20, item 1)
        assert not [h for h in await hits("send_gifs") if h.text.startswith("Toggle:")]
        next(h for h in await hits("acme") if h.text == "App: Acme Support").command()
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == 0
        toggle = next(h for h in await hits("send_gifs") if h.text.startswith("Toggle:"))
        toggle.command()
        await settle(pilot)
        assert isinstance(app.screen, AppScreen) and app.screen.app_index == 0
        assert str(app.screen.query_one("TabbedContent").active) == "main"
        assert len(app.screen_stack) == 2, "no App screen piled on another"
        discovered = [h.text async for h in TenantdeckCommands(app.screen, None).discover()]
        assert "Save the draft" not in discovered and "Theme: tenantdeck-light" in discovered
        app.editor.set(GLOBEX_REGION, "us")
        discovered = [h.text async for h in TenantdeckCommands(app.screen, None).discover()]
        assert "Save the draft" in discovered and "Undo" in discovered

    run(app, body)


def test_f6_copies_the_key_path(tmp_path: Path) -> None:
    app = make_app(prepare(tmp_path))

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("down", "f4")
        assert app.clipboard == "apps[1]"
        assert "Copied apps[1]" in notices(app)

    run(app, body)


LOCK_HOLDER = """
import sys
from tenantdeck.sync.workspace.lock import hold
from tenantdeck.sync.workspace.state import Workspace
with hold(Workspace(sys.argv[1]), "tenantdeck push"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_save_refused_by_a_cli_push_lock_says_what_to_do_in_the_editor(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal ended "wait longer with --lock-timeout SECONDS": the editor has no such flag. It says to press
    F2 again, and the environment variable (which the editor's save honours; set short here) to wait longer."""
    import subprocess
    import sys

    from tests import procs

    draft = prepare(tmp_path)
    monkeypatch.setenv("TENANTDECK_LOCK_TIMEOUT", "0.1")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set(GLOBEX_REGION, "in")
        with procs.running([sys.executable, "-c", LOCK_HOLDER, str(draft)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True) as holder:
            assert holder.stdout.readline().strip() == "held"
            await pilot.press("f2")
            await settle(pilot)
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(30)
        said = notices(app)
        assert f"pid {holder.pid} (tenantdeck push)" in said and "Nothing was changed" in said, said
        assert "press F2 again once it has finished" in said and "TENANTDECK_LOCK_TIMEOUT" in said, said
        assert "--lock-timeout" not in said and app.editor.session.dirty

    run(app, body)
