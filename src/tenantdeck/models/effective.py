"""The effective value of one widget field, and where it comes from: the one rule every reader uses.

A widget that ``extends`` a preset writes only what differs; the rest comes from the preset, and what neither
writes is the service's default (:mod:`tenantdeck.models.catalog`), or nothing where the spec has none. The
editor's forms, its Preview, the browser preview, the fleet policies and the push body all show or judge this
value, so it is computed here and nowhere else: when the copies disagreed, an empty ``send_gifs:`` over a preset
that sets it true showed "override, None" in the form while the Preview and the policies said "true, from preset"
(issue 35). ``tests/test_effective_agreement.py`` holds the readers to this function over generated drafts.

The rule, per ``section.key``:

1. the widget's own value, unless it is empty (None: an empty value inherits; ``rules.check_draft`` reports it);
2. else the preset's own value, unless it is empty;
3. else the catalog's default (a fresh copy of a list, never the catalog's own);
4. else nothing (``unset``).

A value is taken as written, of whatever type: the models judge it, the readers only show it. A layer (the widget,
the preset, or one of their sections) that is not a mapping holds nothing. Plain data in, plain data out: no
pydantic, no Textual, never raises; the models-and-api layer, so every layer above may import it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal, NamedTuple

from tenantdeck.models import catalog

SECTIONS: Final = ("style", "sidebar", "main")
#: where a value comes from: written by a widget over a preset (``override``), by a widget that extends none
#: (``widget``), by the preset (``preset``), the catalog's default (``default``), or nowhere (``unset``)
Source = Literal["override", "widget", "preset", "default", "unset"]
OVERRIDE: Final = "override"
WIDGET: Final = "widget"
PRESET: Final = "preset"
DEFAULT: Final = "default"
UNSET: Final = "unset"
#: the sources whose value is written in the draft (the push body sends these; the service fills in the rest)
WRITTEN: Final = frozenset({OVERRIDE, WIDGET, PRESET})

#: what the service fills in for a key the widget and its preset both leave out
DEFAULTS: Final[Mapping[str, Mapping[str, object]]] = {
    "style": catalog.STYLE_DEFAULTS,
    "sidebar": catalog.SIDEBAR_DEFAULTS,
    "main": catalog.MAIN_DEFAULTS,
}
_NO_VALUES: Final[Mapping[str, Any]] = {}


class EffectiveValue(NamedTuple):
    """One field's effective value and its :data:`Source`."""

    value: Any
    source: Source


def section_of(layer: Any, section: str) -> Mapping[str, Any]:
    """The ``section`` mapping a widget or preset writes (empty when the layer or the section is not a mapping)."""
    if not isinstance(layer, Mapping):
        return _NO_VALUES
    values = layer.get(section)
    return values if isinstance(values, Mapping) else _NO_VALUES


def extends_preset(widget: Any) -> bool:
    """Whether ``widget`` names a preset it builds on (its own values are then overrides)."""
    return isinstance(widget, Mapping) and isinstance(widget.get("extends"), str)


def preset_of(widget: Any, presets: Any) -> Mapping[str, Any] | None:
    """The preset ``widget`` extends, when ``presets`` (the draft's ``presets`` mapping) holds it as a mapping."""
    if not extends_preset(widget) or not isinstance(presets, Mapping):
        return None
    found = presets.get(widget["extends"])
    return found if isinstance(found, Mapping) else None


def default_value(section: str, key: str) -> Any:
    """The catalog's default of ``section.key`` (None: the spec has none), a fresh copy when it is a list."""
    value = DEFAULTS.get(section, _NO_VALUES).get(key)
    return list(value) if isinstance(value, list) else value


def effective_value(widget: Any, preset: Any, section: str, key: str) -> EffectiveValue:
    """THE effective value of ``section.key`` of ``widget`` (plain data as written under ``apps[i].widgets[j]``)
    laid over ``preset`` (the preset's plain data, or None: the widget extends none, or one the draft lacks;
    :func:`preset_of` finds it), with its source. Pass ``widget=None`` for what the preset alone gives (what
    resetting an override brings back, or a preset's own field). Never raises.

    Each layer is looked at only when the one above has nothing: the policies read a widget's key this way for
    every app of a fleet (bench/policies.py)."""
    value = section_of(widget, section).get(key)
    if value is not None:
        return EffectiveValue(value, OVERRIDE if extends_preset(widget) else WIDGET)
    value = section_of(preset, section).get(key)
    if value is not None:
        return EffectiveValue(value, PRESET)
    value = default_value(section, key)
    return EffectiveValue(value, UNSET if value is None else DEFAULT)


def effective_section(widget: Any, preset: Any, section: str) -> Iterator[tuple[str, EffectiveValue]]:
    """``(key, effective value)`` of every key of ``section`` that the defaults, the preset or the widget names,
    in that order, each by :func:`effective_value` (the editor's Preview: one widget at a time)."""
    keys = [*DEFAULTS.get(section, _NO_VALUES), *section_of(preset, section), *section_of(widget, section)]
    for key in dict.fromkeys(keys):
        yield str(key), effective_value(widget, preset, section, key)


#: the keys whose default is a list, per section (copied for each widget: never the catalog's own list)
_LIST_DEFAULTS: Final = {section: tuple(k for k, v in values.items() if isinstance(v, list))
                         for section, values in DEFAULTS.items()}


def effective_sections(widget: Any, preset: Any, *, defaults: bool = True) -> dict[str, dict[str, Any]]:
    """Each section's merged values: :func:`effective_value` of every key with a value (``unset`` left out), for
    all keys at once; with ``defaults=False`` only the values the draft writes (the push body's part; the service
    fills in the rest).

    The same rule as :func:`effective_value` in dictionary merges (the defaults, then the preset's non-empty
    values, then the widget's), because the per-key form costs twice as much where thousands of widgets are
    merged (validate, the policies; bench/validate.py, bench/policies.py): ``tests/models/test_effective.py``
    holds the two forms to the same answer over generated layers."""
    out: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        merged: dict[str, Any] = {}
        if defaults:
            merged.update(DEFAULTS[section])
            for key in _LIST_DEFAULTS[section]:
                merged[key] = list(merged[key])
        held = False  # a key named with no value yet: kept in place, as effective_section orders keys
        for layer in (section_of(preset, section), section_of(widget, section)):
            for key, value in layer.items():
                name = str(key)
                if value is not None:
                    merged[name] = value
                elif name not in merged:
                    merged[name] = _NAMED
                    held = True
        out[section] = {k: v for k, v in merged.items() if v is not _NAMED} if held else merged
    return out


#: a key a layer names with an empty value: its place in the order, until a later layer gives it a value
_NAMED: Final = object()
