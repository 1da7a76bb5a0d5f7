"""Where to save one webhook delivery as JSON (the Events screen's `w`): a file name prompt as a modal.

Why: an admin attaches a delivery that surprised them to a bug report; the file holds exactly what the receiver
recorded (``Delivery.to_json``: payload, verdict, problems, idempotency key), written atomically by the screen.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tenantdeck.tui.widgets.footer import KeyFooter


class SaveDeliveryScreen(ModalScreen[str | None]):
    """Dismisses with the typed path (Enter) or None (Escape); an empty path is None too."""

    DEFAULT_CSS = """
    SaveDeliveryScreen { align: center middle; }
    SaveDeliveryScreen > Vertical {
        width: 72; max-width: 100%; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    SaveDeliveryScreen Input { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save_delivery.cancel")]

    def __init__(self, suggested: str) -> None:
        super().__init__()
        self.suggested = suggested

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the delivery as JSON to (Enter saves, Escape cancels):", markup=False)
            yield Input(self.suggested, id="save-path")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
