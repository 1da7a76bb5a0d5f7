"""One table says which tab of the App screen holds a field (issue 35 item 2): the problems list, the policies'
drill-down and the review jump through it, and its tab ids are the App screen's."""

from __future__ import annotations

from tenantdeck.draft.app_tabs import (
    KIND_SECTIONS,
    NO_TAB_KINDS,
    SECTION_TABS,
    WIDGET_TABS,
    tab_of,
    tab_of_draft_path,
    tab_of_kind,
)


def test_every_tab_named_is_one_of_the_app_screens() -> None:
    from tenantdeck.tui.screens.app_screen import TABS

    ids = {t[0] for t in TABS}
    assert set(SECTION_TABS.values()) | set(WIDGET_TABS.values()) <= ids
    assert set(KIND_SECTIONS.values()) <= set(SECTION_TABS)


def test_paths_inside_an_app() -> None:
    assert tab_of(("widgets", 0, "main", "send_gifs")) == "main"
    assert tab_of(("widgets", 2, "sidebar")) == "sidebar"
    assert tab_of(("widgets",)) == "style"
    assert tab_of(("extension_settings", "profanity-filter", "dropMessage")) == "extensions"
    assert tab_of(("settings", "core.x")) == "settings"
    assert tab_of(("name",)) is None and tab_of(()) is None
    assert tab_of_draft_path(("apps", 3, "team", "admins", 0)) == (3, "team")
    assert tab_of_draft_path(("presets", "support", "style")) is None


def test_a_plans_resource_kinds() -> None:
    assert tab_of_kind("widget", "main") == "main"
    assert tab_of_kind("widget") == "style"
    assert tab_of_kind("triggers") == "webhooks"
    assert tab_of_kind("extension_settings") == "extensions"
    assert tab_of_kind("app") is None


def test_every_kind_of_the_plan_has_a_tab_or_is_said_to_have_none() -> None:
    """A kind added to the registry without a place in the table fails here, by name (a review row of it would
    otherwise open the App screen on a tab that does not hold it)."""
    from tenantdeck.sync.kinds import KINDS

    missing = [k.name for k in KINDS if k.name not in KIND_SECTIONS and k.name not in NO_TAB_KINDS]
    assert missing == [], f"give these kinds a tab in tenantdeck.draft.app_tabs.KIND_SECTIONS: {missing}"
    assert not set(KIND_SECTIONS) & NO_TAB_KINDS
    for kind in KINDS:
        if kind.name in KIND_SECTIONS:
            assert KIND_SECTIONS[kind.name] == kind.section, kind.name
