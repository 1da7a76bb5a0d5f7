"""Issue 32, item 5: YAML tenantdeck writes holds no raw control or bidi character, and reads back as the same data.

Both writers: the fast emitter of fresh drafts (``draft.emit``, what ``pull`` writes) and ruamel's round-trip
emitter (a save merged into an existing draft, the targets file), over any text hypothesis draws, as values, list
items and keys; and a save that keeps an existing value the user wrote raw re-writes it escaped. The recovery file
(PyYAML/libyaml) too.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft.emit import emit
from tenantdeck.draft.save import _dump, _styled, _yaml, merge_data
from tenantdeck.draft.yamlsource import parse
from tests.test_textsafe import CONTROLS, assert_safe

#: any text, with the characters a terminal acts on drawn often (st.text() alone rarely draws U+202E); no lone
#: surrogate: YAML cannot hold one at all, escaped or not (a reader refuses ``"\uD800"``)
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
texts = st.text(alphabet=st.one_of(st.characters(exclude_categories=("Cs",)),
                                   st.sampled_from([*CONTROLS, "\u2028", "\u2029", "\x85"]), st.sampled_from(BIDI)))
HOSTILE = ["\u202e", "\u2066x\u2069", "\x1b]52;c;U1RURVNU\x1b\\", "\x1b[2J", "\x07", "\x00", "\u061c\u200e\u200f"]


def read(text: str) -> Any:
    parsed = parse(text, "t.yaml")
    assert not parsed.problems, (text, [p.render() for p in parsed.problems])
    return parsed.data


def document(text: str) -> dict[str, Any]:
    return {"format": 1, "name": text, "list": [text, "plain"], "keys": {text or "empty": 1}, "multi": f"a\n{text}\nb"}


@given(texts)
def test_a_fresh_draft_escapes_every_unsafe_character_and_reads_back(text: str) -> None:
    written = emit(document(text))
    assert_safe(written)
    assert read(written) == document(text)


@given(texts)
def test_a_merged_save_escapes_every_unsafe_character_and_reads_back(text: str) -> None:
    written = _dump(_yaml(), _styled(document(text)))
    assert_safe(written)
    assert read(written) == document(text)
    merged = merge_data("format: 1\nname: old  # kept\n", document(text))
    assert_safe(merged)
    assert read(merged) == document(text) and "# kept" in merged


def test_the_known_hostile_strings_are_written_as_escapes() -> None:
    for text in HOSTILE:
        assert_safe(emit({"name": text}))
    assert emit({"name": "a\u202eb"}) == 'name: "a\\u202Eb"\n'
    assert _dump(_yaml(), _styled({"name": "a\u202eb"})) == 'name: "a\\u202Eb"\n'


def test_a_value_the_user_wrote_raw_is_escaped_on_the_next_save() -> None:
    """preserve_quotes keeps a plain, single-quoted or ``|`` value's style, which cannot escape: it becomes
    double-quoted once it holds a control or bidi character."""
    original = "format: 1\nplain: a\u202eb\nquoted: 'c\u2066d'\nblock: |\n  e\u202ef\n  g\nkeep: 1\n"
    merged = merge_data(original, {"format": 1, "plain": "a\u202eb", "quoted": "c\u2066d", "block": "e\u202ef\ng",
                                   "keep": 2})
    assert_safe(merged)
    assert read(merged) == {"format": 1, "plain": "a\u202eb", "quoted": "c\u2066d", "block": "e\u202ef\ng", "keep": 2}


@given(texts)
def test_the_recovery_file_escapes_every_unsafe_character_and_reads_back(text: str) -> None:
    from tenantdeck.draft import recovery

    written = recovery.render("d.yaml", f"name: {text}\n", "", written="now", pid=1, host=f"h{text}")
    assert_safe(written)
    import yaml

    doc = yaml.safe_load(written)
    assert doc["text"] == f"name: {text}\n" and doc["host"] == f"h{text}"
