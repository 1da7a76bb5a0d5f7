"""The extension settings form's model: the kinds of row, :class:`Row` and :class:`Form`, and :func:`build_form`,
which lays one extension's catalog entry (:mod:`tenantdeck.models.extension_catalog`) over the draft's values.

Why generated: :mod:`tenantdeck.models.extension_catalog` is the one place a setting's type, label, default,
choices and secrecy are written, so a form built from it needs no edit when an extension is added, and it says what
the draft's validation says (the problems shown are the session's own, placed on the row they name). Why here and
not in the TUI: which rows an extension has and what a value reads as are facts about the draft, the same whatever
draws them. No Textual, no pydantic.

Secrets are never values here: a secret row shows its ``${VAR}`` reference and whether that variable is set in the
environment, or that the draft holds a literal (hidden), never the literal nor the variable's value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tenantdeck.absent import ABSENT
from tenantdeck.draft import extension_view as ev
from tenantdeck.models.extension_catalog import (
    BY_ID,
    DRAFT_EXTENSIONS,
    ExtensionSpec,
    Setting,
    extension_name,
)
from tenantdeck.models.secrets import derived_secret_name, is_reference, reference_name
from tenantdeck.problems import Problem
from tenantdeck.textsafe import shown

PathPart = str | int
KeyPath = tuple[PathPart, ...]

# -- the kinds of row (each one editor) --------------------------------------------------------------------------

TOGGLE: Final = "toggle"  #: a bool: Space flips it
SELECT: Final = "select"  #: one of the setting's ``choices``
NUMBER: Final = "number"  #: int or float
INTEGER: Final = "integer"  #: a whole number without choices
TEXT: Final = "text"  #: a string
SECRET: Final = "secret"  #: a string entered only as a ``${VAR}`` reference
STRINGS: Final = "strings"  #: a list of strings (its items follow as ITEM rows)
MAPPING: Final = "mapping"  #: string -> string (its entries follow as ENTRY rows)
GROUP: Final = "group"  #: a nested object (its fields follow, one level deeper)
TABLE: Final = "table"  #: a list of objects (its objects follow as ROW rows, one cell per column)
ITEM: Final = "item"  #: one string of a STRINGS list
ENTRY: Final = "entry"  #: one key -> value of a MAPPING
ROW: Final = "row"  #: one object of a TABLE (Enter edits it as a form of its own)
EXTRA: Final = "extra"  #: a key the catalog does not know (shown, removable; validation names it)

#: kinds whose value is typed in an edit line (Enter)
TYPED: Final = frozenset({NUMBER, INTEGER, TEXT, SECRET, STRINGS, ITEM, ENTRY})
#: kinds that hold a list or mapping: ``a`` adds to them (on the row or any of its items)
CONTAINERS: Final = frozenset({STRINGS, MAPPING, TABLE})

_EDITOR: Final[dict[str, str]] = {
    "bool": TOGGLE, "number": NUMBER, "string": TEXT, "strings": STRINGS, "mapping": MAPPING, "object": GROUP,
    "objects": TABLE,
}
#: how many of a list's values the list's own row names before "…"
_LISTED = 6



@dataclass(frozen=True, slots=True)
class SecretState:
    """What a secret row may say: the variable its reference names and whether the environment sets it (never the
    value), or that the draft holds a literal (hidden), or nothing; and the name to suggest."""

    variable: str | None
    is_set: bool
    literal: bool
    suggested: str  #: ``${TENANTDECK_<APP>_<SECRET>}``

    @property
    def words(self) -> str:
        """The value column: the status first (a long reference is cut at 80 columns, the status must not be)."""
        if self.variable is not None:
            return f"{'variable set' if self.is_set else 'variable unset'} · ${{{self.variable}}}"
        if self.literal:
            return "a literal value (hidden): write an ${ENV_VAR} reference"
        return f"not set (suggested: {self.suggested})"

    @property
    def sentence(self) -> str:
        """The detail line: the same in full."""
        if self.variable is not None:
            where = "is set" if self.is_set else "is not set"
            return (f"${{{self.variable}}}: the variable {where} in this environment (its value is never shown); "
                    "a push needs it set where it runs.")
        if self.literal:
            return (f"the draft holds a literal secret (never shown): replace it with a reference such as "
                    f"{self.suggested}.")
        return f"not in the draft; Enter writes a reference such as {self.suggested}."


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the form. ``path`` is below the extension's settings block (``("fcmCredentials",
    "private_key")``, ``("customregexData", 1)``); ``shown`` is the value column, safe to draw (no control
    characters; never a secret); ``dimmed``: what is shown is not the draft's (a default, or "not set")."""

    path: KeyPath
    kind: str
    label: str
    help: str
    depth: int
    value: Any
    shown: str
    dimmed: bool = False
    required: bool = False
    setting: Setting | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    secret: SecretState | None = None
    problems: tuple[Problem, ...] = ()
    columns: tuple[str, ...] = ()  #: TABLE: the column labels; ROW: its cells, in the same order

    @property
    def written(self) -> bool:
        """The draft writes this value."""
        return self.value is not ABSENT

    @property
    def key(self) -> str:
        """The setting's key as the draft writes it (the list's key for an item)."""
        return next((str(p) for p in reversed(self.path) if isinstance(p, str)), "")

    @property
    def container(self) -> KeyPath | None:
        """The path of the list or mapping ``a`` adds to from this row (itself, or the one it is an item of)."""
        if self.kind in CONTAINERS:
            return self.path
        if self.kind in (ITEM, ENTRY, ROW):
            return self.path[:-1]
        return None


