"""The terminal's side of a pseudo-terminal, for the end-to-end tests that run the editor on one (test_hangup.py,
test_alt_keys.py): what the editor drew, escape codes stripped, and raw bytes typed as a terminal sends them."""

from __future__ import annotations

import contextlib
import os
import re
import select
import time

_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


class Terminal:
    """The terminal's side of the pty: what the editor drew (escape codes stripped), and keys to send."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.seen = b""
        self.open = True

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if ready:
                try:
                    self.seen += _ESCAPES.sub(b"", os.read(self.master, 1 << 16))
                except OSError:
                    return

    def wait_for(self, *markers: bytes, timeout: float = 60.0) -> bytes:
        """Wait until one of ``markers`` is drawn (since the last :meth:`forget`); the one that was."""
        end = time.monotonic() + timeout
        while not (drawn := [marker for marker in markers if marker in self.seen]):
            assert time.monotonic() < end, f"{markers!r} never drawn; last output: {self.seen[-400:]!r}"
            self.pump(0.05)
        return drawn[0]

    def forget(self) -> None:
        """Drop what was drawn so far: the next :meth:`wait_for` looks only at what comes after."""
        self.seen = b""

    def keys(self, data: bytes) -> None:
        """Type without ever blocking on an editor that stopped reading (keys that do not fit are dropped)."""
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.master, data)

    def hang_up(self) -> None:
        if self.open:
            self.open = False
            os.close(self.master)
