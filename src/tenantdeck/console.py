"""What both the console script (:mod:`tenantdeck.launch`) and the command line (:mod:`tenantdeck.cli`) ask of the
process they run in: whether there is a terminal, click's completion variable, and an exit that survives a
hung-up terminal.

Why a module of its own: the console script calls the command line, so the command line must not import the
console script (a package-level circle); both import these from here, below them.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

#: click's shell-completion variable: when set, the command line prints completions, never opens the editor
COMPLETE_VAR = "_TENANTDECK_COMPLETE"


def on_terminal() -> bool:
    """Whether stdin and stdout are both a terminal: the editor needs one for keys and one for the screen. Without
    (a CI job, a pipe, cron) it would wait forever for keys that never come."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def exit_after_editor(code: int) -> NoReturn:
    """Exit with the editor's code even when its terminal is gone: Python flushes stdout at shutdown, and a
    failed flush (EIO on a hung-up pty) turns any exit status into 120, hiding the 129/143 a hang-up reports."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        os._exit(code)
    sys.exit(code)
