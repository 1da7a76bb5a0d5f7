"""Pydantic ``ValidationError`` -> Problems in the draft's own words.

Pydantic says "Input should be a valid dictionary" and ``dict_type``; a person editing YAML thinks in mappings, keys,
lists, text and true/false. Each error type gets a message in those words; unknown keys and enum values get a
"did you mean" against what the model really accepts at that place; a value that YAML 1.1 read as something other
than text (``no``, ``3``, ``1.10``, ``0777``) is explained with the text the user actually wrote.

Problems come out with a key path and a hint in ``extra["at"]`` of what to point at (``"key"``, ``"value"`` or
``"parent"``); :mod:`tenantdeck.draft.load` turns that into line and column.
"""

from __future__ import annotations

import datetime as _dt
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from tenantdeck.draft.yamlsource import STR_TAG, construct_scalar, quote, scalar_reading
from tenantdeck.models import catalog
from tenantdeck.problems import PathPart, Problem, Severity, did_you_mean

#: Returns the raw text and style of the scalar written at a path, if it is one (``style`` "" = plain).
ScalarLookup = Callable[[Sequence[PathPart]], "tuple[str, str, str] | None"]

_MAX_LISTED = 8
#: an unknown key's message lists the keys allowed beside it up to this many (an app's thirteen keys fit)
_MAX_KEYS_LISTED = 14
#: where a list too long for a message (46 trigger ids) is found in full
_FULL_LIST = "`tenantdeck schema` lists them all"


# --------------------------------------------------------------------------------------------------------------
# What the model expects at a path
# --------------------------------------------------------------------------------------------------------------


def _strip(tp: Any) -> Any:
    """``Annotated[X, ...]`` -> ``X``."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _arms(tp: Any) -> list[Any]:
    """The members of a union (``X | None`` -> ``[X]``), or ``[tp]``."""
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        out: list[Any] = []
        for arg in typing.get_args(tp):
            if arg is not type(None):
                out.extend(_arms(arg))
        return out
    return [tp]


def _field(model: type[BaseModel], key: str) -> Any | None:
    for name, info in model.model_fields.items():
        if key in (info.alias, name):
            return info
    return None


def type_at(root: Any, path: Sequence[PathPart]) -> Any | None:
    """The annotation the model expects at ``path`` (lists, dicts, optionals and models are followed)."""
    current: Any = root
    for part in path:
        nxt: Any = None
        for arm in _arms(current):
            origin = typing.get_origin(arm)
            if isinstance(arm, type) and issubclass(arm, BaseModel) and isinstance(part, str):
                info = _field(arm, part)
                if info is not None:
                    nxt = _annotated(info)
            elif origin in (list, tuple, set, frozenset) and isinstance(part, int):
                args = typing.get_args(arm)
                nxt = args[0] if args else Any
            elif origin is dict and isinstance(part, str):
                args = typing.get_args(arm)
                nxt = args[1] if len(args) == 2 else Any
            if nxt is not None:
                break
        if nxt is None:
            return None
        current = nxt
    return current


def _annotated(info: Any) -> Any:
    """A field's annotation with its metadata put back (so secret validators stay visible)."""
    if info.metadata:
        return typing.Annotated[(info.annotation, *info.metadata)]
    return info.annotation


def field_names(root: Any, path: Sequence[PathPart]) -> list[str]:
    """The keys the model accepts in the mapping at ``path`` (aliases where the model uses them)."""
    names: list[str] = []
    tp = type_at(root, path)
    for arm in _arms(tp) if tp is not None else []:
        if isinstance(arm, type) and issubclass(arm, BaseModel):
            for name, info in arm.model_fields.items():
                names.append(info.alias or name)
    return list(dict.fromkeys(names))


