"""The one "not there" value: a field or resource that does not exist on one side (a draft that does not write a
field, a service that does not hold a resource), distinct from a JSON ``null`` a side may hold. The draft's view
models and the sync engine compare with ``is ABSENT`` against this same object."""

from __future__ import annotations

from typing import Any


class _Absent:
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
