"""Fleet edits as data: which apps a bulk edit selects, and the ``set`` edits that make one value so on all of them.

An admin with 5,000 tenant apps sets one toggle, colour or listing value, or adds one trigger to a webhook, on a
selection of apps (by name filter, region, the preset their widgets extend, or marked by hand). The editor shows
"N apps will change, M already so" before it applies anything, then applies the edits as one undo step
(:meth:`tenantdeck.draft.session.DraftSession.set_many`). Everything here is pure: parsed draft data in, plain data
out; no Textual, and pydantic only for the colour check (as :mod:`tenantdeck.draft.widget_view`).

An app whose widget extends a preset gets an override under its own widget (the path
:class:`tenantdeck.draft.widget_view.WidgetSlot` names), never an edit of the preset: a bulk edit changes the apps
selected, and only those.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tenantdeck.draft import widget_view
from tenantdeck.models import catalog, extension_catalog
from tenantdeck.problems import PathPart

Edit = tuple[tuple[PathPart, ...], Any]

#: what kind of value a bulk-editable field takes (SETTING: an app setting, true or false, not a widget field;
#: EXTENSION: a field of an extension's settings, typed by the catalog; ADD_ITEM: one more item of such a list)
TOGGLE, COLOUR, LISTING, SETTING = "toggle", "colour", "listing", "setting"
EXTENSION, ADD_ITEM = "extension", "add-item"
_EXT_SECTION = "extension_settings."


@dataclass(frozen=True, slots=True)
class Field:
    """A field a bulk edit can set: ``section.key`` of a widget (or ``settings.<key>`` of an app setting), its label
    and the kind of value it takes."""

    section: str
    key: str
    label: str
    kind: str

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def extension(self) -> str | None:
        """The extension id of a field of an extension's settings (``profanity-filter``), else None."""
        return self.section[len(_EXT_SECTION):] if self.section.startswith(_EXT_SECTION) else None

    @property
    def setting(self) -> extension_catalog.Setting | None:
        ext = self.extension
        spec = extension_catalog.BY_ID.get(ext) if ext else None
        return spec.setting(self.key) if spec is not None else None

    @property
    def choices(self) -> tuple[Any, ...]:
        """The values it may take (empty for a colour: any ``#rrggbb``)."""
        if self.kind in (TOGGLE, SETTING):
            return (True, False)
        if self.kind == LISTING:
            return catalog.LISTING_VALUES[self.key]
        setting = self.setting
        if self.kind == EXTENSION and setting is not None:
            return (True, False) if setting.type == "bool" else setting.choice_values
        return ()


def fields() -> list[Field]:
    """Every field a bulk edit offers, in the order the tabs show them: Main toggles, Sidebar toggles and listings,
    Style colours, then the app settings the API can set (one set of settings across a fleet)."""
    out = [Field("main", t.key, t.label, TOGGLE) for t in catalog.MAIN_TOGGLES]
    out += [Field("sidebar", k, widget_view.label_of("sidebar", k), TOGGLE) for k in widget_view.SIDEBAR_BOOLEANS]
    out += [Field("sidebar", k, widget_view.label_of("sidebar", k), LISTING) for k in widget_view.LISTING_KEYS]
    out += [Field("style", k, widget_view.label_of("style", k), COLOUR) for k in widget_view.COLOUR_KEYS]
    out += [Field("settings", s.key, s.label, SETTING) for s in catalog.APP_SETTINGS if s.settable]
    out += _extension_fields()
    return out


def _extension_fields() -> list[Field]:
    """The plain fields of each extension's settings (on/off, a choice, a number, a non-secret text) and one
    "add an item" per list of strings (one profanity word across a fleet). Secrets are not offered: a fleet shares
    a ``${VAR}`` only by choice, written by hand."""
    out: list[Field] = []
    for ext in extension_catalog.DRAFT_EXTENSIONS:
        spec = extension_catalog.BY_ID[ext]
        for s in spec.settings:
            label = f"{spec.name}: {s.label}"
            if s.type in ("bool", "integer", "number") or (s.type == "string" and not s.secret and not s.regex):
                out.append(Field(_EXT_SECTION + ext, s.key, label, EXTENSION))
            elif s.type == "strings":
                out.append(Field(_EXT_SECTION + ext, s.key, f"{label} (add one)", ADD_ITEM))
    return out


