"""Every problem of the draft, updated as you edit; Enter jumps to the field that has it.

A draft that cannot be read at all (a YAML syntax error) opens read-only on this screen, with the located problem
and ``e`` to fix it in ``$EDITOR``: the file is reloaded when the editor exits.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.widgets.columns import RefitOnResize
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.problems import Problem


class ProblemsScreen(UsesEditor, DraftListener, RefitOnResize, Screen[None]):
    """Enter jumps to the problem's field; ``e`` opens the draft in ``$EDITOR`` at its line."""

    HELP = """\
## Problems

Every validation problem, errors first at each place, in line order: the draft's own, its targets file's and
its fleet policies' (the list and the count `tenantdeck validate` gives). The list follows your edits.

- `Enter`: go to the field (for problems inside an app), with the cursor in it; a fleet policy's violation lands
  where it does from the Policies screen. A field no tab shows (the app's name) is said, not opened: `e` edits it
- `e`: open the draft in `$EDITOR` at the problem's line; the draft is reloaded when the editor exits
- `Escape`: back
"""
    DEFAULT_CSS = """
    ProblemsScreen DataTable { height: 1fr; }
    ProblemsScreen #detail { height: auto; max-height: 6; border-top: solid $primary; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="problems.back"),
        Binding("e", "external_editor", "Open $EDITOR", id="problems.editor"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("", id="summary", markup=False)  # it may quote the file (a path, a parse error)
        yield RowTable(id="problems", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "Problems"
        table = self.query_one(DataTable)
        self._checking = False
        self.refresh_rows()
        table.focus()

    def refresh_rows(self) -> None:
        """The draft's own problems at once, then (a worker: the rules read every app) the targets file's and the
        fleet policies' with them: :func:`tenantdeck.policies.draft_problems.all_problems`, ``validate``'s list."""
        session = self.editor.session
        self._stale = False
        if session.read_only or not session.validated:
            self._show(session.problems)
            return
        if not hasattr(self, "_problems"):
            self._show(session.problems, checking=True)
        self.check_all()

    @work(thread=True, exclusive=True, group="problems", exit_on_error=False)
    def check_all(self) -> None:
        from tenantdeck.policies.draft_problems import all_problems

        session = self.editor.session
        version, data = session.snapshot()  # copied here, not before the screen's first frame
        own = session.problems
        if session.version != version:
            return  # edited meanwhile: the edit's change asks for a new check
        problems = all_problems(session.path, data, own, session)
        self.app.call_from_thread(self._checked, version, problems)

    def _checked(self, version: int, problems: list[Problem]) -> None:
        if version == self.editor.session.version:  # else a newer check is on its way
            self._show(problems)

    def refit(self) -> None:
        """Resized: the same problems cut to the new width (not checked again)."""
        if hasattr(self, "_problems"):
            self._show(self._problems, self._checking)

    def _show(self, problems: list[Problem], checking: bool = False) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)  # a column only ever widens: cut for a narrower screen, rows ran past its edge
        table.add_columns("Line", "Severity", "Key", "Problem")
        self._checking = checking
        from tenantdeck.textsafe import fitted
        from tenantdeck.tui.widgets.columns import last_column_room

        cells = [(self._where(p), p.severity.value, shown(p.key_path or "(file)")) for p in problems]
        room = last_column_room(self.size.width or self.app.size.width,  # the cut ends in "…"; the line below
                                [[h, *(c[k] for c in cells)] for k, h in enumerate(("Line", "Severity", "Key"))])
        for i, (p, (where, severity, key)) in enumerate(zip(problems, cells, strict=True)):
            table.add_row(Text(where), severity, Text(key), Text(fitted(shown(p.message), room)), key=str(i))
        if problems:
            table.move_cursor(row=min(row, len(problems) - 1))
        self._problems = problems
        self._summarise()

    def _summarise(self) -> None:
        """The line above the table, from the problems shown and what is known of the file on disk."""
        from tenantdeck.policies.draft_problems import counted

        session = self.editor.session
        problems, checking = self._problems, self._checking
        if session.read_only:
            text = (f"{self.editor.path.name} cannot be read as a draft, so it is read-only here. Fix it with `e` "
                    "($EDITOR); it is reloaded when the editor exits.")
        elif not session.validated:
            text = "Checking the draft ..."
        elif checking:
            text = f"{counted(problems)} in the draft; checking its targets file and policies ..."
        elif not problems:
            text = f"No problems{self._as_validate()}."
        else:
            text = f"{counted(problems)}{self._as_validate() or ' (the count `tenantdeck validate` gives)'}."
        self.query_one("#summary", Static).update(shown(text))

    def _as_validate(self) -> str:
        """How the count relates to ``tenantdeck validate``'s, when it is not that count: validate reads the file,
        and with unsaved edits the file is not what is counted here; with the file unreadable on disk (kept edits,
        trial F7) validate fails outright. Plain text (it quotes the file's problem; the Static has no markup)."""
        session = self.editor.session
        name = self.editor.path.name
        if session.disk_problems:
            return (f" in your unsaved edits; {name} on disk cannot be read ({session.disk_problems[0].render()}), "
                    "so `tenantdeck validate` fails until F2 saves your edits over it")
        if session.dirty:
            return " in your unsaved edits; `tenantdeck validate` counts the file once F2 saves them"
        return ""

    def _where(self, problem: Problem) -> str:
        """The Line cell: the draft's line, or for a file beside the draft what it is and the line ("policies:7").
        The whole name ("tenantdeck.policies.yaml:7") took 29 of 80 columns and left the problem 9 (trial J, J7);
        the line under the table names the file whole."""
        if self._in_draft(problem):
            return str(problem.line or "")
        name = os.path.basename(problem.file)
        stem = os.path.basename(str(self.editor.session.path)).removesuffix(".yaml") + "."
        short = name.removeprefix(stem).removesuffix(".yaml") if name.startswith(stem) else name
        return shown(f"{short}:{problem.line}" if problem.line else short)

    def _in_draft(self, problem: Problem) -> bool:
        """The problem is the draft's (not its targets or policies file's)."""
        session = self.editor.session
        return problem.file in ("", session.file, session.path)

    def on_draft_changed(self, message: DraftChanged) -> None:
        if self.is_current:
            self.refresh_rows()
        else:  # under the App screen a jump opened: catch up when shown again, not after every key
            self._stale = True

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale", False):
            self.refresh_rows()
        elif hasattr(self, "_problems"):  # a dialog over it may have learnt that the file on disk cannot be read
            self._summarise()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted problem in full, wrapped: at 80 columns the table cuts the message ("must be a colour
        writte")."""
        key = event.row_key.value if event.row_key is not None else None
        problems = getattr(self, "_problems", [])
        if key is None or not key.isdigit() or int(key) >= len(problems):
            self.query_one("#detail", Static).update("")
            return
        p = problems[int(key)]
        where = (f"line {p.line}: " if p.line else "") if self._in_draft(p) else \
            f"{os.path.basename(p.file)}{f':{p.line}' if p.line else ''}: "
        self.query_one("#detail", Static).update(
            shown(f"{where}{p.severity.value}: {p.key_path or '(file)'}: {p.message}"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        problem = self._problems[int(event.row_key.value or 0)]
        if not self._in_draft(problem):
            self.notify(f"{problem.file}:{problem.line}: not in the draft; open that file in your editor.",
                        markup=False)
            return
        # where the Policies screen leads for the same violation (a cel rule's field: its source says which), and
        # for any other problem the tab of the one table (tenantdeck.draft.app_tabs), through the one function
        target = self.editor.policies.problem_target(problem)
        if target is None:
            self.notify(f"line {problem.line}: not inside an app; `e` opens the draft there.")
            return
        if target.on_no_tab:  # the app's name: the App screen would open on a tab without it (trial H)
            self.notify(shown(f"line {problem.line}: {target.key_path} is on no tab of the App screen; `e` opens "
                              "the draft there."), markup=False)
            return
        # in place of this list, on the app's own App screen when it is open under it (not a second one over it,
        # which Escape then left for the first, on its old tab: trial F, F26); the focus lands in the field itself,
        # so what is typed next fixes the value (not the tab bar's digits)
        self.host.go_to_app(target.app_index, target.tab, target.key_path if target.tab else None)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def action_external_editor(self) -> None:
        session = self.editor.session
        if session.dirty:
            self.notify("Save (F2) or undo your edits first: the external editor works on the file.",
                        severity="warning")
            return
        table = self.query_one(DataTable)
        line = 1
        if table.row_count and self._problems:
            line = self._problems[table.cursor_row].line or 1
        command = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        with self.app.suspend():
            subprocess.run([*command, f"+{line}", str(self.editor.path)], check=False)
        session.reload()
        if not session.read_only:
            self.host.validate_in_background()
