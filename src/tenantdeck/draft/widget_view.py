"""What the widget tabs of an editor show and write: one widget field's value, where it comes from, and where an
edit of it goes. Plain data in, plain data out: no Textual, no pydantic on import.

A widget that ``extends`` a preset writes only what differs; every other value comes from the preset, and what the
preset leaves out comes from the service's defaults (:mod:`tenantdeck.models.catalog`). An editor must show which
is which, or an admin cannot tell whether changing a value changes one app or a hundred. :func:`resolve` answers
that for one field (:class:`Resolved`: value and source ``override``, ``preset``, ``widget``, ``default`` or
``unset``); :class:`WidgetSlot` says where an edit goes (the app's widget, or the preset itself) and what resetting an
override deletes; :func:`preset_usage` counts what an edit of a preset would change.

The value and its source come from :func:`tenantdeck.models.effective.effective_value`, the one rule every reader
of a widget uses (an empty value inherits).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.models.effective import (  # noqa: F401 (the sources, re-exported for the tabs)
    DEFAULT,
    OVERRIDE,
    PRESET,
    UNSET,
    WIDGET,
    default_value,
    effective_value,
    section_of,
)
from tenantdeck.problems import PathPart

SECTIONS = ("style", "sidebar", "main")

#: The keys of each section in the order an editor shows them (the catalog's labels are in the spec's order).
STYLE_KEYS: tuple[str, ...] = tuple(catalog.STYLE_LABELS)
SIDEBAR_KEYS: tuple[str, ...] = tuple(catalog.SIDEBAR_LABELS)
MAIN_KEYS: tuple[str, ...] = tuple(t.key for t in catalog.MAIN_TOGGLES)
COLOUR_KEYS = ("docked_layout_icon_background", "primary_color", "foreground_color", "background_color")
ICON_KEYS = ("docked_layout_icon_open", "docked_layout_icon_close")
CODE_KEYS = ("custom_css", "custom_js")
SIDEBAR_BOOLEANS = ("chats", "users", "groups", "calls", "user_settings")
LISTING_KEYS: tuple[str, ...] = tuple(catalog.LISTING_VALUES)
NAVIGATION_KEY = "sidebar_navigation_sequence"

#: Sources of a value, as :attr:`Resolved.source` names them: :data:`tenantdeck.models.effective.Source`
#: (``OVERRIDE``, ``PRESET``, ``WIDGET``, ``DEFAULT``, ``UNSET``, imported above).


def default_of(section: str, key: str) -> Any:
    """What the service fills in when ``section.key`` is left out (None: no default, the value must be written)."""
    return default_value(section, key)


def label_of(section: str, key: str) -> str:
    if section == "main":
        toggle = catalog.TOGGLES_BY_KEY.get(key)
        return toggle.label if toggle else key
    labels = catalog.STYLE_LABELS if section == "style" else catalog.SIDEBAR_LABELS
    return labels.get(key, key)


@dataclass(frozen=True, slots=True)
class Resolved:
    """One field of a widget as an editor shows it.

    ``value`` is the effective value (None when there is none); ``source`` says where it comes from:

    - ``override``: written in a widget that extends a preset (``inherited`` is what resetting it gives back);
    - ``preset``: inherited from the preset (or, when editing the preset, written there);
    - ``widget``: written in a widget that extends no preset;
    - ``default``: written nowhere, the service's default applies;
    - ``unset``: written nowhere and there is no default (the draft has a problem there).
    """

    value: Any
    source: str
    default: Any = None
    inherited: Any = None
    inherited_source: str = UNSET

    @property
    def overridden(self) -> bool:
        return self.source == OVERRIDE


def resolve(widget: Mapping[str, Any] | None, preset: Mapping[str, Any] | None, section: str, key: str) -> Resolved:
    """The value of ``section.key`` for ``widget`` laid over ``preset`` (None: the widget extends no preset, or
    extends one that is not in the draft), by :func:`tenantdeck.models.effective.effective_value`, the rule the
    Preview, the policies and the push read too; ``inherited`` is what the preset alone gives."""
    found = effective_value(widget, preset, section, key)
    below = effective_value(None, preset, section, key)
    return Resolved(found.value, found.source, default_of(section, key), below.value, below.source)


def resolve_preset(preset: Mapping[str, Any] | None, section: str, key: str) -> Resolved:
    """The value of ``section.key`` written in a preset itself (``inherited_source`` unset: nothing is below it)."""
    found = effective_value(None, preset, section, key)
    return Resolved(found.value, found.source, default_of(section, key))


# ----------------------------------------------------------------------------------------------------------------
# Where edits go
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WidgetSlot:
    """Where the widget tabs write: an app's widget (``preset`` None) or a preset (``app``/``widget`` unused)."""

    app: int = 0
    widget: int = 0
    preset: str | None = None

    @property
    def root(self) -> tuple[PathPart, ...]:
        if self.preset is not None:
            return ("presets", self.preset)
        return ("apps", self.app, "widgets", self.widget)

    def path(self, section: str, key: str | None = None) -> tuple[PathPart, ...]:
        """The key path of ``section.key`` in the draft (a tuple: preset names may hold dots)."""
        return (*self.root, section) if key is None else (*self.root, section, key)


