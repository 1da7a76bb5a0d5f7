"""The Team tab: the app's admins and moderators by email, as the draft says them.

Why it lists only those: the owner and the developers are the service's own (an owner cannot be given a role or
removed, developers are invited in the dashboard), so a draft never names them and a push never touches them. An
app whose draft has no ``team`` block does not manage its team at all (the service's is left as it is); ``ctrl+n``
starts managing it. Every edit writes the whole block through the session (:mod:`tenantdeck.draft.team_view`):
one undo step each, checked at once by the draft's own model.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Label, Static

from tenantdeck.draft import team_view as tv
from tenantdeck.models import catalog
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.tabs.tab_refresh import RefreshWhenShown
from tenantdeck.tui.widgets.quiet import update_static
from tenantdeck.tui.widgets.row_table import RowTable

#: the Problems cell of a member pull kept as the service holds it (not in the draft)
KEPT = "kept as the service holds it (read-only)"


class TeamTab(UsesEditor, DraftListener, RefreshWhenShown, Vertical):
    """``a`` adds an admin, ``m`` a moderator, ``r`` switches the role of the member under the cursor, ``d`` removes
    them; ``ctrl+n`` manages the team of an app whose draft leaves it to the service."""

    HELP = """\
## Team

The app's admins and moderators, by email. The owner and the developers are the service's: they are not listed
here and a push never changes them. A draft without a `team` block leaves the whole team to the service.
Members a pull kept as the service holds them (an email the draft's rules refuse, or one that differs from
another only in case) are listed after the draft's, read-only: a push leaves them as they are.

- `a`: add an admin · `m`: add a moderator (type the email, `Enter`; `Escape` cancels)
- `r`: switch the highlighted member between admin and moderator · `d` or `Delete`: remove them from the team
- `Ctrl+N`: manage this app's team in the draft (an empty block; a pull fills it from the service)
- `Ctrl+Z`: undo. A push adds, re-roles and removes only the emails you changed; someone added on the service
  since your last pull or push stays (drift).