def find_field(text: str) -> Field | None:
    """The field named by ``text``: its key (``send_gifs``), ``section.key`` or its label, any case."""
    wanted = text.strip().lower()
    if not wanted:
        return None
    for f in fields():
        names = (f.key, f.name, f.label, f"{f.extension}.{f.key}" if f.extension else f.name)
        if wanted in (n.lower() for n in names):
            return f
    return None


def parse_value(field: Field, text: str) -> tuple[Any, str | None]:
    """The value ``text`` means for ``field``, or why it cannot be one (a message naming the allowed values)."""
    raw = text.strip()
    if field.kind in (EXTENSION, ADD_ITEM):
        return _extension_value(field, raw)
    if field.kind in (TOGGLE, SETTING):
        lowered = raw.lower()
        if lowered in ("on", "true", "yes"):
            return True, None
        if lowered in ("off", "false", "no"):
            return False, None
        return None, f"{field.label} is on or off (true or false), not {raw!r}"
    if field.kind == LISTING:
        if raw in field.choices:
            return raw, None
        return None, f"{field.label} is one of {', '.join(field.choices)}; not {raw!r}"
    problem = widget_view.colour_problem(raw)
    return (raw, None) if problem is None else (None, f"{field.label}: {problem}")


def _extension_value(field: Field, raw: str) -> tuple[Any, str | None]:
    setting = field.setting
    assert setting is not None
    if field.kind == ADD_ITEM:
        return (raw, None) if raw else (None, f"{field.label}: type the item to add")
    if setting.type == "bool":
        return parse_value(Field(field.section, field.key, field.label, TOGGLE), raw)
    if setting.type in ("integer", "number"):
        try:
            value: Any = int(raw) if setting.type == "integer" or raw.lstrip("-").isdigit() else float(raw)
        except ValueError:
            named = {label.lower(): v for v, label in setting.choices}
            if raw.lower() in named:
                return named[raw.lower()], None
            return None, f"{field.label} is a number, not {raw!r}"
        if setting.choices and value not in setting.choice_values:
            allowed = ", ".join(f"{v} ({label})" for v, label in setting.choices)
            return None, f"{field.label} is one of {allowed}; not {raw!r}"
        problem = setting.check(value)
        return (value, None) if problem is None else (None, f"{field.label} {problem}")
    if setting.required and not raw:
        return None, f"{field.label} must not be empty"
    problem = setting.check(raw)
    return (raw, None) if problem is None else (None, f"{field.label} {problem}")


# ----------------------------------------------------------------------------------------------------------------
# Selecting apps
# ----------------------------------------------------------------------------------------------------------------


def _apps(data: Any) -> list[Any]:
    apps = data.get("apps") if isinstance(data, Mapping) else None
    return apps if isinstance(apps, list) else []


def _widgets(app: Any) -> list[Any]:
    widgets = app.get("widgets") if isinstance(app, Mapping) else None
    return widgets if isinstance(widgets, list) else []


def matches(app: Any, text: str) -> bool:
    """The Apps screen's filter: every word of ``text`` in the app's name, region or id (any case)."""
    if not text.strip():
        return True
    data = app if isinstance(app, Mapping) else {}
    haystack = " ".join(str(data.get(k, "")) for k in ("name", "region", "id")).lower()
    return all(word in haystack for word in text.lower().split())


def select_apps(
    data: Any,
    *,
    text: str = "",
    region: str | None = None,
    preset: str | None = None,
    marked: Collection[int] | None = None,
) -> list[int]:
    """Indexes of the apps that pass every criterion given: the filter ``text``, the ``region``, a widget that
    extends ``preset``, and (when ``marked`` is not None) being one of the ``marked`` indexes."""
    out: list[int] = []
    for i, app in enumerate(_apps(data)):
        if marked is not None and i not in marked:
            continue
        if region and (not isinstance(app, Mapping) or app.get("region") != region):
            continue
        if preset and not any(isinstance(w, Mapping) and w.get("extends") == preset for w in _widgets(app)):
            continue
        if not matches(app, text):
            continue
        out.append(i)
    return out


