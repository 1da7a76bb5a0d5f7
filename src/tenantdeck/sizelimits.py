"""What the service cannot hold, found offline: a draft whose push would send a body over the service's size limits.

The limits are the sandbox's own (:data:`~tenantdeck.jsonlimits.EXTENSION_SETTINGS_MAX_BYTES` for one extension's
settings, SMS included; :data:`~tenantdeck.jsonlimits.BODY_MAX_BYTES` for any request body), measured the way the
sandbox measures them (:func:`~tenantdeck.jsonlimits.json_size`), so a draft that validates is not refused for its
size at push, and one that would be is a located error before any network call: at the field that makes it too
large (the 10 MB word, or the list of 100,000 words), not at the whole block. Per-list limits (25 widgets, 25
webhooks, 25 collaborators) are the models' own ``max_length``.

Cheap on a valid draft: each block is measured with pydantic's JSON serializer (Rust), and only a block over half a
limit is dumped again and measured exactly; a widget's body is measured once per preset and set of overrides
(:class:`tenantdeck.rules.WidgetChecker`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

from tenantdeck.jsonlimits import (
    BODY_MAX_BYTES,
    EXTENSION_SETTINGS_MAX_BYTES,
    bytes_text,
    json_size,
    largest_part,
)
from tenantdeck.models.extension_catalog import BY_ID
from tenantdeck.problems import PathPart, Problem, error


def too_large(size: int, limit: int, what: str, part: Any, at_part: bool) -> str:
    """The message: how large the block is, the limit, and what the located part weighs when it is not the block."""
    limit_text = f"the service takes at most {bytes_text(limit)} {what}"
    whole = f"{bytes_text(size)} of JSON"
    if not at_part:
        return f"would send {whole}; {limit_text}"
    count = f" in {len(part):,} items" if isinstance(part, list | dict) else ""
    return f"is {bytes_text(json_size(part))} of JSON{count} (the whole would send {whole}); {limit_text}"


def oversized(data: Any, path: tuple[PathPart, ...], limit: int, what: str, *,
              skip: tuple[PathPart, ...] = ()) -> Problem | None:
    """An error at the part of ``data`` that makes it larger than ``limit`` bytes of JSON, or None. ``skip``: the
    leading keys of ``data`` that the draft does not write (``settings`` of a request body)."""
    size = json_size(data)
    if size <= limit:
        return None
    inner = largest_part(data, limit)
    part = data
    for key in inner:
        part = part[key]
    located = inner[len(skip):] if inner[:len(skip)] == skip else ()
    return error(too_large(size, limit, what, part, bool(located)), (*path, *located), "too_large")


def fast_size(model: BaseModel) -> int:
    """Bytes of ``model`` as compact UTF-8 JSON, by pydantic's serializer (Rust, a few microseconds): the estimate a
    block is measured with first. The same bytes as :func:`~tenantdeck.jsonlimits.json_size` of its dump but for
    what the wire adds (defaults, resolved secrets), which the half-limit margin covers."""
    return len(model.__pydantic_serializer__.to_json(model, exclude_none=True))


def model_oversized(model: BaseModel | None, path: tuple[PathPart, ...], limit: int, what: str) -> Problem | None:
    """:func:`oversized` of a model's dump, measured fast first (a block under half the limit is not dumped)."""
    if model is None or fast_size(model) <= limit // 2:
        return None
    return oversized(model.model_dump(mode="json", exclude_none=True), path, limit, what)


def app_size_problems(app: Any, base: tuple[PathPart, ...]) -> Iterator[Problem]:
    """Every block of ``app`` (an :class:`~tenantdeck.models.App`) but its widgets that would be over a limit."""
    blocks: list[tuple[BaseModel, tuple[PathPart, ...], str]] = []
    block = app.extension_settings
    for attr in block.model_fields_set if block is not None else ():
        model = getattr(block, attr)
        if isinstance(model, BaseModel) and fast_size(model) > EXTENSION_SETTINGS_MAX_BYTES // 2:
            ext_id = type(block).model_fields[attr].alias or attr
            blocks.append((model, ("extension_settings", ext_id), BY_ID[ext_id].name))
    if app.sms is not None and fast_size(app.sms) > EXTENSION_SETTINGS_MAX_BYTES // 2:
        blocks.append((app.sms, ("sms",), "SMS"))
    for model, where, name in blocks:
        found = model_oversized(model, (*base, *where), EXTENSION_SETTINGS_MAX_BYTES,
                                f"of one extension's settings ({name})")
        if found is not None:
            yield found
    found = model_oversized(app.team, (*base, "team"), BODY_MAX_BYTES, "in one request body")
    if found is not None:
        yield found
    if app.settings and len(app.settings) * _MAX_SETTING_ENTRY > BODY_MAX_BYTES:
        sent = {"settings": {k: v for k, v in app.settings.items() if isinstance(v, bool)}}
        found = oversized(sent, (*base, "settings"), BODY_MAX_BYTES, "in one request body", skip=("settings",))
        if found is not None:
            yield found


#: the most one app setting adds to a body: a key of at most 200 characters (4 bytes each, escaped 6), quotes,
#: colon, comma and ``false``
_MAX_SETTING_ENTRY = 200 * 6 + 10


def widget_body_problem(body_size: int, settings: BaseModel, path: tuple[PathPart, ...],
                        written: Callable[[], dict[str, Any]]) -> Problem | None:
    """The error of a widget whose body (``{"settings": ...}``) would be over the body limit, at the field the
    widget writes that makes it so; at the widget itself when the size comes from its preset. ``body_size``: the
    cheap estimate (:meth:`tenantdeck.rules.WidgetChecker.resolve_sized`); the exact size is taken near the limit.
    ``written``: what the widget itself writes (asked only then)."""
    if body_size <= BODY_MAX_BYTES // 2:
        return None
    body = {"settings": settings.model_dump(mode="json", exclude_none=True)}
    found = oversized(body, path, BODY_MAX_BYTES, "in one request body (a widget's settings)", skip=("settings",))
    if found is None:
        return None
    own = found.path[len(path):]
    if own and _written(written(), own):
        return found
    return error(found.message, path, found.code)


def _written(data: Any, keys: tuple[PathPart, ...]) -> bool:
    """Whether ``data`` (what the widget itself writes) holds the value at ``keys``."""
    for key in keys:
        found = key in data if isinstance(data, dict) else (
            isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data))
        if not found:
            return False
        data = data[key]
    return True
