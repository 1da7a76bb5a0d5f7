"""A widget's effective settings from plain data: preset, overrides and defaults, for valid and invalid drafts."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft.effective_widget import effective_widget, effective_widget_at
from tenantdeck.draft.sample import sample_text
from tenantdeck.models import Draft, catalog
from tenantdeck.rules import resolve_widget

PRESETS = {
    "support": {
        "name": "Support chat",
        "style": {"primary_color": "#111111", "background_color": "#222222"},
        "sidebar": {"calls": False, "users": True},
        "main": {"send_gifs": True, "send_files": False},
    }
}


def test_widget_values_win_over_the_preset_which_wins_over_the_defaults() -> None:
    widget = {"extends": "support", "name": "Help", "style": {"primary_color": "#333333"}, "main": {"send_gifs": False}}
    view = effective_widget(widget, PRESETS)
    assert view.name == "Help" and view.extends == "support" and view.preset_found
    assert view.style["primary_color"] == "#333333" and view.source_of("style", "primary_color") == "override"
    assert view.style["background_color"] == "#222222" and view.source_of("style", "background_color") == "preset"
    assert view.style["foreground_color"] == catalog.STYLE_DEFAULTS["foreground_color"]
    assert view.source_of("style", "foreground_color") == "default"
    assert view.main["send_gifs"] is False and view.main["send_files"] is False
    assert view.sidebar["calls"] is False
    assert view.source_of("sidebar", "user_settings") == "unset"  # the spec has no default for it


def test_written_at_names_the_place_to_edit() -> None:
    view = effective_widget({"extends": "support", "style": {"primary_color": "#333"}}, PRESETS)
    here = "apps[0].widgets[0]"
    assert view.written_at(here, "style", "primary_color") == "apps[0].widgets[0].style.primary_color"
    assert view.written_at(here, "style", "background_color") == "presets.support.style.background_color"
    assert view.written_at(here, "style", "foreground_color") is None


def test_the_preset_name_is_used_when_the_widget_has_none() -> None:
    assert effective_widget({"extends": "support"}, PRESETS).name == "Support chat"


def test_a_missing_preset_is_noted_and_defaults_fill_in() -> None:
    view = effective_widget({"extends": "suport", "main": {"send_gifs": True}}, PRESETS)
    assert not view.preset_found and view.extends == "suport"
    assert any("no preset named 'suport'" in n for n in view.notes)
    assert view.main["send_gifs"] is True
    assert view.style["primary_color"] == catalog.STYLE_DEFAULTS["primary_color"]


def test_an_empty_value_inherits() -> None:
    view = effective_widget({"extends": "support", "style": {"primary_color": None}}, PRESETS)
    assert view.style["primary_color"] == "#111111" and view.source_of("style", "primary_color") == "preset"


def test_sections_that_are_not_mappings_are_skipped_with_a_note() -> None:
    view = effective_widget({"extends": "support", "style": "red", "main": [1, 2]}, {"support": {"sidebar": 3}})
    assert view.style["primary_color"] == catalog.STYLE_DEFAULTS["primary_color"]
    assert len(view.notes) == 3


def test_the_defaults_are_copies() -> None:
    view = effective_widget({}, {})
    view.sidebar["sidebar_navigation_sequence"].append("x")
    assert "x" not in catalog.SIDEBAR_DEFAULTS["sidebar_navigation_sequence"]  # type: ignore[operator]


def test_agrees_with_rules_resolve_widget_on_a_valid_draft() -> None:
    data = yaml.safe_load(sample_text("schema.json"))
    draft = Draft.model_validate(data)
    for i, app in enumerate(draft.apps):
        for j, widget in enumerate(app.widgets):
            resolved = resolve_widget(draft, widget)
            assert resolved is not None
            view = effective_widget_at(data, i, j)
            assert view is not None
            dumped = resolved.model_dump(mode="json", exclude_none=True)
            for section in ("style", "sidebar", "main"):
                for key, value in dumped[section].items():
                    assert view.section(section)[key] == value, (section, key)


def test_no_widget_there_is_none() -> None:
    assert effective_widget_at({"apps": [{"widgets": []}]}, 0, 0) is None
    assert effective_widget_at({"apps": "x"}, 0, 0) is None
    assert effective_widget_at(None, 3, 0) is None


_any = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=10)


@given(widget=_any | st.fixed_dictionaries({"extends": _any, "style": _any, "sidebar": _any, "main": _any}),
       presets=_any | st.fixed_dictionaries({"support": _any}))
def test_never_raises(widget: object, presets: object) -> None:
    effective_widget(widget, presets)
