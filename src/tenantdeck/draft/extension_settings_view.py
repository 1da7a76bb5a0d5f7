"""One extension's settings as the editor's generated form: rows built from the catalog, the draft's values in them,
typed text turned into values, and the edits each key makes.

Why generated: :mod:`tenantdeck.models.extension_catalog` is the one place a setting's type, label, default,
choices and secrecy are written, so a form built from it needs no edit when an extension is added, and it says what
the draft's validation says (the problems shown are the session's own, placed on the row they name). Why here and
not in the TUI: which rows an extension has, what a value reads as, and which ``set``/``insert``/``delete`` an edit
makes are facts about the draft, the same whatever draws them; the form screen only renders :func:`build_form` and
applies the edits. No Textual; pydantic only in :func:`check_value` (imported on first use).

Secrets are never values here: a secret row shows its ``${VAR}`` reference and whether that variable is set in the
environment, or that the draft holds a literal (hidden), never the literal nor the variable's value.
"""

from __future__ import annotations

import math
import os
import re
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
    sample_value,
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


# -- typed text -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Parsed:
    """Typed text as a value, or why it is not one (``error``: then nothing is written)."""

    value: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


_REFERENCE_HINT = re.compile(r"^\$\{?[A-Za-z_]")


def edit_text(row: Row) -> str:
    """What an edit line starts with for ``row``: the draft's value as text (a secret: its reference, or the
    suggested one; never a literal). Control characters in the value come escaped (``\\x1b``), as everywhere on
    screen: what is typed then replaces the value, escapes and all."""
    if row.kind == SECRET:
        assert row.secret is not None
        return f"${{{row.secret.variable}}}" if row.secret.variable else row.secret.suggested
    if row.kind == STRINGS:
        return ", ".join(shown(str(v)) for v in row.value) if isinstance(row.value, list) else ""
    if not row.written or row.value is None:
        default = row.setting.default if row.setting is not None and row.kind in (NUMBER, INTEGER) else None
        return "" if default is None else str(default)
    return shown(str(row.value)) if not isinstance(row.value, bool) else ("true" if row.value else "false")


def parse(row: Row, text: str) -> Parsed:
    """The value ``text`` stands for in ``row``, with a clear message when it stands for none."""
    setting = row.setting
    unit = f" of {setting.unit}" if setting is not None and setting.unit else ""
    if row.kind in (NUMBER, INTEGER):
        stripped = text.strip()
        try:
            value: int | float = int(stripped)
        except ValueError:
            if row.kind == INTEGER:
                return Parsed(error=f"must be a whole number{unit}, such as {_example(setting, 1)}")
            try:
                value = float(stripped)
            except ValueError:
                return Parsed(error=f"must be a number{unit}, such as {_example(setting, 60)}")
            if not math.isfinite(value):
                return Parsed(error=f"must be a finite number{unit}")
        return _checked(setting, value)
    if row.kind == SELECT:
        return parse_choice(row, text)
    if row.kind == SECRET:
        stripped = text.strip()
        if is_reference(stripped):
            return Parsed(stripped)
        suggestion = row.secret.suggested if row.secret is not None else "${ENV_VAR}"
        if _REFERENCE_HINT.match(stripped):
            return Parsed(error=f"write the reference as ${{NAME}} (letters, digits, _), such as {suggestion}")
        return Parsed(error=f"a secret is written as an ${{ENV_VAR}} reference, such as {suggestion}; set that "
                            "variable where you push (the value never goes into the draft)")
    if row.kind == STRINGS:
        if isinstance(row.value, list) and any("," in str(v) for v in row.value):
            return Parsed(error="an item holds a comma: edit the items one by one (a adds, d removes)")
        return _checked(setting, [part.strip() for part in text.split(",") if part.strip()])
    if row.kind == ITEM:
        if not text.strip():
            return Parsed(error="must not be empty (d removes the item)")
        return Parsed(text.strip())
    if row.kind == TEXT and setting is not None and setting.regex:
        return _checked(setting, text)  # a pattern's spaces are part of it
    return _checked(setting, text.strip())


def _checked(setting: Setting | None, value: Any) -> Parsed:
    """``value``, or the error :meth:`Setting.check` gives for it (the message the models give too)."""
    problem = setting.check(value) if setting is not None else None
    return Parsed(value) if problem is None else Parsed(error=problem)