@dataclass(frozen=True, slots=True)
class Form:
    """One extension's form: its rows (or why there is none), where it is in the draft, and the problems no row
    shows (the block's own, such as a field a switch made required)."""

    ext_id: str
    name: str
    prefix: KeyPath  #: the settings block's path in the draft: ``("apps", i, "extension_settings", ext id)``
    under: KeyPath  #: the part of the block shown (an object of a table: ``("customregexData", 0)``), else ()
    has_settings: bool  #: the draft has a settings block for the extension
    state: str  #: enabled / disabled / not managed (:mod:`tenantdeck.draft.extension_view`)
    rows: tuple[Row, ...] = ()
    problems: tuple[Problem, ...] = ()
    why_no_form: str = ""
    missing: bool = False  #: ``under`` names an object the draft no longer has (undone, removed)
    notes: tuple[str, ...] = ()  #: what the form says beside its fields (push-notification's certificates)

    @property
    def title(self) -> str:
        """The extension's name; for one object of a table, the way to it (``Data masking > Custom masks > 2``)."""
        return self.name


# -- which extensions have a form ---------------------------------------------------------------------------------


def why_no_form(ext_id: str) -> str:
    """Why an extension has no settings form here ("" when it has one): not in the catalog, settings kept
    elsewhere (SMS), none published by the vendor, or none to set at all."""
    spec = BY_ID.get(ext_id)
    if spec is None:
        name = extension_name(ext_id)
        return f"{name} has no settings to configure (no /v1/settings endpoint): enable or disable it only."
    if ext_id == "sms-notification":
        return "SMS settings are the app's own sms block: edit them in the SMS tab."
    if not spec.documented:
        return (f"The vendor publishes no settings schema for {spec.name}: configure it in the dashboard "
                "(a draft refuses a settings block for it).")
    if ext_id not in DRAFT_EXTENSIONS or not spec.settings:
        return f"{spec.name} has no settings to configure."
    return ""


def has_form(ext_id: str) -> bool:
    return not why_no_form(ext_id)


def settings_marker(data: Any, app_index: int, ext_id: str) -> str:
    """The Extensions table's Settings column: ``draft`` (the draft holds settings), ``none`` (it could),
    ``SMS tab``, or ``-`` (nothing to set here)."""
    app = _app(data, app_index)
    if ext_id == "sms-notification":
        return "SMS tab"
    if not has_form(ext_id):
        return "-"
    return "draft" if isinstance(_block(app).get(ext_id), dict) else "none"


# -- building the form ---------------------------------------------------------------------------------------------


def prefix_of(app_index: int, ext_id: str) -> KeyPath:
    return ("apps", app_index, "extension_settings", ext_id)


