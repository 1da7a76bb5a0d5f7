"""The Textual application: global keys, the open draft, and the screens. Kept thin: screens and widgets live in
their own modules, and every decision about the draft is the core's (:mod:`tenantdeck.draft.session`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from tenantdeck.draft.session import Change, ChangeKind
from tenantdeck.gcpause import collect_if_due, collect_rarely, keep_long_lived, let_go_long_lived, restore_thresholds
from tenantdeck.textsafe import shown
from tenantdeck.tui import key_order, navigation, safe_output
from tenantdeck.tui.commands import TenantdeckCommands
from tenantdeck.tui.editor import Editor
from tenantdeck.tui.messages import DraftChanged, DraftListener
from tenantdeck.tui.safety import SafetyNet

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.notifications import SeverityLevel

    from tenantdeck.tui.event_lab import EventLab


#: the longest a worker started after the first paint waits for that frame to be written (a terminal that does not
#: read must not hold the draft back for ever)
FRAME_WAIT = 0.5
#: seconds without a key, a paste or a click, and no worker running, after which the user counts as idle: the
#: full collections the editor puts off (tenantdeck.gcpause.collect_rarely) are made then
IDLE_AFTER = 1.0


class TenantdeckApp(App[None]):
    """Edit one draft. Keys work over SSH and in tmux: nothing relies on ctrl+enter, or on ctrl+s alone."""

    TITLE = "tenantdeck"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {TenantdeckCommands}
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("f2,ctrl+s", "save", "Save", id="save"),
        Binding("ctrl+z", "undo", "Undo", show=False, id="undo"),
        Binding("ctrl+y", "redo", "Redo", show=False, id="redo"),
        Binding("f8", "problems", "Problems", show=False, id="problems"),
        Binding("f6", "review", "Review", id="review"),
        Binding("f7", "history", "History", show=False, id="history"),
        Binding("f5", "pull", "Pull", show=False, id="pull"),
        Binding("f3", "events", "Events", show=False, id="events",
                tooltip="Webhook deliveries received on 127.0.0.1, each checked against the event models"),
        Binding("f4", "copy_path", "Copy path", id="copy_path", show=False,
                tooltip="Copy the focused field's key path to the clipboard (OSC 52; works over SSH)"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
    ]

    def __init__(self, draft: Path, *, profile: str | None = None, event_lab: EventLab | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        safe_output.install()  # no control or bidi character of any data reaches the terminal (tui/safe_output.py)
        key_order.install()  # a burst of keys lands in a text field in the order typed (tui/key_order.py)
        self.key_gate = key_order.KeyGate(self, super().on_event)  # ... and on the screen it opens (the same module)
        self._event_lab = event_lab
        self.animation_level = "none"
        self.editor = Editor(draft, profile=profile)
        self.editor.subscribe(self._changed_in_any_thread)
        self.safety = SafetyNet(self)  # recovery file, SIGHUP/SIGTERM, changes on disk (tui/safety.py)
        self.appearance_themes: list[str] = []
        #: True once the work begun after the first paint (reading a big draft, validating, the change states) has
        #: run and its result was broadcast: until then the Apps list's Problems and Change cells are provisional.
        #: Pictures and benchmarks wait on it; a worker registered later than the first check cannot be missed.
        self.started_up = False
        self._last_input = time.monotonic()
        self._gc_thresholds: tuple[int, int, int] | None = None

    def quiet_for(self) -> float:
        """Seconds since the last key, paste or click reached the editor (0 while keys wait to be handed on): work
        that can wait is done when this is long enough (the hidden tabs an App screen composes ahead)."""
        return 0.0 if self.key_gate.held else time.monotonic() - self._last_input

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's palette with a footer of its own keys (tui/screens/palette.py), not the one behind it."""
        from textual.command import CommandPalette

        from tenantdeck.tui.screens.palette import Palette

        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def delay_update(self, delay: float = 0.05) -> None:
        """Hold the frames until what is already queued, and what that queues, has run; not for a fixed time.

        Textual's palette calls this as it closes on a chosen entry, then queues the entry's command
        (``CommandPalette._select_or_command``), so that no frame shows the screen under the palette before the
        command changed it. Textual holds the frames for ``delay`` (50 ms) whatever the command takes: every palette
        jump's first frame came 50 ms after Enter at the earliest, with the jump itself done in 8 (issue 36). Here
        they are held for two turns of the app's queue, the command's and the one after it."""

        def end_batch() -> None:
            self._end_batch()
            if not self._batch_count:
                self.screen.refresh()

        self._begin_batch()
        self.call_later(self.call_later, end_batch)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notification of every screen comes here: its text quotes names, paths and the service's words, so
        it is shown safe for the terminal and never read as markup (none of tenantdeck's notices uses markup)."""
        super().notify(shown(message, newlines=True), title=shown(title), severity=severity, timeout=timeout,
                       markup=False)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """tenantdeck's own theme variables (the focus bar), for themes that do not set them (tui/appearance.py)."""
        from tenantdeck.tui import appearance

        return {**super().get_theme_variable_defaults(), **appearance.variable_defaults(self.current_theme)}

    async def on_event(self, event: events.Event) -> None:
        """A key or paste goes to Textual once the screen on top has finished with the key before it, so a key
        typed right after one that opens a screen reaches that screen (tui/key_order.py)."""
        if isinstance(event, (events.Key, events.Paste, events.MouseDown)):
            self._last_input = time.monotonic()
        await self.key_gate.on_event(event)

    async def _press_keys(self, keys: Any) -> None:
        """Keys simulated by Textual's Pilot: its ``press`` returns once each key went to the app and the screen
        handled it, so it also waits for the keys the gate holds to be handed on (a test's next step must not
        overtake them, as no real key can)."""
        await super()._press_keys(keys)
        await self.key_gate.handed_on()

    async def _on_key(self, event: events.Key) -> None:
        """A key whose bindings a text field already ran, in order, and that none handled: not run twice
        (tui/key_order.py). The rest is Textual's own handling (this app has no ``key_*`` methods for it to call)."""
        if key_order.checked(event):
            event.prevent_default()  # App._on_key would run the same binding chain again

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, except that on Linux and macOS it lets go of a terminal that has hung up (a dropped SSH
        session): its bounded output queue would otherwise block the exit for ever (tui/terminal_driver.py)."""
        from tenantdeck.tui.terminal_driver import hangup_safe

        return hangup_safe(super().get_driver_class())

    def call_from_worker(self, callback: Callable[..., object], *args: Any) -> None:
        """``call_from_thread`` for this app's worker threads, which must never keep the process alive: nothing is
        called once the app is leaving (a signal, or its loop has stopped), and a call the leaving app drops or
        cancels ends the wait instead of raising in the worker."""
        if not self.is_running or self.safety.signalled is not None:
            return
        with contextlib.suppress(RuntimeError, concurrent.futures.CancelledError, asyncio.CancelledError):
            self.call_from_thread(callback, *args)

    def get_default_screen(self) -> Screen[Any]:
        """The Apps screen is the bottom of the stack, not pushed over Textual's blank default: then the first
        frame written to the terminal is the apps list (one frame, about 50 ms, sooner; bench/tui_startup.py)."""
        from tenantdeck.tui.screens.apps_screen import AppsScreen

        return AppsScreen()

    def on_mount(self) -> None:
        from tenantdeck.tui import appearance, textual_fixes, worker_pool

        self._ui_thread = _current_thread_id()
        worker_pool.install(asyncio.get_running_loop())  # a closed screen is not kept alive by a pool thread
        textual_fixes.install()  # nor by Textual's cache of line styles; one layout per opened screen
        self._gc_thresholds = collect_rarely()  # full collections when idle, not inside a key (tenantdeck.gcpause)
        self.set_interval(IDLE_AFTER / 2, self._collect_when_idle, name="collect when idle")
        self._retitle()
        self.appearance_themes = appearance.setup(self)  # themes, remembered theme, keymap (tui/appearance.py)
        if self.editor.loaded:
            self._draft_read()
        # After the first paint: the worker thread imports pydantic and validates (or reads a big draft first),
        # holding the GIL most of the time, so started here it delays the first frame by about as long as it runs.
        self.call_after_refresh(self._after_first_paint)

    def _draft_read(self) -> None:
        """What needs the whole draft: recovery and disk watch, and the Problems screen for one that cannot be
        edited. At once for a small draft; for a big one when the worker has read it."""
        self.safety.start()
        if self.editor.session.read_only:
            self.action_problems()

    def _after_first_paint(self) -> None:
        if not self.editor.loaded:
            if self.editor.read_after_paint:  # a medium draft: read here, a few tens of ms (tui/editor.py)
                self._first_frame_written()
                self.editor.load()
                self._read_in_background_done()
            else:
                self.read_in_background()
            return
        if self.editor.session.read_only:
            self.started_up = True  # nothing to validate: the Problems screen shows why
        else:
            self.validate_in_background()
        self._offer_unfinished_push()

    def _first_frame_written(self) -> None:
        """Before work that starts after the first paint and holds the GIL (a worker, or reading a medium draft on
        this thread): wait until that frame is on the terminal (at most :data:`FRAME_WAIT`), so that the work does
        not hold up the writer thread. Without a terminal (tests, a web driver) at once."""
        from tenantdeck.tui.terminal_driver import HangupSafeDriver

        driver = self._driver
        if isinstance(driver, HangupSafeDriver):
            driver.wait_written(FRAME_WAIT)

    @work(thread=True, exclusive=True, group="read", exit_on_error=False)
    def read_in_background(self) -> None:
        """A big draft: the Apps screen shows its first apps (tui/editor.py) while this reads all of it."""
        self._first_frame_written()
        self.editor.load()
        self.call_from_worker(self._read_in_background_done)

    def _read_in_background_done(self) -> None:
        self._draft_read()
        self._broadcast(Change(self.editor.session.version, ChangeKind.RELOAD, (), ()))
        self._after_first_paint()

    def _collect_when_idle(self) -> None:
        """The full collection Python would have made by now (:func:`tenantdeck.gcpause.collect_if_due`), once
        nobody has typed for :data:`IDLE_AFTER` and no worker runs: 100-400 ms at 1,000 apps, between keys."""
        if time.monotonic() - self._last_input >= IDLE_AFTER and not any(w.is_running for w in self.workers):
            collect_if_due()

    async def on_unmount(self) -> None:
        self.safety.remove_signals()
        if self._gc_thresholds is not None:
            restore_thresholds(self._gc_thresholds)
        let_go_long_lived()  # what keep_long_lived kept out of collections is garbage now (tenantdeck.gcpause)
        if self._event_lab is not None:
            await self._event_lab.stop()

    @property
    def event_lab(self) -> EventLab:
        """The Events screen's receiver, created on first use (on the configured port) and kept for the session."""
        if self._event_lab is None:
            from tenantdeck.locations import config_dir
            from tenantdeck.prefs.settings import load
            from tenantdeck.tui.event_lab import EventLab

            self._event_lab = EventLab(load(config_dir()).events_port)
        return self._event_lab

    @event_lab.setter
    def event_lab(self, lab: EventLab) -> None:
        """Replace it before the Events screen is first shown (pictures inject a stopped one with a fixed clock)."""
        self._event_lab = lab

    def _offer_unfinished_push(self) -> None:
        """A push cut off by a crash or a dropped session is said at the next start, with how to finish it."""
        from tenantdeck.sync.workspace.journal import unfinished_push
        from tenantdeck.sync.workspace.state import Workspace

        try:
            line = unfinished_push(Workspace(self.editor.path).journal_dir)
        except OSError:
            return
        if line:
            self.notify(f"{line[0].upper()}{line[1:]}. F6 then p pushes again and finishes it without duplicates.",
                        title="Unfinished push", severity="warning", timeout=30)

    @work(thread=True, exclusive=True, group="validate", exit_on_error=False)
    def validate_in_background(self) -> None:
        """Models and rules (pydantic) and the change states, after the first paint."""
        self._first_frame_written()
        try:
            self.editor.session.validate_all()
            self.editor.compute_app_states()
            self.call_from_worker(self._broadcast, Change(self.editor.session.version, ChangeKind.VALIDATE, (), ()))
        finally:  # also when validation failed: then nothing more will come
            self.call_from_worker(setattr, self, "started_up", True)
        self.editor.session.remember_parse()  # a big draft opens without parsing next time (draft/parsecache.py)
        keep_long_lived()  # the draft read and validated: no full collection walks it again (tenantdeck.gcpause)

    # -- changes -----------------------------------------------------------------------------------------------

    def _changed_in_any_thread(self, change: Change) -> None:
        if getattr(self, "_ui_thread", None) == _current_thread_id():
            self._broadcast(change)
        # a worker's change (validate) is broadcast by the worker itself once it is complete

    def _broadcast(self, change: Change) -> None:
        self._retitle()
        if change.kind not in (ChangeKind.VALIDATE, ChangeKind.RELOAD, ChangeKind.SAVE) and self.editor.app_states:
            self.refresh_states(change)
        for screen in self.screen_stack:
            screen.post_message(DraftChanged(change))
            for widget in screen.walk_children(Widget):
                if isinstance(widget, DraftListener):
                    widget.post_message(DraftChanged(change))

    @work(thread=True, exclusive=True, group="states", exit_on_error=False)
    def refresh_states(self, change: Change) -> None:
        self.editor.compute_app_states()
        self.call_from_worker(self._broadcast_states)

    def _broadcast_states(self) -> None:
        """New change states: the Apps list updates its Change cells in place (a rebuild of 5,000 rows after
        every edit would stall the UI for a second)."""
        from tenantdeck.tui.screens.apps_screen import AppsScreen

        for screen in self.screen_stack:
            if isinstance(screen, AppsScreen):
                screen.refresh_status()

    def _retitle(self) -> None:
        self.title = f"tenantdeck — {self.editor.title}"

    # -- navigation: which screen opens which is tui/navigation.py's ----------------------------------------------

    def open_app(self, index: int, tab: str | None = None, path: str | None = None) -> None:
        """Open app ``index`` on ``tab``, with the focus in the field of key path ``path`` when the tab has it."""
        navigation.open_app(self, index, tab, path)

    def go_to_app(self, index: int, tab: str | None = None, path: str | None = None) -> None:
        """Show app ``index`` on ``tab`` in place of the screen asking, reusing its App screen when open."""
        navigation.jump(self, index, tab, path)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """F6 is not listed on the review screen itself (its footer needs the room at 80 columns)."""
        if action == "review":
            return navigation.open_review(self) is None
        return True

    def action_help(self) -> None:
        navigation.show(self, "help")

    def action_problems(self) -> None:
        navigation.show(self, "problems")

    def action_review(self) -> None:
        navigation.show(self, "review")

    def action_pull(self) -> None:
        navigation.show(self, "pull")

    def action_history(self) -> None:
        navigation.show(self, "history")

    def action_events(self) -> None:
        navigation.show(self, "events")

    def action_bulk_edit(self) -> None:
        """The bulk edit screen, with the apps marked (and the filter typed) on the Apps screen; refused at once,
        saying why, when no edit can be made (the palette runs it even while the Apps screen greys its key)."""
        refusal = self.editor.edit_refusal()
        if refusal:
            self.notify(refusal, title="No bulk edit", severity="error", timeout=15)
            return
        navigation.show(self, "bulk_edit")

    def action_presets(self) -> None:
        navigation.show(self, "presets")

    def action_policies(self) -> None:
        navigation.show(self, "policies")

    def action_reload(self) -> None:
        """Read the draft from disk again, asking first when that drops unsaved edits (tui/safety.py)."""
        self.safety.ask_reload()

    # -- edits ---------------------------------------------------------------------------------------------------

    def action_undo(self) -> None:
        self._undo_or_redo("undo")

    def action_redo(self) -> None:
        self._undo_or_redo("redo")

    def _undo_or_redo(self, which: str) -> None:
        """Undo or redo, and say what it changed (a key that changes something off screen must say so)."""
        words = self.editor.undo_words(which)
        outcome = self.editor.undo() if which == "undo" else self.editor.redo()
        if not outcome.ok:
            self.notify(outcome.refused, severity="error")
        elif words:
            self.notify(f"{'Undid' if which == 'undo' else 'Redid'} the edit of {words}", timeout=4)
        else:
            self.notify(f"Nothing to {which}.", timeout=3)

    def action_save(self, force: bool = False) -> None:
        from tenantdeck.draft.session import ChangedOnDisk
        from tenantdeck.problems import ProblemError
        from tenantdeck.sync.workspace.lock import TIMEOUT_ENV, WorkspaceLocked, hold
        from tenantdeck.sync.workspace.state import Workspace, WorkspaceError

        session = self.editor.session
        try:
            # under the workspace lock, so a pull or another editor's save is not half-way through its write
            with hold(Workspace(self.editor.path), "tenantdeck edit (saving)", timeout=save_lock_timeout()):
                result = session.save(force=force)
        except ChangedOnDisk:
            self.safety.save_refused()
            return
        except WorkspaceLocked as exc:  # in the editor's words: there is no --lock-timeout here
            again = f"press F2 again once it has finished, or start the editor with {TIMEOUT_ENV}=SECONDS " \
                    "to wait longer"
            self.notify(exc.text(again), title="Not saved", severity="error", timeout=15, markup=False)
            return
        except WorkspaceError as exc:
            self.notify(f"{exc}", title="Not saved", severity="error", timeout=15)
            return
        except (ProblemError, OSError) as exc:
            self.notify(str(getattr(exc, "problem", exc).message if hasattr(exc, "problem") else exc),
                        title="Not saved", severity="error")
            return
        self._retitle()
        # two seconds, not Textual's five: the toast covers the right end of the rows under it (a trial's finding),
        # and the title's dirty marker, gone, says the same for as long as it matters
        if result.method == "unchanged":
            self.notify("Nothing to save.", timeout=2)
        else:
            self.notify(f"Saved {self.editor.path.name}.", timeout=2)
        # Not broadcast here: the session tells its listeners of a save (the app is one, _changed_in_any_thread),
        # and a save with nothing to write changed nothing to redraw.

    def action_copy_path(self) -> None:
        path = navigation.focused_key_path(self)
        if not path:
            self.notify("Nothing here has a key path to copy.", severity="warning")
            return
        self.copy_to_clipboard(path)
        self.notify(f"Copied {path} (OSC 52: in tmux, `set -g set-clipboard on`).")

    async def action_quit(self) -> None:
        """Quit at once, or ask first when it would lose something: the draft's unsaved edits, or what a form on the
        stack holds that is not in the draft yet (a screen's ``unsaved_input()``: ctrl+q in the webhook form quit
        and dropped what was typed there)."""
        typed = [what for screen in self.screen_stack
                 if (what := getattr(screen, "unsaved_input", lambda: None)()) is not None]
        if not self.editor.session.dirty and not typed:
            self.safety.clean_exit()
            self.exit()
            return
        from tenantdeck.tui.widgets.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.safety.clean_exit()
                self.exit()

        lost = [*(["the draft's unsaved changes"] if self.editor.session.dirty else []), *typed]
        # no key of the screen behind is named: it does nothing in the dialog (F2 saves once No went back)
        self.push_screen(ConfirmScreen(f"Quit and lose {' and '.join(lost)}? No goes back to save them.",
                                       yes="Quit without saving", markup=False), answered)


#: seconds a save waits for another process's lock when $TENANTDECK_LOCK_TIMEOUT is not set (README's exit 5 row)
SAVE_LOCK_WAIT = 2.0


def save_lock_timeout() -> float:
    """How long a save (F2) waits for another process's workspace lock: ``$TENANTDECK_LOCK_TIMEOUT`` when set, else
    a couple of seconds (the screen does not answer keys while it waits)."""
    import os

    from tenantdeck.sync.workspace.lock import TIMEOUT_ENV, timeout_from

    return timeout_from(None) if os.environ.get(TIMEOUT_ENV) else SAVE_LOCK_WAIT


def _current_thread_id() -> int:
    import threading

    return threading.get_ident()