def literal_choices(root: Any, path: Sequence[PathPart]) -> list[Any]:
    """The allowed values of a ``Literal`` (or Enum, or :class:`~tenantdeck.models.base.Held` choices) at
    ``path``, in declaration order."""
    tp = type_at(root, path)
    choices: list[Any] = list(_held_choices(tp))
    for arm in _arms(tp) if tp is not None else []:
        if typing.get_origin(arm) is typing.Literal:
            choices.extend(typing.get_args(arm))
        elif isinstance(arm, type) and issubclass(arm, _enum_base()):
            choices.extend(m.value for m in arm)
    return choices


def _held_choices(tp: Any) -> tuple[Any, ...]:
    """The documented values of a ``Held`` text field (a listing), looked for through optionals."""
    from tenantdeck.models.base import Held

    if typing.get_origin(tp) is typing.Annotated:
        for meta in typing.get_args(tp)[1:]:
            if isinstance(meta, Held) and meta.choices:
                return meta.choices
        return _held_choices(typing.get_args(tp)[0])
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            if found := _held_choices(arg):
                return found
    return ()


def _enum_base() -> type:
    import enum

    return enum.Enum


def is_secret(root: Any, path: Sequence[PathPart]) -> bool:
    """True for fields holding secrets (marked ``SECRET`` on the model): their values are never quoted.

    A place the model does not know (data of the wrong shape: a mapping where a list belongs) is judged by its key:
    the name of a marked field anywhere in an app (``models.app.app_secret_fields``)."""
    tp = type_at(root, path)
    if tp is not None:
        return _marked_secret(tp)
    from tenantdeck.models.app import app_secret_fields

    return bool(path) and path[-1] in {f.name for f in app_secret_fields()}


def _marked_secret(tp: Any) -> bool:
    from tenantdeck.models.secrets import Secret

    if typing.get_origin(tp) is typing.Annotated:
        args = typing.get_args(tp)
        return any(isinstance(meta, Secret) for meta in args[1:]) or _marked_secret(args[0])
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(_marked_secret(arg) for arg in typing.get_args(tp))
    return False


def _shown_choices(choices: Sequence[object]) -> str:
    """The accepted values written out when there are few; a pointer to the full list when there are many."""
    if len(choices) > _MAX_LISTED:
        return f"the {len(choices)} accepted values ({_FULL_LIST})"
    return ", ".join(_show_choice(c) for c in choices)


# --------------------------------------------------------------------------------------------------------------
# Values in the draft's words
# --------------------------------------------------------------------------------------------------------------


def describe(value: object) -> str:
    """A value as a YAML writer would name it: "the text 'x'", "a mapping", "the boolean false"."""
    if value is None:
        return "an empty value (null)"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "empty text ('')" if value == "" else f"the text {quote(_short(value))}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, _dt.date):
        return f"the date {value.isoformat()}"
    return "a value of another kind"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(value: object) -> str:
    """Short kind name: "a mapping", "a list", "text", "true/false", "a number", "null"."""
    if value is None:
        return "an empty value (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return "another kind of value"


_EXPECTED: dict[str, str] = {
    "string_type": "text",
    "str_type": "text",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "dict_type": "a mapping (`key: value` lines)",
    "model_type": "a mapping (`key: value` lines)",
    "model_attributes_type": "a mapping (`key: value` lines)",
    "dataclass_type": "a mapping (`key: value` lines)",
    "list_type": "a list (lines starting with `- `)",
    "tuple_type": "a list (lines starting with `- `)",
    "set_type": "a list (lines starting with `- `)",
    "none_required": "no value",
}
#: error types meaning "a string was expected here": a YAML 1.1 non-string is then explained with its raw text
_TEXT_WANTED = frozenset({"string_type", "str_type"})


# --------------------------------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------------------------------


#: the data under a path is not known (no data given, or the path left it): a trailing part may be a missing key
_UNKNOWN = object()


