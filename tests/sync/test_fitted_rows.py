"""A review or pull row cut to a width (issue 37 item 7): the new value is shown whole or ends in an ellipsis, never
cut silently, and the row never takes more cells than it is given. Over generated values: long, wide (CJK),
control characters, JSON lists."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.sync.render import change_text, change_text_fitted, value_text
from tenantdeck.sync.types import ABSENT, FieldChange
from tenantdeck.textsafe import cell_width, fitted, shown
from tests.fuzzing import examples

TEXT = st.text(st.characters(codec="utf-8"), max_size=120)
VALUES = st.one_of(TEXT, st.booleans(), st.integers(), st.lists(TEXT, max_size=4), st.just(ABSENT))
LABELS = st.text(st.characters(codec="utf-8"), min_size=1, max_size=60)


def new_value_kept(line: str, after: str) -> bool:
    """``after`` ends ``line`` whole, or a start of it does, followed by ``…``."""
    return kept_suffix(line, after) is not None


def kept_suffix(line: str, after: str) -> str | None:
    if line.endswith(after):
        return after
    return next((after[:k] + "…" for k in range(len(after) - 1, 0, -1) if line.endswith(after[:k] + "…")), None)


@settings(max_examples=examples(400), deadline=None)
@given(label=LABELS, path=st.sampled_from(["", "style.primary_color", "main.send_gifs", "x" * 70]),
       before=VALUES, after=VALUES.filter(lambda v: v is not ABSENT), width=st.integers(20, 160))
def test_the_new_value_is_whole_or_ends_in_an_ellipsis(label: str, path: str, before: object, after: object,
                                                       width: int) -> None:
    change = FieldChange(path or label, label, before, after, "local")
    line = change_text_fitted(change, width)
    assert cell_width(line) <= width, (line, width)
    assert new_value_kept(line, shown(value_text(after))), line
    suffix = kept_suffix(line, shown(value_text(after)))
    assert suffix is not None and line[:len(line) - len(suffix)].endswith((": ", " -> ")), line  # never glued on
    full = change_text(change)
    assert line == full or "…" in line  # a cut is always marked


@given(text=TEXT, width=st.integers(1, 100))
def test_fitted_is_the_text_or_a_marked_start_of_it(text: str, width: int) -> None:
    out = fitted(text, width)
    assert cell_width(out) <= width
    assert out == text or (out.endswith("…") and text.startswith(out[:-1]))


def test_the_issues_row_keeps_the_new_colour() -> None:
    change = FieldChange("style.primary_color", "Primary colour", "#03A9F4", "#12AB34", "local")
    line = change_text_fitted(change, 50)
    assert line.endswith('"#03A9F4" -> "#12AB34"') and cell_width(line) <= 50


@settings(max_examples=examples(400), deadline=None)
@given(text=st.text(st.characters(codec="utf-8"), max_size=40), width=st.integers(1, 60))
def test_a_cut_measures_what_the_editor_draws(text: str, width: int) -> None:
    """The width a cut is made to is the width Textual lays the cell out in (its Rich ``Text``): CI found a soft
    hyphen measured as no cell by the cut and as one by the layout, so a Check cell took 29 columns of 28."""
    from rich.text import Text

    safe = shown(text)
    assert cell_width(safe) == Text(safe).cell_len
    assert Text(fitted(safe, width)).cell_len <= width


@given(text=TEXT, width=st.integers(1, 100))
def test_fitted_end_is_the_text_or_a_marked_end_of_it(text: str, width: int) -> None:
    from rich.text import Text

    from tenantdeck.textsafe import fitted_end

    safe = shown(text)
    out = fitted_end(safe, width)
    assert Text(out).cell_len <= width
    assert out == safe or (out.startswith("…") and safe.endswith(out[1:]))


#: what widens or joins the character before it: a variation selector 16 makes "0" or "❤" two cells wide in
#: Rich's measure, a joiner glues emoji; each among narrow, wide and zero-width neighbours
GRAPHEMES = st.text(st.sampled_from(["0", "a", "❤", "☺", "\ufe0f", "\u200d", "👨", "👩", "界", "\u0301", " "]),
                    max_size=40)


@settings(max_examples=examples(400), deadline=None)
@given(text=GRAPHEMES, width=st.integers(1, 30))
def test_a_cut_through_emoji_sequences_fits_both_ways(text: str, width: int) -> None:
    """CI found ``"000000\\ufe0f"`` in a Check cell: each character measured alone is 1 cell and 0, the sequence is
    2 to Rich, so a cut summing characters took 29 columns of 28. Both cuts keep whole graphemes and fit."""
    from tenantdeck.textsafe import fitted_end

    start, end = fitted(text, width), fitted_end(text, width)
    assert cell_width(start) <= width and cell_width(end) <= width, (start, end)
    assert start == text or (start.endswith("…") and text.startswith(start[:-1]))
    assert end == text or (end.startswith("…") and text.endswith(end[1:]))


@given(text=st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200), width=st.integers(1, 100))
def test_printable_ascii_is_cut_as_the_grapheme_walk_cuts_it(text: str, width: int) -> None:
    """Printable ASCII (one cell, one grapheme a character) is cut without splitting it into graphemes (F6's plan
    cuts 1,000 rows); the same cut: the first ``width - 1`` characters and ``…``, or the last ones after it."""
    from tenantdeck.textsafe import fitted_end

    short = len(text) <= width
    assert fitted(text, width) == (text if short else text[:width - 1] + "…")
    assert fitted_end(text, width) == (text if short else "…" + text[len(text) - width + 1:])


def test_printable_ascii_is_not_split_into_graphemes(monkeypatch: pytest.MonkeyPatch) -> None:
    import tenantdeck.textsafe as textsafe

    def refused(text: str) -> None:
        raise AssertionError(f"split_graphemes({text!r})")

    monkeypatch.setattr(textsafe, "split_graphemes", refused)
    assert textsafe.fitted("create app Tenant 00500 in region eu", 20) == "create app Tenant 0…"
    assert textsafe.fitted_end("apps[500].widgets[0].main.send_gifs", 20) == "…s[0].main.send_gifs"
