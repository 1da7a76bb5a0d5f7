"""A modal that asks for a new app's name and region, checked as the draft will check them."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select

from tenantdeck.models import catalog
from tenantdeck.tui.widgets.footer import KeyFooter


class NewAppScreen(ModalScreen[dict[str, Any] | None]):
    """Dismisses with the new app's data (``name``, ``region``, ``version``) or None (Escape)."""

    DEFAULT_CSS = """
    NewAppScreen { align: center middle; }
    NewAppScreen > Vertical {
        width: 60; max-width: 100%; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    NewAppScreen #error { color: $error; height: auto; }
    NewAppScreen #buttons { height: auto; }
    NewAppScreen #buttons Button { margin-right: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="new_app.cancel")]

    def __init__(self, taken: set[str]) -> None:
        super().__init__()
        self.taken = taken

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("New app")
            yield Input(placeholder="Name (at most 100 characters)", id="name", max_length=catalog.APP_NAME_MAX)
            yield Select([(r, r) for r in catalog.REGIONS], value=catalog.REGIONS[0], allow_blank=False, id="region")
            yield Label("", id="error", markup=False)  # it quotes the typed name: never markup
            with Horizontal(id="buttons"):
                yield Button("Create (Enter)", variant="primary", id="create")
                yield Button("Cancel (Esc)", id="cancel")
        yield KeyFooter()

    def _error(self) -> str:
        name = self.query_one("#name", Input).value.strip()
        if not name:
            return "The name is required."
        if name in self.taken:
            return f"Another app to create is already named {name!r}; names of new apps must differ."
        return ""

    def on_input_changed(self) -> None:
        self.query_one("#error", Label).update(self._error())

    def on_input_submitted(self) -> None:
        self._create()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._create()

    def _create(self) -> None:
        problem = self._error()
        if problem:
            self.query_one("#error", Label).update(problem)
            return
        region = self.query_one("#region", Select).value
        self.dismiss({"name": self.query_one("#name", Input).value.strip(), "region": str(region),
                      "version": catalog.APP_VERSION})

    def action_cancel(self) -> None:
        self.dismiss(None)
