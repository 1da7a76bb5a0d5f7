"""What tests/textual_harness.py changes in Textual's test harness leaves what a test sees as it was: a stylesheet
parsed once per worker is what a new one would parse, whatever the theme; a pilot's pause that skips quiet widgets
still waits for every widget that has work."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.css.tokenizer import TokenError
from textual.message import Message
from textual.widgets import Static

from tests.textual_harness import waiting_idle

pytestmark = pytest.mark.anyio

CSS = "Static { color: $accent; }"


def rules(variables: dict[str, str], css: str = CSS) -> list[object]:
    sheet = Stylesheet(variables=variables)
    sheet.add_source(css, read_from=("test", "Static"), is_default_css=True)
    return sheet.rules


def colour(rule_list: list[object]) -> str:
    (rule,) = rule_list
    return str(rule.styles.color)  # type: ignore[attr-defined]


def test_a_second_stylesheet_gets_the_rules_parsed_for_the_first() -> None:
    first, second = rules({"accent": "#ff0000"}), rules({"accent": "#ff0000"})
    assert first[0] is second[0], "parsed again: the worker's cache is not in place"


def test_other_variables_are_parsed_again_with_their_values() -> None:
    red, blue = rules({"accent": "#ff0000"}), rules({"accent": "#0000ff"})
    assert red[0] is not blue[0]
    assert colour(red) != colour(blue)
    assert colour(rules({"accent": "#ff0000"})) == colour(red)


@pytest.mark.parametrize("css", ["Static { color: ; nonsense }", "Static { color: not-a-colour; }"])
def test_css_that_fails_to_parse_fails_every_time(css: str) -> None:
    for _ in range(2):
        with pytest.raises((StylesheetParseError, TokenError)):
            rules({}, css)


class Slow(Static):
    """Handles :class:`Slow.Work` by awaiting, so its queue is empty while it is busy."""

    class Work(Message):
        pass

    done = 0

    async def on_slow_work(self, message: Work) -> None:
        await asyncio.sleep(0.05)
        self.done += 1
        if self.done < 3:
            self.post_message(self.Work())  # work that starts more work


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("quiet")
        yield Slow("busy")


async def test_a_quiet_widget_is_waiting_idle_and_a_busy_one_is_not() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        await pilot.pause()
        quiet, slow = app.query_one(Static), app.query_one(Slow)
        assert waiting_idle(quiet) and waiting_idle(slow)
        slow.post_message(Slow.Work())
        assert not waiting_idle(slow), "something queued"
        await asyncio.sleep(0.01)
        assert not waiting_idle(slow), "a message being handled (its queue is empty)"
        assert waiting_idle(quiet)


@pytest.mark.parametrize("wait", ["pause", "press"])
async def test_a_pause_or_a_key_waits_for_a_widget_that_is_busy(wait: str) -> None:
    app = Harness()
    async with app.run_test() as pilot:
        slow = app.query_one(Slow)
        slow.post_message(Slow.Work())
        for _ in range(3):
            await (pilot.pause() if wait == "pause" else pilot.press("x"))
        assert slow.done == 3 and waiting_idle(slow)


async def test_a_pause_sends_nothing_to_a_quiet_widget() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        await pilot.pause()
        quiet = app.query_one(Static)
        sent: list[object] = []
        call_later = quiet.call_later
        quiet.call_later = lambda *args: sent.append(args) or call_later(*args)  # type: ignore[method-assign]
        await pilot.pause()
        await pilot.press("x")
        assert sent == [], "the quiet widget was woken: the harness's wait is not in place"
