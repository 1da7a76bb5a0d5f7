"""The first screen: every app of the draft, with its region, widget and webhook counts, problems and change state.

Painted from the parsed data (no pydantic, no copy of the data) so it appears at once; problems and change states
fill in when the app's validation worker finishes. The table is filled lazily: the first screenful of rows before the
first paint, the rest in chunks after it (a DataTable measures every cell of every row it is given, about a second
for 5,000 apps), each row computed from the draft when it is added, so an edit of a row not added yet is simply
shown once it is. Filtering runs over the whole draft (not the rows added so far) and is debounced, so typing stays
responsive at 5,000 apps.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from tenantdeck.draft.session import AppRow, ChangeKind
from tenantdeck.textsafe import fitted, shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener, PoliciesRead
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.row_table import RowTable

#: kinds of change that edit the draft where their paths say (the rows of those apps are updated in place)
_EDITS = (ChangeKind.SET, ChangeKind.INSERT, ChangeKind.DELETE, ChangeKind.UNDO, ChangeKind.REDO,
          ChangeKind.TRANSACTION)
COLUMNS = ("✓", "Name", "Region", "Widgets", "Webhooks", "Problems", "Change")
STATUS_COLUMNS = slice(5, 7)  #: Problems and Change: what validation and change states update
#: the fleet policies' badge (✗ error rules, ! warning rules the app breaks; P lists them): a last column, added once
#: the draft's rules have been read and there are some (a draft without a rules file keeps its 80 columns)
POLICY_COLUMN = "policy"
#: a draft with this many apps has its rules evaluated in full in a worker thread (about 0.7 s of CPU for 5,000 full
#: apps, bench/policies.py); edits after that are evaluated app by app on the UI thread (0.2 ms)
POLICIES_IN_BACKGROUND = 1000
#: rows added before the first paint: as many as a tall terminal shows (a taller one gets the rest a frame later;
#: each row costs DataTable a measure of every cell, so not more: bench/tui_startup.py)
FIRST_ROWS = 40
CHUNK = 400  #: rows added per step after it (a few tens of ms each, so keys are handled in between)


#: the Name column's most cells: a longer name is cut with "…" (the App screen's title shows it whole), so the other
#: columns stay in view at 80 columns (a trial's 80-character name pushed Region to Policy off the screen)
NAME_WIDTH = 24


class AppsScreen(UsesEditor, DraftListener, Screen[None]):
    """Enter opens an app; ``/`` filters; ``n`` adds an app; ``delete`` removes one from the draft."""

    HELP = """\
## Apps

Every app in the draft. **Change** compares the draft with the base snapshot (what was last pulled or pushed):
*new* apps are created by the next push, *modified* ones have local changes, *in sync* ones have none.
**Problems** counts validation errors and warnings (F8 lists them all).

- `Enter`: open the app
- `/`: filter by name, region or id (Escape clears)
- `n`: add an app
- `Delete`: remove the app from the draft (a push with deletes allowed then deletes it on the service)
- `Space`: mark or unmark the app (marked apps can be bulk edited together)
- `b`: bulk edit: set one value on many apps (filtered, by region or preset, or the marked ones)
- `p`: presets: the apps that extend each preset, and what a preset edit reaches
- `P`: fleet policies: the rules beside the draft and the apps breaking each. **Policy** shows how many rules the
  app breaks: `✗2` two error rules (a push is refused), `!1` one warning
