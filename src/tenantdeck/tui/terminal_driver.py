"""Textual's Linux/macOS driver, made to let go of a terminal that has gone (a dropped SSH session, a killed tmux).

Textual 8.2.8 writes the screen through a ``WriterThread`` that drains a bounded queue (30 writes) into stderr. When
the terminal hangs up, the first write raises ``OSError`` (EIO on a pty whose master was closed), the exception ends
that thread, and nothing drains the queue any more: the 31st write blocks for ever, and ``LinuxDriver.close`` (called
by ``App._shutdown``) puts one more item, then joins. So a hang-up while the screen was busy left the editor an
orphan that never exited (Textual issue #6692 is the same dead-consumer hang reached through ``App.suspend``).
A terminal that stops reading (a frozen client) blocks the writer thread in the kernel instead, with the same end.

Three changes, each one the smallest that removes one way to hang:

- :class:`TerminalOutput` is the file the writer thread writes to: a write or flush that fails marks the terminal
  gone and every later one is dropped, so the writer thread never dies and the queue keeps draining.
- :meth:`HangupSafeDriver.write` drops output at once when the terminal is known to be gone (a failed write, or
  :meth:`HangupSafeDriver.hang_up` on SIGHUP), so the UI thread never waits on the queue for a terminal nobody sees.
- :meth:`HangupSafeDriver.close` waits a bounded time for the writer thread (which is a daemon thread): a terminal
  that does not read cannot hold the exit.

The process's last line of defence is :mod:`tenantdeck.tui.watchdog`; this module keeps the normal exit fast.

Its input loop also reads Escape merged with the next key as one Alt key, always (:mod:`tenantdeck.tui.alt_keys`).
"""

from __future__ import annotations

import os
import select
import signal
import threading
from typing import IO, TYPE_CHECKING, Any

from textual.drivers import linux_driver
from textual.drivers.linux_driver import LinuxDriver

from tenantdeck.tui.alt_keys import AltKeyParser

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver

#: seconds ``close`` waits for the writer thread to write what is queued (the escape codes restoring the terminal)
CLOSE_TIMEOUT = 1.0


class TerminalOutput:
    """The writer thread's file: the terminal while it takes writes, a sink once one has failed.

    ``OSError`` covers every way a terminal goes: EIO (the pty's other side closed), EPIPE, ENXIO, EBADF.
    ``ValueError`` is a file Python itself already closed.
    """

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.gone = False
        self.error: BaseException | None = None
        #: set when the writer thread has flushed everything queued so far (it flushes when its queue is empty),
        #: cleared by each new write; best effort (a write racing a flush can find it set a moment early)
        self.written = threading.Event()
        self.written.set()

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._file.write(text)
            except (OSError, ValueError) as exc:
                self.lost(exc)
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except (OSError, ValueError) as exc:
                self.lost(exc)
        self.written.set()

    def lost(self, error: BaseException | None = None) -> None:
        """Nothing more is written: the terminal failed a write (``error``) or hung up."""
        self.gone = True
        self.written.set()
        if error is not None and self.error is None:
            self.error = error

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return True


class HangupSafeDriver(LinuxDriver):
    """:class:`~textual.drivers.linux_driver.LinuxDriver` that never blocks the app on a terminal that has gone."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.output = TerminalOutput(self._file)
        self._file = self.output  # what start_application_mode hands to its WriterThread

    def hang_up(self) -> None:
        """The terminal hung up (SIGHUP): drop the rest of the output, the escape codes that restore it included."""
        self.output.lost()

    def start_application_mode(self) -> None:
        super().start_application_mode()
        watcher = threading.Thread(target=self._watch_hang_up, name="tenantdeck-hangup-watch", daemon=True)
        watcher.start()

    def run_input_thread(self) -> None:
        """Textual's input loop, with its terminal parser's Escape+key made always an Alt key (tui/alt_keys.py).

        Textual builds the parser inside this loop from its module's name ``XTermParser``; a test fails if that
        name is no longer what the loop reads."""
        linux_driver.XTermParser = AltKeyParser  # type: ignore[misc]
        super().run_input_thread()

    def _watch_hang_up(self) -> None:
        """Raise SIGHUP in this process when the terminal hangs up without sending it.

        A killed tmux (or dropped SSH session) sends SIGHUP to the session's processes, but not when the editor
        runs under ``make run``: make is the session leader, and the editor, never told, read end-of-file from
        its terminal every 0.1 s for ever (Textual's input thread), an orphan at 40-60% of a CPU. A poll that
        asks for no event reports only a hang-up or an error, and reads nothing, so no key is taken from Textual.
        """
        try:
            poller = select.poll()
            poller.register(self.fileno, 0)
        except (OSError, ValueError, AttributeError):
            return
        while not self.exit_event.is_set():
            try:
                events = poller.poll(500)
            except OSError:
                return
            if any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, mask in events):
                # the safety net's own path (recovery saved, then exit), but only while its handler is there: once
                # a SIGHUP the kernel did send is being handled, the handlers are given back, and a second one
                # would end the process with the default action (exit -1, found by test_hangup's close rounds)
                if not self.exit_event.is_set() and callable(signal.getsignal(signal.SIGHUP)):
                    os.kill(os.getpid(), signal.SIGHUP)
                return

    def write(self, data: str) -> None:
        if self.output.gone:
            return
        self.output.written.clear()
        super().write(data)

    def wait_written(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until what the app has written so far is on the terminal.

        For the app's workers that start after the first frame and hold the GIL (reading a draft, importing
        pydantic): the frame is handed to the writer thread, not yet written, when a ``call_after_refresh``
        runs, and a worker started then delayed its write by 20-40 ms of a 0.3 s start (bench/tui_startup.py).
        """
        return self.output.written.wait(timeout)

    def close(self) -> None:
        """Stop the writer thread, waiting at most :data:`CLOSE_TIMEOUT` for it.

        ``WriterThread.stop`` puts a sentinel on the bounded queue and joins: it runs in a helper thread so that a
        writer stuck in the kernel (a terminal that does not read) leaves the exit to go on without it.
        """
        writer = self._writer_thread
        if writer is None:
            return
        if not writer.is_alive():  # died some other way: its queue may be full, and nothing would drain it
            return
        stopper = threading.Thread(target=writer.stop, name="tenantdeck-output-stop", daemon=True)
        stopper.start()
        stopper.join(CLOSE_TIMEOUT)
        if stopper.is_alive():
            self.output.lost()


def hangup_safe(driver_class: type[Driver]) -> type[Driver]:
    """The driver to use instead of ``driver_class``: ours in place of Textual's plain Linux/macOS driver; any
    other (Windows, ``TEXTUAL_DRIVER`` from the environment) as it is."""
    return HangupSafeDriver if driver_class is LinuxDriver else driver_class