# ----------------------------------------------------------------------------------------------------------------
# Building the edits
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BulkEdit:
    """The ``set`` edits of a bulk edit, and what they do to each selected app: ``changed`` apps get an edit,
    ``already`` ones hold the value already, ``skipped`` ones cannot take it (with why)."""

    what: str
    edits: tuple[Edit, ...]
    changed: tuple[int, ...]
    already: tuple[int, ...]
    skipped: tuple[tuple[int, str], ...] = ()

    def sentence(self) -> str:
        n, m = len(self.changed), len(self.already)
        text = f"{n} app{'s' * (n != 1)} will change, {m} already so"
        if self.skipped:
            reasons = sorted({why for _, why in self.skipped})
            text += f"; {len(self.skipped)} skipped ({'; '.join(reasons[:2])}{'; ...' if len(reasons) > 2 else ''})"
        return text + "."


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _classify(what: str, indexes: Sequence[int], edits_of: Callable[[int], list[Edit] | str]) -> BulkEdit:
    """The bulk edit of ``edits_of`` over the selected apps: an app whose edits are empty already holds the value,
    one for which it returns a string is skipped for that reason."""
    edits: list[Edit] = []
    changed: list[int] = []
    already: list[int] = []
    skipped: list[tuple[int, str]] = []
    for i in indexes:
        mine = edits_of(i)
        if isinstance(mine, str):
            skipped.append((i, mine))
        elif mine:
            edits += mine
            changed.append(i)
        else:
            already.append(i)
    return BulkEdit(what, tuple(edits), tuple(changed), tuple(already), tuple(skipped))


def set_field(data: Any, indexes: Sequence[int], field: Field, value: Any) -> BulkEdit:
    """Edits that make ``field`` hold ``value`` in every widget of the selected apps.

    A widget that extends a preset and inherits the value already is left alone; one that inherits another value
    gets an override. An app with no widget is skipped (a bulk edit adds no widget). An app setting goes to
    :func:`set_setting`."""
    if field.kind == SETTING:
        return set_setting(data, indexes, field, value)
    if field.kind in (EXTENSION, ADD_ITEM):
        return set_extension_setting(data, indexes, field, value)
    presets = data.get("presets") if isinstance(data, Mapping) else None
    presets = presets if isinstance(presets, Mapping) else {}
    apps = _apps(data)

    def edits_of(i: int) -> list[Edit] | str:
        widgets = _widgets(apps[i]) if 0 <= i < len(apps) else []
        if not any(isinstance(w, Mapping) for w in widgets):
            return "no widget"
        mine: list[Edit] = []
        for j, widget in enumerate(widgets):
            if not isinstance(widget, Mapping):
                continue
            extends = widget.get("extends")
            preset = presets.get(extends) if extends is not None else None
            current = widget_view.resolve(widget, preset if isinstance(preset, Mapping) else None, field.section,
                                          field.key)
            if not _same(current.value, value):
                mine.append((widget_view.WidgetSlot(app=i, widget=j).path(field.section, field.key), value))
        return mine

    shown = value if not isinstance(value, bool) else ("on" if value else "off")
    return _classify(f"{field.label} ({field.name}) = {shown}", indexes, edits_of)


