"""Pilot tests of the draft changed under an open editor into something it must not take at its word (trial F:
F25, F14, F7): a file that cannot be read while there are unsaved edits, a symbolic link swapped in for the draft,
and what the screens say meanwhile. Each drives the real app and asserts on the session, the screens and the files.
"""

from __future__ import annotations

import os
from pathlib import Path

from tenantdeck.draft import recovery
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.app_screen import AppScreen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tenantdeck.tui.widgets.confirm import ConfirmScreen
from tests.tui.pilot import make_app, settle
from tests.tui.safety_fixtures import isolated, notices, prepare, run

BROKEN = "format: 1\napps: [\n"  # the trial's: a flow list never closed

__all__ = ["isolated"]  # the autouse fixture, imported


def break_on_disk(app: TenantdeckApp, draft: Path) -> None:
    """The trial's step: the draft on disk replaced by YAML that cannot be read, then the editor's disk check."""
    draft.write_text(BROKEN)
    app.safety.check_disk()


def question(app: TenantdeckApp) -> str:
    assert isinstance(app.screen, ConfirmScreen), type(app.screen)
    return app.screen.question


# -- F25: a file that cannot be read is never offered in exchange for the edits -------------------------------


def test_a_draft_broken_on_disk_under_unsaved_edits_is_said_and_the_edits_are_kept(tmp_path: Path) -> None:
    """The dialog asked "changed on disk ... Load it and drop your unsaved edits?" without saying the file could
    not be read; `y` dropped the edits and deleted their recovery file for a read-only draft. It says why, located,
    offers to keep editing or save over it, and `n` keeps the edits and the recovery file."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        assert app.safety.checkpoint()
        saved = recovery.recovery_path(draft)
        assert saved.exists()
        break_on_disk(app, draft)
        await pilot.pause()
        asked = question(app)
        assert "cannot be read as a draft" in asked and f"{draft.name}:3:1: error:" in asked, asked
        assert "drop your unsaved edits" not in asked and "kept" in asked, asked
        await pilot.press("n")
        await settle(pilot)
        session = app.editor.session
        assert session.dirty and not session.read_only and app.editor.get("apps[0].region") == "eu"
        assert saved.exists(), "the recovery file is kept"
        assert draft.read_text() == BROKEN
        app.safety.check_disk()  # asked once per change on disk
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)

    run(app, body)


def test_save_mine_over_a_broken_draft_writes_the_edits_and_keeps_the_broken_file(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        break_on_disk(app, draft)
        await pilot.pause()
        assert "Save writes your version over it" in question(app)
        await pilot.press("y")
        await settle(pilot)
        assert not app.editor.session.dirty
        assert "region: eu" in draft.read_text().split("- id:")[1]
        assert draft.with_name(draft.name + ".bak").read_text() == BROKEN
        assert "Saved" in notices(app)

    run(app, body)


def test_the_located_problem_in_the_question_is_not_markup(tmp_path: Path) -> None:
    """The question quotes the file's path and the parser's words: Rich markup in them stays text."""
    folder = tmp_path / "[bold red]team"
    folder.mkdir()
    draft = prepare(folder)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        break_on_disk(app, draft)
        await pilot.pause()
        assert "[bold red]team" in question(app)
        label = str(app.screen.query_one("#question").render())
        assert "[bold red]team" in label, label

    run(app, body)


def test_an_app_screen_whose_app_is_gone_after_a_reload_goes_back_to_the_apps(tmp_path: Path) -> None:
    """After a reload that found the file unreadable the App screen stayed, a ghost: "— ?", "This app has no
    widget", `a` refused. It goes back to the Apps list, which says the draft cannot be read, with a notice."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.open_app(0, "main")
        await settle(pilot)
        assert isinstance(app.screen, AppScreen)
        break_on_disk(app, draft)  # no unsaved edits: reloaded at once
        await settle(pilot)
        assert app.editor.session.read_only
        assert isinstance(app.screen, AppsScreen), type(app.screen)
        said = notices(app)
        assert "Acme Support is no longer in the draft" in said and "cannot be read as a draft" in said, said

    run(app, body)


