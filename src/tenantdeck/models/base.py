"""Shared pydantic configuration and small constrained types.

Strict on purpose: a YAML ``3`` is not the string ``"3"`` and ``no`` is not the string ``"no"``. Silent coercion
would push something the admin did not write. Unknown keys are refused so a typo in one of the 46 toggles cannot be
ignored.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints
from pydantic_core import PydanticCustomError

from tenantdeck.models import catalog

if TYPE_CHECKING:
    from pydantic import GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema


class StrictModel(BaseModel):
    """Base of every draft and API model."""

    model_config = ConfigDict(strict=True, extra="forbid", validate_default=False, frozen=False)


_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def _colour(value: str) -> str:
    if not _COLOUR.fullmatch(value):
        if value.strip() != value and _COLOUR.fullmatch(value.strip()):
            raise PydanticCustomError(
                "colour_whitespace",
                "colour {value} has spaces around it; write it as {clean}",
                {"value": repr(value), "clean": repr(value.strip())},
            )
        raise PydanticCustomError(
            "colour", "must be a colour written #RGB or #RRGGBB, not {value}", {"value": repr(value)}
        )
    return value


def _single_line(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise PydanticCustomError("single_line", "must be a single line (no newline)", {})
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be empty", {})
    return value


Colour = Annotated[str, AfterValidator(_colour)]


def same_colour(value: Any) -> Any:
    """A colour as it is compared (``#03A9F4``, ``#03a9f4`` and ``#3af`` spelled ``#3AF`` are one colour each): hex
    digits in lower case, ``#RGB`` written out as ``#RRGGBB``. The service stores what it is sent and writes its
    defaults in lower case, so a rule comparing spellings would break on a colour nobody changed. Anything that is
    not a colour comes back as it is."""
    if not isinstance(value, str) or not _COLOUR.fullmatch(value):
        return value
    digits = value[1:].lower()
    return "#" + ("".join(c * 2 for c in digits) if len(digits) == 3 else digits)


def is_colour(annotation: Any) -> bool:
    """Whether a model's ``annotation`` (as :func:`typing.get_type_hints` or pydantic give it, optional or not)
    is :data:`Colour`."""
    if any(getattr(meta, "func", None) is _colour for meta in getattr(annotation, "__metadata__", ())):
        return True
    return any(is_colour(arm) for arm in typing.get_args(annotation) if arm is not type(None))
NonEmptyStr = Annotated[str, AfterValidator(_not_blank)]


class Held:
    """The mark of a field whose documented rule binds what a draft *sends*, not what the service may hold.

    ``name: Annotated[str, Held(max_length=100)]``, ``user_listing: Annotated[str, Held(choices=(...))]``. The
    model accepts any such value, because a value the service returned must survive pull, diff and push of the
    resource that holds it (dropping it would plan its deletion, or a widget's loss from the draft). The rule is
    read off this mark wherever it applies: :mod:`tenantdeck.rules` reports a value outside it (a warning on an
    existing resource, an error where the draft creates it), the plan refuses to create or set one, the sandbox
    refuses one being sent. The JSON Schema keeps the rule (``enum``, ``maxLength``), so editors offer the
    documented values.
    """

    __slots__ = ("choices", "max_length")

    def __init__(self, *, choices: Sequence[str] = (), max_length: int | None = None) -> None:
        self.choices = tuple(choices)
        self.max_length = max_length

    def __repr__(self) -> str:
        return f"Held(choices={self.choices!r}, max_length={self.max_length!r})"

    def breaks(self, value: object) -> bool:
        """True when ``value`` is outside the documented rule."""
        if self.choices and value not in self.choices:
            return True
        return self.max_length is not None and isinstance(value, str) and len(value) > self.max_length

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema: dict[str, Any] = dict(handler(core_schema))
        if self.choices:
            schema["enum"] = list(self.choices)
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        return schema


def held_marks(model: type[BaseModel]) -> dict[str, Held]:
    """The fields of ``model`` marked :class:`Held`, with their marks (cached per model class)."""
    found = _HELD_MARKS.get(model)
    if found is None:
        found = _HELD_MARKS[model] = {}
        for name, info in model.model_fields.items():
            # the mark is the field's own metadata, or inside an optional (``Annotated[str, Held(...)] | None``)
            metadata = [*info.metadata, *(m for arm in typing.get_args(info.annotation) for m in _metadata(arm))]
            for meta in metadata:
                if isinstance(meta, Held):
                    found[name] = meta
    return found


def _metadata(tp: Any) -> tuple[Any, ...]:
    return typing.get_args(tp)[1:] if typing.get_origin(tp) is Annotated else ()


_HELD_MARKS: dict[type[BaseModel], dict[str, Held]] = {}

#: Display names: required, single line, non-blank, bounded (facts: app 100, widget 100, webhook 50).
AppName = Annotated[
    str, StringConstraints(max_length=catalog.APP_NAME_MAX), AfterValidator(_not_blank), AfterValidator(_single_line)
]
WebhookName = Annotated[str, StringConstraints(max_length=50), AfterValidator(_not_blank), AfterValidator(_single_line)]
#: A display name as the service may hold it: non-blank, single line, but no length bound. The bounds above are the
#: documented rules for what we *send*; a value the service already holds is kept and only warned about (rules.py).
HeldName = Annotated[str, AfterValidator(_not_blank), AfterValidator(_single_line)]
#: An app's or widget's name as the service may hold it: the documented bound (100) is a :class:`Held` rule.
HeldAppName = Annotated[
    str, AfterValidator(_not_blank), AfterValidator(_single_line), Held(max_length=catalog.APP_NAME_MAX)
]
WidgetName = Annotated[
    str, AfterValidator(_not_blank), AfterValidator(_single_line), Held(max_length=catalog.WIDGET_NAME_MAX)
]


def field_labels(model: type[BaseModel]) -> dict[str, str]:
    """Each field's human label, its ``title``: the one home of what plans, reviews and forms call a setting
    (``fromMobileNo`` is "Sender number" everywhere), and what the JSON Schema shows an editor."""
    return {name: info.title for name, info in model.model_fields.items() if info.title}
