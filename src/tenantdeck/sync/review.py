"""A plan as rows to review: what the editor's review screen lists, decided here so it lists what the CLI prints.

The CLI prints a plan as text (:mod:`tenantdeck.sync.render`); the editor lists it as a table with one row per step,
changed field, conflict, drift and note. Both take every symbol, label and line from the same functions (the step's
:func:`~tenantdeck.sync.render.step_symbol`, :func:`~tenantdeck.sync.render.step_label`,
:func:`~tenantdeck.sync.render.change_text`...), so a ``+`` in one is a ``+`` in the other. The screen renders
:func:`review_rows` and asks :func:`where` a row leads; it never reads a resource key or picks a symbol itself.

Pure: a plan in, rows out (no file, no network).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenantdeck.models.widget import SECTIONS
from tenantdeck.sync.kinds import kind_of_step
from tenantdeck.sync.render import (
    change_symbol,
    change_text,
    change_text_fitted,
    conflict_field,
    folded_text,
    shown_changes,
    side_text,
    step_label,
    step_symbol,
    summary_line,
)
from tenantdeck.textsafe import cell_width, fitted, shown

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tenantdeck.problems import Problem
    from tenantdeck.sync.plan import Plan
    from tenantdeck.sync.types import Conflict, FieldChange, Step


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One line of the review: ``app`` and ``symbol`` columns, then ``text``; what it stands for beside it."""

    key: str  #: stable within one plan: ``op3``, ``op3.1``, ``op3.folded``, ``conflict0``, ``drift2``, ``note0``
    app: str
    symbol: str
    text: str
    step: Step | None = None
    change: FieldChange | None = None
    conflict: Conflict | None = None
    #: a value of the draft the push refuses (``Conflict.invalid``): not settled (no ``t``/``m``), fixed in the draft
    refused: Conflict | None = None

    @property
    def settleable(self) -> bool:
        """A conflict the user can settle field by field (take theirs / keep mine); a whole-resource one is not."""
        return self.conflict is not None and bool(self.conflict.kind)


@dataclass(frozen=True, slots=True)
class Where:
    """Where a row leads in the draft: the app (by id, or by name while it has none), the resource kind its step
    changes and, for a widget setting, the section (``style``, ``sidebar``, ``main``) that holds it."""

    app_id: str | None
    app_name: str
    kind: str
    section: str | None = None

    @property
    def tab(self) -> str | None:
        """The App screen's tab holding what the row changes (:mod:`tenantdeck.draft.app_tabs`, the one table)."""
        from tenantdeck.draft.app_tabs import tab_of_kind

        return tab_of_kind(self.kind, self.section)

    def is_app(self, data: Any) -> bool:
        """``data`` (one entry of the draft's ``apps``) is this row's app."""
        if not isinstance(data, dict):
            return False
        if self.app_id:
            return bool(data.get("id") == self.app_id)
        return not data.get("id") and data.get("name") == self.app_name


def review_rows(plan: Plan) -> list[ReviewRow]:
    """Every row of the review, in the order the screen lists them: steps with their changed fields (defaults of a
    new widget folded into one line), then conflicts, drift and notes."""
    rows: list[ReviewRow] = []
    for n, op in enumerate(plan.operations):
        rows.append(ReviewRow(f"op{n}", op.app_name, step_symbol(op), step_label(op, app_named=True), step=op))
        changes, folded = shown_changes(op)
        for m, change in enumerate(changes):
            rows.append(ReviewRow(f"op{n}.{m}", "", change_symbol(change), f"  {change_text(change)}", step=op,
                                  change=change))
        if folded:
            rows.append(ReviewRow(f"op{n}.folded", "", "", f"  {folded_text(op, folded)}", step=op))
    for k, c in enumerate(plan.conflicts):
        if c.invalid:  # a draft error: nothing to take from either side (no t/m)
            rows.append(ReviewRow(f"conflict{k}", c.app, "!", f"REFUSED {c.resource}: {conflict_line(c)}",
                                  refused=c))
        else:
            rows.append(ReviewRow(f"conflict{k}", c.app, "!", f"CONFLICT {c.resource}: {conflict_line(c)}",
                                  conflict=c))
    for k, d in enumerate(plan.drift):
        rows.append(ReviewRow(f"drift{k}", d.app, "~", f"drift (kept) {d.resource}: {drift_line(d)}"))
    for k, note in enumerate(plan.notes):
        rows.append(ReviewRow(f"note{k}", note.app, "*", note.message))
    return rows


#: the most cells the review's App column takes when rows are fitted to a width (the rest is the row's text)
APP_CELLS = 16
#: what Textual's table takes of a width beside the cells: one cell of padding each side of three columns
TABLE_CHROME = 3 * 2


def fitted_cells(rows: list[ReviewRow], width: int) -> list[tuple[str, str, str]]:
    """Each row's three cells for a table ``width`` cells wide (its scrollbar, if any, taken off): the app name
    in at most :data:`APP_CELLS`, the text in the rest, each cut with ``…`` (:func:`tenantdeck.textsafe.fitted`)
    and a changed field's new value kept whole (:func:`~tenantdeck.sync.render.change_text_fitted`). The rows'
    ``text`` stays whole, for the detail line."""
    apps = [fitted(shown(row.app), APP_CELLS) for row in rows]
    app_cells = max((cell_width(a) for a in apps), default=0)
    symbol_cells = max((cell_width(row.symbol) for row in rows), default=0)
    room = max(8, width - TABLE_CHROME - app_cells - symbol_cells)
    out = []
    for app, row in zip(apps, rows, strict=True):
        if row.change is not None and row.text.startswith("  "):
            text = "  " + change_text_fitted(row.change, room - 2)
        else:
            text = fitted(shown(row.text), room)
        out.append((app, row.symbol, text))
    return out


