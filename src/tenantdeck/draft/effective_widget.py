"""A widget's effective settings from the draft's plain data: preset, overrides and catalog defaults merged, with
where each value comes from, for any draft, valid or not.

:func:`tenantdeck.rules.resolve_widget` answers the same question for a *parsed* draft and gives up (None) as soon
as anything is invalid. An editor must show a widget while it is being typed into: a colour half written, a preset
name misspelt, a section that is not a mapping. So this works on the session's plain data and never raises: the
value is taken as written (the UI decides how to show a bad one), a layer that is not a mapping is skipped with a
note. Each value and its source come from :func:`tenantdeck.models.effective.effective_value`, the one rule the
form, the policies and the push read too: the widget's value, else the preset's, else the catalog's default (or
unset where the spec has none); an empty value inherits.

Needs no pydantic and no Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tenantdeck.models.effective import (  # noqa: F401 (DEFAULTS and Source: re-exported for the readers)
    DEFAULTS,
    OVERRIDE,
    PRESET,
    SECTIONS,
    UNSET,
    WIDGET,
    Source,
    effective_section,
    effective_sections,
)


@dataclass(slots=True)
class EffectiveWidget:
    """The merged ``style``/``sidebar``/``main`` of one widget; ``source`` says, per ``"section.key"``, whether the
    widget writes the value, inherits it from its preset, or gets the catalog default. ``notes`` say what could not
    be merged (a missing preset, a section that is not a mapping)."""

    name: Any = None
    extends: str | None = None
    preset_found: bool = False
    style: dict[str, Any] = field(default_factory=dict)
    sidebar: dict[str, Any] = field(default_factory=dict)
    main: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Source] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def section(self, name: str) -> dict[str, Any]:
        return {"style": self.style, "sidebar": self.sidebar, "main": self.main}[name]

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.section(section).get(key, default)

    def source_of(self, section: str, key: str) -> Source:
        return self.source.get(f"{section}.{key}", "unset")

    def written_at(self, widget_path: str, section: str, key: str) -> str | None:
        """The key path where the value is written (the widget's or the preset's), or None for a default."""
        where = self.source_of(section, key)
        if where in (WIDGET, OVERRIDE):
            return f"{widget_path}.{section}.{key}"
        if where == PRESET and self.extends is not None:
            return f"presets.{self.extends}.{section}.{key}"
        return None


def effective_widget(widget: Any, presets: Any) -> EffectiveWidget:
    """Merge ``widget`` (plain data as written under ``apps[i].widgets[j]``) with the preset it ``extends`` among
    ``presets`` (the draft's ``presets`` mapping) and the catalog defaults. Never raises."""
    result = EffectiveWidget()
    if not isinstance(widget, Mapping):
        result.notes.append("the widget is not a mapping of settings; drawn with the catalog defaults")
        widget = {}
    result.name = widget.get("name")
    extends = widget.get("extends")
    preset: Mapping[str, Any] = {}
    if extends is not None:
        if not isinstance(extends, str):
            result.notes.append(f"extends should name a preset, not {extends!r}")
        else:
            result.extends = extends
            found = presets.get(extends) if isinstance(presets, Mapping) else None
            if isinstance(found, Mapping):
                preset = found
                result.preset_found = True
            elif found is None:
                result.notes.append(f"no preset named {extends!r}: drawn with the widget's values and the defaults")
            else:
                result.notes.append(f"preset {extends!r} is not a mapping of settings")
        if result.name is None and isinstance(preset.get("name"), str):
            result.name = preset["name"]

    for section in SECTIONS:
        for layer, whose in ((preset, f"preset {extends!r}"), (widget, "the widget")):
            if layer.get(section) is not None and not isinstance(layer.get(section), Mapping):
                result.notes.append(f"{section} of {whose} is not a mapping; its values are left out")
        merged = result.section(section)
        for key, found in effective_section(widget, preset, section):
            result.source[f"{section}.{key}"] = found.source
            if found.source != UNSET:
                merged[key] = found.value
    return result


def merged_sections(widget: Mapping[str, Any], preset: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each section's merged values (:func:`tenantdeck.models.effective.effective_sections`), without the sources
    and notes :func:`effective_widget` records for the editor: what fleet policies read
    (tenantdeck.policies.finder)."""
    return effective_sections(widget, preset)


def effective_widget_at(data: Any, app_index: int, widget_index: int) -> EffectiveWidget | None:
    """The effective settings of ``apps[app_index].widgets[widget_index]`` of a draft's plain data, or None when
    there is no such widget."""
    try:
        widget = data["apps"][app_index]["widgets"][widget_index]
    except (KeyError, IndexError, TypeError):
        return None
    presets = data.get("presets") if isinstance(data, Mapping) else None
    return effective_widget(widget, presets)
