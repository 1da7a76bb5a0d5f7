"""The root of a draft file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, StringConstraints

from tenantdeck.models.app import App
from tenantdeck.models.base import StrictModel
from tenantdeck.models.widget import WidgetSettings

FORMAT_VERSION = 1

PresetName = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]


class Draft(StrictModel):
    """A local, reviewable description of an account's configuration.

    ``presets`` are named widget settings that any app's widget can ``extends`` with per-app overrides, so one
    edit rolls out to hundreds of tenant apps.
    """

    format: Literal[1] = Field(description="Draft format version (1)")
    presets: dict[PresetName, WidgetSettings] = Field(
        default_factory=dict, description="Named widget settings that widgets can extend"
    )
    apps: list[App] = Field(default_factory=list, description="The tenant apps")
    #: the file the draft was read from: paths written in it (push certificates) are relative to its folder
    _source: Path | None = PrivateAttr(None)

    def __eq__(self, other: object) -> bool:
        """Equal drafts say the same thing, wherever they were read from (``_source`` is not part of it)."""
        if not isinstance(other, Draft):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, like every pydantic model

    @property
    def folder(self) -> Path | None:
        """The folder the draft was read from (None: not read from a file; the working folder stands for it)."""
        return self._source.parent if self._source is not None else None

    def resolve_path(self, written: str) -> Path:
        """A path the draft writes, as the file system knows it: beside the draft file (or the working folder
        for a draft that was not read from a file)."""
        return resolve_beside(written, self.folder)


def resolve_beside(written: str, folder: Path | None) -> Path:
    """A path written in a draft, relative to the draft's ``folder`` (None: the working folder); ``~`` expanded."""
    path = Path(written).expanduser()
    return path if path.is_absolute() or folder is None else folder / path
