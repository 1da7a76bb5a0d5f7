"""What the service holds and the draft cannot (kept out of the draft by pull, as the service holds it), in the
editor. An extension whose settings the service holds in a form the draft cannot (kept out of the draft by pull, as
the service holds them): a second trial flipped one switch in its form, which started the settings from the
catalog's defaults and planned to replace the service's word list with ``[]``. An edit there is refused with a
notice; Ctrl+N starts from the service's values, so a switch then changes that switch only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tenantdeck.sync.remote.pull import pull_target
from tenantdeck.targets import local_target
from tests.sync.service_states import hold_extension_settings
from tests.tui.ext_settings_fixtures import open_form
from tests.tui.pilot import make_app, settle

HELD = {"dropMessage": 0, "badwords": ["darn", "\x1b[31mred", "[b]x[/b]"]}  # 0 where the model wants false


@pytest.fixture
def pulled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int]:
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    sandbox = local_target().transport.app  # type: ignore[attr-defined]
    globex = next(a for a in sandbox.state.store.list_apps(None, 100, 0)[0] if a["name"] == "Globex Community")
    hold_extension_settings(sandbox, globex["id"], "profanity-filter", HELD)
    path = tmp_path / "tenantdeck.yaml"
    result = pull_target(local_target(), path)
    assert any("profanity-filter" in n and "kept as the service holds" in n for n in result.notes), result.notes
    import yaml

    apps = yaml.safe_load(path.read_text(encoding="utf-8"))["apps"]
    return path, next(i for i, a in enumerate(apps) if a["name"] == "Globex Community")


def test_a_switch_in_a_held_form_never_replaces_the_services_settings(pulled: tuple[Path, int]) -> None:
    path, index = pulled
    block = f"apps[{index}].extension_settings"

    async def flow() -> None:
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await open_form(pilot, "profanity-filter", index)
            assert (app.editor.get(block) or {}).get("profanity-filter") is None
            text = app.editor.session.text
            await pilot.press("space")  # the first row: Drop the message
            await settle(pilot)
            assert app.editor.session.text == text  # refused: it would have started from the defaults
            assert any("Ctrl+N starts them from the service's values" in n.message for n in app._notifications)
            await pilot.press("ctrl+n")
            await settle(pilot)
            assert app.editor.get(block)["profanity-filter"] == HELD
            await pilot.press("space")
            await settle(pilot)
            assert app.editor.get(block)["profanity-filter"] == {**HELD, "dropMessage": True}

    asyncio.run(flow())


def test_a_held_widget_field_says_the_service_holds_another_value(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A second trial read the Style tab's `Primary colour  #03A9F4  default` as the service's colour, which held
    `red; background:url(...)` (kept out of the draft). The row now says what the service holds, escaped."""
    from textual.widgets import Static

    from tests.sync.service_states import hold_widget_values
    from tests.tui.hooks_fixtures import open_tab

    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("TENANTDECK_BASE_URL", raising=False)
    sandbox = local_target().transport.app  # type: ignore[attr-defined]
    acme = next(a for a in sandbox.state.store.list_apps(None, 100, 0)[0] if a["name"] == "Acme Support")
    hold_widget_values(sandbox, acme["id"], {"style": {"primary_color": "[b]red[/b]; \x1b[31m url(x)"}})
    path = tmp_path / "tenantdeck.yaml"
    pull_target(local_target(), path)

    async def flow() -> None:
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            index = next(i for i, a in enumerate(app.editor.get("apps")) if a["name"] == "Acme Support")
            await open_tab(pilot, "style", app_index=index)
            await settle(pilot)
            row = app.screen.query_one("#style-primary_color")
            status = str(row.query_one(".field-status", Static).render())
            assert "the service holds '[b]red[/b]; \\x1b[31m url(x)'" in status, status
            assert "\x1b" not in status
            other = str(app.screen.query_one("#style-background_color").query_one(".field-status", Static).render())
            assert "the service holds" not in other

    asyncio.run(flow())