def build_form(
    data: Any,
    app_index: int,
    ext_id: str,
    problems: Sequence[Problem] = (),
    *,
    under: KeyPath = (),
    env: Mapping[str, str] | None = None,
    last_read: Mapping[str, Any] | None = None,
) -> Form:
    """The form of ``ext_id`` in app ``app_index``: every catalog field (nested objects as indented groups, lists
    as their items, lists of objects as a table), each with the draft's value or its default (dimmed).

    ``problems``: the session's problems at or below the block (``Editor.problems_at``); each goes to the deepest
    row whose path holds it, the rest to :attr:`Form.problems`. ``under``: show one object of a table as a form of
    its own (its fields as rows). ``env``: where a secret's variable is looked up (``os.environ``). ``last_read``:
    the app as the service had it at the last pull or push (its base), for what only the service can say."""
    app = _app(data, app_index)
    prefix = prefix_of(app_index, ext_id)
    block = _block(app).get(ext_id, ABSENT)
    has = isinstance(block, dict)
    spec = BY_ID.get(ext_id)
    base = Form(ext_id, spec.name if spec else ext_id, prefix, under, has, ev.state_of(app, ext_id))
    reason = why_no_form(ext_id)
    if reason or spec is None:
        return _replace(base, why_no_form=reason)
    ctx = _Context(str(app.get("name") or ""), os.environ if env is None else env,
                   required_now(spec, block if has else {}))
    rows: list[Row] = []
    if under:
        parent = _setting_at(spec, under[:-1])
        item = _get(block, under) if has else ABSENT
        if parent is None or parent.type != "objects" or not isinstance(item, dict):
            return _replace(base, missing=True)
        base = _replace(base, name=f"{spec.name} > {parent.label} > {int(under[-1]) + 1}")
        _object_rows(rows, parent.fields, item, under, 0, ctx, open_=parent.open)
    else:
        _object_rows(rows, spec.settings, block if has else {}, (), 0, ctx, open_=False)
    placed, left = _place(rows, problems, prefix, under)
    notes = certificate_notes(app, last_read) if ext_id == "push-notification" and not under else ()
    return _replace(base, rows=tuple(placed), problems=tuple(left), notes=notes)


def _brief_path(path: str) -> str:
    return path if len(path) <= 40 else "..." + path[-37:]


def certificate_notes(app: Mapping[str, Any], last_read: Mapping[str, Any] | None) -> tuple[str, ...]:
    """One line on the APNs certificates: the files the draft names (``push_certificates``) and which ones the
    service held at the last pull or push (query-certificates, recorded in the base). Never a file's content."""
    block = app.get("push_certificates")
    written = {k: v for k, v in (block.items() if isinstance(block, Mapping) else ()) if isinstance(v, str) and v}
    held = (last_read or {}).get("push_certificates")
    parts = [f".{kind} {_brief_path(written[kind])}" for kind in ("p12", "p8") if kind in written]
    draft = ", ".join(parts) if parts else "none in the draft"
    if not isinstance(held, Mapping):
        service = "not read yet"
    else:
        service = ", ".join(f".{k}" for k in ("p12", "p8") if k in held) or "none"
    return (f"APNs certificates: {draft} · service (last pull/push): {service}",)


@dataclass(frozen=True, slots=True)
class _Context:
    app_name: str
    env: Mapping[str, str]
    #: top-level field -> why a switch makes it required now (push-notification's APNs fields for provider APNs)
    required_now: Mapping[str, str]


def _object_rows(out: list[Row], fields: Sequence[Setting], values: Any, at: KeyPath, depth: int, ctx: _Context,
                 *, open_: bool) -> None:
    values = values if isinstance(values, dict) else {}
    for setting in fields:
        _setting_rows(out, setting, values.get(setting.key, ABSENT), (*at, setting.key), depth, ctx)
    known = {s.key for s in fields}
    for key, value in values.items():
        if key not in known:
            note = "kept (the service may add fields)" if open_ else "not in the catalog: d removes it"
            out.append(Row((*at, str(key)), EXTRA, shown(str(key)), f"A key the catalog does not list; {note}.",
                           depth, value, _brief(value)))