- `F3` events received · `F5` pull · `F6` review and push · `F7` history · `F8` problems (every key: the table below)
- `?`: this help (the footer has room for only some keys at 80 columns)
"""
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="apps.filter"),
        Binding("n", "new_app", "New app", id="apps.new"),
        # Delete is where a keyboard says it; the footer's room goes to `?`, which says where the rest are
        Binding("delete", "delete_app", "Delete app", show=False, id="apps.delete"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="apps.clear_filter"),
        Binding("space", "mark", "Mark", show=False, id="apps.mark"),
        Binding("b", "bulk_edit", "Bulk edit", id="apps.bulk"),
        # P, p, F3, F5, F7 and more do not fit 80 columns: `?` says where they are (F1's table of keys)
        Binding("question_mark", "app.help", "More keys", id="apps.more_keys", key_display="?"),
        Binding("p", "presets", "Presets", show=False, id="apps.presets"),
        Binding("P", "policies", "Policies", show=False, id="apps.policies"),
    ]
    DEFAULT_CSS = """
    AppsScreen #filter { margin: 0 1; }
    AppsScreen DataTable { height: 1fr; }
    AppsScreen #unreadable { height: 1fr; margin: 1 2; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._filter = ""
        self._timer: Any = None
        self._pending: deque[int] = deque()  #: matching apps not added to the table yet, in order
        self._pending_set: set[int] = set()
        self._matching = 0
        self._fill_generation = 0  #: bumped by every rebuild, so a fill step of an older one stops
        self._want_cursor: str | None = None  #: the row to put the cursor on once it is added
        self._counts: tuple[int, dict[int, tuple[int, int]]] | None = None
        self.marked: set[int] = set()  #: indexes of the apps marked with Space (for a bulk edit)
        self._marked_as: dict[int, tuple[Any, ...]] = {}  #: what each marked index held when it was marked

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Input(placeholder="Filter apps: name, region or id  (/)", id="filter")
        table: DataTable[str] = RowTable(id="apps", cursor_type="row", zebra_stripes=True)
        yield table
        unreadable = Static(id="unreadable", markup=False)
        unreadable.display = False  # in place of an empty table when the draft cannot be read (Editor.unreadable)
        yield unreadable
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.refresh_rows()
        table.focus()

    # -- rows --------------------------------------------------------------------------------------------------

    def _problem_counts(self) -> dict[int, tuple[int, int]]:
        """(errors, warnings) of each app index, in one pass over the problems (not one per row)."""
        session = self.editor.session
        if self._counts is None or self._counts[0] != session.version:
            counts: dict[int, tuple[int, int]] = {}
            for p in session.problems:
                if len(p.path) >= 2 and p.path[0] == "apps" and isinstance(p.path[1], int):
                    errors, warnings = counts.get(p.path[1], (0, 0))
                    counts[p.path[1]] = (errors + 1, warnings) if p.is_error else (errors, warnings + 1)
            self._counts = (session.version, counts)
        return self._counts[1]

    def _status(self, index: int, has_id: bool) -> tuple[str, str]:
        """The Problems and Change cells of an app."""
        if not self.editor.loaded:
            return "reading", "…"
        if self.editor.session.validated:
            errors, warnings = self._problem_counts().get(index, (0, 0))
            shown = "ok" if not errors + warnings else ", ".join(
                part for part in (f"{errors} error{'s' * (errors != 1)}" if errors else "",
                                  f"{warnings} warning{'s' * (warnings != 1)}" if warnings else "") if part)
        else:
            shown = "checking"
        return shown, self.editor.app_states.get(f"apps[{index}]", "new" if not has_id else "…")

    def row(self, index: int, app: AppRow | None = None) -> tuple[str | Text, ...]:
        """The cells of app ``index``, from the draft as it is now."""
        if app is None:
            app = self.editor.session.app_row(index) or AppRow(index, None, None, None)
        problems, state = self._status(index, bool(app.id))
        # name and region are the draft's: Text is never read as markup, shown() never lets a control through
        name = fitted(shown(str("?" if app.name is None else app.name)), NAME_WIDTH)
        return ("✓" if index in self.marked else "", Text(name),
                Text(shown(str("?" if app.region is None else app.region))), str(app.widgets), str(app.webhooks),
                problems, state, *self._badge(index))

    # -- fleet policies ------------------------------------------------------------------------------------------

    def _badge(self, index: int) -> tuple[str, ...]:
        """The app's policy badge cell when the table has the Policy column (the rules are read after validation:
        they import pydantic and the CEL library, which must not delay the first paint)."""
        if POLICY_COLUMN not in self.query_one(DataTable).columns:
            return ()
        return (self.editor.policies.badge(index),)

    def refresh_policies(self) -> None:
        """Bring the policies' verdict up to date (only the apps edited since, :mod:`tenantdeck.policies.view`) and
        update the badge of each row whose badge changed."""
        if not self.editor.loaded or not self.editor.session.validated or self._covered():
            return
        fleet = self.editor.policies
        if fleet.read_yet and not fleet.stale:
            return
        data = self.editor.session.data
        if fleet.needs_full and len(data.get("apps") or []) >= POLICIES_IN_BACKGROUND:
            self._evaluate_in_background()
            return
        if not fleet.busy.acquire(blocking=False):
            return  # the worker is evaluating; it shows the verdict when done
        try:
            changed = fleet.refresh(data)
        finally:
            fleet.busy.release()
        self._show_badges(changed)

    @work(thread=True, exclusive=True, group="policies", exit_on_error=False)
    def _evaluate_in_background(self) -> None:
        """Every app of a big draft, off the UI thread. Edits made meanwhile are noted as usual and evaluated after;
        one that resizes a mapping being read makes the whole evaluation run again."""
        fleet = self.editor.policies
        with fleet.busy:
            try:
                changed: set[int] | None = fleet.refresh(self.editor.session.data)
            except RuntimeError:  # "dictionary changed size during iteration": an edit landed mid-read
                fleet.invalidate()
                changed = None
        call = getattr(self.app, "call_from_worker", self.app.call_from_thread)
        call(self._evaluated, changed)

    def _evaluated(self, changed: set[int] | None) -> None:
        if changed is not None:
            self._show_badges(changed)
        for screen in self.app.screen_stack:
            if screen is not self:
                screen.post_message(PoliciesRead())
        self.refresh_policies()  # what was edited meanwhile (app by app), or everything again

    def _show_badges(self, changed: set[int]) -> None:
        """Add or remove the Policy column as the rules say, and update the badges in ``changed``."""
        if self._covered():
            self._stale = True  # a full screen is on top: the whole table is redrawn when it is back
            return
        fleet = self.editor.policies
        table = self.query_one(DataTable)
        if self._sync_policy_column():
            changed = set(fleet.badges)
        if POLICY_COLUMN not in table.columns:
            return
        column = table.columns[POLICY_COLUMN].key
        for i in changed:
            if str(i) in table.rows:
                value = fleet.badge(i)
                wider = cell_len(value) > table.columns[column].content_width
                table.update_cell(str(i), column, value, update_width=wider)

    def _sync_policy_column(self) -> bool:
        """The Policy column is there exactly when the rules have been read and there are some; True when this
        call added it (every badge is then to be shown)."""
        fleet = self.editor.policies if self.editor.loaded else None
        want = fleet is not None and fleet.read_yet and fleet.active
        table = self.query_one(DataTable)
        have = POLICY_COLUMN in table.columns
        if want and not have:
            table.add_column("Policy", key=POLICY_COLUMN, default="")
            return True
        if have and not want:
            table.remove_column(POLICY_COLUMN)
        return False

    def on_policies_read(self, message: PoliciesRead) -> None:
        """The rules file was read again (it changed on disk): every badge may have changed."""
        self.refresh_policies()

    def _matches(self, app: AppRow) -> bool:
        if not self._filter:
            return True
        text = " ".join("" if v is None else str(v) for v in (app.name, app.region, app.id)).lower()
        return all(word in text for word in self._filter.lower().split())

    def refresh_rows(self) -> None:
        """Rebuild the table: the first screenful now, the rest in chunks after the next paints."""
        table = self.query_one(DataTable)
        current = self._want_cursor
        if current is None and table.row_count:
            current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        preview = self.editor.preview
        rows = preview if preview is not None else self.editor.session.app_rows()
        matching = [r.index for r in rows if self._matches(r)]
        self._matching = len(matching)
        self._fill_generation += 1
        self._want_cursor = None
        self._pending = deque(matching)
        self._pending_set = set(matching)
        table.clear()
        self._sync_policy_column()
        if preview is None:
            self._keep_marks(rows)  # before the rows are drawn: each draws its mark from these
        self._add_rows(FIRST_ROWS, rows)
        if current is not None and current in table.rows:
            table.move_cursor(row=table.get_row_index(current))
        elif current is not None and current.isdigit() and int(current) in self._pending_set:
            self._want_cursor = current
        self._retitle(len(rows))
        broken = self.editor.unreadable() if preview is None else ""
        note = self.query_one("#unreadable", Static)
        note.update(f"{broken}\n\nn New app, b Bulk edit and / Filter wait until it can be read." if broken else "")
        if bool(broken) != getattr(self, "_was_broken", False):  # n and b greyed, or back
            self._was_broken = bool(broken)
            self.refresh_bindings()
        # the filter goes too: with the table hidden the focus would land in it and take the screen's keys (P, e)
        note.display = bool(broken)
        table.display = self.query_one("#filter", Input).display = not broken
        if not broken and self.focused is None and self.is_current:
            table.focus()  # readable again
        if self._pending:
            self.call_after_refresh(self._fill, self._fill_generation)

    def _add_rows(self, count: int, rows: list[AppRow] | None = None) -> None:
        table = self.query_one(DataTable)
        for _ in range(min(count, len(self._pending))):
            i = self._pending.popleft()
            self._pending_set.discard(i)
            table.add_row(*self.row(i, rows[i] if rows is not None else None), key=str(i))
        if self._want_cursor is not None and self._want_cursor in table.rows:
            table.move_cursor(row=table.get_row_index(self._want_cursor))
            self._want_cursor = None

    def _fill(self, generation: int) -> None:
        """One chunk of the rows not added yet; schedules the next after the following paint."""
        if generation != self._fill_generation or not self.is_mounted:
            return
        self._add_rows(CHUNK)
        if self._pending:
            self.call_after_refresh(self._fill, generation)

    @property
    def filling(self) -> bool:
        """True while rows of the current filter are still to be added to the table."""
        return bool(self._pending)

    def refresh_status(self) -> None:
        """Problems and Change cells of the rows already added, in place and only where they changed (after
        validation or a change-state update); rows still to be added are computed when they are. Behind a full
        screen (the App screen while editing) nothing is done until it is back: each edit recomputes the change
        states, and 2,000 cell updates per key press cost tens of milliseconds."""
        if self._covered():
            self._stale_status = True
            return
        self._stale_status = False
        table = self.query_one(DataTable)
        columns = list(table.columns)[STATUS_COLUMNS]
        for key in list(table.rows):
            if key.value is None:
                continue
            index = int(key.value)
            row = self.editor.session.app_row(index)
            for column, value in zip(columns, self._status(index, bool(row is not None and row.id)), strict=True):
                if table.get_cell(key, column) != value:
                    # Widen the column when the value needs it ("…" -> "in sync"), never ask for a re-measure of
                    # a narrower one: DataTable then measures the whole column again for each such cell, which
                    # at 5,000 rows ("checking" -> "ok") kept the UI busy for minutes.
                    wider = cell_len(value) > table.columns[column].content_width
                    table.update_cell(key, column, value, update_width=wider)

    def on_draft_changed(self, message: DraftChanged) -> None:
        """Redraw what changed: nothing while another screen is on top (once it is back), one row for an edit
        inside one app, the whole table only when apps were added, removed or reloaded. At 5,000 apps a full
        rebuild costs about a second; an edit in the App screen must not pay it on every key."""
        if self._covered():
            self._stale = True
            return
        kind = message.change.kind
        if kind == ChangeKind.SAVE:
            return  # nothing a row shows depends on what is on disk
        if kind == ChangeKind.VALIDATE:
            self.refresh_status()
            self.refresh_policies()
            return
        self.refresh_policies()  # before the rows: an edited row shows its new badge
        if not self._refresh_edited_rows(message):
            self.refresh_rows()

    def _covered(self) -> bool:
        """A full screen is on top of this one (a modal leaves it visible, so it keeps it up to date)."""
        from textual.screen import ModalScreen

        stack = self.app.screen_stack
        if self not in stack:
            return True
        return any(not isinstance(screen, ModalScreen) for screen in stack[stack.index(self) + 1:])

    def on_screen_resume(self) -> None:
        if getattr(self, "_stale", False):
            self._stale = False
            self.refresh_policies()
            self.refresh_rows()
        elif getattr(self, "_stale_status", False):
            self.refresh_status()
        self.refresh_policies()

    def _refresh_edited_rows(self, message: DraftChanged) -> bool:
        """Update the rows of the apps an edit touched in place; False when the table must be rebuilt."""
        import re

        change = message.change
        if change.kind not in _EDITS or not change.paths:
            return False
        indexes: set[int] = set()
        for path in change.paths:
            m = re.match(r"apps\[(\d+)\]\.", path)
            if m is None:
                return False  # the app list itself, a preset (every app extending it), or the root
            indexes.add(int(m.group(1)))
        table = self.query_one(DataTable)
        for i in indexes:
            row = self.editor.session.app_row(i)
            if str(i) not in table.rows:
                if i in self._pending_set:
                    continue  # computed from the draft as it is then, when the fill reaches it
                if row is not None and self._matches(row):
                    return False
                continue
            if row is None:
                return False
            for column, value in zip(table.columns, self.row(i, row), strict=False):
                table.update_cell(str(i), column, value)
        return True

    # -- filter ------------------------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        self._filter = event.value.strip()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.12, self.refresh_rows)

    def on_input_submitted(self) -> None:
        self.query_one(DataTable).focus()

    @property
    def filter_text(self) -> str:
        """The filter as typed (the bulk edit screen starts from it)."""
        return self._filter

    def action_filter(self) -> None:
        if self.editor.unreadable():  # the palette: the field is hidden, and focused it would take the keys
            return
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one(DataTable).focus()

    # -- actions -----------------------------------------------------------------------------------------------

    def selected_index(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.host.open_app(int(event.row_key.value))

    def _keep_marks(self, rows: list[AppRow]) -> None:
        """Marks are indexes, each noted with the app it marked: when apps are added, removed, reordered or
        reloaded, a mark follows its app to the app's new index. A mark whose app is gone, or can no longer be told
        from another (two new apps of the same name and region), is dropped and said, never given to another app:
        a bulk edit reaches only apps the user marked. (Kept by index, a reorder on disk showed marks on apps
        never marked while the title counted others: trial I.)"""
        if not self.marked:
            return
        at: dict[tuple[Any, ...], list[int]] = {}
        for row in rows:
            at.setdefault(_identity(row), []).append(row.index)
        kept: dict[int, tuple[Any, ...]] = {}
        for index in self.marked:
            identity = self._marked_as.get(index, ())
            found = at.get(identity, []) if identity else []
            if len(found) == 1:
                kept[found[0]] = identity
        lost = len(self.marked) - len(kept)
        self.marked = set(kept)
        self._marked_as = kept
        if lost:
            self.notify(f"{lost} mark(s) cleared: the apps they marked are gone from the list.",
                        severity="warning", markup=False)

    def _retitle(self, total: int | None = None) -> None:
        if not self.editor.loaded:
            self.sub_title = f"reading · first {total} apps"
            return
        if total is None:
            total = len(self.editor.session.app_rows())
        title = f"{self._matching} of {total} apps" if self._filter else f"{total} apps"
        self.sub_title = title + (f" · {len(self.marked)} marked" if self.marked else "")

    def action_mark(self) -> None:
        """Mark or unmark the highlighted app and move down, so Space Space Space marks a run of apps."""
        index = self.selected_index()
        if index is None:
            return
        self.marked ^= {index}
        row = self.editor.session.app_row(index)
        self._marked_as[index] = _identity(row)
        table = self.query_one(DataTable)
        table.update_cell(str(index), table.ordered_columns[0].key, "✓" if index in self.marked else "")
        self._retitle()
        table.action_cursor_down()

    def action_bulk_edit(self) -> None:
        self.host.action_bulk_edit()

    def action_presets(self) -> None:
        self.host.action_presets()

    def action_policies(self) -> None:
        self.host.action_policies()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` and ``b`` are greyed while the draft cannot be edited (it cannot be read): `n` took a name and only
        then said no (trial F7). ``/`` too: there are no rows to filter, and it focused the hidden filter field,
        which then took the screen's keys. The reason is the text shown in place of the table."""
        if action in ("new_app", "bulk_edit") and self.editor.edit_refusal():
            return None
        if action == "filter" and self.editor.unreadable():
            return None
        return True

    def action_new_app(self) -> None:
        from tenantdeck.tui.screens.new_app import NewAppScreen

        refusal = self.editor.edit_refusal()
        if refusal:  # the palette, or a key typed while the footer was not yet redrawn
            self.notify(refusal, title="Not added", severity="error", timeout=15)
            return

        taken = {str(r.name) for r in self.editor.session.app_rows() if r.name is not None and not r.id}

        def created(data: dict[str, Any] | None) -> None:
            if data is None:
                return
            outcome = self.editor.insert("apps", data)
            if not outcome.ok:
                self.notify(outcome.refused, title="Not added", severity="error")
                return
            self.notify(f"App {data['name']!r} added to the draft; the next push creates it.")

        self.app.push_screen(NewAppScreen(taken), created)

    def action_delete_app(self) -> None:
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        index = self.selected_index()
        if index is None:
            return
        app = self.editor.get(f"apps[{index}]", {}) or {}
        name = app.get("name", "?") if isinstance(app, dict) else "?"
        where = ("it exists only in the draft" if not (isinstance(app, dict) and app.get("id"))
                 else "a push with deletes allowed then deletes it on the service")

        def answered(yes: bool | None) -> None:
            if yes:
                outcome = self.editor.delete(f"apps[{index}]")
                if not outcome.ok:
                    self.notify(outcome.refused, title="Not deleted", severity="error")
                else:
                    self.notify(f"App {name!r} removed from the draft (ctrl+z undoes).")

        self.app.push_screen(ConfirmScreen(f"Remove app {name!r} from the draft? ({where})", yes="Remove"),
                             answered)


def _identity(row: AppRow | None) -> tuple[Any, ...]:
    """What tells one app from another across a change of the list: its id, or its name and region before it has one."""
    if row is None:
        return ()
    return ("id", row.id) if row.id else ("new", row.name, row.region)
