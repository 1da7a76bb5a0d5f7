"""What the editor's Settings tab shows and writes, as plain data: the draft's ``settings`` block as rows (label,
key, value, whether the API can change it) and the edits a key makes. The TUI only renders these."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tenantdeck.models import catalog


@dataclass(frozen=True, slots=True)
class SettingRow:
    key: str
    label: str
    value: Any
    settable: bool  #: a boolean the API maps (a list is the service's: shown, never sent)

    @property
    def shown(self) -> str:
        if isinstance(self.value, bool):
            return "on" if self.value else "off"
        return json.dumps(self.value, ensure_ascii=False)


def rows(settings: Mapping[str, Any] | None) -> list[SettingRow]:
    """One row per key of the draft's block, in its order; a key the catalog does not know keeps its key as label
    (the service may report more than the facts list)."""
    out: list[SettingRow] = []
    for key, value in (settings or {}).items():
        known = catalog.APP_SETTING_BY_KEY.get(str(key))
        out.append(SettingRow(str(key), known.label if known else str(key), value,
                              isinstance(value, bool) and (known is None or known.settable)))
    return out


def toggled(settings: Mapping[str, Any], key: str) -> tuple[tuple[str, ...], bool]:
    """The edit that flips boolean ``key``: its path below the app, and the new value."""
    return ("settings", key), not settings[key]
