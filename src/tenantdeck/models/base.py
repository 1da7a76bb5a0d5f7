"""Shared pydantic configuration and small constrained types.

Strict on purpose: a YAML ``3`` is not the string ``"3"`` and ``no`` is not the string ``"no"``. Silent coercion
would push something the admin did not write. Unknown keys are refused so a typo in one of the 46 toggles cannot be
ignored.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints
from pydantic_core import PydanticCustomError


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
NonEmptyStr = Annotated[str, AfterValidator(_not_blank)]


#: Display names: required, single line, non-blank, bounded (facts: app 100, widget 100, webhook 50).
AppName = Annotated[str, StringConstraints(max_length=100), AfterValidator(_not_blank), AfterValidator(_single_line)]
WidgetName = AppName
WebhookName = Annotated[str, StringConstraints(max_length=50), AfterValidator(_not_blank), AfterValidator(_single_line)]
#: A display name as the service may hold it: non-blank, single line, but no length bound. The bounds above are the
#: documented rules for what we *send*; a value the service already holds is kept and only warned about (rules.py).
HeldName = Annotated[str, AfterValidator(_not_blank), AfterValidator(_single_line)]
