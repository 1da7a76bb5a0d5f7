"""The question at start-up when an earlier session left unsaved edits: restore, discard, or keep for later.

Shows where the edits come from (when, which process and host), what a restore means for the file on disk (as that
session found it, or changed since) and the start of the diff, so the choice is informed rather than a guess.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from tenantdeck.draft.recovery import Assessment, Recovered
from tenantdeck.textsafe import shown
from tenantdeck.tui.widgets.footer import KeyFooter

#: what the modal dismisses with
RESTORE, DISCARD, KEEP = "restore", "discard", "keep"


class RestoreScreen(ModalScreen[str]):
    """``r`` restores into the editor (nothing is written until you save), ``d`` deletes the recovery file, ``k``
    or Escape keeps it for later (offered again at the next start)."""

    HELP = """\
## Unsaved edits found

A tenantdeck session on this draft ended without saving (closed terminal, dropped SSH connection, crash). Its
unsaved text was kept in a recovery file beside the draft (`.tenantdeck/<draft>/`).

- `r`: restore those edits into the editor; the file on disk is unchanged until you save (F2)
- `d`: discard them (the recovery file is deleted)
- `k` or `Escape`: keep the file for later; you are asked again next time
"""
    DEFAULT_CSS = """
    RestoreScreen { align: center middle; }
    RestoreScreen > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    RestoreScreen #title { text-style: bold; color: $warning; }
    RestoreScreen #diff { height: auto; max-height: 12; border: round $panel; }
    RestoreScreen #buttons { height: 3; align-horizontal: center; }
    RestoreScreen Button { margin: 0 1; min-width: 12; }
    """
    BINDINGS = [
        Binding("r", "answer('restore')", "Restore", id="restore.restore", tooltip="Restore the unsaved edits"),
        Binding("d", "answer('discard')", "Discard", id="restore.discard", tooltip="Delete the recovery file"),
        Binding("k,escape", "answer('keep')", "Keep for later", id="restore.keep",
                tooltip="Leave the recovery file; asked again at the next start"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(self, rec: Recovered, assessment: Assessment, display_path: str,
                 counts: tuple[int, int], diff: list[str]) -> None:
        super().__init__()
        self.rec = rec
        self.assessment = assessment
        self.display_path = display_path
        self.counts = counts
        self.diff = diff

    def compose(self) -> ComposeResult:
        rec = self.rec
        origin = f"written {shown(str(rec.written))}" if rec.written else "written earlier"
        if rec.host or rec.pid:  # read from the recovery file: anyone who could write it chose these words
            pid, host = shown(str(rec.pid)), shown(str(rec.host))
            origin += f" by process {pid} on {host}" if rec.host else f" by process {pid}"
        added, removed = self.counts
        with Vertical():
            yield Label("Unsaved edits from an earlier session", id="title")
            said = shown(self.assessment.message)  # names the recovery file
            yield Static(Content(f"{shown(self.display_path)}, {origin}.\n{said[:1].upper()}"
                                 f"{said[1:]}.\n{added} line(s) added, {removed} removed "
                                 "against the draft on disk:"), id="about")
            with VerticalScroll(id="diff"):
                yield Static(self._diff_content(), id="diff-text")
            with Horizontal(id="buttons"):
                yield Button("Restore (r)", variant="warning", id=RESTORE)
                yield Button("Discard (d)", variant="error", id=DISCARD)
                yield Button("Keep for later (k)", variant="primary", id=KEEP)
        yield KeyFooter()

    def _diff_content(self) -> Content:
        styles = {"+": "$success", "-": "$error", "@": "$text-muted"}
        # the diff quotes the draft and the recovered text: the user's and the service's words
        lines = [Content.styled(shown(line), styles.get(line[:1], "")) for line in self.diff]
        lines = lines or [Content("(no change)")]
        return Content("\n").join(lines)

    def on_mount(self) -> None:
        self.query_one(f"#{KEEP}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or KEEP)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
