"""UNFINISHED: being built (see the TUI issue); replaced before this lands."""

from __future__ import annotations

from textual.widgets import Static


class ExtensionsTab(Static):
    def __init__(self, app_index: int) -> None:
        super().__init__("ExtensionsTab: not built yet")
        self.app_index = app_index
