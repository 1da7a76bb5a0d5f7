"""The Apps list at 5,000 apps: filled lazily (a screenful before the first paint, chunks after), yet filtering
searches the whole draft and an edit of an app whose row is not added yet shows once it is."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import yaml
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from tenantdeck.tui.app import TenantdeckApp
from tenantdeck.tui.screens import apps_screen
from tenantdeck.tui.screens.apps_screen import AppsScreen
from tests.tui.pilot import make_app

APPS = 5000


@functools.cache
def big_draft_text() -> str:
    """Written once per process: PyYAML's dump of 5,000 apps was a fifth of this file's CPU, made again per test."""
    apps = [{"id": f"app{i:05d}", "name": f"Tenant {i:05d}", "region": ("us", "eu", "in")[i % 3], "version": "3",
             "webhooks": []} for i in range(APPS)]
    return yaml.safe_dump({"format": 1, "presets": {}, "apps": apps}, sort_keys=False)


@pytest.fixture
def big_draft(tmp_path: Path) -> Path:
    path = tmp_path / "big.yaml"
    path.write_text(big_draft_text(), encoding="utf-8")
    return path


def run(app: TenantdeckApp, body: Callable[[Pilot[None], AppsScreen, DataTable[str]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AppsScreen)
            await body(pilot, screen, screen.query_one(DataTable))

    asyncio.run(main())


_FILL = AppsScreen._fill


def pause_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows after the first screenful are not added until :func:`resume_fill` (in a headless run the refreshes that
    drive the fill come so fast that a small chunk size alone does not keep rows out for the test to look)."""
    monkeypatch.setattr(AppsScreen, "_fill", lambda self, generation: None)


def resume_fill(monkeypatch: pytest.MonkeyPatch, screen: AppsScreen) -> None:
    monkeypatch.setattr(AppsScreen, "_fill", _FILL)
    screen._fill(screen._fill_generation)


async def filled(pilot: Pilot[None], screen: AppsScreen) -> None:
    """Until every matching row is in the table (and validation is done)."""
    while screen.filling:
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def cells(table: DataTable[str], index: int) -> list[str]:
    """The row's cells after the mark column (Name, Region, Widgets, Webhooks, Problems, Change)."""
    return [str(c) for c in table.get_row(str(index))][1:]


def test_first_paint_holds_a_screenful_and_the_rest_follows(big_draft: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pause_fill(monkeypatch)  # the fill cannot finish before the test looks

    async def body(pilot: Pilot[None], screen: AppsScreen, table: DataTable[str]) -> None:
        assert apps_screen.FIRST_ROWS <= table.row_count < APPS
        assert screen.filling and screen.sub_title == f"{APPS} apps"
        resume_fill(monkeypatch, screen)
        await filled(pilot, screen)
        assert table.row_count == APPS
        assert cells(table, APPS - 1)[:2] == [f"Tenant {APPS - 1:05d}", "eu"]
        assert cells(table, APPS - 1)[5] == "no base"  # the change state arrived for a row added late

    run(make_app(big_draft), body)


def test_filter_finds_an_app_far_down_the_list(big_draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pause_fill(monkeypatch)

    async def body(pilot: Pilot[None], screen: AppsScreen, table: DataTable[str]) -> None:
        assert "4999" not in table.rows
        await pilot.press("slash", *"04999")
        assert screen.query_one("#filter", Input).value == "04999"
        screen.refresh_rows()  # what the debounce timer calls
        await pilot.pause()
        assert list(k.value for k in table.rows) == ["4999"]
        assert screen.sub_title == f"1 of {APPS} apps" and not screen.filling
        assert screen.selected_index() == 4999
        await pilot.press("escape")  # clears the filter: every app again, the cursor stays on the app
        screen.refresh_rows()
        resume_fill(monkeypatch, screen)
        await filled(pilot, screen)
        assert table.row_count == APPS and screen.selected_index() == 4999

    run(make_app(big_draft), body)


def test_an_edit_of_a_row_not_added_yet_shows_once_it_is(big_draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pause_fill(monkeypatch)

    async def body(pilot: Pilot[None], screen: AppsScreen, table: DataTable[str]) -> None:
        far = APPS - 2
        assert str(far) not in table.rows
        assert app.editor.set(f"apps[{far}].name", "Renamed far down").ok
        assert app.editor.insert(f"apps[{far}].webhooks", {
            "id": "late", "name": "Late", "webhookURL": "https://hooks.example.com/late", "triggers": []}).ok
        await pilot.pause()
        assert screen.filling and str(far) not in table.rows  # the edit did not rebuild the table
        near = 1
        assert app.editor.set(f"apps[{near}].region", "in").ok  # a row already shown is updated in place
        await pilot.pause()
        assert cells(table, near)[:2] == ["Tenant 00001", "in"]
        resume_fill(monkeypatch, screen)
        await filled(pilot, screen)
        assert cells(table, far)[:4] == ["Renamed far down", "us", "0", "1"]

    app = make_app(big_draft)
    run(app, body)


def test_a_big_draft_opens_on_its_first_apps_while_the_rest_is_read(
    big_draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 10, 5,000 apps opened for the first time: the first frame shows the first apps, read from the start of
    the file, while a worker reads the whole draft; then the list, problems and edits are the whole draft's."""
    import threading

    from tenantdeck.draft.session import DraftSession
    from tenantdeck.tui import editor as editor_module

    monkeypatch.setattr(editor_module, "PROGRESSIVE_MIN_BYTES", 0)
    gate = threading.Event()
    real_open = DraftSession.open.__func__  # type: ignore[attr-defined]

    def held_open(cls: type[DraftSession], *args: object, **kwargs: object) -> DraftSession:
        if threading.current_thread() is not threading.main_thread():
            assert gate.wait(30), "the test never let the worker read"
        return real_open(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(DraftSession, "open", classmethod(held_open))
    app = make_app(big_draft)
    assert not app.editor.loaded and app.editor.preview is not None
    assert len(app.editor.preview) == editor_module.PREVIEW_APPS

    async def body(pilot: Pilot[None], screen: AppsScreen, table: DataTable[str]) -> None:
        assert not app.editor.loaded, "the first frame does not wait for the whole draft"
        assert table.row_count == editor_module.PREVIEW_APPS
        assert [str(c) for c in table.get_row_at(0)[1:3]] == ["Tenant 00000", "us"]
        assert table.get_row_at(0)[5] == "reading"
        assert screen.sub_title == f"reading · first {editor_module.PREVIEW_APPS} apps"
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.editor.loaded and app.editor.preview is None
        assert screen.sub_title == f"{APPS} apps" and screen._matching == APPS
        assert table.get_row_at(0)[5] == "ok", "validated once read"
        app.editor.set("apps[3].name", "Renamed")
        await pilot.pause()
        assert str(table.get_row_at(3)[1]) == "Renamed"  # a name is a Text cell (data, never markup)

    run(app, body)


def test_using_the_draft_before_the_worker_has_read_it_reads_it(
    big_draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tenantdeck.tui import editor as editor_module

    monkeypatch.setattr(editor_module, "PROGRESSIVE_MIN_BYTES", 0)
    editor = editor_module.Editor(big_draft)
    assert not editor.loaded and editor.title == "big.yaml"
    assert editor.get("apps[4999].name") == "Tenant 04999"  # reads it now, never half of it
    assert editor.loaded and editor.preview is None and not editor.load()
