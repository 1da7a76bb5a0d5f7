"""The widget tabs' core: a field's value and source, where edits and resets go, what a preset edit changes."""

from __future__ import annotations

import pytest

from tenantdeck.draft import widget_view as wv
from tenantdeck.models import WidgetSettings, catalog

PRESET = {"name": "Support", "style": {"primary_color": "#111111"}, "main": {"send_gifs": False}}


def test_a_widget_that_extends_a_preset_inherits_what_it_does_not_write() -> None:
    widget = {"extends": "support", "main": {"send_gifs": True}}
    r = wv.resolve(widget, PRESET, "style", "primary_color")
    assert (r.value, r.source) == ("#111111", wv.PRESET)
    assert not r.overridden


def test_an_override_says_what_it_hides() -> None:
    widget = {"extends": "support", "main": {"send_gifs": True}}
    r = wv.resolve(widget, PRESET, "main", "send_gifs")
    assert (r.value, r.source, r.inherited, r.inherited_source) == (True, wv.OVERRIDE, False, wv.PRESET)
    assert r.overridden


def test_what_neither_writes_is_the_catalog_default_or_unset() -> None:
    widget = {"extends": "support"}
    assert wv.resolve(widget, PRESET, "main", "share_location") == wv.Resolved(False, wv.DEFAULT, False, False,
                                                                               wv.DEFAULT)
    unset = wv.resolve(widget, PRESET, "main", "allow_creating_polls")  # required, no default
    assert (unset.value, unset.source) == (None, wv.UNSET)
    assert wv.resolve(widget, PRESET, "style", "background_color").value == catalog.STYLE_DEFAULTS["background_color"]


def test_a_widget_without_a_preset_writes_its_own_values() -> None:
    widget = {"name": "w", "main": {"send_gifs": True}}
    assert wv.resolve(widget, None, "main", "send_gifs").source == wv.WIDGET
    assert wv.resolve(widget, None, "main", "send_files").source == wv.DEFAULT


def test_a_missing_preset_leaves_overrides_and_defaults() -> None:
    widget = {"extends": "gone", "style": {"primary_color": "#222"}}
    assert wv.resolve(widget, None, "style", "primary_color").source == wv.OVERRIDE
    assert wv.resolve(widget, None, "style", "foreground_color").source == wv.DEFAULT


def test_resolving_in_the_preset_itself() -> None:
    assert wv.resolve_preset(PRESET, "main", "send_gifs") == wv.Resolved(False, wv.PRESET, False)
    assert wv.resolve_preset(PRESET, "main", "send_files").source == wv.DEFAULT


def test_paths_of_a_widget_and_of_a_preset_with_a_dot_in_its_name() -> None:
    assert wv.WidgetSlot(2, 1).path("main", "send_gifs") == ("apps", 2, "widgets", 1, "main", "send_gifs")
    assert wv.WidgetSlot(preset="v1.2").path("style", "primary_color") == ("presets", "v1.2", "style", "primary_color")


def test_reset_deletes_the_key_or_its_section_when_it_is_the_only_one() -> None:
    target = wv.WidgetSlot(0, 0)
    one = {"extends": "support", "main": {"send_gifs": True}}
    two = {"extends": "support", "main": {"send_gifs": True, "share_location": False}}
    assert wv.reset_path(one, target, "main", "send_gifs") == ("apps", 0, "widgets", 0, "main")
    assert wv.reset_path(two, target, "main", "send_gifs") == ("apps", 0, "widgets", 0, "main", "send_gifs")


@pytest.mark.parametrize(
    ("widget", "target"),
    [
        ({"extends": "support"}, wv.WidgetSlot(0, 0)),  # not overridden
        ({"name": "w", "main": {"send_gifs": True}}, wv.WidgetSlot(0, 0)),  # extends nothing: nothing to go back to
        ({"extends": "support", "main": {"send_gifs": True}}, wv.WidgetSlot(preset="support")),  # editing the preset
    ],
)
def test_nothing_to_reset(widget: dict[str, object], target: wv.WidgetSlot) -> None:
    assert wv.reset_path(widget, target, "main", "send_gifs") is None


