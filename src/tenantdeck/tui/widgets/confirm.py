"""A yes/no question as a modal: destructive or irreversible steps (quit with unsaved edits, delete an app)."""

from __future__ import annotations

import dataclasses

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from tenantdeck.tui.widgets.footer import KeyFooter


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True (yes) or False (no, Escape). Keyboard: y / n, arrows and Enter on the buttons."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Grid {
        grid-size: 2; grid-gutter: 1 2; grid-rows: auto 3; padding: 1 2;
        width: 64; max-width: 100%; height: auto; border: thick $warning; background: $surface;
    }
    ConfirmScreen #question { column-span: 2; width: 100%; }
    ConfirmScreen Button { width: 100%; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
        Binding("left,right", "app.focus_next", show=False),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No", markup: bool = True) -> None:
        """``markup=False`` for a question that quotes a file or a service (a path, a parse error): shown as
        written, never read as Rich markup."""
        super().__init__()
        self.question = question
        self.markup = markup
        self.yes_label, self.no_label = yes, no
        self._name_keys_as_buttons({"confirm.yes": yes, "confirm.no": no})

    def _name_keys_as_buttons(self, words: dict[str, str]) -> None:
        """The footer says what the buttons say (``y Push``, not ``y Yes`` under a "Push (y)" button): this dialog's
        own copy of its bindings (Textual's, made per instance) gets the words of this question."""
        for key, bindings in self._bindings.key_to_bindings.items():
            self._bindings.key_to_bindings[key] = [
                dataclasses.replace(b, description=words[b.id]) if b.id in words else b for b in bindings]

    def compose(self) -> ComposeResult:
        with Grid():
            yield Label(self.question, id="question", markup=self.markup)
            yield Button(f"{self.yes_label} (y)", variant="warning", id="yes")
            yield Button(f"{self.no_label} (n)", variant="primary", id="no")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