def parse_choice(row: Row, text: str) -> Parsed:
    """A choice by its value (``2``) or its label (``FCM``, any case)."""
    stripped = text.strip()
    for value, label in row.choices:
        if stripped == str(value) or stripped.casefold() == label.casefold():
            return Parsed(value)
    listed = ", ".join(f"{v} ({label})" for v, label in row.choices)
    return Parsed(error=f"must be one of {listed}")


def _example(setting: Setting | None, fallback: int) -> str:
    default = setting.default if setting is not None else None
    return str(default) if isinstance(default, int | float) and not isinstance(default, bool) else str(fallback)


def parse_entry(text: str, existing: Mapping[str, Any] | None) -> Parsed:
    """A new mapping entry typed as ``key=value`` (split at the first ``=``): ``(key, value)``."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        return Parsed(error="type it as key=value, such as !ty=Thank you")
    if existing is not None and key in existing:
        return Parsed(error=f"{shown(key)} is already there: Enter on it edits what it stands for")
    return Parsed((key, value))


def check_value(data: Any, app_index: int, ext_id: str, path: KeyPath, value: Any) -> list[str]:
    """What the draft's own model says of ``path`` set to ``value`` (errors at that field or below it), before it
    is written: the edit line shows it as you type. Secrets' messages never quote a value."""
    from pydantic import ValidationError

    from tenantdeck.draft.pydantic_problems import convert
    from tenantdeck.models.extension_settings import draft_model

    candidate = _with(settings_of(data, app_index, ext_id) or new_settings(ext_id, ""), path, value)
    model = draft_model(ext_id)
    try:
        model.model_validate(candidate)
    except ValidationError as exc:
        return [p.message for p in convert(exc, root=model, data=candidate) if tuple(p.path[:len(path)]) == path]
    return []


def _with(block: Any, path: KeyPath, value: Any) -> Any:
    """A deep copy of ``block`` with ``path`` set to ``value`` (missing mappings made on the way)."""
    import copy

    out = copy.deepcopy(block)
    node = out
    for part in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(part, {})
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return out
    if isinstance(node, dict) or (isinstance(node, list) and isinstance(path[-1], int) and 0 <= path[-1] < len(node)):
        node[path[-1]] = value
    return out


# -- edits ----------------------------------------------------------------------------------------------------------

Edit = tuple[str, KeyPath, Any]  #: (verb, path in the draft, value) for ``Editor.apply``: one undo step


def new_settings(ext_id: str, app_name: str) -> dict[str, Any]:
    """Settings for an extension the draft has none of: every field the API requires and every field with a
    default, at the catalog's value (a required field without one empty, so validation names it at once); a
    secret as the ``${VAR}`` reference pull would derive, and a group's required fields the same way."""
    spec = BY_ID[ext_id]
    out = _new_object(spec.settings, app_name)
    for name in required_now(spec, out):
        setting = spec.setting(name)
        if setting is not None and name not in out:
            out[name] = _new_value(setting, app_name)
    return out


def _new_value(setting: Setting, app_name: str) -> Any:
    if setting.secret:
        return f"${{{derived_secret_name(app_name or 'app', setting.secret)}}}"
    if setting.type == "object":
        return _new_object(setting.fields, app_name)
    return sample_value(setting)


