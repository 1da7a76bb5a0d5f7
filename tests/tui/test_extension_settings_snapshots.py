"""Snapshots of the extension settings form at 80x24 (and the widest form at 120x40): profanity-filter (a toggle
and a list), push-notification (choices, a group with a secret whose variable is set), data-masking (tables of
masks) and one mask's own form, Giphy (a secret whose variable is unset), an extension without settings in the
draft, an edit line with a refused literal, a choice list open.

Deterministic: the draft is copied into ``tmp_path``, config and data directories are isolated (tests/tui/conftest),
the secrets' variables fixed, validation awaited, input cursors not blinking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.ext_settings_fixtures import ext_draft, open_form
from tests.tui.pilot import make_app, no_blink, settle

__all__ = ["ext_draft"]


def _before(ext: str, keys: tuple[str, ...] = (), app_index: int = 0) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        await open_form(pilot, ext, app_index)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        no_blink(pilot)
        await pilot.pause()

    return run_before


CASES = {
    "profanity": _before("profanity-filter", ("down",)),
    "push": _before("push-notification", ("down",) * 5),  # on the private key, whose variable is set
    "push_choices": _before("push-notification", ("down", "enter")),
    "masking": _before("data-masking", ("down", "down")),
    "masking_item": _before("data-masking", ("down", "down", "enter", "down", "down")),
    "giphy": _before("gifs-giphy"),
    "giphy_literal": _before("gifs-giphy", ("enter", "ctrl+u", *"hunter2", "enter")),
    "none": _before("email-notification", ("down",), app_index=1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_extension_settings_snapshot(case: str, ext_draft: Path, snap_compare: Any) -> None:
    assert snap_compare(make_app(ext_draft), terminal_size=(80, 24), run_before=CASES[case])


def test_push_notification_wide(ext_draft: Path, snap_compare: Any) -> None:
    assert snap_compare(make_app(ext_draft), terminal_size=(120, 40), run_before=CASES["push"])
