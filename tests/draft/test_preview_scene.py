"""What the preview draws: which toggle puts which button in the picture, sections in order, colours checked."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft.effective_widget import effective_widget
from tenantdeck.draft.preview_scene import (
    CALL_BUTTONS,
    COMPOSER_BUTTONS,
    MESSAGE_MARKS,
    SHOWN_OTHERWISE,
    Scene,
    build_scene,
    listing_caption,
    parse_colour,
)
from tenantdeck.models import catalog

ALL_FEATURES = (*COMPOSER_BUTTONS, *CALL_BUTTONS, *MESSAGE_MARKS)


def scene(**sections: Any) -> Scene:
    return build_scene(effective_widget({"name": "W", **sections}, {}))


def all_on() -> dict[str, bool]:
    return {t.key: True for t in catalog.MAIN_TOGGLES}


def test_every_feature_toggle_is_a_catalog_toggle() -> None:
    keys = {k for f in ALL_FEATURES for k in f.toggles} | set(SHOWN_OTHERWISE)
    assert keys <= set(catalog.TOGGLES_BY_KEY)


@pytest.mark.parametrize("feature", COMPOSER_BUTTONS, ids=lambda f: f.id)
def test_a_composer_button_shows_only_while_its_toggles_are_on(feature: Any) -> None:
    main = all_on()
    assert feature in scene(main=main).composer_buttons
    for key in feature.toggles:
        main[key] = False
    assert feature not in scene(main=main).composer_buttons
    others = [f.id for f in scene(main=main).composer_buttons]
    assert others == [f.id for f in COMPOSER_BUTTONS if f is not feature]


def test_turning_gifs_off_removes_only_the_gif_button() -> None:
    on = [f.id for f in scene(main={"send_gifs": True}).composer_buttons]
    off = [f.id for f in scene(main={"send_gifs": False}).composer_buttons]
    assert "gif" in on and "gif" not in off
    assert set(on) - set(off) == {"gif"}


def test_the_attachment_button_stays_while_any_attachment_toggle_is_on() -> None:
    main = {"send_files": False, "send_photos_videos": True, "share_location": False}
    assert "attach" in [f.id for f in scene(main=main).composer_buttons]
    main["send_photos_videos"] = False
    assert "attach" not in [f.id for f in scene(main=main).composer_buttons]


@pytest.mark.parametrize("feature", (*CALL_BUTTONS, *MESSAGE_MARKS), ids=lambda f: f.id)
def test_call_buttons_and_message_marks_follow_their_toggles(feature: Any) -> None:
    main = all_on()
    shown = scene(main=main)
    assert feature in shown.call_buttons or shown.has(feature.id)
    for key in feature.toggles:
        main[key] = False
    hidden = scene(main=main)
    assert feature not in hidden.call_buttons and not hidden.has(feature.id)


def test_deleted_messages_and_the_composer() -> None:
    assert scene(main={"hide_deleted_messages": False}).show_deleted
    assert not scene(main={}).show_deleted  # default: hidden
    assert scene(main={}).can_send
    assert not scene(main={"enable_sending_messages": False}).can_send


def test_toggles_not_drawn_are_listed_as_also_on() -> None:
    shown = scene(main={"allow_mention_members": True, "send_gifs": True})
    assert "Allow mentioning members" in shown.also_on
    assert "Allow GIFs" not in shown.also_on


def test_a_non_boolean_toggle_is_off_and_noted() -> None:
    shown = scene(main={"send_gifs": "yes"})
    assert "gif" not in [f.id for f in shown.composer_buttons]
    assert any("send_gifs" in n for n in shown.notes)


def test_sections_follow_the_sequence_and_hidden_ones_are_left_out() -> None:
    shown = scene(sidebar={"sidebar_navigation_sequence": ["groups", "calls", "chats", "users", "settings"],
                           "calls": False, "users": False, "user_settings": False})
    assert [s.id for s in shown.sections] == ["groups", "chats"]
    assert shown.hidden_sections == ("calls", "users", "settings")


def test_sections_omitted_from_the_sequence_are_not_drawn() -> None:
    shown = scene(sidebar={"sidebar_navigation_sequence": ["users"], "calls": True})
    assert [s.id for s in shown.sections] == ["users"]


def test_a_bad_sequence_is_drawn_as_far_as_it_makes_sense() -> None:
    shown = scene(sidebar={"sidebar_navigation_sequence": ["chats", "bogus", "chats"], "calls": True})
    assert [s.id for s in shown.sections] == ["chats"]
    assert len(shown.notes) == 2
    shown = scene(sidebar={"sidebar_navigation_sequence": "chats", "calls": True})
    assert [s.id for s in shown.sections] == list(catalog.NAVIGATION_SECTIONS)


def test_listing_modes_are_captions() -> None:
    shown = scene(sidebar={"calls": True, "group_listing": "public_groups", "user_listing": "friends"})
    captions = {s.id: s.caption for s in shown.sections}
    assert captions == {"chats": "all chats", "users": "friends", "groups": "public groups", "calls": None,
                        "settings": None}
    assert listing_caption("group_listing", "public_and_password_protected_groups") == (
        "public & password-protected groups", True)
    assert listing_caption("user_listing", "everyone") == ("everyone", False)


def test_colours_are_parsed_and_invalid_ones_carry_the_models_message() -> None:
    assert parse_colour("#abc") == ((0xAA, 0xBB, 0xCC), None)
    assert parse_colour("#03A9F4") == ((3, 169, 244), None)
    rgb, problem = parse_colour(" #000000")
    assert rgb is None and problem is not None and "spaces" in problem
    shown = scene(style={"primary_color": "#12", "background_color": 7})
    assert shown.colours["primary"].rgb is None and shown.colours["background"].rgb is None
    assert shown.colours["foreground"].rgb == (0, 0, 0)
    assert sum("colour" in n for n in shown.notes) == 2


def test_icon_file_names() -> None:
    shown = scene(style={"docked_layout_icon_open": "https://cdn.example/a/b/open.png?v=2",
                         "docked_layout_icon_close": ""})
    assert shown.icon_open == "open.png"
    assert shown.icon_close == "(no image)"
    assert scene().icon_close == "chat_close.svg"


_any = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=10)
_section = st.dictionaries(st.sampled_from([*catalog.STYLE_DEFAULTS, *catalog.SIDEBAR_DEFAULTS, "calls",
                                            "user_settings", *catalog.TOGGLES_BY_KEY]), _any, max_size=8)


@given(style=_section, sidebar=_section, main=_section)
def test_never_raises(style: dict[str, Any], sidebar: dict[str, Any], main: dict[str, Any]) -> None:
    scene(style=style, sidebar=sidebar, main=main)


def test_unhashable_entries_in_the_sequence() -> None:
    shown = scene(sidebar={"sidebar_navigation_sequence": [["chats"], {"a": 1}, "users"], "users": True})
    assert [s.id for s in shown.sections] == ["users"]
