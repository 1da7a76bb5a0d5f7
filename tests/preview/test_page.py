"""The preview page without a browser: what it shows follows the draft (the scene the editor's Preview tab paints),
and no value of the draft can become markup, a script or a way out of its style element (parsed as HTML)."""

from __future__ import annotations

import copy
import html
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.draft.effective_widget import effective_widget
from tenantdeck.draft.preview_scene import CALL_BUTTONS, COMPOSER_BUTTONS, MESSAGE_MARKS, Feature, build_scene
from tenantdeck.preview import page
from tenantdeck.preview.model import AppRef, image, widget_preview
from tests.preview.htmlcheck import assert_runs_nothing, parse

DRAFT: dict[str, Any] = {
    "format": 1,
    "presets": {"brand": {"style": {"primary_color": "#112233", "custom_css": ".cc-send{border-radius:0}"},
                          "main": {"send_gifs": False}}},
    "apps": [
        {"name": "Acme", "region": "us", "widgets": [
            {"name": "Help", "extends": "brand",
             "style": {"background_color": "#fafafa"},
             "sidebar": {"users": False, "sidebar_navigation_sequence": ["groups", "users", "chats", "calls",
                                                                          "settings"]},
             "main": {"send_gifs": True, "allow_message_reactions": False, "show_typing_indicators": True}},
            {"name": "Second"}]},
        {"name": "Other", "region": "eu"},
    ],
}


def doc_of(data: dict[str, Any], ref: AppRef = AppRef(), widget: int = 0, network: bool = False) -> str:
    return page.widget_document(widget_preview(data, ref, widget, allow_network=network))


def features(doc: str) -> list[str]:
    return [a["data-feature"] or "" for _, a in parse(doc).tags if "data-feature" in a]


def sections(doc: str) -> list[str]:
    return [a["data-section"] or "" for _, a in parse(doc).tags if "data-section" in a]


def test_sections_follow_the_sequence_and_a_hidden_one_is_absent() -> None:
    assert sections(doc_of(DRAFT)) == ["groups", "chats", "calls", "settings"]
    assert sections(doc_of(DRAFT, widget=1)) == ["chats", "users", "groups", "calls", "settings"]


def test_controls_follow_the_main_toggles_over_the_preset() -> None:
    shown = features(doc_of(DRAFT))
    assert "gif" in shown, "the widget's own send_gifs: true wins over the preset's false"
    assert "reactions" not in shown and "typing" in shown
    data = copy.deepcopy(DRAFT)
    data["apps"][0]["widgets"][0]["main"].update(send_gifs=None, enable_sending_messages=False)
    shown = features(doc_of(data))
    assert "gif" not in shown, "an empty value inherits the preset's false"
    assert "send" not in shown


def test_the_page_draws_the_scene_the_preview_tab_paints() -> None:
    """One rule, one place: the page's scene is build_scene(effective_widget(...)), the Preview tab's call."""
    widget = DRAFT["apps"][0]["widgets"][0]
    assert widget_preview(DRAFT, AppRef(), 0, allow_network=False).scene == build_scene(
        effective_widget(widget, DRAFT["presets"]))


def test_colours_reach_css_only_as_integers_and_a_bad_one_falls_back() -> None:
    doc = doc_of(DRAFT)
    assert "--td-primary:rgb(17, 34, 51)" in doc and "--td-background:rgb(250, 250, 250)" in doc
    data = copy.deepcopy(DRAFT)
    data["apps"][0]["widgets"][0]["style"]["primary_color"] = "red;}</style><script>x()</script>"
    doc = doc_of(data)
    assert "--td-primary:rgb(3, 169, 244)" in doc, "the catalog's default"
    assert "x()" not in doc.split("</style>")[0]
    notes = widget_preview(data, AppRef(), 0, allow_network=False).notes
    assert any("Primary" in n or "primary" in n for n in notes)


def test_custom_css_cannot_end_its_style_element() -> None:
    data = copy.deepcopy(DRAFT)
    data["apps"][0]["widgets"][0]["style"]["custom_css"] = (
        'a{color:red}</style><script>alert(1)</script><style>b{content:"</STYLE >"}')
    parsed = parse(doc_of(data))
    assert parsed.scripts == [] and len(parsed.styles) == 2
    assert parsed.styles[1].startswith("a{color:red}\\3c /style>")
    assert_runs_nothing(page.page(widget_preview(data, AppRef(), 0, allow_network=False), 0, False))


def test_custom_js_is_said_present_and_never_written_into_the_page() -> None:
    data = copy.deepcopy(DRAFT)
    data["apps"][0]["widgets"][0]["style"]["custom_js"] = "window.RAN_CUSTOM_JS = 1"
    preview = widget_preview(data, AppRef(), 0, allow_network=False)
    assert "RAN_CUSTOM_JS" not in page.page(preview, 0, False)
    assert any("custom_js: present" in f and "not run" in f for f in page.facts(preview, False))


