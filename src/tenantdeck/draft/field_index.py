"""Every field the editor's App screen shows for one app, as data: what the command palette offers to jump to.

The palette reached apps, webhooks and Main toggles only (issue 37 item 5); a newcomer looking for a colour, an SMS
number, an app setting, an extension's setting or the team had to know which tab holds it. Each entry here names
the field as the tab labels it, and its key path in the draft; the tab that holds it is
:func:`tenantdeck.draft.app_tabs.tab_of_draft_path`'s (the one table every jump reads), and the tab focuses it
through its ``focus_path``. Plain data, no Textual.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.draft import widget_view as wv
from tenantdeck.models import catalog


@dataclass(frozen=True)
class FieldEntry:
    """One field: ``text`` the palette matches (its kind, label and key), ``help`` a line under it, ``path`` the
    key path the App screen focuses."""

    text: str
    help: str
    path: str


#: a widget section's rows, in the order its tab shows them (Main: every toggle of the catalog)
WIDGET_FIELDS: dict[str, tuple[str, ...]] = {
    "style": (*wv.COLOUR_KEYS, "override_system_background_colors", *wv.ICON_KEYS, *wv.CODE_KEYS),
    "sidebar": (*wv.SIDEBAR_BOOLEANS, *wv.LISTING_KEYS, wv.NAVIGATION_KEY),
    "main": tuple(toggle.key for toggle in catalog.MAIN_TOGGLES),
}


def fields_of_app(app: Mapping[str, Any], index: int, widget: int | None) -> Iterator[FieldEntry]:
    """The fields of app ``index`` (its data ``app``); the widget fields of widget ``widget`` (none when None: an
    app without a widget has no widget field to focus)."""
    name = str(app.get("name", "?"))
    prefix = f"apps[{index}]"
    if widget is not None:
        yield from _widget_fields(f"{prefix}.widgets[{widget}]", name)
    yield from _sms_fields(prefix, name)
    yield from _extension_fields(prefix, name)
    yield from _team_fields(app, prefix, name)
    for setting in catalog.APP_SETTINGS:
        yield FieldEntry(f"App setting: {setting.label} ({setting.key})", f"Settings · {name}",
                         f"{prefix}.settings.{setting.key}")


def _widget_fields(prefix: str, name: str) -> Iterator[FieldEntry]:
    for section, keys in WIDGET_FIELDS.items():
        for key in keys:
            label = wv.label_of(section, key)
            if section == "main":
                toggle = catalog.TOGGLES_BY_KEY[key]
                # the words the palette always offered for a toggle: people have learnt them
                yield FieldEntry(f"Toggle: {label} ({key})", f"{toggle.topic} · {name}", f"{prefix}.main.{key}")
            else:
                yield FieldEntry(f"Widget {section}: {label} ({key})", f"Widget / {section.title()} · {name}",
                                 f"{prefix}.{section}.{key}")


def _sms_fields(prefix: str, name: str) -> Iterator[FieldEntry]:
    from tenantdeck.draft import sms_view

    for key, description in sms_view.sms_fields():
        yield FieldEntry(f"SMS: {key}", f"{description} · {name}", f"{prefix}.sms.{key}")


def _extension_fields(prefix: str, name: str) -> Iterator[FieldEntry]:
    from tenantdeck.draft import extension_settings_view as xv
    from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS

    for ext_id in DRAFT_EXTENSIONS:
        if not xv.has_form(ext_id):
            continue
        spec = BY_ID[ext_id]
        for setting in spec.settings:
            yield FieldEntry(f"Extension setting: {spec.name} / {setting.label} ({setting.key})",
                             f"Extensions / {ext_id} · {name}", f"{prefix}.extension_settings.{ext_id}.{setting.key}")


def _team_fields(app: Mapping[str, Any], prefix: str, name: str) -> Iterator[FieldEntry]:
    team = app.get("team")
    for role, key in catalog.TEAM_LISTS.items():
        yield FieldEntry(f"Team: {key}", f"Every {role} of the app · {name}", f"{prefix}.team.{key}")
        members = team.get(key) if isinstance(team, Mapping) else None
        for k, email in enumerate(members if isinstance(members, list) else []):
            yield FieldEntry(f"Team member: {email} ({role})", f"Team · {name}", f"{prefix}.team.{key}[{k}]")


__all__ = ["WIDGET_FIELDS", "FieldEntry", "fields_of_app"]
