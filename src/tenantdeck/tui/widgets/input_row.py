"""The way out of a text field: ``Enter`` writes it and leaves it, with the focus on the field's row.

While the cursor stayed in a field after ``Enter``, the keys that switch tabs (the digits) and flip toggles (Space)
were typed into the field (issue 37: a newcomer fell into it twice). Every form's text field now behaves the same:
``Enter`` writes the value (the form's ``field_done``, called at once by :func:`done`) and :func:`leave_to_row` puts
the focus on the row that holds the field, which shows the focus bar; there the digits, Space and Escape are the
screen's again, and ``Enter`` goes back into the field (:class:`InputRow`'s binding, or the row's own). The row
takes the focus only while it has it, so ``Tab`` still moves from field to field as before.

The field's footer says it: ``enter Done`` (:data:`DONE`, bound on the field).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input

#: the binding a text field shows in the footer: Enter writes the value and leaves the field (:func:`done`)
DONE = Binding("enter", "done", "Done", id="field.done", tooltip="Write the value and leave the field")
#: the binding a row shows once the focus is on it: Enter goes back into its field
EDIT = Binding("enter", "edit_field", "Edit", id="field.edit", tooltip="Back into the field")
#: Tab on the row: on to the next field, not into the row's own field (the next in the focus chain)
NEXT = Binding("tab", "next_field", "Next field", show=False, id="field.next")


def done(field: Input) -> None:
    """Enter in ``field``: the nearest ancestor with ``field_done(field)`` writes the value and moves the focus, at
    once, so a key typed right after Enter (in the same burst) already goes where the focus is now
    (tui/key_order.py); without one, Input's own submit."""
    owner = next((node for node in field.ancestors if callable(getattr(node, "field_done", None))), None)
    if owner is None:
        field.post_message(Input.Submitted(field, field.value))
    else:
        owner.field_done(field)


def leave_to_row(row: Widget) -> None:
    """Move the focus from the row's field to the row itself (focusable until it loses the focus). At once, not
    after the queue as ``Widget.focus`` does: the next key of a burst must find the focus moved."""
    row.can_focus = True
    row.screen.set_focus(row, scroll_visible=False)


def back_into_field(row: Widget) -> None:
    """Enter on the row: the focus goes back into its field, the cursor at the end."""
    field = row.query(Input).first(Input)
    row.can_focus = False
    field.focus(scroll_visible=False)
    field.cursor_position = len(field.value)


def next_field(row: Widget) -> None:
    """Tab on the row: the field after the row's own, as Tab from the field itself would."""
    field = row.query(Input).first(Input)
    row.can_focus = False
    row.screen.set_focus(field, scroll_visible=False)
    row.screen.focus_next()


def row_blurred(row: Widget) -> None:
    """The row lets go of the focus: not focusable again, so Tab passes it by."""
    row.can_focus = False


class InputRow(Horizontal):
    """A ``Horizontal`` row of a label and one text field that takes the focus after ``Enter`` in its field."""

    BINDINGS = [EDIT, NEXT]
    DEFAULT_CSS = """
    InputRow:focus { background: $focus-row-background; text-style: bold; }
    """

    def action_edit_field(self) -> None:
        back_into_field(self)

    def action_next_field(self) -> None:
        next_field(self)

    def on_blur(self) -> None:
        row_blurred(self)


class DoneInput(Input):
    """An ``Input`` whose footer says ``enter Done`` and whose Enter is :func:`done`."""

    BINDINGS = [DONE]

    def action_done(self) -> None:
        done(self)