def reset_path(widget: Mapping[str, Any] | None, target: WidgetSlot, section: str,
               key: str) -> tuple[PathPart, ...] | None:
    """What to delete so that ``section.key`` of the widget is inherited again: the key, or its whole section when
    it is the section's only key (so no empty ``main: {}`` is left behind). None when there is nothing to reset:
    the key is not overridden, or the widget extends no preset."""
    if target.preset is not None or not isinstance(widget, Mapping) or widget.get("extends") is None:
        return None
    own = section_of(widget, section)
    if key not in own:
        return None
    return target.path(section) if len(own) == 1 else target.path(section, key)


@dataclass(frozen=True, slots=True)
class PresetUsage:
    """What an edit of one value of a preset changes: ``widgets`` extend it, in ``apps`` apps; ``overriding`` of
    those widgets write that value themselves, so the edit does not change them."""

    widgets: int
    apps: int
    overriding: int = 0

    @property
    def changed(self) -> int:
        return self.widgets - self.overriding

    def sentence(self, name: str) -> str:
        if not self.widgets:
            return f"No widget extends preset {name!r}; the edit changes no app."
        text = (f"{self.widgets} widget{'s' * (self.widgets != 1)} in {self.apps} app{'s' * (self.apps != 1)} "
                f"extend{'s' * (self.widgets == 1)} preset {name!r}")
        if self.overriding:
            text += (f"; {self.overriding} of them override{'s' * (self.overriding == 1)} this value, so an edit "
                     f"changes {self.changed}")
        return text + "."


def preset_usage(data: Any, name: str, section: str | None = None, key: str | None = None) -> PresetUsage:
    """Count the widgets of ``data`` (a parsed draft) that extend preset ``name``; with ``section`` and ``key``,
    also those that override that value."""
    apps = data.get("apps") if isinstance(data, Mapping) else None
    widgets = apps_count = overriding = 0
    for app in apps if isinstance(apps, list) else ():
        found = False
        items = app.get("widgets") if isinstance(app, Mapping) else None
        for widget in items if isinstance(items, list) else ():
            if isinstance(widget, Mapping) and widget.get("extends") == name:
                widgets += 1
                found = True
                if (section is not None and key is not None  # an empty value inherits: the edit changes it too
                        and effective_value(widget, None, section, key).source == OVERRIDE):
                    overriding += 1
        apps_count += found
    return PresetUsage(widgets, apps_count, overriding)


# ----------------------------------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------------------------------


@cache
def _colour_adapter() -> Any:
    from pydantic import TypeAdapter

    from tenantdeck.models.base import Colour

    return TypeAdapter(Colour)


def held_fields(last_read: Mapping[str, Any] | None, verbatim: str, widget_id: Any) -> dict[tuple[str, str], Any]:
    """``(section, key) -> value`` of each field of widget ``widget_id`` that pull kept out of the draft as the
    service holds it (the base's ``verbatim`` entry, named by the caller: ``sync.types.VERBATIM``, which this layer
    may not import): the form shows the model's default there, and a row must say the service holds something
    else (a trial read the default as the service's colour)."""
    if not isinstance(last_read, Mapping) or not isinstance(widget_id, str):
        return {}
    paths = ((last_read.get(verbatim) or {}).get("widgets") or {}).get(widget_id) or ()
    raw = (last_read.get("widgets") or {}).get(widget_id)
    out: dict[tuple[str, str], Any] = {}
    for path in paths:
        section, _, key = str(path).partition(".")
        if isinstance(raw, Mapping) and isinstance(raw.get(section), Mapping) and key in raw[section]:
            out[(section, key)] = raw[section][key]
    return out


