"""An input for a secret (a webhook's password, the Twilio token): masked while it is typed, with a key to look.

Why masked although only ``${ENV_VAR}`` references are accepted: the literal a user types by mistake (the very
value the draft refuses) is on the screen until it is refused, where a shared terminal, a screen share or a tmux
capture reads it. The mask comes back whenever the field is left, so a revealed secret never stays shown.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.widgets import Input


class SecretInput(Input):
    """``Input(password=True)``; ``ctrl+g`` (or F9) shows or hides what is typed, for this field only."""

    HELP = """\
## A secret

What you type is shown as dots. `ctrl+g` (or `F9`) shows it while you check it, and hides it again; leaving the
field hides it too. Write an `${ENV_VAR}` reference here, never the secret itself.
"""
    BINDINGS = [
        Binding("ctrl+g,f9", "reveal", "Show/hide", id="secret.reveal",
                tooltip="Show or hide what is typed in this secret field"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["password"] = True
        super().__init__(*args, **kwargs)

    def action_reveal(self) -> None:
        self.password = not self.password

    def on_blur(self, event: events.Blur) -> None:
        """Handlers run for every class of the MRO: Input's own blur handling runs as well."""
        self.password = True
