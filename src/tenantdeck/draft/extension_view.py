"""An app's extensions as an editor shows them: each known extension's state in the draft and what depends on it.

Why here and not in the TUI: the state of an extension ("enabled", "disabled", "not managed") and which widget
toggles need it are facts about the draft, computed from plain data (no pydantic, no Textual), and the edits that
change a state are the same whatever draws them. The UI only renders :func:`extension_rows` and applies
:func:`state_edits`.

The draft's ``extensions`` block lists only what it manages: an id in neither list, or an app without the block,
is "not managed" (the tool leaves it as it is on the service).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tenantdeck.models import catalog
from tenantdeck.models.effective import effective_value, preset_of
from tenantdeck.models.extension_catalog import extension_name

ENABLED, DISABLED, NOT_MANAGED = "enabled", "disabled", "not managed"
STATES = (ENABLED, DISABLED, NOT_MANAGED)


@dataclass(frozen=True, slots=True)
class Dependent:
    """A main toggle that needs an extension, and the widgets of the app where it is on (effective value)."""

    toggle: catalog.Toggle
    on_in: tuple[str, ...]  #: names of the app's widgets in which the toggle is on


@dataclass(frozen=True, slots=True)
class ExtensionRow:
    """One line of the Extensions tab."""

    id: str
    name: str
    state: str  #: one of :data:`STATES`
    dependents: tuple[Dependent, ...]
    known: bool = True  #: False for an id the draft lists that the catalog does not know (kept, shown)

    @property
    def needed_by(self) -> tuple[str, ...]:
        """"<widget>: <toggle label>" for each widget whose toggle is on and needs this extension."""
        return tuple(f"{w}: {d.toggle.label}" for d in self.dependents for w in d.on_in)


def _lists(app: Any) -> tuple[list[Any], list[Any], bool]:
    block = app.get("extensions") if isinstance(app, dict) else None
    if not isinstance(block, dict):
        return [], [], False
    enabled = block.get("enabled") if isinstance(block.get("enabled"), list) else []
    disabled = block.get("disabled") if isinstance(block.get("disabled"), list) else []
    return list(enabled), list(disabled), True


def state_of(app: Any, extension: str) -> str:
    """``enabled``, ``disabled`` or ``not managed`` for ``extension`` in the app's (plain) data."""
    enabled, disabled, _ = _lists(app)
    if extension in enabled:
        return ENABLED
    if extension in disabled:
        return DISABLED
    return NOT_MANAGED


def toggles_needing(extension: str) -> tuple[catalog.Toggle, ...]:
    """The main toggles that need ``extension`` (``catalog.TOGGLE_EXTENSIONS``), in catalog order."""
    return tuple(catalog.TOGGLES_BY_KEY[k] for k, ext in catalog.TOGGLE_EXTENSIONS.items() if ext == extension)


def effective_toggle(data: Any, widget: Any, key: str) -> bool | None:
    """A widget's value of main toggle ``key`` by :func:`tenantdeck.models.effective.effective_value` (its own,
    else its preset's, else the catalog default; an empty value inherits); None when it is not a boolean."""
    presets = data.get("presets") if isinstance(data, dict) else None
    value = effective_value(widget, preset_of(widget, presets), "main", key).value
    return value if isinstance(value, bool) else None


def _widget_name(widget: Any, index: int) -> str:
    name = widget.get("name") if isinstance(widget, dict) else None
    return name if isinstance(name, str) and name else f"widget {index + 1}"


def dependents(data: Any, app_index: int, extension: str) -> tuple[Dependent, ...]:
    """Each toggle needing ``extension``, with the app's widgets in which it is on."""
    app = _app(data, app_index)
    widgets = app.get("widgets") if isinstance(app.get("widgets"), list) else []
    out = []
    for toggle in toggles_needing(extension):
        on = tuple(_widget_name(w, j) for j, w in enumerate(widgets) if effective_toggle(data, w, toggle.key) is True)
        out.append(Dependent(toggle, on))
    return tuple(out)


def _app(data: Any, app_index: int) -> dict[str, Any]:
    apps = data.get("apps") if isinstance(data, dict) else None
    if isinstance(apps, list) and 0 <= app_index < len(apps) and isinstance(apps[app_index], dict):
        return apps[app_index]
    return {}


def extension_rows(data: Any, app_index: int) -> list[ExtensionRow]:
    """Every known extension in catalog order, then ids the draft lists that the catalog does not know."""
    app = _app(data, app_index)
    enabled, disabled, _ = _lists(app)
    rows = [
        ExtensionRow(ext, extension_name(ext), state_of(app, ext), dependents(data, app_index, ext))
        for ext in catalog.EXTENSION_IDS
    ]
    known = set(catalog.EXTENSION_IDS)
    for ext in dict.fromkeys(x for x in (*enabled, *disabled) if isinstance(x, str) and x not in known):
        rows.append(ExtensionRow(ext, ext, state_of(app, ext), (), known=False))
    return rows


def manages_extensions(data: Any, app_index: int) -> bool:
    """Whether the app has an ``extensions`` block at all."""
    return _lists(_app(data, app_index))[2]


def state_edits(data: Any, app_index: int, extension: str, state: str) -> list[tuple[str, Any]]:
    """The ``set`` edits that give ``extension`` the ``state`` in app ``app_index`` (empty when it already has it).

    Enabling or disabling moves the id between the two lists; "not managed" takes it out of both. An app without
    the block gets one (``enabled`` and ``disabled`` written, as the sample does).
    """
    if state not in STATES:
        raise ValueError(f"unknown extension state {state!r}")
    app = _app(data, app_index)
    if state_of(app, extension) == state:
        return []
    enabled, disabled, has_block = _lists(app)
    new_enabled = [x for x in enabled if x != extension] + ([extension] if state == ENABLED else [])
    new_disabled = [x for x in disabled if x != extension] + ([extension] if state == DISABLED else [])
    prefix = f"apps[{app_index}].extensions"
    if not has_block:
        return [(prefix, {"enabled": new_enabled, "disabled": new_disabled})]
    block = app["extensions"]
    edits: list[tuple[str, Any]] = []
    if new_enabled != enabled or "enabled" not in block:
        edits.append((f"{prefix}.enabled", new_enabled))
    if new_disabled != disabled or "disabled" not in block:
        edits.append((f"{prefix}.disabled", new_disabled))
    return edits