def test_an_app_screen_under_another_screen_leaves_when_shown_again(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.open_app(0, "main")
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
        break_on_disk(app, draft)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AppsScreen), type(app.screen)

    run(app, body)


# -- F14: a symbolic link swapped in for the draft ------------------------------------------------------------


def swap_in_link(draft: Path, target: Path) -> None:
    """The trial's `ln -s TARGET x && mv -T x tenantdeck.yaml`: the draft's name is now a link, atomically."""
    link = draft.with_name(draft.name + ".swap")
    link.symlink_to(target)
    os.replace(link, draft)


def test_a_save_never_writes_through_a_link_swapped_in_for_the_draft(tmp_path: Path) -> None:
    """With edits open, the draft was replaced by a link to a file elsewhere; `n` to the reload, F2, `y` to
    overwrite: the save wrote through the link into the victim. The save is refused, naming the link and its
    target, and no question offers to overwrite it."""
    (tmp_path / "folder").mkdir()
    draft = prepare(tmp_path / "folder")
    victim = tmp_path / "victim [b]x.txt"  # outside the draft's folder, with markup in its name
    victim.write_text("victim content\n")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        swap_in_link(draft, victim)
        app.safety.check_disk()
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen), "nothing to choose: it is not a draft, and not the draft"
        said = notices(app)
        assert f"{draft} is now a symbolic link to {victim}" in said and "move the link aside" in said, said
        await pilot.press("f2")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen), "no offer to overwrite a file that is not the draft"
        assert victim.read_text() == "victim content\n"
        assert draft.is_symlink() and not draft.with_name(draft.name + ".bak").exists()
        said = notices(app)
        assert f"{draft} is now a symbolic link to {victim}" in said and "no save writes through it" in said, said
        assert app.editor.session.dirty
        draft.unlink()  # the link moved aside: F2 writes the draft where it was (asking, as for any file gone)
        await pilot.press("f2")
        await pilot.pause()
        assert "was deleted or moved" in question(app)
        await pilot.press("y")
        await settle(pilot)
        assert not draft.is_symlink() and "region: eu" in draft.read_text()
        assert victim.read_text() == "victim content\n"

    run(app, body)


def test_a_link_to_a_readable_draft_is_named_in_the_reload_question(tmp_path: Path) -> None:
    """A link to another readable draft: the reload question says where the draft's name now leads; after `n`,
    F2 is refused (no "Overwrite?" for a file that is not the draft)."""
    (tmp_path / "folder").mkdir()
    draft = prepare(tmp_path / "folder")
    victim = tmp_path / "other.yaml"
    victim.write_text(draft.read_text())
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        victim.write_text(victim.read_text() + "# someone else's\n")
        swap_in_link(draft, victim)
        app.safety.check_disk()
        await pilot.pause()
        asked = question(app)
        assert "Load it and drop your unsaved edits?" in asked and f"is now a symbolic link to {victim}" in asked
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("f2")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert victim.read_text().endswith("# someone else's\n") and "is now a symbolic link" in notices(app)

    run(app, body)


def test_a_draft_opened_through_a_link_is_still_saved_through_it(tmp_path: Path) -> None:
    """docs/concurrency.md: a draft that is a symlink stays one, its target replaced."""
    real = prepare(tmp_path)
    draft = tmp_path / "project" / real.name
    draft.parent.mkdir()
    draft.symlink_to(real)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        await pilot.press("f2")
        await settle(pilot)
        assert draft.is_symlink() and "region: eu" in real.read_text().split("- id:")[1]

    run(app, body)


# -- F7 / F18: what the screens say while the file on disk cannot be read ------------------------------------


