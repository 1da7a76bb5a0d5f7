"""What the command line says about its own work on stderr: ``-v``/``--verbose``, ``--debug``, ``TENANTDECK_LOG``.

Levels: by default warnings only (a connection that failed and is being retried is one: otherwise an unreachable
host is seconds of silence); ``-v`` adds the retries of 429/5xx answers and other progress notes; ``-vv`` or
``--debug`` (or ``TENANTDECK_LOG=debug``) adds one line per request: method, path, query, status, time, attempt.
Never a header value or a body: the client's messages are already redacted, and every line passes
:func:`tenantdeck.textsafe.shown`. The editor installs nothing (a line on stderr would tear its screen).
"""

from __future__ import annotations

import logging
import os
import sys

ENV_LOG = "TENANTDECK_LOG"
LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a line is logged (a test runner swaps it per invocation)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _Format(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        from tenantdeck.textsafe import shown

        level = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "note"}.get(record.levelno, "error")
        return shown(f"{level}: {record.getMessage()}")


def level_for(verbose: int, debug: bool, env: str | None) -> int:
    """The flags win over the environment; an unknown ``TENANTDECK_LOG`` value is ignored (warnings only)."""
    if debug or verbose >= 2:
        return logging.DEBUG
    if verbose == 1:
        return logging.INFO
    return LEVELS.get((env or "").strip().lower(), logging.WARNING)


def configure(verbose: int = 0, debug: bool = False) -> None:
    """Send tenantdeck's log lines at the chosen level to stderr (replacing an earlier call's handler)."""
    logger = logging.getLogger("tenantdeck")
    for handler in [h for h in logger.handlers if isinstance(h, _StderrHandler)]:
        logger.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(_Format())
    logger.addHandler(handler)
    logger.setLevel(level_for(verbose, debug, os.environ.get(ENV_LOG)))


__all__ = ["ENV_LOG", "configure", "level_for"]