def test_the_policy_runs_only_the_page_script_and_loads_images_only_when_allowed() -> None:
    offline = page.content_security_policy(False)
    assert f"script-src '{page.SCRIPT_HASH}';" in offline and "unsafe-eval" not in offline
    assert "img-src 'none'" in offline and "default-src 'none'" in offline
    data = copy.deepcopy(DRAFT)
    data["apps"][0]["widgets"][0]["style"]["docked_layout_icon_open"] = "https://cdn.example/i/open.svg?v=2"
    assert "img-src 'none'" in html.unescape(doc_of(data)), "offline: the widget's own policy loads nothing"
    assert "<img" not in doc_of(data)
    online = html.unescape(doc_of(data, network=True))
    assert "img-src https://cdn.example/i/open.svg https://widget-js.cometchat.io/v2/resources/chat_close.svg" \
        in online


@given(st.text(max_size=60))
def test_an_image_url_never_adds_to_the_policy_but_its_own_exact_source(tail: str) -> None:
    """Whatever an icon URL holds, its policy source is one token naming one http(s) path: no ';' or ',' to start
    another directive, no space to add a source, no quote to add a keyword."""
    found = image("docked_layout_icon_open", f"https://cdn.example/{tail}", True)
    if found.csp is not None:
        assert found.csp.startswith("https://cdn.example/")
        assert not any(c in found.csp for c in " ;,'\"\t\n\r\x0c")


values = st.one_of(st.text(max_size=40), st.sampled_from([
    "</style><script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "javascript:alert(1)",
    "'; script-src *", "</iframe><script>1</script>", "<!--", "]]>", "\x1b[2J\u202e"]))


@given(name=values, css=values, js=values, icon=values, colour=values, listing=values, section=values,
       app=values)
def test_no_value_becomes_markup_or_script(name: str, css: str, js: str, icon: str, colour: str, listing: str,
                                           section: str, app: str) -> None:
    data = {"presets": {}, "apps": [{"name": app, "widgets": [{
        "name": name, "extends": name,
        "style": {"custom_css": css, "custom_js": js, "docked_layout_icon_open": icon, "foreground_color": colour},
        "sidebar": {"user_listing": listing, "sidebar_navigation_sequence": [section, "chats"]},
    }]}]}
    for network in (False, True):
        preview = widget_preview(data, AppRef(), 0, allow_network=network)
        parsed = assert_runs_nothing(page.page(preview, 3, network))
        assert all(len(doc.styles) == 2 for doc in parsed.docs)
        event = page.event(page.update(preview, 3, network))
        assert event.count(b"\n\n") == 1 and event.endswith(b"\n\n"), "one event, whatever the data"


def test_the_page_says_it_is_tenantdecks_rendering_not_the_vendors_widget() -> None:
    """The issue: "say in the page and the docs": in the page's banner, above the widget, for every state."""
    from pathlib import Path

    for preview in (widget_preview(DRAFT, AppRef(), 0, allow_network=False),
                    widget_preview(DRAFT, AppRef(name="missing"), 0, allow_network=False)):
        banner = [t for t, _ in parse(page.page(preview, 0, False)).tags]
        assert "header" in banner
        text = html.unescape(page.page(preview, 0, False))
        assert f"<p>{page.DISCLAIMER}</p></header>" in text
    docs = (Path(__file__).resolve().parents[2] / "docs" / "preview.md").read_text()
    assert "tenantdeck's rendering of the documented widget v2 settings*" in docs and "not the vendor's" in docs


def drawn(main: dict[str, Any]) -> set[str]:
    """What the page draws of a widget whose Main section is ``main`` over all toggles off: its ``data-feature``
    marks (each drawn control or mark has one, named as in the scene)."""
    from tenantdeck.models import catalog

    off = {t.key: False for t in catalog.MAIN_TOGGLES} | {"enable_sending_messages": True,
                                                          "hide_deleted_messages": True}
    doc = doc_of({"apps": [{"name": "A", "widgets": [{"name": "W", "main": off | main}]}]})
    return set(features(doc))


ALL_FEATURES = [f for group in (COMPOSER_BUTTONS, CALL_BUTTONS, MESSAGE_MARKS) for f in group]


def test_the_issues_toggles_are_all_drawn() -> None:
    """Reactions, threaded replies, typing indicator, read receipts, stickers, polls, file and voice buttons."""
    named = {"allow_message_reactions", "enable_threaded_replies", "show_typing_indicators",
             "show_delivery_read_indicators", "show_stickers", "allow_creating_polls", "send_files",
             "send_voice_notes"}
    assert named <= {k for f in ALL_FEATURES for k in f.toggles}


@pytest.mark.parametrize("feature", ALL_FEATURES, ids=lambda f: f.id)
def test_each_main_toggle_puts_its_control_on_the_page_and_off_takes_it_away(feature: Feature) -> None:
    assert feature.id not in drawn({}), "every toggle off: not drawn"
    for key in feature.toggles:
        assert drawn({key: True}) >= {feature.id}, f"main.{key} on draws {feature.id}"


def test_sending_off_and_deleted_messages_shown_change_the_conversation() -> None:
    assert "send" in drawn({}) and "deleted" not in drawn({})
    assert "send" not in drawn({"enable_sending_messages": False})
    assert "deleted" in drawn({"hide_deleted_messages": False})