def _setting_rows(out: list[Row], setting: Setting, value: Any, path: KeyPath, depth: int, ctx: _Context) -> None:
    kind = _EDITOR.get(setting.type, TEXT)
    if setting.type == "integer":
        kind = SELECT if setting.choices else INTEGER
    if setting.secret:
        kind = SECRET
    help_text = help_of(setting)
    why = ctx.required_now.get(setting.key) if len(path) == 1 else None
    if why:
        help_text += f" Required now: {why}."
    common = {"required": setting.required, "setting": setting, "choices": setting.choices}
    if kind == SECRET:
        state = secret_state(value, setting, ctx.app_name, ctx.env)
        out.append(Row(path, kind, setting.label, help_text, depth, value, state.words,
                       dimmed=state.variable is None, secret=state, **common))  # type: ignore[arg-type]
        return
    text, dimmed = show_value(setting, value)
    if why and value in (ABSENT, None, ""):
        text, dimmed = f"not set (required: {why})", True
    if kind == TABLE:
        columns = tuple(f.label for f in setting.fields)
        out.append(Row(path, kind, setting.label, help_text, depth, value, text, dimmed=dimmed, columns=columns,
                       **common))  # type: ignore[arg-type]
        for i, item in enumerate(value if isinstance(value, list) else []):
            cells = _cells(setting, item)
            flag = next((f.label for f in setting.fields if f.type == "bool"), None)
            keys = f"Space flips its {flag}; " if flag else ""
            out.append(Row((*path, i), ROW, f"{i + 1}", f"{keys}Enter edits this one; d removes it.", depth + 1, item,
                           "  ".join(cells), columns=cells, setting=setting))
        return
    out.append(Row(path, kind, setting.label, help_text, depth, value, text, dimmed=dimmed,
                   **common))  # type: ignore[arg-type]
    if kind == GROUP:
        _object_rows(out, setting.fields, value, path, depth + 1, ctx, open_=setting.open)
    elif kind == STRINGS and isinstance(value, list):
        for i, item in enumerate(value):
            out.append(Row((*path, i), ITEM, f"{i + 1}", "Enter edits it; d removes it; a adds one.", depth + 1,
                           item, _brief(item), setting=setting))
    elif kind == MAPPING and isinstance(value, dict):
        for key, item in value.items():
            out.append(Row((*path, str(key)), ENTRY, shown(str(key)), "Enter edits what it stands for; d removes "
                           "it; a adds one as key=value.", depth + 1, item, _brief(item), setting=setting))


def required_now(spec: ExtensionSpec, block: Mapping[str, Any]) -> dict[str, str]:
    """The fields a switch makes required in ``block`` (field -> why): ``keyId`` when the provider includes APNs."""
    out: dict[str, str] = {}
    for rule in spec.requirements:
        value = block.get(rule.when, _setting_default(spec, rule.when))
        if _hashable(value) and value in rule.values:
            for name in rule.then:
                out.setdefault(name, rule.why)
    return out


def _setting_default(spec: ExtensionSpec, key: str) -> Any:
    setting = spec.setting(key)
    return setting.default if setting is not None else None


def help_of(setting: Setting) -> str:
    """What a row's help line says: the description, the default (with its unit), whether it is required."""
    parts = [setting.description] if setting.description and setting.description != setting.label else []
    default = _default_words(setting)
    if default:
        parts.append(f"Default: {default}")
    if setting.limits():
        parts.append(setting.limits()[:1].upper() + setting.limits()[1:])
    if setting.required:
        parts.append("Required")
    if setting.regex:
        parts.append("A regular expression (checked when the draft is validated)")
    return ". ".join(p.rstrip(".") for p in parts) + "." if parts else ""


def _default_words(setting: Setting) -> str:
    if setting.default is None or setting.default == ():
        return ""
    return _scalar_words(setting, setting.default)