def _clean_loc(
    loc: Sequence[PathPart], data: Any, is_key: Callable[[tuple[PathPart, ...]], bool] = lambda _: True
) -> tuple[tuple[PathPart, ...], bool, bool]:
    """Drop the parts of a pydantic ``loc`` that are not keys of the data (union branches, validator names).

    Returns the cleaned path, whether the error is about a dict *key* (pydantic's ``[key]`` marker) and whether a
    union member's tag was dropped at its end (``updateOnReplies.bool``: one arm of ``bool | list[str]`` refused a
    scalar; :func:`convert` then merges the arms' errors into one). A text part after a scalar cannot be a key of
    the draft, not even the last one; after a mapping it is a missing key only where the model has one
    (``is_key`` of the path tells).
    """
    out: list[PathPart] = []
    current: Any = _UNKNOWN if data is None else data
    about_key = False
    tagged = False
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if part == "[key]":
            about_key = True
            continue
        if (isinstance(current, dict) and part in current) or (
            isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)
        ):
            out.append(part)
            current = current[part]
        elif last and isinstance(part, str) and current is not _UNKNOWN and (
            not isinstance(current, dict | list) or (isinstance(current, dict) and not is_key((*out, part)))
        ):
            tagged = True  # the member tag of a union after the scalar it refused
        elif last or (i + 1 < len(loc) and loc[i + 1] == "[key]"):
            out.append(part)
            current = _UNKNOWN
        # else: a union-branch tag such as 'function-after[...]' or 'str': not part of the draft
    return tuple(out), about_key, tagged


def convert(
    exc: ValidationError,
    prefix: Sequence[PathPart] = (),
    *,
    root: Any,
    data: Any = None,
    scalar: ScalarLookup | None = None,
) -> list[Problem]:
    """Every error of ``exc`` as a Problem with a key path, a message in YAML words, and ``extra["at"]``.

    ``root`` is the model (or type) the full path is relative to, ``prefix`` is where ``exc``'s model sits inside
    it (``()`` for the whole draft), ``data`` the plain data that was validated (to tell real keys from pydantic's
    union labels) and ``scalar`` tells what text the user wrote at a path.
    """
    problems: list[Problem] = []
    sub = data
    for part in prefix:
        try:
            sub = sub[part]
        except (KeyError, IndexError, TypeError):
            sub = None
            break
    arms: dict[tuple[PathPart, ...], list[Any]] = {}  # path -> the errors of a union's members refusing its value
    for err in exc.errors(include_url=False):
        loc, about_key, tagged = _clean_loc(err["loc"], sub, lambda at: _model_key(root, (*prefix, *at)))
        path = (*prefix, *loc)
        if tagged and not about_key:
            if path not in arms:
                arms[path] = []
                problems.append(Problem(Severity.ERROR, "", path))  # placeholder: keeps the errors' order
            arms[path].append(err)
            continue
        problems.append(_one(err, path, about_key, root, scalar))
    # a member that got as far as the value's inside (a mapping for a model) was the one meant: its errors say it
    deeper = {path for path in arms for p in problems if p.message and p.path[: len(path)] == path != p.path}
    return [
        (_union(arms[p.path], p.path, root, scalar) if not p.message else p)
        for p in problems
        if not (p.path in deeper and not p.message)
    ]


def _model_key(root: Any, path: tuple[PathPart, ...]) -> bool:
    """Whether the last part of ``path`` may be a key there: the model has it, or the place is not one it knows."""
    return type_at(root, path) is not None or type_at(root, path[:-1]) is None


def _union(errs: list[Any], path: tuple[PathPart, ...], root: Any, scalar: ScalarLookup | None) -> Problem:
    """One problem for a value that every member of a union refused: "expected true or false, or a list of text,
    got the number 1" at the key's own path, rather than one error per member under pydantic's member tags."""
    if len(errs) == 1:
        return _one(errs[0], path, False, root, scalar)
    expected: list[str] = []
    for err in errs:
        phrase = _expected_phrase(err, path, root)
        if phrase is None:  # a member that refused for another reason (a pattern, a length): its own words
            return _one(err, path, False, root, scalar)
        if phrase not in expected:
            expected.append(phrase)
    value = errs[0].get("input")
    got = "a value" if is_secret(root, path) else describe(value)
    return Problem(Severity.ERROR, f"expected {', or '.join(expected)}, got {got}", path, code="union_type",
                   extra={"at": "value"})


