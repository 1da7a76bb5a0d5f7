"""What the Presets screen shows: each preset with the apps that extend it, and for one preset each field with its
value and how many of those apps override it. Plain data in, plain data out (no Textual, no pydantic).

Why: a preset edit reaches every widget that extends it and does not override that value. Before editing one, an
admin must see how many apps that is; :func:`fields` counts the overrides of every field in one pass over the apps,
so the screen stays quick at 5,000 apps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.draft import widget_view


@dataclass(frozen=True, slots=True)
class PresetRow:
    """One preset: its name, how many apps (and widgets) extend it."""

    name: str
    apps: int
    widgets: int


@dataclass(frozen=True, slots=True)
class PresetField:
    """One field of a preset: its value and where it comes from (``preset``: written there, ``default``: the
    service's default, ``unset``), and how many of the widgets extending the preset override it."""

    section: str
    key: str
    label: str
    value: Any
    source: str
    overriding: int

    @property
    def path(self) -> tuple[str, str]:
        return (self.section, self.key)


def _apps(data: Any) -> list[Any]:
    apps = data.get("apps") if isinstance(data, Mapping) else None
    return apps if isinstance(apps, list) else []


def _widgets(app: Any) -> list[Any]:
    widgets = app.get("widgets") if isinstance(app, Mapping) else None
    return [w for w in widgets if isinstance(w, Mapping)] if isinstance(widgets, list) else []


def presets(data: Any) -> list[PresetRow]:
    """Every preset of the draft in the order written, with the apps and widgets that extend it."""
    held = data.get("presets") if isinstance(data, Mapping) else None
    names = [str(n) for n in held] if isinstance(held, Mapping) else []
    apps = dict.fromkeys(names, 0)
    widgets = dict.fromkeys(names, 0)
    for app in _apps(data):
        seen: set[str] = set()
        for widget in _widgets(app):
            name = widget.get("extends")
            if isinstance(name, str) and name in widgets:
                widgets[name] += 1
                seen.add(name)
        for name in seen:
            apps[name] += 1
    return [PresetRow(n, apps[n], widgets[n]) for n in names]


def extending(data: Any, name: str) -> list[int]:
    """Indexes of the apps with a widget that extends preset ``name``."""
    return [i for i, app in enumerate(_apps(data)) if any(w.get("extends") == name for w in _widgets(app))]


_FIELD_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("style", widget_view.STYLE_KEYS),
    ("sidebar", widget_view.SIDEBAR_KEYS),
    ("main", widget_view.MAIN_KEYS),
)


def fields(data: Any, name: str) -> list[PresetField]:
    """Every style, sidebar and main field of preset ``name``, with the number of extending widgets overriding
    it (one pass over the apps)."""
    held = data.get("presets") if isinstance(data, Mapping) else None
    preset = held.get(name) if isinstance(held, Mapping) else None
    overrides: dict[tuple[str, str], int] = {}
    for app in _apps(data):
        for widget in _widgets(app):
            if widget.get("extends") != name:
                continue
            for section in widget_view.SECTIONS:
                own = widget.get(section)
                for key in own if isinstance(own, Mapping) else ():
                    overrides[(section, str(key))] = overrides.get((section, str(key)), 0) + 1
    out: list[PresetField] = []
    for section, keys in _FIELD_KEYS:
        for key in keys:
            resolved = widget_view.resolve_preset(preset if isinstance(preset, Mapping) else None, section, key)
            out.append(PresetField(section, key, widget_view.label_of(section, key), resolved.value, resolved.source,
                                   overrides.get((section, key), 0)))
    return out


def shown(value: Any) -> str:
    """A field's value in one short cell: on/off for toggles, a list joined, None as a dash."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    text = str(value).replace("\n", " ")
    return text if len(text) <= 40 else text[:39] + "…"
