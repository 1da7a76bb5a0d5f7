"""Pull into the draft from the editor: read the service, show what would change, write only on ``y``.

What would change is the core's (:func:`tenantdeck.sync.pull_preview.preview_pull`): per app and field with the
catalog's labels, resources and apps added or removed. ``y`` applies its edits through the editor's
``DraftSession`` as one undo step (ctrl+z takes the whole pull back) that touches only the values that differ, so
comments elsewhere stay. Nothing is saved: F2 does that, and only then does the base snapshot advance, for the
values the saved draft took (:func:`tenantdeck.sync.remote.pull.record_pulled_base`).

Each row says whose change it is, in the core's words (:data:`tenantdeck.sync.pull_preview.ORIGIN_WORDS`): a
change from the service, or an unpushed edit of yours the pull would discard (trial J6: both were one kind of row,
and ``y`` reverted the user's edits unseen). When the pull would discard any, ``y`` does not write: the screen
stays, its status names the count, and only ``d`` writes (a distinct key, so a typed-ahead ``F5 y`` or ``y y``
never discards them); Escape keeps them (push them first: a push keeps the service's changes).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tenantdeck.draft.session import ChangeKind
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import UsesEditor, host_of
from tenantdeck.tui.profile import profile_label
from tenantdeck.tui.widgets.footer import KeyFooter
from tenantdeck.tui.widgets.header import TitleHeader
from tenantdeck.tui.widgets.notices import problem_text
from tenantdeck.tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from tenantdeck.draft.session import Change
    from tenantdeck.sync.remote.pull import PullPreviewed
    from tenantdeck.sync.types import Origin
    from tenantdeck.tui.editor import Editor


class PullScreen(UsesEditor, Screen[None]):
    """``y`` writes the shown changes into the draft (one undo step), ``r`` reads the service again."""

    HELP = """\
## Pull from the service

What pulling the service's configuration into the draft would change: per app, each field with its label
(`before -> after`), resources and apps added (`+`) or removed (`-`). Nothing is written until you press `y`.

Each row says whose change it is: `from the service` (the service changed it since your last pull or push),
`your edit, discarded` (you changed it in the draft and have not pushed it: the pull puts the service's value
back), `both: yours discarded` (both changed it). The line at the top counts your edits the pull would lose.

