"""The review's ``v``: let error rules of the fleet policies through this push, with a reason.

What the CLI's ``push --allow-violation RULE --reason TEXT`` does, the editor's way: the rules are ticked, the reason
typed, and both are checked by the same function (:func:`tenantdeck.policies.checks.allowance`) and recorded by the
push the same way (the history's ``allowed_violations`` and ``violation_reason``). Rule names come from the rules
file: shown as ``Text``, never read as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, SelectionList

from tenantdeck.textsafe import shown
from tenantdeck.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.view import GateRule

#: checks the ticked rules and the reason; raises ``NotAllowed`` (the review passes the core's ``allowance``)
Check = Callable[[Sequence[str], str], "Allowance"]


class AllowViolationScreen(ModalScreen["Allowance | None"]):
    """Dismisses with the allowance (no rule ticked: none, the push is gated again), or None (Escape: unchanged)."""

    DEFAULT_CSS = """
    AllowViolationScreen { align: center middle; }
    AllowViolationScreen > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%; padding: 0 1; border: thick $warning;
        background: $surface;
    }
    AllowViolationScreen Label { width: 100%; }
    AllowViolationScreen SelectionList { height: auto; max-height: 8; }
    AllowViolationScreen #error { color: $error; height: auto; }
    AllowViolationScreen #buttons { height: auto; }
    AllowViolationScreen #buttons Button { margin-right: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="allow_violation.cancel")]

    def __init__(self, rules: Sequence[GateRule], current: Allowance | None, check: Check) -> None:
        super().__init__()
        self.rules = list(rules)
        self.current = current
        self.check = check

    def compose(self) -> ComposeResult:
        ticked = set(self.current.rules) if self.current else set()
        if not ticked and len(self.rules) == 1:
            ticked = {self.rules[0].name}
        with Vertical():
            yield Label("Push even though the account would break these error rules (space ticks a rule). The "
                        "history records the rules and your reason.", markup=False)
            yield SelectionList[str](*[(Text(shown(r.text())), r.name, r.name in ticked) for r in self.rules],
                                     id="rules")
            yield Input(value=self.current.reason if self.current else "", id="reason",
                        placeholder="Why is breaking the rule acceptable? (required)")
            yield Label("", id="error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Allow (Enter)", variant="warning", id="allow")
                yield Button("Cancel (Esc)", id="cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#reason" if self.query_one(SelectionList).selected else "#rules").focus()

    def on_input_submitted(self) -> None:
        self._allow()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._allow()

    def _allow(self) -> None:
        from tenantdeck.policies.checks import NotAllowed

        rules = list(self.query_one(SelectionList).selected)
        if not rules and not self.current:  # nothing to take back either: say so rather than close doing nothing
            self.query_one("#error", Label).update("no rule is ticked: Space on a rule ticks it (Tab moves to the "
                                                   "list), then Enter here")
            return
        try:
            allowance = self.check(rules, self.query_one("#reason", Input).value)
        except NotAllowed as exc:
            self.query_one("#error", Label).update(shown(f"{exc.rule}: {exc}" if exc.rule else str(exc)))
            return
        self.dismiss(allowance)

    def action_cancel(self) -> None:
        self.dismiss(None)