def conflict_line(c: Conflict) -> str:
    """A conflict in one row: the service's reason, or the field with its three values and the keys that settle
    it."""
    if c.message:
        return c.message
    return f"{conflict_field(c)}  (t takes theirs, m keeps mine)"


def drift_line(d: FieldChange) -> str:
    """A change made on the service since the base, kept: the field as the CLI's drift line says it."""
    return change_text(d) if d.path else str(d.after)


def where(row: ReviewRow) -> Where | None:
    """Where Enter on ``row`` leads: its step's app and resource kind (a widget setting: its section too); None
    for a conflict, drift or note (nothing of the draft to open for it)."""
    op = row.step
    if op is None:
        return None
    kind = kind_of_step(op.kind).name
    section = None
    if kind == "widget" and row.change is not None:
        head = row.change.path.split(".", 1)[0]
        section = head if head in SECTIONS and "." in row.change.path else None
    return Where(op.app_id, op.app_name, kind, section)


def refused_problem(c: Conflict, app_index: int, problems: Iterable[Problem]) -> Problem | None:
    """The draft's own problem about the value refusal ``c`` names, inside app ``app_index``: where Enter on its
    REFUSED row leads (the field that holds the value), as Enter on that problem does on the Problems screen.

    Validation warns of each value the service may hold but a push may not send (:func:`tenantdeck.rules.
    held_reason`), and the plan refuses it in the words of the same rule: the app's warning whose reason the
    refusal quotes, else the one whose value (its quoted first word, a trigger id) the refusal names as a word.
    None when no warning matches (a refusal validation does not foresee, such as an unreadable certificate file)."""
    from tenantdeck.rules import held_reason

    reason = c.message.removeprefix("refused: ")
    held = [(p, why) for p in problems if p.path[:2] == ("apps", app_index) and (why := held_reason(p))]
    found = next((p for p, why in held if why in reason), None)
    if found is None:
        values = [(p, why.split(" ", 1)[0][1:-1]) for p, why in held if re.match(r"'[^' ]+' ", why)]
        found = next((p for p, value in values if re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w.-])", reason)),
                     None)
    return found


def refused_text(plan: Plan, most: int = 3) -> str:
    """Why a push of ``plan`` is refused before it starts: each value of the draft it refuses (app, resource and
    the rule, escaped: names are the draft's), at most ``most``, and how to fix them."""
    refused = plan.refused
    lines = [shown(f"{c.app}: {c.resource}: {c.message}") for c in refused[:most]]
    if len(refused) > most:
        lines.append(f"and {len(refused) - most} more")
    lines.append("Fix the value in the draft (Enter on its REFUSED row goes to it), then save (F2).")
    return "\n".join(lines)


def nothing_to_push(plan: Plan) -> str | None:
    """Why a push of ``plan`` would send nothing, said before asking to push; None when it would send something,
    would be refused for a conflict (which says so itself), or the plan cannot tell: an offline plan could not
    compare an app the base snapshot does not hold (its ``no_base`` note), which the push, reading the service,
    does. The plan decides (:attr:`Plan.has_changes`, what ``diff`` exits 0 on): notes and deletions skipped
    without ``--allow-delete`` send nothing."""
    if plan.has_changes or plan.conflicts or any(note.kind == "no_base" for note in plan.notes):
        return None
    text = "Nothing to push: the plan has no operation"
    if plan.skipped_deletions:
        text += f" ({plan.skipped_deletions} deletion(s) skipped: d includes them)"
    return text + "."


def conflict_detail(c: Conflict) -> str:
    """A conflict side by side, for the lines under the review's list: base, draft (mine) and live (theirs). Safe
    for a terminal as it is: each value is escaped on its own line, so a name cannot add a line."""
    if c.message:
        return shown(f"{c.app}: {c.resource}: {c.message}")
    return (shown(f"{c.app}: {c.resource}: {c.label} ({c.path})") + "\n"  # data: its own newlines escaped
            f"  base  {side_text(c.base, c.secret)}\n  mine  {side_text(c.draft, c.secret)}   (m keeps it: the push "
            f"sends it)\n  live  {side_text(c.live, c.secret)}   (t takes it into the draft)")


def review_status(plan: Plan, *, online: bool, where: str, allow_delete: bool) -> str:
    """The line above the review's list: the plan's summary, what it was compared against, deletions, conflicts."""
    source = f"against the service ({where})" if online else "against the base snapshot (r reads the service)"
    deletes = "deletes included" if allow_delete else (
        f"{plan.skipped_deletions} deletion(s) skipped (d includes them)" if plan.skipped_deletions else "")
    status = f"{summary_line(plan)} Planned {source}." + (f" {deletes}." if deletes else "")
    if conflicts := plan.settleable:  # a refused value is in the summary line
        status += f" {len(conflicts)} conflict(s): settle them in the draft before pushing."
    return status