- `y`: write these changes into the draft, as one edit (ctrl+z takes it back; F2 saves it). When the pull would
  discard unpushed edits of yours, `y` only asks: `d` then writes it anyway, Escape keeps your edits (push them
  first, F6: a push keeps the service's changes, then pull)
- `r`: read the service again
- `Escape`: back, nothing written

Once the pulled draft is saved, the base snapshot records the values it took, so they show as in sync. Values
you take back with ctrl+z before saving stay changes on the service (drift), never edits a push would send back.
"""
    BINDINGS = [
        Binding("escape", "back", "Back", id="pull.back"),
        Binding("y", "apply", "Write into draft", id="pull.apply"),
        Binding("d", "discard", "Discard my edits and pull", id="pull.discard"),
        Binding("r", "refresh", "Read again", id="pull.refresh"),
    ]
    #: a key typed ahead of the read (``F5 y``) waits for it instead of being dropped (tui/key_order.py)
    KEYS_WAIT_FOR: ClassVar[dict[str, str]] = {"pull": "reading the service"}
    #: client settings (max_retries, retry_base_delay) of every pull screen: tests of failing services keep them short
    CLIENT_OPTIONS: ClassVar[dict[str, Any]] = {}
    DEFAULT_CSS = """
    PullScreen #status { height: auto; padding: 0 1; }
    PullScreen DataTable { height: 1fr; }
    PullScreen #detail { height: auto; max-height: 4; padding: 0 1; border-top: solid $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.result: PullPreviewed | None = None
        self._version = -1
        self._asked = False  #: ``y`` asked about discarding the user's edits; ``d`` writes
        self.client_options: dict[str, Any] = dict(self.CLIENT_OPTIONS)

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static("Reading the service ...", id="status", markup=False)
        yield RowTable(id="changes", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        from tenantdeck.tui.profile import profile_subtitle

        self.sub_title = profile_subtitle(self.editor.profile)
        self.query_one(DataTable).add_columns("App", "", "Whose", "What the pull changes")
        self.action_refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply":
            return self.result is not None and not self.result.preview.empty
        if action == "discard":
            return self._asked and self.result is not None
        return True

    # -- reading ---------------------------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        session = self.editor.session
        if session.read_only or not session.validated or any(p.is_error for p in session.problems):
            self._status("The draft has errors or is not checked yet (F8): a pull needs to know what it means.")
            return
        self._status("Reading the service ...")
        self.result = None
        self._asked = False
        self.refresh_bindings()
        self._version = session.version
        self.fetch()

    @work(thread=True, exclusive=True, group="pull", exit_on_error=False)
    def fetch(self) -> None:
        from tenantdeck.sync.remote.pull import preview_pull_target
        from tenantdeck.sync.workspace.binding import resolve_for_draft

        session = self.editor.session
        version, data = session.snapshot()  # copied here, not before the screen's first frame
        loaded = session.load_result()  # its models, unless an edit came between the two (then validated again)
        if version != self._version:  # changed since F5 or r asked: Apply would refuse the preview
            self.app.call_from_thread(self._status, "The draft changed meanwhile; r reads the service again.")
            return
        draft = loaded.draft if loaded is not None and session.version == version else None
        try:
            target = resolve_for_draft(self.editor.path, self.editor.profile)
            result = asyncio.run(preview_pull_target(target, self.editor.path, data, os.environ,
                                                     client_options=self.client_options, draft=draft))
        except Exception as exc:  # ApiError, ProfileError, OSError, a draft pydantic refuses: one notification
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self.show, result, f"profile {profile_label(target.name)}")

    def _failed(self, exc: BaseException) -> None:
        self._status("Could not read the service; nothing was changed (r tries again).")
        self.notify(problem_text(exc), title="Pull failed", severity="error", markup=False)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(shown(text))

    def show(self, result: PullPreviewed, where: str) -> None:
        from tenantdeck.sync.pull_preview import ORIGIN_WORDS
        from tenantdeck.sync.render import change_symbol, change_text, change_text_fitted
        from tenantdeck.sync.review import APP_CELLS
        from tenantdeck.textsafe import fitted

        self.result = result
        self._asked = False
        self._where = where
        preview = result.preview
        table = self.query_one(RowTable)
        table.clear()

        self._full: dict[str, str] = {}  #: each row's text whole, for the detail line (the table's is cut)
        room = self._text_room([app.name for app in preview.apps], {o for app in preview.apps for o in app.origins()})
        rows: list[tuple[list[Text], str]] = []

        def add_row(app: str, mark: str, text: str, key: str, change: Any = None, whose: str = "") -> None:
            self._full[key] = " ".join(part for part in (shown(app), mark, whose and f"[{whose}]",
                                                         shown(text).strip()) if part)
            cut = f"    {change_text_fitted(change, room - 4)}" if change is not None else fitted(shown(text), room)
            rows.append(([Text(fitted(shown(app), APP_CELLS)), Text(mark), Text(whose), Text(cut)], key))

        for n, app in enumerate(preview.apps):
            what = {"new": "new on the service: added to the draft",
                    "removed": "gone from the service: removed from the draft",
                    "changed": f"{len(app.changes)} field(s) changed"}[app.status]
            if app.status == "new" and app.origin != "remote":
                what = "deleted in your draft: the pull adds it back"
            if app.kept:
                what = "the draft cannot hold it (see the note): taken out of the draft, kept on the service"
            mark = {"new": "+", "removed": "-", "changed": "~"}[app.status]
            add_row(app.name, mark, what, key=f"app{n}",
                    whose="" if app.status == "changed" else ORIGIN_WORDS[app.origin])
            resource = None
            for m, change in enumerate(app.changes):
                if change.resource != resource:  # which webhook, widget or setting the rows below change
                    resource = change.resource
                    add_row("", "", f"  {resource}", key=f"app{n}.{m}.resource")
                add_row("", change_symbol(change), f"    {change_text(change)}", key=f"app{n}.{m}", change=change,
                        whose=ORIGIN_WORDS[change.origin])
            for m, title in enumerate(app.added):
                add_row("", "+", f"  {title}", key=f"app{n}.add{m}",
                        whose=ORIGIN_WORDS[app.origin_of(title)])
            for m, title in enumerate(app.removed):
                add_row("", "-", f"  {title}", key=f"app{n}.rm{m}",
                        whose=ORIGIN_WORDS[app.origin_of(title)])
        for k, note in enumerate(preview.notes):
            add_row("", "*", note, key=f"note{k}")
        table.append_rows(rows)  # at once, measured and its scrollbar shown in the frame that shows them
        self._status(self._summary_line())
        self.refresh_bindings()

    def _summary_line(self) -> str:
        """The status line: the core's summary (with the count of your edits it would lose) and what ``y`` does."""
        assert self.result is not None
        preview = self.result.preview
        if preview.empty:
            tail = ""
        elif self._asked:
            tail = (f" Write it anyway, discarding {_edits(preview.lost)} of yours? d: discard them and pull; "
                    "Escape: keep them (push them first, F6: a push keeps the service's changes).")
        elif preview.lost:
            tail = " y asks first: it would discard your edits marked above."
        else:
            tail = " y writes it into the draft (one edit; F2 saves)."
        return f"{preview.summary()} Read from {self._where}.{tail}"

    def _text_room(self, names: list[str], origins: set[Origin]) -> int:
        from tenantdeck.sync.pull_preview import ORIGIN_WORDS
        from tenantdeck.sync.review import APP_CELLS
        from tenantdeck.textsafe import fitted
        from tenantdeck.tui.widgets.columns import last_column_room

        apps = ["App", *(fitted(shown(name), APP_CELLS) for name in names)]
        whose = ["Whose", *(ORIGIN_WORDS[origin] for origin in origins)]
        return last_column_room(self.size.width or self.app.size.width, [apps, ["~"], whose])

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The row under the cursor in full, wrapped (the table cuts a long value with ``…`` at 80 columns)."""
        key = event.row_key.value if event.row_key is not None else None
        self.query_one("#detail", Static).update(getattr(self, "_full", {}).get(str(key), ""))

    # -- writing ---------------------------------------------------------------------------------------------------

    def action_apply(self) -> None:
        if self.result is None or self.result.preview.empty:
            self.notify("Nothing to pull.", markup=False)
            return
        if self.editor.session.version != self._version:
            self.notify("The draft changed since the service was read; r reads it again.", severity="warning",
                        markup=False)
            return
        preview = self.result.preview
        if preview.lost:  # the user's own edits: asked (every y), only d discards them: never a typed-ahead y y
            self._asked = True
            self._status(self._summary_line())
            self.refresh_bindings()
            self.notify(f"This pull would discard {_edits(preview.lost)} of yours that are not pushed (rows marked "
                        "\"your edit, discarded\"). d discards them and pulls; Escape keeps them.",
                        title="Your edits would be lost", severity="warning", markup=False)
            return
        self._write()

    def action_discard(self) -> None:
        """``d`` after ``y`` asked: write the pull, the user's unpushed edits it replaces included."""
        if not self._asked:
            return
        self._write()

    def _write(self) -> None:
        if self.result is None or self.editor.session.version != self._version:
            self.notify("The draft changed since the service was read; r reads it again.", severity="warning",
                        markup=False)
            return
        preview = self.result.preview
        outcome = self.editor.apply(preview.edits)
        if not outcome.ok:
            self.notify(outcome.refused, title="Not pulled", severity="error", markup=False)
            return
        PulledBase(self.app, self.editor, self.result.live)
        self.notify(f"Pulled into the draft: {preview.summary()} ctrl+z takes it back; F2 saves it.",
                    title="Pulled", markup=False)
        self.app.pop_screen()

    def action_back(self) -> None:
        self.app.pop_screen()


def _edits(n: int) -> str:
    return f"{n} unpushed edit{'' if n == 1 else 's'}"


class PulledBase:
    """Waits for the next save of the draft, then records in the base what the saved draft took from the pull
    (in a worker thread: a big draft takes a while to compare)."""

    def __init__(self, app: Any, editor: Editor, live: dict[str, dict[str, Any]]) -> None:
        self.app = app
        self.editor = editor
        self.live = live
        self._unsubscribe = editor.session.subscribe(self._changed)

    def _changed(self, change: Change) -> None:
        if change.kind != ChangeKind.SAVE:
            return
        self._unsubscribe()
        self.app.run_worker(self._record, thread=True, group="pulled-base", exit_on_error=False)

    def _record(self) -> None:
        from tenantdeck.draft.session import Change
        from tenantdeck.sync.remote.pull import record_pulled_base
        from tenantdeck.sync.workspace.lock import WorkspaceLocked, hold
        from tenantdeck.sync.workspace.state import Workspace, WorkspaceError

        try:
            with hold(Workspace(self.editor.path), "tenantdeck edit (recording a pull)"):
                record_pulled_base(self.editor.path, self.live, os.environ)
        except (OSError, WorkspaceLocked, WorkspaceError) as exc:
            self.app.call_from_thread(self.app.notify, f"The base snapshot could not be updated after the pull: "
                                      f"{exc}", severity="warning", markup=False)
            return
        self.app.call_from_thread(self._recorded, Change(self.editor.session.version, ChangeKind.PULL, (), ()))

    def _recorded(self, change: Change) -> None:
        """The Apps list's change states and every open plan (the review's) follow the new base at once: a review
        opened, or left open, before the base moved would otherwise show the pulled values as edits to push."""
        from tenantdeck.tui.messages import BaseAdvanced

        host_of(self.app).refresh_states(change)
        for screen in self.app.screen_stack:
            screen.post_message(BaseAdvanced())
