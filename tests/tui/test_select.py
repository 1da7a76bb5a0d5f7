"""LightSelect (tui/widgets/select.py) against Textual's Select: the same keys, clicks and bursts give the same
screen, cell by cell with its colours, the same values, messages and focus, closed, focused, open, picked, with a
value that wraps; the first opening mounts the list of choices."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Select

from tenantdeck.tui.widgets.select import LightSelect, SelectValue
from tests.tui.pilot import painted_cells

OPTIONS = [("region us", "us"), ("region eu", "eu"), ("region in", "in"),
           ("a label long enough to wrap in a narrow select", "long")]


class Form(App[None]):
    CSS = """
    Horizontal { height: auto; }
    Select { width: 1fr; }
    #kind { width: 26; }
    """

    def __init__(self, kind: type[Select[Any]]) -> None:
        super().__init__()
        self.kind = kind
        self.changes: list[tuple[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Input(id="first")
        with Horizontal():
            yield self.kind(OPTIONS, prompt="any region", id="region")
            yield self.kind([("a widget field", "field"), ("a trigger on a webhook", "trigger")], value="field",
                            allow_blank=False, id="kind")
        yield Input(id="last")

    def on_select_changed(self, event: Select.Changed) -> None:
        self.changes.append((str(event.select.id), event.value))


async def _run(kind: type[Select[Any]], steps: list[Any], size: tuple[int, int]) -> list[Any]:
    app = Form(kind)
    seen: list[Any] = []
    async with app.run_test(size=size) as pilot:
        for input_ in app.query(Input):
            input_.cursor_blink = False
        for step in steps:
            if isinstance(step, tuple):
                await pilot.click(*step)
            else:
                await pilot.press(*step.split())
            await pilot.pause()
            await pilot.pause()
            focused = app.focused
            seen.append((step, painted_cells(pilot), app.changes[:], app.query_one("#region", Select).value,
                         app.query_one("#kind", Select).value, app.query_one("#region", Select).expanded,
                         focused.id if focused is not None else None,
                         "Select" if isinstance(focused, Select) else type(focused).__name__))
    return seen


SCENES = {
    "keys": ["tab", "enter", "down", "down", "enter", "space", "escape", "up", "e", "enter", "tab", "enter", "down",
             "enter", "tab", "shift+tab", "shift+tab", "space", "escape"],
    "search and long value": ["tab", "enter", "a", "enter", "down", "l", "o", "enter"],
    "a burst at once": ["tab enter down enter"],
    "clicks": [("#region",), ("#region",), ("#kind",), ("#region",)],
}


@pytest.mark.parametrize("size", [(80, 24), (44, 24)], ids=["80x24", "44x24"])
@pytest.mark.parametrize("scene", list(SCENES))
def test_light_select_behaves_and_looks_as_textuals(scene: str, size: tuple[int, int]) -> None:
    stock = asyncio.run(_run(Select, SCENES[scene], size))
    light = asyncio.run(_run(LightSelect, SCENES[scene], size))
    for before, after in zip(stock, light, strict=True):
        assert before[0] == after[0]
        assert before[2:] == after[2:], f"after {before[0]!r}"
        for y, (a, b) in enumerate(zip(before[1], after[1], strict=True)):
            assert a == b, f"after {before[0]!r}, line {y}: {''.join(c for c, _ in a)!r} / {''.join(c for c, _ in b)!r}"


def test_the_value_is_one_widget_and_the_choices_are_mounted_when_first_opened() -> None:
    async def run() -> None:
        app = Form(LightSelect)
        async with app.run_test(size=(80, 24)) as pilot:
            select = app.query_one("#region", LightSelect)
            await pilot.pause()
            assert [type(w) for w in select.children] == [SelectValue]
            assert not list(select.query_one(SelectValue).children)
            await pilot.press("tab", "enter")
            assert [type(w).__name__ for w in select.children] == ["SelectValue", "SelectOverlay"]
            assert [type(w) for w in app.query_one("#kind", LightSelect).children] == [SelectValue]

    asyncio.run(run())
