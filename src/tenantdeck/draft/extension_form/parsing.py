"""Typed text in the extension settings form turned into a value, or a clear message why it is none; a setting's
bounds are :meth:`tenantdeck.models.extension_catalog.Setting.check`'s, with its words. :func:`check_value` asks
the draft's own model (pydantic, imported on first use) what it says of a value before it is written."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.draft.extension_form.edits import _with, new_settings
from tenantdeck.draft.extension_form.model import (
    INTEGER,
    ITEM,
    NUMBER,
    SECRET,
    SELECT,
    STRINGS,
    TEXT,
    KeyPath,
    Row,
    settings_of,
)
from tenantdeck.models.extension_catalog import Setting
from tenantdeck.models.secrets import is_reference
from tenantdeck.textsafe import shown

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
    if setting is not None and setting.int_id and isinstance(row.value, int) and text.strip() == str(row.value):
        return Parsed(row.value)  # an id the service holds as a number stays one when it is not changed
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
