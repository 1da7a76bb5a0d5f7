"""The suite parses each stylesheet once per worker (tests/conftest.py, ``_parse_each_stylesheet_once_per_worker``):
what a test's editor is styled with must be what a new stylesheet would parse, whatever the theme."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.css.tokenizer import TokenError

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
