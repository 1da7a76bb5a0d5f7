"""The editor's last line of defence after SIGHUP or SIGTERM: the unsaved text is kept and the process is gone
within :data:`GRACE` seconds, whatever the terminal, the event loop or a worker thread is doing.

The normal path is the event loop's (:meth:`tenantdeck.tui.safety.SafetyNet.on_signal`: checkpoint, then a normal
exit that restores the terminal when it is still there). It can fail to finish: the loop may be blocked writing to
a terminal that does not read (so the signal's callback never runs), Textual's exit may wait on its output thread,
and the interpreter's exit joins every worker thread. So a signal also wakes this thread. If the loop has not
written the checkpoint after :data:`RESCUE_AFTER` seconds, the thread writes it itself; once :data:`GRACE` seconds
have passed since the signal, it ends the process with ``os._exit(128 + signum)``. Nothing is lost by that: the
recovery file is on disk (written atomically and synced) before the exit.

The thread is started with the editor and sleeps on a pipe: the signal handler only writes one byte to it (no lock,
no thread start inside a signal handler, which could deadlock against the interrupted code).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable

#: seconds after the signal before the process is ended, if it has not ended by itself
GRACE = 3.0
#: seconds the watchdog waits for the event loop's checkpoint before writing it from its own thread
RESCUE_AFTER = 1.0


class ExitWatchdog:
    """One per editor process. :meth:`alarm` from a signal handler; :meth:`checkpointed` once the loop has written
    the checkpoint; :meth:`stop` when the app ends without a signal (the thread then exits)."""

    def __init__(self, rescue: Callable[[], object], *, grace: float = GRACE, rescue_after: float = RESCUE_AFTER,
                 exit: Callable[[int], object] = os._exit) -> None:
        self._rescue = rescue
        self.grace = grace
        self.rescue_after = rescue_after
        self._exit = exit
        self._read_fd, self._write_fd = os.pipe()
        self._closed = False
        self._checkpointed = threading.Event()
        self.rescued = False
        self._thread = threading.Thread(target=self._run, name="tenantdeck-exit-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def alarm(self, signum: int) -> None:
        """From a signal handler: one ``os.write`` (async-signal-safe), nothing else."""
        if 0 < signum < 256 and not self._closed:
            with contextlib.suppress(OSError):
                os.write(self._write_fd, bytes((signum,)))

    def checkpointed(self) -> None:
        """The event loop wrote the checkpoint: no rescue needed (the exit deadline still holds)."""
        self._checkpointed.set()

    def stop(self) -> None:
        """The app ended without a signal: the thread reads a zero byte and ends.

        Called on the main thread, where signal handlers also run, so :meth:`alarm` sees ``_closed`` before the
        descriptor is closed (and never writes to a number the system may have handed out again)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._write_fd, b"\0")
        with contextlib.suppress(OSError):
            os.close(self._write_fd)
        if self._thread.ident is None:  # never started: nothing will read (or close) the other end
            with contextlib.suppress(OSError):
                os.close(self._read_fd)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            data = os.read(self._read_fd, 1)
        except OSError:
            data = b""
        with contextlib.suppress(OSError):
            os.close(self._read_fd)  # the write end is closed by stop(), or left to the process's exit
        signum = data[0] if data else 0
        if not signum:
            return
        deadline = time.monotonic() + self.grace
        if not self._checkpointed.wait(self.rescue_after):
            self.rescued = True
            with contextlib.suppress(Exception):  # whatever went wrong, the exit below must still happen
                self._rescue()
        time.sleep(max(0.0, deadline - time.monotonic()))
        self._exit(128 + signum)