"""
    BINDINGS = [
        Binding("a", "add('admin')", "Admin", id="team.add_admin", tooltip="Add an admin by email"),
        Binding("m", "add('moderator')", "Moderator", id="team.add_moderator", tooltip="Add a moderator by email"),
        Binding("r", "switch", "Role", id="team.switch", tooltip="Switch the member between admin and moderator"),
        Binding("d,delete", "remove", "Remove", id="team.remove", tooltip="Remove the member from the team"),
        Binding("ctrl+n", "manage", "Manage team", id="team.manage", tooltip="Manage this app's team in the draft"),
        Binding("escape", "cancel", "Cancel", id="team.cancel"),
    ]
    DEFAULT_CSS = """
    TeamTab { height: 1fr; }
    TeamTab #team-status { height: auto; padding: 0 1; color: $text-muted; }
    TeamTab DataTable { height: 1fr; }
    TeamTab #team-add { height: auto; padding: 0 1; display: none; }
    TeamTab #team-add.-open { display: block; }
    TeamTab #team-add Label { width: 15; }
    TeamTab #team-add Input { width: 1fr; }
    TeamTab #team-detail { height: 3; padding: 0 1; border-top: solid $primary; }
    """

    def __init__(self, app_index: int) -> None:
        super().__init__()
        self.app_index = app_index
        self._adding: str | None = None  #: the role being added while the email field is open

    @property
    def prefix(self) -> str:
        return f"apps[{self.app_index}].team"

    def team(self) -> dict[str, Any] | None:
        value = self.editor.get(self.prefix, None)
        return value if isinstance(value, dict) else None

    def compose(self) -> ComposeResult:
        yield Static("", id="team-status", markup=False)
        table: DataTable[Text] = RowTable(id="team", cursor_type="row", zebra_stripes=True)
        yield table
        with Horizontal(id="team-add"):
            yield Label("", id="team-add-label")
            yield Input(placeholder="email, then Enter (Escape cancels)", id="team-email", compact=True)
        yield Static("", id="team-detail", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Email", "Role", "Problems")
        self.refresh_rows()

    # -- rendering ---------------------------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        team = self.team()
        members = tv.rows(team)
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for email, role in members:
            problems = self._problems(email, role)
            table.add_row(Text(shown(email)), Text(role),
                          Text(f"{len(problems)} problem(s)" if problems else "ok"), key=email)
        last_read = self.editor.last_read(self.editor.get(f"apps[{self.app_index}].id", None))
        kept = tv.kept_members(last_read)
        if kept:  # the Problems cell cut with "…" where 80 columns cannot hold it (the detail line says it whole)
            from tenantdeck.textsafe import fitted
            from tenantdeck.tui.widgets.columns import last_column_room

            room = last_column_room(self.size.width or self.app.size.width,
                                    [["Email", *(shown(e) for e, _ in [*members, *kept])],
                                     ["Role", *(shown(r) for _, r in [*members, *kept])]])
        for email, role in kept:  # after the draft's rows: a row index below len(members) is still a draft member
            table.add_row(Text(shown(email)), Text(shown(role)), Text(fitted(KEPT, room)), key=f"kept:{email}")
        if members or kept:
            table.move_cursor(row=min(max(row, 0), len(members) + len(kept) - 1))
        if team is None:
            status = "This app's team is not managed in this draft: the service's is left as it is. Ctrl+N manages it."
        else:
            admins = sum(r == "admin" for _, r in members)
            status = (f"{admins} admin(s), {len(members) - admins} moderator(s) (at most {catalog.TEAM_PER_APP - 1} "
                      "besides the owner). The owner and developers are the service's: not listed, never changed.")
        if kept:
            status += (f"\n{len(kept)} more kept as the service holds them (an email the draft's rules refuse, or a "
                       "case duplicate): read-only, a push leaves them as they are.")
        service = tv.service_line(last_read)
        if service:
            status += "\n" + service
        update_static(self.query_one("#team-status", Static), shown(status, newlines=True))
        self.refresh_bindings()
        self._show_detail()

    def _problems(self, email: str, role: str) -> list[Any]:
        """The draft's problems at this member's entry (a malformed email)."""
        members = [e for e, r in tv.rows(self.team()) if r == role]
        return self.editor.problems_at(f"{self.prefix}.{tv.LISTS[role]}[{members.index(email)}]")

    def _current(self) -> tuple[str, str] | None:
        members = tv.rows(self.team())
        row = self.query_one(DataTable).cursor_row
        return members[row] if members and 0 <= row < len(members) else None

    def _show_detail(self) -> None:
        lines = [f"{'error' if p.is_error else 'warning'}: {p.message}" for p in self.editor.problems_at(self.prefix)
                 if p.key_path == self.prefix]
        current = self._current()
        if current is None and (kept := self._kept_line()):
            lines.insert(0, kept)
        if current is not None:
            email, role = current
            lines.insert(0, f"{email} · {role}")
            lines += [f"{'error' if p.is_error else 'warning'}: {p.message}"
                      for p in self._problems(email, role)]
        update_static(self.query_one("#team-detail", Static), shown("\n".join(lines), newlines=True))

    def _kept_line(self) -> str:
        """The detail of the highlighted row when it is a member kept as the service holds it, else ""."""
        table = self.query_one(DataTable)
        if not 0 <= table.cursor_row - len(tv.rows(self.team())) < table.row_count - len(tv.rows(self.team())):
            return ""
        email, role, _ = table.get_row_at(table.cursor_row)  # already shown (escaped) when the row was added
        return (f"{email} · {role} · {KEPT}: not in the draft (its rules refuse the email, or another differs only "
                "in case); change it in the dashboard")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()
        self.refresh_bindings()  # d and r are offered on the draft's members only, not on a row kept read-only

    def on_draft_changed(self, message: DraftChanged) -> None:
        if message.touches(f"apps[{self.app_index}]"):
            self.refresh_or_defer()

    def refresh_content(self) -> None:
        self.refresh_rows()

    def focus_path(self, path: str) -> bool:
        """``apps[i].team...``: the table focused, on the member the path names when it names one."""
        if path != self.prefix and not path.startswith(self.prefix + "."):
            return False
        from tenantdeck.problems import parse_path

        table = self.query_one(DataTable)
        try:
            parts = parse_path(path)
        except ValueError:
            parts = ()
        if len(parts) >= 6 and parts[4] in tv.LISTS.values() and isinstance(parts[5], int):
            role = next(r for r, key in tv.LISTS.items() if key == parts[4])
            emails = [e for e, r in tv.rows(self.team()) if r == role]
            if 0 <= parts[5] < len(emails):
                table.move_cursor(row=[e for e, _ in tv.rows(self.team())].index(emails[parts[5]]))
        table.focus()
        return True

    # -- actions -----------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing here are left out of the footer (it must fit 80 columns)."""
        managed = self.is_mounted and self.team() is not None
        if action == "manage":
            return not managed
        if action in ("switch", "remove"):
            return managed and self._current() is not None
        if action == "add":
            return managed
        if action == "cancel":
            return self._adding is not None
        return True

    def _write(self, block: dict[str, Any], done: str) -> bool:
        outcome = self.editor.set(self.prefix, block)
        if not outcome.ok:
            self.notify(outcome.refused, title="Team not changed", severity="error", markup=False)
            return False
        self.notify(done, markup=False)
        return True

    def action_manage(self) -> None:
        if self.team() is not None:
            self.notify("This app's team is already managed in the draft.", markup=False)
            return
        self._write({}, "The team is managed in the draft now (empty: a push removes nobody it did not add; a pull "
                        "fills it from the service).")

    def action_add(self, role: str) -> None:
        if self.team() is None:
            self.notify("The team is not managed in this draft: Ctrl+N first.", markup=False)
            return
        self._adding = role
        self.query_one("#team-add-label", Label).update(f"New {role}:")
        self.query_one("#team-add").add_class("-open")
        field = self.query_one("#team-email", Input)
        field.value = ""
        field.focus()
        self.refresh_bindings()

    def action_cancel(self) -> None:
        if self._adding is None:
            raise SkipAction()
        self._close_add()

    def _close_add(self) -> None:
        self._adding = None
        self.query_one("#team-add").remove_class("-open")
        self.query_one(DataTable).focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        role, email = self._adding, event.value.strip()
        if role is None:
            return
        last_read = self.editor.last_read(self.editor.get(f"apps[{self.app_index}].id", None))
        service = tv.service_members(last_read)
        problem = tv.email_problem(email, self.team(), service)
        if problem is not None:
            self.notify(problem, title="Not added", severity="warning", markup=False)
            return
        if self._write(tv.added(self.team(), email, role), tv.added_text(email, role, service)):
            self._close_add()
            members = [e for e, _ in tv.rows(self.team())]
            self.query_one(DataTable).move_cursor(row=members.index(email) if email in members else 0)

    def action_switch(self) -> None:
        current, team = self._current(), self.team()
        if current is None or team is None:
            return
        email, role = current
        other = "moderator" if role == "admin" else "admin"
        if self._write(tv.switched(team, email), f"{email} is a {other} now."):
            members = [e for e, _ in tv.rows(self.team())]
            self.query_one(DataTable).move_cursor(row=members.index(email))

    def action_remove(self) -> None:
        current, team = self._current(), self.team()
        if current is None or team is None:
            return
        email, _ = current
        self._write(tv.removed(team, email), f"{email} removed from the team (a push removes them; Ctrl+Z undoes).")
