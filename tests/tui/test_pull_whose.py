"""The Pull screen (F5) says whose change each row is, and never discards the user's unpushed edits on a bare ``y``
(trial J6): the user saved three edits, not pushed; someone else pushed two other changes (one to a field the user
also changed). Every row read "~ field: before -> after" and ``y`` (or a typed-ahead ``F5 y``) put the service's
values over the user's edits without a word. Through the real app against the in-process sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events

from tenantdeck.draft.session import DraftSession
from tenantdeck.targets import local_target
from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens.pull_screen import PullScreen
from tests.tui.pilot import make_app, settle
from tests.tui.review_fixtures import acme_toggle, pulled_draft, set_gifs_on_the_service

MINE = "#03A900"  #: the user's primary colour
THEIRS = "#111111"  #: the one someone else pushed


def _edited_on_both_sides(path: Path) -> dict[str, object]:
    """The user's three saved, unpushed edits (colour, GIFs, polls) and someone else's push of the widget's name,
    Show stickers and the colour (both changed it). The values the user's edits replaced, by draft path."""
    session = DraftSession.open(path)
    apps = session.get("apps")
    i = next(n for n, a in enumerate(apps) if a["name"] == "Acme Support")
    widget = f"apps[{i}].widgets[0]"
    old = {f"{widget}.main.send_gifs": session.get(f"{widget}.main.send_gifs"),
           f"{widget}.main.allow_creating_polls": session.get(f"{widget}.main.allow_creating_polls"),
           f"{widget}.style.primary_color": session.get(f"{widget}.style.primary_color")}
    with session.transaction():
        session.set(f"{widget}.style.primary_color", MINE)
        session.set(f"{widget}.main.send_gifs", not old[f"{widget}.main.send_gifs"])
        session.set(f"{widget}.main.allow_creating_polls", not old[f"{widget}.main.allow_creating_polls"])
    session.save()

    async def someone_else() -> None:
        async with local_target().client() as c:
            (w,) = await c.list_widgets(apps[i]["id"])
            s = w.settings
            await c.update_widget(apps[i]["id"], w.widget_id, {
                **s, "name": "Support widget v2", "style": {**s["style"], "primary_color": THEIRS},
                "main": {**s["main"], "show_stickers": not s["main"]["show_stickers"]}})

    asyncio.run(someone_else())
    return old


def _rows(screen: PullScreen) -> list[str]:
    table = screen.query_one("DataTable")
    return [" ".join(str(c) for c in table.get_row_at(n)) for n in range(table.row_count)]


def _status(screen: PullScreen) -> str:
    return str(screen.query_one("#status").render())


def test_each_row_says_whose_change_it_is_and_y_asks_before_discarding_your_edits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = pulled_draft(tmp_path, monkeypatch)
    old = _edited_on_both_sides(path)
    asyncio.run(_mixed(path, old))


async def _mixed(path: Path, old: dict[str, object]) -> None:
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, 5)
        await pilot.press("f5")
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, PullScreen) and screen.result is not None
        rows = _rows(screen)

        def row(text: str) -> str:
            (found,) = [r for r in rows if text in r]
            return found

        assert "your edit, discarded" in row("Allow GIFs"), rows
        assert "your edit, discarded" in row("Enable polls"), rows
        assert "from the service" in row("Show stickers"), rows
        assert "from the service" in row('-> "Support widget v2"'), rows
        assert "both: yours discarded" in row("Primary colour"), rows
        status = _status(screen)
        assert "3 of your unpushed edit(s) would be lost (1 of them changed on the service too)." in status, status
        assert "y asks first" in status, status

        await pilot.press("y")  # asks; writes nothing
        await settle(pilot, 5)
        assert app.screen is screen
        assert "discarding 3 unpushed edits of yours? d: discard them and pull; Escape: keep them" in _status(
            screen), _status(screen)
        assert not app.editor.session.dirty
        colour = next(p for p in old if p.endswith("primary_color"))
        assert app.editor.get(colour) == MINE
        await pilot.press("y")  # a second y (a key repeat, a typed-ahead y y) is not the answer
        await settle(pilot, 5)
        assert app.screen is screen and app.editor.get(colour) == MINE

        await pilot.press("d")  # the answer: the service's values, the user's edits discarded
        await settle(pilot, 5)
        assert not isinstance(app.screen, PullScreen)
        assert app.editor.get(colour) == THEIRS
        gifs = next(p for p in old if p.endswith("send_gifs"))
        assert app.editor.get(gifs) is old[gifs]
        await pilot.press("ctrl+z")  # one undo step takes it all back
        await settle(pilot, 5)
        assert app.editor.get(colour) == MINE and app.editor.get(gifs) is (not old[gifs])


def test_f5_y_typed_ahead_keeps_your_unpushed_edits_and_shows_the_question(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tmux send-keys F5 y``: the ``y`` waits for the read (tui/key_order.py), then finds edits of the user's to
    discard: the screen stays open naming the count, and the draft is as the user left it."""
    path = pulled_draft(tmp_path, monkeypatch)
    old = _edited_on_both_sides(path)
    asyncio.run(_burst(path, old))


async def _burst(path: Path, old: dict[str, object]) -> None:
    app: TenantdeckApp = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        text = app.editor.session.text
        for key in ("f5", "y"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot, 5)
        screen = app.screen
        assert isinstance(screen, PullScreen), "the pull was written without showing what it discards"
        assert app.editor.session.text == text and not app.editor.session.dirty
        assert "discarding 3 unpushed edits of yours?" in _status(screen), _status(screen)
        await pilot.press("escape")  # keeps them
        await settle(pilot, 5)
        assert not isinstance(app.screen, PullScreen)
        assert app.editor.session.text == text


def test_a_pull_of_only_the_services_changes_writes_on_y_at_once(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """No edit of the user's to lose: ``y`` writes as before, every row "from the service"."""
    path = pulled_draft(tmp_path, monkeypatch)

    async def flow() -> None:
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, 5)
            gifs = acme_toggle(app)
            before = app.editor.get(gifs)
            app_id = app.editor.get(gifs.split(".")[0])["id"]

            await set_gifs_on_the_service(app_id, not before)
            await pilot.press("f5")
            await settle(pilot, 5)
            screen = app.screen
            assert isinstance(screen, PullScreen)
            assert any("from the service" in r and "Allow GIFs" in r for r in _rows(screen)), _rows(screen)
            assert "would be lost" not in _status(screen)
            await pilot.press("y")
            await settle(pilot, 5)
            assert not isinstance(app.screen, PullScreen) and app.editor.get(gifs) is (not before)

    asyncio.run(flow())
