"""Issue 34, the trial's F5 finding: the editor's pull (F5) of an account holding app settings of another JSON type
(and a key with ESC) and a widget value our model refuses showed "2 validation errors for App"; now it lists the
notes (escaped), writes the pull as one edit, and the app is in sync once saved. Against the in-process sandbox
(the ``local`` profile), its store holding what the real service may hold."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.targets import local_target
from tests.sync.service_states import hold_app_settings, hold_widget_values
from tests.tui.pilot import make_app, settle
from tests.tui.review_fixtures import open_pull, pulled_draft


@pytest.fixture
def pulled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return pulled_draft(tmp_path, monkeypatch)



def shown_text(screen: Any) -> str:
    """Every row of the Pull screen's table and every note it holds in full, as one text."""
    table = screen.query_one("DataTable")
    rows = [" ".join(str(c) for c in table.get_row_at(n)) for n in range(table.row_count)]
    return " ".join(rows) + " ".join(screen._full.values())

def test_f5_keeps_what_the_draft_cannot_hold_and_says_so(pulled: Path) -> None:
    sandbox = local_target().transport.app  # type: ignore[attr-defined]
    acme = next(a for a in sandbox.state.store.list_apps(None, 100, 0)[0] if a["name"] == "Acme Support")
    hold_app_settings(sandbox, acme["id"], {"core.limits.maxGroupSize": 100, "core.\x1b[31mred": "x"})
    hold_widget_values(sandbox, acme["id"], {"style": {"primary_color": "red; background:url(http://e.example/)"}})

    async def flow() -> None:
        app = make_app(pulled)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_pull(pilot)
            text = shown_text(screen)
            assert "validation error" not in text and "\x1b" not in text
            assert "core.limits.maxGroupSize" in text and "core.\\x1b[31mred" in text
            assert "style.primary_color kept as the service holds it" in text
            await pilot.press("y")
            await settle(pilot, 5)
            widgets = next(a for a in app.editor.get("apps") if a["name"] == "Acme Support")["widgets"]
            assert len(widgets) == 1 and "primary_color" not in widgets[0]["style"]
            await pilot.press("f2")
            await settle(pilot, 5)
            assert set(app.editor.app_states.values()) == {"in sync"}

    asyncio.run(flow())


def test_f5_keeps_an_app_whose_name_the_draft_cannot_hold_and_says_so(pulled: Path) -> None:
    """Trial L, L6: an app renamed on the service with a newline made F5 say "Could not read the service" and
    "1 validation error for App". Now the preview takes it out of the draft (the row says why, the note names it
    escaped, as the CLI's pull does), and once saved nothing is planned for it: not a delete."""
    from tenantdeck.sync.workspace.local import compare_local, load_local
    from tests.sync.service_states import hold_app_fields

    sandbox = local_target().transport.app  # type: ignore[attr-defined]
    globex = next(a for a in sandbox.state.store.list_apps(None, 100, 0)[0] if a["name"] == "Globex Community")
    hold_app_fields(sandbox, globex["id"], {"name": "Glo\nbex\u202e"})

    async def flow() -> None:
        app = make_app(pulled)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_pull(pilot)
            text = shown_text(screen)
            assert "validation error" not in text and "Could not read" not in str(screen.query_one("#status").render())
            assert "\u202e" not in text and "\n" not in text
            assert "the draft cannot hold it" in text
            assert "Glo\\nbex\\u202e" in text and "kept as the service holds it" in text
            await pilot.press("y")
            await settle(pilot, 5)
            assert [a["name"] for a in app.editor.get("apps")] == ["Acme Support", "Initech Field Chat"]
            await pilot.press("f2")
            await settle(pilot, 5)
            assert set(app.editor.app_states.values()) == {"in sync"}

    asyncio.run(flow())
    comparison = compare_local(load_local(pulled, {}), None)
    assert {a.status for a in comparison.apps} == {"in_sync"}, [(a.name, a.status) for a in comparison.apps]
