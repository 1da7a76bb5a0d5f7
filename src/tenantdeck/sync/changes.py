"""Value types shared by compare, plan, render and push: one field that differs, and one conflict.

They are plain dataclasses with ``to_json``/``from_json`` so a saved plan round-trips exactly. A secret field never
carries its value here: ``before``/``after`` of a secret are replaced by a state word ("set", "unknown", ...) at the
moment the change is built (see :func:`secret_word`), so nothing downstream can leak one by accident.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Origin = Literal["local", "remote", "conflict"]


class _Absent:
    """The field or resource does not exist on that side (distinct from a JSON null)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()


def jsonable(value: Any) -> Any:
    """ABSENT becomes None for JSON output (the change's ``kind`` says whether it is an add or a removal)."""
    return None if value is ABSENT else value


def secret_word(value: Any) -> str:
    """What a human may see of a secret state: never the value, never even the fingerprint."""
    if value is ABSENT or value is None:
        return "(none)"
    if isinstance(value, dict):
        if "ref" in value:
            return f"${{{value['ref']}}} (unset)"
        if value.get("unknown"):
            return "(unknown)"
    return "(set)"


@dataclass(slots=True)
class FieldChange:
    """One field that differs: ``path`` is relative to its resource, ``label`` is the human name from the catalog."""

    path: str
    label: str
    before: Any
    after: Any
    origin: Origin
    secret: bool = False
    app: str = ""  #: app name, for lists that span apps (drift)
    resource: str = ""  #: resource title, e.g. 'widget "Support" (w-1)'

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["before"] = jsonable(self.before)
        data["after"] = jsonable(self.after)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FieldChange:
        return cls(**data)


@dataclass(slots=True)
class Conflict:
    """The draft and the live service both changed one field (or resource) away from the base, differently."""

    app: str
    app_id: str | None
    resource: str
    path: str
    label: str
    base: Any
    draft: Any
    live: Any
    secret: bool = False
    message: str = ""
    kind: str = ""  #: the resource kind (widget, webhook, sms, extensions, triggers), for resolving it
    rid: str = ""  #: the resource id within the app (widget id, webhook id)

    @property
    def key(self) -> str:
        """How ``--take-mine``/``--take-theirs`` name this conflict: ``APP_ID/KIND[:RID]/FIELD``."""
        return f"{self.app_id or 'new:' + self.app}/{self.kind}{':' + self.rid if self.rid else ''}/{self.path}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("base", "draft", "live"):
            data[key] = jsonable(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conflict:
        return cls(**data)


@dataclass(slots=True)
class Note:
    """Something the user must know that is not an operation: skipped deletes, unsupported changes."""

    app: str
    message: str
    kind: str = "info"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Note:
        return cls(**data)