def _number_words(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _scalar_words(setting: Setting, value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if setting.choices:
        label = dict(setting.choices).get(value) if _hashable(value) else None
        return f"{value} · {label}" if label is not None else f"{_brief(value)} (not one of the choices)"
    if setting.type == "number" and isinstance(value, int | float):
        return f"{_number_words(value)}{' ' + setting.unit if setting.unit else ''}"
    return _brief(value)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def show_value(setting: Setting, value: Any) -> tuple[str, bool]:
    """(what the value column says, dimmed): the draft's value, else its default or "not set" (dimmed)."""
    if value is ABSENT:
        default = _default_words(setting)
        if setting.type in ("object",):
            return "not set", True
        if default:
            return f"{default} (default)", True
        return ("not set (required)" if setting.required else "not set"), True
    if setting.type == "strings" and isinstance(value, list):
        return _count(len(value), "item") + (": " + ", ".join(_brief(v) for v in value[:_LISTED]) if value else "") \
            + ("…" if len(value) > _LISTED else ""), False
    if setting.type == "mapping" and isinstance(value, dict):
        return _count(len(value), "entry", "entries"), False
    if setting.type == "objects" and isinstance(value, list):
        return _count(len(value), "item"), False
    if setting.type == "object" and isinstance(value, dict):
        return "", False
    return _scalar_words(setting, value), False


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _brief(value: Any) -> str:
    """A value as one line of text, safe to draw (control characters escaped)."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    from tenantdeck.textsafe import json_text

    return shown(json_text(value))


def _cells(setting: Setting, item: Any) -> tuple[str, ...]:
    values = item if isinstance(item, dict) else {}
    out = []
    for f in setting.fields:
        value = values.get(f.key, ABSENT)
        if f.secret:
            out.append("${…}" if isinstance(value, str) and is_reference(value) else "hidden" if value else "-")
        elif value is ABSENT:
            out.append("-")
        else:
            out.append(_scalar_words(f, value) if f.type not in ("object", "objects", "strings", "mapping")
                       else _brief(value))
    if not isinstance(item, dict):
        return (_brief(item),)
    return tuple(out)


def secret_state(value: Any, setting: Setting, app_name: str, env: Mapping[str, str]) -> SecretState:
    """The secret's reference and whether its variable is set (never its value), or a literal (hidden)."""
    suggested = f"${{{derived_secret_name(app_name or 'app', setting.secret or setting.key)}}}"
    name = reference_name(value) if isinstance(value, str) else None
    if name is not None:
        return SecretState(name, name in env, False, suggested)
    return SecretState(None, False, isinstance(value, str) and value != "", suggested)


def _place(rows: list[Row], problems: Sequence[Problem], prefix: KeyPath,
           under: KeyPath) -> tuple[list[Row], list[Problem]]:
    """Each problem on the deepest row whose path holds it; the rest (the block's own, or outside ``under``)
    returned apart."""
    by_path = {r.path: i for i, r in enumerate(rows)}
    found: dict[int, list[Problem]] = {}
    left: list[Problem] = []
    for problem in problems:
        rel = tuple(problem.path[len(prefix):]) if tuple(problem.path[:len(prefix)]) == prefix else None
        target = None
        if rel is not None and rel[:len(under)] == under:
            for cut in range(len(rel), len(under), -1):
                if rel[:cut] in by_path:
                    target = by_path[rel[:cut]]
                    break
        if target is None and (not under or rel == under):
            left.append(problem)  # the block's own; an object's form keeps only the object's own
        else:
            found.setdefault(target, []).append(problem)
    return [_replace(r, problems=tuple(found[i])) if i in found else r for i, r in enumerate(rows)], left


def _replace(obj: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(obj, **changes)


# -- reading the draft ----------------------------------------------------------------------------------------------


def _app(data: Any, app_index: int) -> dict[str, Any]:
    apps = data.get("apps") if isinstance(data, dict) else None
    if isinstance(apps, list) and 0 <= app_index < len(apps) and isinstance(apps[app_index], dict):
        return apps[app_index]
    return {}


def _block(app: Mapping[str, Any]) -> dict[str, Any]:
    block = app.get("extension_settings")
    return block if isinstance(block, dict) else {}


def _get(value: Any, path: KeyPath) -> Any:
    for part in path:
        in_list = isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value)
        if not (in_list or (isinstance(part, str) and isinstance(value, dict) and part in value)):
            return ABSENT
        value = value[part]
    return value


def settings_of(data: Any, app_index: int, ext_id: str) -> dict[str, Any] | None:
    """The draft's settings block of ``ext_id`` (None when it has none)."""
    block = _block(_app(data, app_index)).get(ext_id)
    return block if isinstance(block, dict) else None


def _setting_at(spec: ExtensionSpec, path: KeyPath) -> Setting | None:
    """The catalog's setting at ``path`` (list positions skipped: ``customregexData[0].regex`` is the mask's
    ``regex`` field)."""
    fields: Sequence[Setting] = spec.settings
    found: Setting | None = None
    for part in path:
        if isinstance(part, int):
            continue
        found = next((s for s in fields if s.key == part), None)
        if found is None:
            return None
        fields = found.fields
    return found


def setting_at(ext_id: str, path: KeyPath) -> Setting | None:
    spec = BY_ID.get(ext_id)
    return _setting_at(spec, path) if spec is not None else None