def held_note(value: Any) -> str:
    """The line under a held field's row."""
    import json

    from tenantdeck.textsafe import shortened

    shown_value = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return (f"the service holds {shortened(shown_value, 60)!r} (kept as it holds it, and sent back unchanged); "
            "a value written here replaces it")


def colour_problem(value: object) -> str | None:
    """Why the models refuse ``value`` as a colour (their own message), or None when it is one."""
    from pydantic import ValidationError

    try:
        _colour_adapter().validate_python(value, strict=True)
    except ValidationError as exc:
        return str(exc.errors(include_url=False)[0]["msg"])
    return None


def listing_choices(key: str, value: object) -> tuple[tuple[str, ...], bool]:
    """The values a listing may take, and whether ``value`` is outside them (held by the service, or a typo).

    A value outside the documented ones is offered as a choice too, so showing it never replaces it."""
    allowed = catalog.LISTING_VALUES[key]
    if value is None or value in allowed:
        return allowed, False
    return (*allowed, str(value)), True


def move(sequence: Sequence[Any], index: int, step: int) -> list[Any] | None:
    """``sequence`` with the item at ``index`` moved ``step`` places (-1 up, +1 down); None when it cannot move.

    Only reorders: nothing is added, dropped or repeated."""
    target = index + step
    if not 0 <= index < len(sequence) or not 0 <= target < len(sequence):
        return None
    items = list(sequence)
    items[index], items[target] = items[target], items[index]
    return items


def extension_path(app: int) -> tuple[PathPart, ...]:
    return ("apps", app, "extensions")


def enable_extension_edits(extensions: Any, app: int, extension: str) -> list[tuple[tuple[PathPart, ...], Any]]:
    """The ``set`` edits that enable ``extension`` in app ``app`` whose ``extensions`` block is ``extensions``
    (None when the app has none: it is created): added to ``enabled``, removed from ``disabled``. Empty when it is
    already enabled and not disabled."""
    block = extensions if isinstance(extensions, Mapping) else {}
    enabled = block.get("enabled") if isinstance(block.get("enabled"), list) else []
    disabled = block.get("disabled") if isinstance(block.get("disabled"), list) else []
    edits: list[tuple[tuple[PathPart, ...], Any]] = []
    base = extension_path(app)
    if extension not in enabled:
        edits.append(((*base, "enabled"), [*enabled, extension]))
    if extension in disabled:
        edits.append(((*base, "disabled"), [e for e in disabled if e != extension]))
    return edits


def extension_enabled(extensions: Any, extension: str) -> bool | None:
    """True or False by the app's ``extensions`` block; None when the draft does not manage its extensions."""
    if not isinstance(extensions, Mapping):
        return None
    enabled = extensions.get("enabled")
    return isinstance(enabled, list) and extension in enabled


def new_widget(presets: Any, names: Iterable[str] = ()) -> dict[str, Any]:
    """A widget to add to an app that has none: one that extends the draft's first preset when there is one
    (writing only its name), else complete settings from the catalog's defaults.

    A toggle with no default is written ``false``, and so is one that needs an extension (``show_stickers``, on by
    default): the new widget must not depend on an extension the app may not enable."""
    taken = set(names)
    name = "Chat widget"
    n = 2
    while name in taken:
        name = f"Chat widget {n}"
        n += 1
    if isinstance(presets, Mapping) and presets:
        return {"extends": next(iter(presets)), "name": name}
    sidebar: dict[str, Any] = {"chats": True, "users": True, "groups": True, "calls": True}
    sidebar.update({k: list(v) if isinstance(v, list) else v for k, v in catalog.SIDEBAR_DEFAULTS.items()})
    return {
        "name": name,
        "version": catalog.WIDGET_VERSION,
        "style": {k: v for k, v in catalog.STYLE_DEFAULTS.items() if k != "custom_js"},
        "sidebar": sidebar,
        "main": {t.key: bool(t.default) and not t.extension for t in catalog.MAIN_TOGGLES},
    }