def _new_object(fields: Sequence[Setting], app_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for setting in fields:
        if setting.required or (not setting.secret and setting.type != "object"
                                and setting.default not in (None, ())):
            out[setting.key] = _new_value(setting, app_name)
    return out


def start_edits(data: Any, app_index: int, ext_id: str) -> list[Edit]:
    """Manage ``ext_id``'s settings in the draft, starting from the catalog's defaults (empty when it already
    has settings)."""
    app = _app(data, app_index)
    if settings_of(data, app_index, ext_id) is not None:
        return []
    block = new_settings(ext_id, str(app.get("name") or ""))
    if not isinstance(app.get("extension_settings"), dict):
        return [("set", ("apps", app_index, "extension_settings"), {ext_id: block})]
    return [("set", prefix_of(app_index, ext_id), block)]


def stop_edits(data: Any, app_index: int, ext_id: str) -> list[Edit]:
    """Stop managing ``ext_id``'s settings: its block removed (the whole ``extension_settings`` when it was the
    only one), so a push leaves the service's settings as they are."""
    app = _app(data, app_index)
    block = _block(app)
    if ext_id not in block:
        return []
    if set(block) == {ext_id}:
        return [("delete", ("apps", app_index, "extension_settings"), None)]
    return [("delete", prefix_of(app_index, ext_id), None)]


def set_edits(data: Any, app_index: int, ext_id: str, path: KeyPath, value: Any) -> list[Edit]:
    """Write ``value`` at ``path`` of the extension's settings. An extension without settings gets them first
    (the catalog's defaults, then this field: one undo step); a missing group is made on the way."""
    prefix = prefix_of(app_index, ext_id)
    current = settings_of(data, app_index, ext_id)
    if current is None:
        app = _app(data, app_index)
        block = _with(new_settings(ext_id, str(app.get("name") or "")), path, value)
        if not isinstance(app.get("extension_settings"), dict):
            return [("set", ("apps", app_index, "extension_settings"), {ext_id: block})]
        return [("set", prefix, block)]
    # the deepest part of the path that exists: set the rest there as a new value (a group made on the way)
    node: Any = current
    for depth, part in enumerate(path[:-1]):
        nxt = _get(node, (part,))
        if not isinstance(nxt, dict | list):
            return [("set", (*prefix, *path[:depth + 1]), _with({}, path[depth + 1:], value))]
        node = nxt
    return [("set", (*prefix, *path), value)]


def toggle_edits(data: Any, app_index: int, ext_id: str, row: Row) -> list[Edit]:
    """Space on a toggle: the opposite of what it shows (of its default when the draft does not write it). On an
    object of a table with an ``On`` switch (a mask, a sticker), that switch."""
    if row.kind == ROW and row.setting is not None:
        flag = next((f for f in row.setting.fields if f.type == "bool"), None)
        if flag is None or not isinstance(row.value, dict):
            return []
        current = row.value.get(flag.key, flag.default)
        return set_edits(data, app_index, ext_id, (*row.path, flag.key), not bool(current))
    if row.kind != TOGGLE:
        return []
    current = row.value if row.written else (row.setting.default if row.setting is not None else False)
    return set_edits(data, app_index, ext_id, row.path, not bool(current))


def new_item(setting: Setting, block: Mapping[str, Any] | None) -> dict[str, Any]:
    """A new object for a table of the settings ``block``: each field's default (required ones empty), and an
    ``id`` one above the highest number any object of the block uses (a custom mask's id must not be a default
    mask's: they share the service's id space, and "of your choice" makes a fresh number a fine start)."""
    item = _new_object(setting.fields, "")
    if any(f.key == "id" for f in setting.fields):
        numbers = [int(obj["id"]) for value in (block or {}).values() if isinstance(value, list)
                   for obj in value if isinstance(obj, dict) and str(obj.get("id", "")).isdigit()]
        item["id"] = str(max(numbers, default=0) + 1)
    return item


def add_edits(data: Any, app_index: int, ext_id: str, container: KeyPath, item: Any) -> list[Edit]:
    """Append ``item`` to the list at ``container`` (for a mapping, ``item`` is ``(key, value)``)."""
    current = _get(settings_of(data, app_index, ext_id) or {}, container)
    setting = setting_at(ext_id, container)
    if setting is not None and setting.type == "mapping":
        key, value = item
        if isinstance(current, dict):
            return set_edits(data, app_index, ext_id, (*container, key), value)
        return set_edits(data, app_index, ext_id, container, {key: value})
    if isinstance(current, list):
        return [("insert", (*prefix_of(app_index, ext_id), *container, len(current)), item)]
    return set_edits(data, app_index, ext_id, container, [item])


def remove_edits(data: Any, app_index: int, ext_id: str, row: Row) -> tuple[list[Edit], str]:
    """``d`` on a row: an item or entry removed, an optional field unset (its default applies, or the service's
    value stays); ``([], why)`` when there is nothing to remove or the field is required."""
    prefix = prefix_of(app_index, ext_id)
    if row.kind in (ITEM, ENTRY, ROW, EXTRA):
        return [("delete", (*prefix, *row.path), None)], ""
    if not row.written:
        return [], f"{row.label} is not set in the draft."
    if row.required:
        return [], f"{row.label} is required: change it instead (Ctrl+R removes all of this extension's settings)."
    return [("delete", (*prefix, *row.path), None)], ""


def row_index(form: Form, path: KeyPath) -> int | None:
    """Where the row of ``path`` is (or the nearest row above it in the path), for keeping the cursor."""
    for cut in range(len(path), 0, -1):
        for i, row in enumerate(form.rows):
            if row.path == path[:cut]:
                return i
    return None

