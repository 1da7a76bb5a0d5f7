"""A check box whose state reads in text: ``▐X▌`` when ticked, ``▐ ▌`` when not.

Textual's ``Checkbox`` draws ``▐X▌`` in both states and tells them apart by the X's colour only (green on, the
panel's shade off). In a plain capture, with ``NO_COLOR``, in a 16-colour terminal or a high-contrast theme, an
unticked box read as ticked: a user trial saw bulk edit's "only marked (0)" ticked while the screen counted "3 apps
selected" (the box was off and disabled, its X drawn all the same). The editor says a state in text as well as by
colour (``[x]``/``[ ]`` in the forms and the trigger list), and here it does too. A ticked box looks as Textual's.
"""

from __future__ import annotations

from textual.widgets import Checkbox


class TextCheckbox(Checkbox):
    """Textual's check box, with no X drawn while it is unticked."""

    @property  # type: ignore[override]
    def BUTTON_INNER(self) -> str:  # Textual's class attribute, read through the instance
        return "X" if self.value else " "
