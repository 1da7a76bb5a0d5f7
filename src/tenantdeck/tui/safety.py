"""What keeps the draft safe while the editor runs: recovery checkpoints, SIGHUP/SIGTERM, changes on disk.

- Every :data:`~tenantdeck.draft.recovery.INTERVAL` seconds the session's unsaved text goes to the recovery file
  (only when dirty and changed since the last write; :class:`~tenantdeck.draft.recovery.Checkpointer`), and at
  once on SIGHUP (a dropped SSH session) or SIGTERM, before the app exits. Textual itself handles only SIGTSTP and
  SIGCONT, so without this a hang-up loses everything typed since the last save.
- Saving, or quitting on purpose, deletes it. At the next start an earlier session's file is offered
  (:class:`~tenantdeck.tui.screens.restore.RestoreScreen`).
- Every :data:`DISK_INTERVAL` seconds the draft file is compared with what the session read
  (``DraftSession.changed_on_disk``, a ``stat`` unless it changed): with no unsaved edits the new file is loaded
  with a notice; with some, the user chooses (theirs or mine).

The decisions are the core's (:mod:`tenantdeck.draft.recovery`); this module wires them to timers, signals and
modals. Tests drive :meth:`SafetyNet.checkpoint` and :meth:`SafetyNet.check_disk` directly: no clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from tenantdeck import safefile
from tenantdeck.draft import recovery, yamlsource
from tenantdeck.draft.session import Change, ChangeKind, DraftSessionError
from tenantdeck.textsafe import shown
from tenantdeck.tui.host import host_of
from tenantdeck.tui.watchdog import ExitWatchdog

if TYPE_CHECKING:
    from textual.app import App

    from tenantdeck.draft.recovery import Assessment, Recovered
    from tenantdeck.draft.session.facade import OnDisk

DISK_INTERVAL = 2.0
SIGNALS = (signal.SIGHUP, signal.SIGTERM)


class SafetyNet:
    """One per app; :meth:`start` once mounted, :meth:`clean_exit` when the user quits on purpose."""

    #: tests and the screenshot script turn the timers off and call :meth:`checkpoint` / :meth:`check_disk`
    TIMERS = True

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.host = host_of(app)  # the app's acts (save, validate) without importing it: it imports this module
        self.editor = self.host.editor
        self.checkpointer = recovery.Checkpointer(self.editor.path)
        self._installed: dict[int, Any] = {}  # signal -> the handler it had before
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watchdog: ExitWatchdog | None = None
        self._checkpoint_lock = threading.Lock()  # the loop's checkpoints and the watchdog's rescue, one at a time
        self._declined: str | None = None  # the disk text (hash) the user chose not to load
        self._asking = False
        self._write_failed = False
        self.signalled: int | None = None
        self.editor.subscribe(self._changed)

    @property
    def session(self):  # type: ignore[no-untyped-def]
        return self.editor.session

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        self.install_signals()
        if self.TIMERS:
            self.app.set_interval(recovery.INTERVAL, self.checkpoint, name="recovery-checkpoint")
            self.app.set_interval(DISK_INTERVAL, self.check_disk, name="disk-watch")
        self.offer_pending()

    def install_signals(self) -> None:
        """SIGHUP and SIGTERM: a Python handler that only wakes the exit watchdog and schedules :meth:`on_signal`
        on the running loop (so the checkpoint and the exit run between frames, never mid-edit).

        Not ``loop.add_signal_handler``: its callback runs only when the loop gets to it, and a loop blocked on a
        terminal that does not read never does. A Python handler runs on the main thread even while it waits on a
        lock (Textual's full output queue), so the watchdog learns of the signal whatever the loop is doing.
        """
        self._loop = asyncio.get_running_loop()
        if self._watchdog is None and not self.app.is_headless:  # a real terminal: tests' pilots never get one
            self._watchdog = ExitWatchdog(self.rescue_checkpoint)
            self._watchdog.start()
            from tenantdeck import atomic  # noqa: F401  # imported now, not first by a rescue on another thread
        for sig in SIGNALS:
            try:
                previous = signal.signal(sig, self._handle_signal)
            except (OSError, RuntimeError, ValueError):  # not the main thread, or no such signal
                continue
            self._installed.setdefault(int(sig), previous)

    def remove_signals(self) -> None:
        """Give the signals back to their earlier handlers; stop the watchdog unless a signal armed it (then it is
        what guarantees the exit, and it ends with the process)."""
        for sig, previous in self._installed.items():
            with contextlib.suppress(OSError, RuntimeError, TypeError, ValueError):
                signal.signal(sig, previous)
        self._installed.clear()
        if self._watchdog is not None and self.signalled is None:
            self._watchdog.stop()
            self._watchdog = None

    def _handle_signal(self, signum: int, frame: FrameType | None) -> None:
        """The Python signal handler: may interrupt the main thread anywhere, so it takes no lock and touches no
        widget; a second signal while leaving changes nothing (the watchdog's deadline stands)."""
        if self.signalled is not None:
            return
        self.signalled = signum
        if self._watchdog is not None:
            self._watchdog.alarm(signum)
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed: the watchdog finishes the job
                loop.call_soon_threadsafe(self.on_signal, signum)

    def on_signal(self, signum: int) -> None:
        """Hang-up or terminate, on the loop: keep the unsaved text, then leave.

        After SIGHUP the terminal is gone, so its output is dropped (Textual's exit would otherwise queue the codes
        that restore a terminal nobody sees); after SIGTERM it may still be there and is restored as on any exit.
        """
        self.signalled = signum
        if signum == signal.SIGHUP:
            hang_up = getattr(getattr(self.app, "_driver", None), "hang_up", None)  # terminal_driver.HangupSafeDriver
            if hang_up is not None:
                hang_up()
        self.checkpointer.paused = False
        self.checkpoint()
        if self._watchdog is not None:
            self._watchdog.checkpointed()
        self.remove_signals()
        self.app.exit(return_code=128 + signum)

    def rescue_checkpoint(self) -> None:
        """The watchdog's checkpoint, from its own thread, when the loop did not get to :meth:`on_signal` in time.

        Reads the session's text once (a ``str``, replaced whole by each edit: never half an edit). A draft still
        being read has nothing unsaved. Gives up on the lock after a second rather than hold the exit.
        """
        if not self.editor.loaded or not self._checkpoint_lock.acquire(timeout=1.0):
            return
        try:
            session = self.session
            self.checkpointer.paused = False
            self.checkpointer.checkpoint(session.text, session.base_text, session.dirty and not session.read_only)
        finally:
            self._checkpoint_lock.release()

    def clean_exit(self) -> None:
        """The user quit on purpose (nothing unsaved, or chose to drop it): no recovery file is left behind."""
        self.checkpointer.clear()
        self.remove_signals()

    def _changed(self, change: Change) -> None:
        if change.kind == ChangeKind.SAVE:
            self.checkpointer.clear()

    # -- checkpoints ---------------------------------------------------------------------------------------------

    def checkpoint(self) -> bool:
        session = self.session
        try:
            with self._checkpoint_lock:
                return self.checkpointer.checkpoint(session.text, session.base_text,
                                                    session.dirty and not session.read_only)
        except OSError as exc:
            if not self._write_failed:
                self._write_failed = True
                self.app.notify(f"Unsaved edits cannot be kept in {self.checkpointer.path} "
                                f"({exc.strerror or exc}); save often (F2).", title="No recovery file",
                                severity="warning", timeout=10)
            return False

    # -- restore at start ----------------------------------------------------------------------------------------

    def display(self, path: Path) -> str:
        with contextlib.suppress(ValueError):
            return str(path.relative_to(self.editor.path.absolute().parent))
        return str(path)

    def offer_pending(self) -> None:
        path = self.editor.path
        for stuck in recovery.interrupted(path):
            self.app.notify(f"A restore of unsaved edits did not finish last time; its text is kept in "
                            f"{self.display(stuck)} (not offered again, to avoid a crash loop).",
                            title="Recovery", severity="warning", timeout=15)
        candidates = recovery.pending(path)
        if not candidates:
            return
        if self.session.read_only:
            self.app.notify(f"Unsaved edits of an earlier session are kept in {self.display(candidates[0].path)}; "
                            "they can be restored once the draft can be read.", title="Recovery",
                            severity="warning", timeout=15)
            return
        disk = self.session.base_text
        queue: list[tuple[Recovered, Assessment]] = []
        for rec in candidates:
            verdict = recovery.assess(rec, disk)
            if verdict.kind == "broken":
                aside = recovery.set_aside_broken(rec)
                self.app.notify(f"{verdict.message}; set aside as {self.display(aside)}.", title="Recovery",
                                severity="warning", timeout=15)
            elif verdict.kind == "same":
                recovery.discard(rec.path)
            elif verdict.kind == "live":
                self.checkpointer.path = rec.path.with_name(f"recovery.pid-{os.getpid()}.yaml")
                self.app.notify(f"{verdict.message[0].upper()}{verdict.message[1:]}; its unsaved edits are in "
                                f"{self.display(rec.path)}. Saving here may overwrite its work.",
                                title="Draft open twice", severity="warning", timeout=15)
            else:
                queue.append((rec, verdict))
        self._ask(queue)

    def _ask(self, queue: list[tuple[Recovered, Assessment]]) -> None:
        from tenantdeck.tui.screens.restore import RestoreScreen

        if not queue:
            self.checkpointer.paused = False
            return
        self.checkpointer.paused = True
        rec, verdict = queue.pop(0)
        added, removed, lines = recovery.summary(self.session.base_text, rec.text)

        def answered(choice: str | None) -> None:
            self.decide(rec, choice or "keep")
            self._ask(queue)

        self.app.push_screen(RestoreScreen(rec, verdict, self.display(rec.path), (added, removed), lines), answered)

    def decide(self, rec: Recovered, choice: str) -> None:
        if choice == "discard":
            recovery.discard(rec.path)
            self.app.notify("Discarded the earlier session's unsaved edits.")
        elif choice == "restore":
            self.restore(rec)
        else:
            kept = recovery.keep_for_later(rec)
            self.app.notify(f"Kept for later in {self.display(kept)}; offered again at the next start.")

    def restore(self, rec: Recovered) -> None:
        claimed = recovery.claim(rec)  # renamed first: a crash while replaying does not loop
        try:
            self.session.restore_text(rec.text)
        except DraftSessionError as exc:
            self.app.notify(f"{exc.problem.message}. The text is kept in {self.display(claimed)}.",
                            title="Not restored", severity="error", timeout=15)
            return
        self.checkpointer.paused = False
        self.checkpoint()
        recovery.discard(claimed)
        self.host.validate_in_background()
        self.app.notify("Restored the unsaved edits. F2 saves them; ctrl+q and 'quit without saving' drops them.",
                        title="Restored")

    # -- changes on disk -----------------------------------------------------------------------------------------

    def check_disk(self) -> None:
        """Look for someone else's change of the draft file; reload it or ask."""
        if self._asking or self.checkpointer.paused:
            return
        self.check_policies()
        session = self.session
        if not session.changed_on_disk():
            return
        found = session.on_disk()
        marker = (hashlib.sha256(found.raw).hexdigest() if found.raw is not None
                  else found.problems[0].render() if found.problems else "missing")
        if marker == self._declined:
            return
        name = self.editor.path.name
        if found.raw is None and not found.problems:
            self._declined = marker
            again = (f"{found.redirect}: move the link aside first." if found.redirect
                     else "F2 writes your version there again.")
            self.app.notify(f"{name} was deleted or moved on disk. {again}", title="Draft gone",
                            severity="warning", timeout=15, markup=False)
            return
        if not session.dirty:
            self.reload()
            broken = self.editor.unreadable()
            if broken:
                self.app.notify(f"{name} changed on disk and could not be read: {broken}", title="Reloaded",
                                severity="error", timeout=15, markup=False)
                return
            self.app.notify(f"{name} changed on disk and was reloaded (you had no unsaved edits).",
                            title="Reloaded")
            return
        self.ask_reload(marker, found)

    def check_policies(self) -> None:
        """The fleet policies file beside the draft was written, created or removed since it was read: read it
        again and tell the screens (badges, the Policies screen). Only once something has read it."""
        from tenantdeck.tui.messages import PoliciesRead

        fleet = self.editor.policies if self.editor.loaded else None
        if fleet is None or not fleet.changed_on_disk():
            return
        policies = fleet.read()
        self.app.notify(f"{fleet.path.name} changed on disk and was read again: {len(policies.rules)} rule(s)"
                        + (f", {len(policies.problems)} problem(s)" if policies.problems else "") + ".",
                        title="Fleet policies", timeout=6)
        for screen in self.app.screen_stack:
            screen.post_message(PoliciesRead())

    def ask_reload(self, marker: str | None = None, found: OnDisk | None = None) -> None:
        """Ask before dropping unsaved edits for the file's new content (also the palette's "Reload").

        ``found`` is what :meth:`check_disk` found on disk (read here when the palette asks). A file that cannot
        be read as a draft is never offered in exchange for the edits: loading it dropped them (and their recovery
        file) for a read-only draft and left the App screen on an app that was gone (a trial's finding).
        """
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        name = self.editor.path.name
        if not self.session.dirty:
            self.reload()
            self.app.notify(f"Reloaded {name} from disk.")
            return
        if found is None:
            found = self.session.on_disk()
        if found.problems:
            self.ask_unreadable(marker, found)
            return
        self._asking = True

        def answered(yes: bool | None) -> None:
            self._asking = False
            if yes:
                now = self.session.on_disk()  # it may have changed again while the question was up
                if now.problems:
                    self.ask_unreadable(marker, now)
                    return
                self.reload()
                self.app.notify(f"Reloaded {name}; your unsaved edits were dropped.")
            else:
                self._declined = marker
                self.app.notify("Kept your edits. Saving (F2) asks before overwriting the file's new content.")

        question = (f"{name} changed on disk (another editor or person). Load it and drop your unsaved edits?"
                    if marker else f"Reload {name} from disk and drop your unsaved edits?")
        if found.redirect:
            question = f"{question} Note: {found.redirect}."
        self.app.push_screen(ConfirmScreen(shown(question), yes="Reload from disk", no="Keep mine", markup=False),
                             answered)

    def ask_unreadable(self, marker: str | None, found: OnDisk) -> None:
        """The file on disk changed into something that cannot be read as a draft while there are unsaved edits:
        say so, located, and offer only to keep editing or to save the edits over it (saying what that does). The
        edits and their recovery file stay either way."""
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        name = self.editor.path.name
        where = found.problems[0].render()
        more = f" (and {len(found.problems) - 1} more problem(s))" if len(found.problems) > 1 else ""
        said = f"{name} changed on disk and cannot be read as a draft: {where}{more}. Your unsaved edits are kept"
        if found.redirect or found.raw is None:  # nothing to offer: a save is refused too
            self._declined = marker
            why = (f"{found.redirect}: move the link aside" if found.redirect
                   else "F2 cannot write over it: move it aside")
            self.app.notify(f"{said}; {why} first.", title="Kept your edits", severity="error", timeout=20)
            return
        self._asking = True

        def answered(save: bool | None) -> None:
            self._asking = False
            self._declined = marker
            if save:
                self.host.action_save(force=True)
            else:
                self.app.notify(f"Kept your edits; {name} on disk is untouched and cannot be read. F2 saves your "
                                "version over it (asking first).", title="Kept your edits", severity="warning",
                                timeout=15)

        question = (f"{said} (and their recovery file) whichever you choose. Save writes your version over it (the "
                    f"file as it is now is kept as {name}.bak); Keep editing leaves it as it is.")
        self.app.push_screen(ConfirmScreen(shown(question), yes="Save mine over it", no="Keep editing", markup=False),
                             answered)

    def save_refused(self) -> None:
        """A save found the file changed since the session read it (the compare-and-swap refused; nothing written):
        say exactly how (lines added and removed on disk) and let the user choose: reload theirs (dropping these
        edits), overwrite with mine, or do not save (both stay as they are; merge by hand, reload from the palette)."""
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        name = self.editor.path.name
        try:
            disk = safefile.read_text(self.editor.path, yamlsource.MAX_BYTES, errors="replace")
        except OSError:
            disk = None
        if disk is None:
            change = "was deleted or moved"
        else:
            added, removed, _ = recovery.summary(self.session.base_text, disk)
            change = (f"was changed by another editor or a pull: {added} line(s) added, {removed} removed since "
                      "you opened it" if added or removed else "was rewritten since you opened it")
        self._asking = True

        def answered(overwrite: bool | None) -> None:
            self._asking = False
            if overwrite:
                self.host.action_save(force=True)
            else:
                self.app.notify(f"Not saved. {name} on disk is untouched and your edits are kept; reload from the "
                                "palette to take its version.", title="Not saved", severity="warning", timeout=15)

        self.app.push_screen(ConfirmScreen(f"{name} {change}. Nothing was written. Overwrite it with your version "
                                           "(dropping those changes)?", yes="Overwrite", no="Don't save"), answered)

    def reload(self) -> None:
        session = self.session
        session.reload()
        self._declined = None
        self.checkpointer.clear()
        if not session.read_only and not session.validated:
            self.host.validate_in_background()
