"""Fixtures of the widget-tab tests: a commented draft with a preset, a widget that extends it, a complete widget
with an out-of-catalog listing value the service holds, and an app with no widget.

Kept out of ``tests/tui/conftest.py`` on purpose: several areas add TUI tests at once (see TUI_NOTES.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tenantdeck.draft import widget_view as wv
from tenantdeck.draft.sample import sample_text


def _complete_widget_yaml(indent: int) -> str:
    """A widget with every setting written (no preset), whose user listing is one the service holds outside the
    documented values."""
    widget = wv.new_widget({})
    widget["name"] = "Initech chat"
    widget["sidebar"]["user_listing"] = "everyone"
    text = yaml.safe_dump([widget], sort_keys=False, default_flow_style=False)
    pad = " " * indent
    return "".join(pad + line + "\n" for line in text.splitlines())


def draft_text() -> str:
    return (
        sample_text(".tenantdeck/draft.schema.json")
        + "\n  - name: Initech\n    region: in\n    version: \"3\"\n    # no extensions block: not managed here\n"
        + "    widgets:\n"
        + _complete_widget_yaml(6)
    )


#: app indexes in :func:`draft_text`
ACME, GLOBEX, INITECH = 0, 1, 2


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (anyio's pytest plugin, which the suite already has through httpx)."""
    return "asyncio"


@pytest.fixture
def draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(draft_text(), encoding="utf-8")
    yield path
    shutil.rmtree(tmp_path / "config", ignore_errors=True)