def test_preset_usage_counts_widgets_apps_and_overrides() -> None:
    data = {
        "apps": [
            {"widgets": [{"extends": "support"}, {"extends": "support", "main": {"send_gifs": True}}]},
            {"widgets": [{"extends": "sales"}]},
            {"widgets": [{"extends": "support"}]},
            {"name": "no widgets"},
            "not an app",
        ]
    }
    usage = wv.preset_usage(data, "support", "main", "send_gifs")
    assert usage == wv.PresetUsage(widgets=3, apps=2, overriding=1)
    assert usage.changed == 2
    assert usage.sentence("support") == (
        "3 widgets in 2 apps extend preset 'support'; 1 of them overrides this value, so an edit changes 2."
    )
    assert wv.preset_usage(data, "nobody").sentence("nobody").startswith("No widget extends")
    assert wv.preset_usage(data, "sales").sentence("sales") == "1 widget in 1 app extends preset 'sales'."


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("#abc", None),
        ("#A0b1C2", None),
        ("#12", "must be a colour written #RGB or #RRGGBB, not '#12'"),
        (" #123", "colour ' #123' has spaces around it; write it as '#123'"),
        ("red", "must be a colour written #RGB or #RRGGBB, not 'red'"),
    ],
)
def test_colour_problems_are_the_models_own(value: str, problem: str | None) -> None:
    assert wv.colour_problem(value) == problem


def test_listing_choices_keep_a_held_value() -> None:
    allowed = catalog.LISTING_VALUES["user_listing"]
    assert wv.listing_choices("user_listing", "friends") == (allowed, False)
    assert wv.listing_choices("user_listing", "everyone") == ((*allowed, "everyone"), True)


def test_move_only_reorders() -> None:
    seq = ["chats", "users", "groups"]
    assert wv.move(seq, 1, -1) == ["users", "chats", "groups"]
    assert wv.move(seq, 1, 1) == ["chats", "groups", "users"]
    assert wv.move(seq, 0, -1) is None
    assert wv.move(seq, 2, 1) is None
    assert seq == ["chats", "users", "groups"]  # not changed in place


def test_enabling_an_extension() -> None:
    assert wv.enable_extension_edits(None, 3, "polls") == [(("apps", 3, "extensions", "enabled"), ["polls"])]
    block = {"enabled": ["reactions"], "disabled": ["polls", "stickers"]}
    assert wv.enable_extension_edits(block, 0, "polls") == [
        (("apps", 0, "extensions", "enabled"), ["reactions", "polls"]),
        (("apps", 0, "extensions", "disabled"), ["stickers"]),
    ]
    assert wv.enable_extension_edits({"enabled": ["polls"]}, 0, "polls") == []
    assert wv.extension_enabled(None, "polls") is None
    assert wv.extension_enabled(block, "polls") is False


def test_a_new_widget_extends_the_first_preset() -> None:
    assert wv.new_widget({"support": {}, "sales": {}}) == {"extends": "support", "name": "Chat widget"}
    assert wv.new_widget({"a": {}}, ["Chat widget"])["name"] == "Chat widget 2"


def test_a_new_widget_without_presets_is_complete_and_valid() -> None:
    widget = wv.new_widget({})
    settings = WidgetSettings.model_validate(widget)
    assert settings.main.send_gifs is False
    assert set(widget["main"]) == {t.key for t in catalog.MAIN_TOGGLES}


def test_default_and_label_come_from_the_catalog() -> None:
    assert wv.default_of("main", "send_files") is True
    assert wv.default_of("main", "allow_creating_polls") is None
    assert wv.default_of("sidebar", "sidebar_navigation_sequence") == list(catalog.NAVIGATION_SECTIONS)
    assert wv.label_of("main", "send_gifs") == "Allow GIFs"
    assert wv.label_of("style", "primary_color") == "Primary colour"


def test_a_new_widget_depends_on_no_extension() -> None:
    main = wv.new_widget({})["main"]
    assert not any(main[key] for key in catalog.TOGGLE_EXTENSIONS)


def test_importing_it_loads_neither_textual_nor_pydantic() -> None:
    from tests.test_import_hygiene import loaded_after

    modules = loaded_after("import tenantdeck.draft.widget_view")
    assert not any(m.split(".")[0] in ("textual", "pydantic") for m in modules)