def _expected_phrase(err: Any, path: tuple[PathPart, ...], root: Any) -> str | None:
    """What one member of a union accepts, in the draft's words, or None when its error is not about the kind."""
    kind = err["type"]
    if kind == "literal_error":
        return "one of " + _shown_choices(_parse_expected((err.get("ctx") or {}).get("expected", "")))
    if kind in _LIST_TYPES:
        item = _list_item(root, path)
        if item:
            return f"a list of {item} (lines starting with `- `)"
    return _EXPECTED.get(kind)


_LIST_TYPES = frozenset({"list_type", "tuple_type", "set_type"})
_ITEM_WORDS = {str: "text", bool: "true/false", int: "whole numbers", float: "numbers"}


def _list_item(root: Any, path: tuple[PathPart, ...]) -> str:
    """ "text" for a ``list[str]`` member of the union at ``path`` ("" when not one list of a plain kind)."""
    tp = type_at(root, path)
    lists = [a for a in _arms(tp) if typing.get_origin(a) in (list, tuple, set, frozenset)] if tp is not None else []
    if len(lists) != 1:
        return ""
    args = typing.get_args(lists[0])
    return _ITEM_WORDS.get(_strip(args[0]), "") if args else ""


def _one(err: Any, path: tuple[PathPart, ...], about_key: bool, root: Any, scalar: ScalarLookup | None) -> Problem:
    kind: str = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    secret = is_secret(root, path)
    name = path[-1] if path else ""

    def made(message: str, at: str = "value", code: str = kind) -> Problem:
        return Problem(Severity.ERROR, message, path, code=code, extra={"at": at})

    if about_key:
        return made(f"the key `{name}` is not allowed here: {_plain(err['msg'])}", "key")
    if kind == "missing":
        return made(f"missing required key `{name}`", "parent")
    if kind == "extra_forbidden":
        if name in catalog.NOT_MANAGED:
            return made(f"unknown key `{name}`: {catalog.NOT_MANAGED[name]}", "key", code="not_managed")
        allowed = field_names(root, path[:-1])
        hint = did_you_mean(name, allowed)
        if not hint and 0 < len(allowed) <= _MAX_KEYS_LISTED:
            hint = "; expected one of: " + ", ".join(allowed)
        return made(f"unknown key `{name}`{hint}", "key")

    raw = scalar(path) if scalar is not None else None
    reading = _yaml_reading(raw, value)
    if secret and (reading or kind in _TEXT_WANTED):
        # never echo what was written in a secret's place, not even as "`12345` is read as a number"
        return made("a secret must be text: write an ${ENV_VAR} reference here (quoted if need be)", code="secret_type")

    if kind == "literal_error":
        choices = literal_choices(root, path) or _parse_expected(ctx.get("expected", ""))
        shown = _shown_choices(choices)
        if reading and raw is not None and raw[0] in [str(c) for c in choices]:
            return made(f"{reading}; quote it: {quote(raw[0])}", code="yaml-implicit-type")
        if secret:
            return made(f"must be one of {shown}")
        written = raw[0] if raw is not None else value
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        if reading and numeric and all(isinstance(c, str) for c in choices):
            # `version: 3.0`: YAML made a number where text was expected; say so rather than "not one of 3"
            if len(choices) > _MAX_LISTED:
                return made(f"{reading}; expected one of {shown}", code="yaml-implicit-type")
            texts = " or ".join(quote(str(c)) for c in choices)
            return made(f"{reading}; expected the text {texts}", code="yaml-implicit-type")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            hint = did_you_mean(written, choices)
            if len(choices) > _MAX_LISTED:  # the hint, then where the list is: 46 trigger ids help nobody inline
                return made(f"`{_short(str(written))}` is not one of the {len(choices)} accepted values{hint}"
                            f" ({_FULL_LIST})")
            return made(f"`{_short(str(written))}` is not one of {shown}{hint}")
        if reading:
            return made(f"{reading}; expected one of {shown}", code="yaml-implicit-type")
        return made(f"expected one of {shown}, got {describe(value)}")
    if kind in _TEXT_WANTED and reading and raw is not None:
        choices = literal_choices(root, path)
        if choices and raw[0] not in choices:  # `user_listing: off`: quoting would not help
            return made(f"{reading}; expected one of {_shown_choices(choices)}", code="yaml-implicit-type")
        return made(f"{reading}; quote it: {quote(raw[0])}", code="yaml-implicit-type")
    if kind in _TEXT_WANTED and value is None:
        return made("this key has no value; write the text, or remove the key if it is optional")
    if kind in _EXPECTED:
        expected = _EXPECTED[kind]
        got = "a value" if secret and isinstance(value, str) else describe(value)
        quoted = raw is not None and bool(raw[1])
        quoted_bool = isinstance(value, str) and value.strip().lower() in ("true", "false")
        if kind in ("bool_type", "bool_parsing") and quoted and quoted_bool:
            return made(f"expected true or false, got the quoted text {quote(value)}; remove the quotes")
        hint = ""
        if not secret and isinstance(value, str) and "#" in value and " #" not in value:
            hint = " (a `#` starts a comment only after a space)"
        return made(f"expected {expected}, got {got}{hint}")
    if kind in ("string_too_long", "too_long"):
        limit = ctx.get("max_length")
        unit = "characters" if kind == "string_too_long" else "items"
        return made(f"too long: at most {limit} {unit}" + ("" if secret else f" (this one has {_length(value)})"))
    if kind in ("string_too_short", "too_short"):
        limit = ctx.get("min_length")
        if kind == "string_too_short" and limit == 1:
            return made("must not be empty")
        unit = "characters" if kind == "string_too_short" else "items"
        return made(f"too short: at least {limit} {unit}")
    if kind == "string_pattern_mismatch":
        shown = "this value" if secret else quote(_short(str(value)))
        return made(f"{shown} has characters that are not allowed here (expected the pattern {ctx.get('pattern')})")
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }[kind]
        bound = next(iter(ctx.values()), "?")
        return made(f"must be {words} {bound}" + ("" if secret else f", not {value!r}"))
    if kind in ("value_error", "assertion_error"):
        return made(_plain(err["msg"]))
    # custom errors of the models (colour, url, secret_reference, ...) are already written in the draft's words
    return made(_plain(err["msg"]))


def _plain(msg: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def _length(value: object) -> int | str:
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return "?"


def _show_choice(choice: object) -> str:
    if isinstance(choice, bool):
        return "true" if choice else "false"
    return str(choice)


def _parse_expected(expected: str) -> list[str]:
    """Pydantic's ``"'us', 'eu' or 'in'"`` -> ``['us', 'eu', 'in']`` (fallback when the model walk fails)."""
    text = expected.replace(" or ", ", ")
    return [part.strip().strip("'\"") for part in text.split(",") if part.strip()]


def _yaml_reading(raw: tuple[str, str, str] | None, value: object) -> str:
    """ "`no` is read as the boolean false in YAML" when a plain scalar was not read as text, else ""."""
    if raw is None:
        return ""
    text, style, tag = raw
    if style or tag == STR_TAG:
        return ""
    try:
        parsed = construct_scalar(tag, text)
    except ValueError:
        return ""
    if isinstance(value, str) and value == text:
        return ""
    return scalar_reading(text, parsed)
