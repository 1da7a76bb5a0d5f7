"""Which tab of the editor's App screen holds each field of an app: the one table every jump to a field reads (a
problem of the draft, a policy violation, a row of the review), so the three cannot disagree.

Plain data, no Textual: the tab ids are the App screen's (``tenantdeck.tui.screens.app_screen.TABS``; a test holds
the two together).
"""

from __future__ import annotations

from collections.abc import Sequence

from tenantdeck.problems import PathPart

#: an app's top-level key (as the draft writes it) -> the tab holding it; a widget's values: its section's tab
SECTION_TABS: dict[str, str] = {
    "widgets": "style", "extensions": "extensions", "extension_settings": "extensions", "sms": "sms",
    "webhooks": "webhooks", "team": "team", "settings": "settings",
}
#: a widget's section -> its tab
WIDGET_TABS: dict[str, str] = {"style": "style", "sidebar": "sidebar", "main": "main"}
#: a resource kind of the plan (``tenantdeck.sync.kinds``) -> the app's top-level key it writes
KIND_SECTIONS: dict[str, str] = {
    "extensions": "extensions", "extension_settings": "extension_settings", "widget": "widgets", "sms": "sms",
    "webhook": "webhooks", "triggers": "webhooks", "team": "team", "settings": "settings",
}
#: the kinds no tab shows (the app itself: its name and region head the screen; push certificates: no form yet),
#: so a jump to them opens the App screen on its first tab; a kind in neither table fails tests/test_app_tabs.py
NO_TAB_KINDS: frozenset[str] = frozenset({"app", "certificate"})


def tab_of(path: Sequence[PathPart]) -> str | None:
    """The tab holding the field at ``path`` inside an app (``("widgets", 0, "main", "send_gifs")`` -> ``main``);
    None for the app itself or a key no tab shows (the App screen then opens on its first tab)."""
    if not path:
        return None
    section = str(path[0])
    if section == "widgets" and len(path) > 2:
        return WIDGET_TABS.get(str(path[2]), SECTION_TABS["widgets"])
    return SECTION_TABS.get(section)


def tab_of_draft_path(path: Sequence[PathPart]) -> tuple[int, str | None] | None:
    """(app index, tab) of a path of the whole draft (``("apps", 3, "sms", "messageDelay")``), None outside an
    app."""
    if len(path) < 2 or path[0] != "apps" or not isinstance(path[1], int):
        return None
    return path[1], tab_of(path[2:])


def tab_of_kind(kind: str, widget_section: str | None = None) -> str | None:
    """The tab holding what a plan's step of resource ``kind`` writes (a widget's: ``widget_section``'s tab)."""
    section = KIND_SECTIONS.get(kind)
    if section is None:
        return None
    return tab_of((section, 0, widget_section) if section == "widgets" and widget_section else (section,))


__all__ = ["KIND_SECTIONS", "NO_TAB_KINDS", "SECTION_TABS", "WIDGET_TABS", "tab_of", "tab_of_draft_path", "tab_of_kind"]