def test_problems_screen_does_not_claim_validate_s_count_while_the_file_is_broken(tmp_path: Path) -> None:
    """Edits kept over a draft broken on disk: F8 said "(the count `tenantdeck validate` gives)" while validate
    failed on the file. It says the file cannot be read, located, and that validate fails until F2."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        break_on_disk(app, draft)
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "the count `tenantdeck validate` gives" not in summary, summary
        assert f"{draft.name}:3:1: error:" in summary and "`tenantdeck validate` fails until F2" in summary, summary

    run(app, body)


def test_problems_screen_open_when_the_file_breaks_says_so_after_the_question(tmp_path: Path) -> None:
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        await pilot.press("f8")
        await settle(pilot)
        break_on_disk(app, draft)
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "cannot be read" in summary and "`tenantdeck validate` fails until F2" in summary, summary

    run(app, body)


def test_problems_screen_with_unsaved_edits_says_validate_counts_the_saved_file(tmp_path: Path) -> None:
    draft = prepare(tmp_path, "safety-problems")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("f8")
        await settle(pilot)
        assert "(the count `tenantdeck validate` gives)" in str(app.screen.query_one("#summary").render())
        app.editor.set("apps[0].name", "Renamed")
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "in your unsaved edits" in summary and "once F2 saves them" in summary, summary

    run(app, body)


def test_new_app_and_bulk_edit_are_greyed_on_a_draft_that_cannot_be_read(tmp_path: Path) -> None:
    """A read-only draft offered `n New app` and `b Bulk edit`; `n` took a name and then refused. Both are greyed
    (the text in place of the table says why) and do nothing; the palette's bulk edit says why at once."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        screen = app.screen
        assert screen.check_action("new_app", ()) and screen.check_action("bulk_edit", ())
        break_on_disk(app, draft)
        await settle(pilot)
        assert screen.check_action("new_app", ()) is None and screen.check_action("bulk_edit", ()) is None
        assert screen.check_action("filter", ()) is None
        assert "n New app, b Bulk edit and / Filter wait" in str(screen.query_one("#unreadable").render())
        await pilot.press("slash", "P")
        await settle(pilot)
        assert type(app.screen).__name__ == "PoliciesScreen", "P is the screen's key, not typed into a hidden field"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen, "no New app dialog"
        app.action_bulk_edit()
        await settle(pilot)
        assert app.screen is screen
        assert "the draft cannot be edited until it can be read" in notices(app)

    run(app, body)


def test_policies_screen_says_the_rules_file_cannot_be_read(tmp_path: Path) -> None:
    """An unreadable rules file: the Policies screen said "0 rules · every app complies · 1 problem in the file"
    while validate, audit and policy list exit 1. It says the file cannot be read, located, and judges nothing."""
    from tests.tui.policies_fixtures import POLICIES

    draft = prepare(tmp_path, POLICIES)
    rules = draft.with_name(f"{draft.stem}.policies.yaml")
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("P")
        await settle(pilot)
        rules.write_text("format: 1\npolicies: [\n")
        app.safety.check_disk()
        await settle(pilot)
        summary = str(app.screen.query_one("#summary").render())
        assert "complies" not in summary, summary
        assert f"{rules.name} cannot be read: " in summary and f"{rules.name}:3:1: error:" in summary, summary
        assert "no rule ran" in summary

    run(app, body, size=(100, 30))


def test_a_file_broken_while_the_reload_question_is_up_is_not_loaded_for_the_edits(tmp_path: Path) -> None:
    """The question was asked of a readable change; the file broke before `y`: the edits are not dropped for it."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        draft.write_text(draft.read_text() + "# theirs\n")
        app.safety.check_disk()
        await pilot.pause()
        assert "Load it and drop your unsaved edits?" in question(app)
        draft.write_text(BROKEN)
        await pilot.press("y")
        await settle(pilot)
        assert "cannot be read as a draft" in question(app)
        await pilot.press("n")
        await settle(pilot)
        assert app.editor.session.dirty and app.editor.get("apps[0].region") == "eu"

    run(app, body)


def test_a_fifo_put_in_the_draft_s_place_is_said_and_the_edits_are_kept(tmp_path: Path) -> None:
    """Not a regular file (a FIFO): the watch used to say nothing at all. It is said, located, nothing is offered
    that would fail (a save refuses it too), and the edits stay."""
    draft = prepare(tmp_path)
    app = make_app(draft)

    async def body(pilot) -> None:  # type: ignore[no-untyped-def]
        app.editor.set("apps[0].region", "eu")
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        os.replace(fifo, draft)
        app.safety.check_disk()
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        said = notices(app)
        assert "cannot be read as a draft" in said and "named pipe" in said and "move it aside" in said, said
        assert app.editor.session.dirty and app.editor.get("apps[0].region") == "eu"

    run(app, body)
