"""The effective value of a widget field: the rule (:func:`effective_value`) and its all-keys form
(:func:`effective_sections`, dictionary merges for speed) give the same answer over generated layers."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tenantdeck.models import catalog
from tenantdeck.models.effective import (
    DEFAULTS,
    SECTIONS,
    UNSET,
    WRITTEN,
    effective_section,
    effective_sections,
    effective_value,
    preset_of,
)

KEYS = ["send_gifs", "allow_creating_polls", "primary_color", "user_settings", "sidebar_navigation_sequence",
        "not_a_catalog_key"]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2))
SECTION = st.one_of(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5), st.integers(), st.none())
LAYER = st.one_of(st.fixed_dictionaries({}, optional={s: SECTION for s in SECTIONS}), st.none(), st.text(max_size=2))


@given(LAYER, LAYER, st.booleans())
# found by a random run: a key the preset names empty, given its value by the widget, kept the preset's place in the
# rule's order but went last in the merge's
@example({"sidebar": {"not_a_catalog_key": 1}}, {"sidebar": {"not_a_catalog_key": None, "user_settings": 1}}, True)
def test_the_merge_gives_what_the_rule_gives_for_every_key(widget: Any, preset: Any, extends: bool) -> None:
    if extends and isinstance(widget, dict):
        widget = {**widget, "extends": "p"}
    merged = effective_sections(widget, preset)
    written = effective_sections(widget, preset, defaults=False)
    for section in SECTIONS:
        found = dict(effective_section(widget, preset, section))
        assert merged[section] == {k: v.value for k, v in found.items() if v.source != UNSET}
        assert written[section] == {k: v.value for k, v in found.items() if v.source in WRITTEN}
        assert list(merged[section]) == [k for k, v in found.items() if v.source != UNSET]  # the same order


def test_an_empty_value_inherits_and_the_source_says_whose_value_it_is() -> None:
    preset = {"main": {"send_gifs": True}, "style": {"primary_color": None}}
    widget = {"extends": "p", "main": {"send_gifs": None, "send_files": False}}
    assert effective_value(widget, preset, "main", "send_gifs") == (True, "preset")
    assert effective_value(widget, preset, "main", "send_files") == (False, "override")
    assert effective_value({"main": {"send_files": False}}, None, "main", "send_files") == (False, "widget")
    assert effective_value(widget, preset, "style", "primary_color") == (catalog.STYLE_DEFAULTS["primary_color"],
                                                                        "default")
    assert effective_value(widget, preset, "main", "allow_creating_polls") == (None, "unset")


def test_a_default_list_is_a_copy() -> None:
    value = effective_value(None, None, "sidebar", "sidebar_navigation_sequence").value
    value.append("x")
    assert DEFAULTS["sidebar"]["sidebar_navigation_sequence"] == list(catalog.NAVIGATION_SECTIONS)
    effective_sections(None, None)["sidebar"]["sidebar_navigation_sequence"].append("x")
    assert DEFAULTS["sidebar"]["sidebar_navigation_sequence"] == list(catalog.NAVIGATION_SECTIONS)


def test_the_preset_is_found_only_when_named_and_a_mapping() -> None:
    presets = {"p": {"name": "P"}, "q": 3}
    assert preset_of({"extends": "p"}, presets) == {"name": "P"}
    assert preset_of({"extends": "q"}, presets) is None
    assert preset_of({"extends": 3}, presets) is None
    assert preset_of({}, presets) is None
