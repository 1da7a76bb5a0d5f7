"""The pydantic model of a theme file (``themes/*.yaml``): what a file may say, and the messages when it is wrong.

Kept apart from :mod:`tenantdeck.prefs.themes` so that starting the editor with themes it has already validated
(:mod:`tenantdeck.prefs.themes` keeps a cache) does not import pydantic before the first paint.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, or a CSS-like ``rgb()``/``rgba()``/``hsl()``/``hsla()``
_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(?:rgba?|hsla?)\([0-9.,%\s]+\)")
COLOR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                "surface", "panel", "boost")


class ThemeFile(BaseModel):
    """One theme. ``name`` (how it is chosen), ``dark`` and ``primary`` are required; Textual derives every shade
    and any colour left out from those. ``variables`` sets Textual design variables (``footer-key-foreground``,
    ``block-cursor-background``, ...) directly."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9][a-z0-9-]*$")
    dark: bool
    primary: str
    secondary: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    luminosity_spread: float = Field(0.15, ge=0, le=1)
    text_alpha: float = Field(0.95, ge=0, le=1)
    description: str = ""
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator(*COLOR_FIELDS)
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        if value is not None and not _COLOR.fullmatch(value):
            raise ValueError(f"{value!r} is not a colour: write #rrggbb (or #rgb, rgb(r, g, b), hsl(h, s%, l%))")
        return value

    @field_validator("variables")
    @classmethod
    def _variable_names(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not re.fullmatch(r"[a-z][a-z0-9-]*", key):
                raise ValueError(f"variable name {key!r}: lower-case words joined by '-' (e.g. footer-key-foreground)")
        return value

    def textual_kwargs(self) -> dict[str, object]:
        """The arguments of ``textual.theme.Theme`` (plain data, so it can be cached as JSON)."""
        return self.model_dump(exclude={"description"}, exclude_none=True)