def set_setting(data: Any, indexes: Sequence[int], field: Field, value: bool) -> BulkEdit:
    """Edits that make app setting ``field.key`` hold ``value`` in each selected app. An app whose draft has no
    ``settings`` block gets one with just this key: the draft then manages that key only (the others stay the
    service's), so nothing the user did not choose is sent."""
    apps = _apps(data)

    def edits_of(i: int) -> list[Edit] | str:
        app = apps[i] if 0 <= i < len(apps) else None
        if not isinstance(app, Mapping):
            return "not an app"
        settings = app.get("settings")
        if not isinstance(settings, Mapping):
            return [(("apps", i, "settings"), {field.key: value})]
        if _same(settings.get(field.key), value):
            return []
        return [(("apps", i, "settings", field.key), value)]

    return _classify(f"{field.label} ({field.key}) = {'on' if value else 'off'}", indexes, edits_of)


def set_extension_setting(data: Any, indexes: Sequence[int], field: Field, value: Any) -> BulkEdit:
    """Edits that make a field of one extension's settings hold ``value`` (or, for a list, contain it) in each
    selected app. An app whose draft has no settings for that extension is skipped: starting them would need
    every required field, which a fleet edit cannot know."""
    apps = _apps(data)
    ext = field.extension
    assert ext is not None

    def edits_of(i: int) -> list[Edit] | str:
        app = apps[i] if 0 <= i < len(apps) else None
        block = app.get("extension_settings") if isinstance(app, Mapping) else None
        settings = block.get(ext) if isinstance(block, Mapping) else None
        if not isinstance(settings, Mapping):
            return f"no {ext} settings"
        path = ("apps", i, "extension_settings", ext, field.key)
        current = settings.get(field.key)
        if field.kind == ADD_ITEM:
            items = list(current) if isinstance(current, list) else []
            return [] if value in items else [(path, [*items, value])]
        return [] if _same(current, value) else [(path, value)]

    shown = ("on" if value else "off") if isinstance(value, bool) else value
    verb = f"add {shown!r} to" if field.kind == ADD_ITEM else "set"
    what = (f"{verb} {field.label} ({ext}.{field.key})" if field.kind == ADD_ITEM
            else f"{field.label} ({ext}.{field.key}) = {shown}")
    return _classify(what, indexes, edits_of)


def add_trigger(data: Any, indexes: Sequence[int], webhook_id: str, trigger: str) -> BulkEdit:
    """Edits that add ``trigger`` to the webhook with id ``webhook_id`` in each selected app (appended to its
    triggers). An app without that webhook is skipped; one whose webhook has the trigger is already so."""
    apps = _apps(data)

    def edits_of(i: int) -> list[Edit] | str:
        app = apps[i] if 0 <= i < len(apps) else None
        hooks = app.get("webhooks") if isinstance(app, Mapping) else None
        found = next((j for j, h in enumerate(hooks if isinstance(hooks, list) else [])
                      if isinstance(h, Mapping) and h.get("id") == webhook_id), None)
        if found is None:
            return f"no webhook {webhook_id!r}"
        assert isinstance(hooks, list)
        triggers = hooks[found].get("triggers")
        triggers = list(triggers) if isinstance(triggers, list) else []
        if trigger in triggers:
            return []
        return [(("apps", i, "webhooks", found, "triggers"), [*triggers, trigger])]

    return _classify(f"add trigger {trigger} to webhook {webhook_id}", indexes, edits_of)


def trigger_problem(trigger: str) -> str | None:
    """Why ``trigger`` is not a trigger id the service knows (None when it is one)."""
    if trigger in catalog.TRIGGER_IDS:
        return None
    return f"{trigger!r} is not a known trigger id (for example {', '.join(catalog.TRIGGER_IDS[:3])})"


def webhook_ids(data: Any, indexes: Sequence[int] | None = None) -> list[str]:
    """The webhook ids written in the selected apps (all apps when None), most common first: what the bulk edit
    offers to complete."""
    counts: dict[str, int] = {}
    apps = _apps(data)
    for i in range(len(apps)) if indexes is None else indexes:
        hooks = apps[i].get("webhooks") if isinstance(apps[i], Mapping) else None
        for hook in hooks if isinstance(hooks, list) else ():
            if isinstance(hook, Mapping) and isinstance(hook.get("id"), str):
                counts[hook["id"]] = counts.get(hook["id"], 0) + 1
    return sorted(counts, key=lambda k: (-counts[k], k))
