"""Processes the tests start: started as a CI runner starts them, stopped with SIGTERM, never left behind.

A CI runner, ``nohup`` and a shell's ``&`` start jobs with SIGINT ignored, and children inherit that: a test that
stops a child with SIGINT then waits for nothing (and leaves an orphan idling in its event loop). So every child
started here has SIGINT ignored whatever way pytest itself was started (the suite proves, on every run, that what
it starts stops without Ctrl-C), is stopped with SIGTERM, and is killed in a ``finally`` if it did not stop in time,
so a failing test leaves no process behind.

A test about Ctrl-C itself asks for it with ``ctrl_c=True`` (SIGINT restored to its default in the child), as a
terminal's foreground job has it.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any


def _preexec(ctrl_c: bool) -> Any:
    def run() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL if ctrl_c else signal.SIG_IGN)

    return run


def start(args: Sequence[str], *, ctrl_c: bool = False, **popen: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args)`` with SIGINT ignored in the child (or at its default with ``ctrl_c``)."""
    return subprocess.Popen(list(args), preexec_fn=_preexec(ctrl_c), **popen)


def tenantdeck(*args: str, ctrl_c: bool = False, **popen: Any) -> subprocess.Popen[Any]:
    """``python -m tenantdeck ARGS`` as a child process (see :func:`start`)."""
    return start([sys.executable, "-m", "tenantdeck", *args], ctrl_c=ctrl_c, **popen)


def stop(proc: subprocess.Popen[Any], *, timeout: float = 20.0) -> tuple[Any, Any]:
    """SIGTERM, then the child's remaining output; SIGKILL if it has not stopped within ``timeout`` (and the test
    fails with what it printed)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        raise AssertionError(f"{proc.args!r} did not stop within {timeout} s of SIGTERM; stderr: {err!r}") from None


@contextlib.contextmanager
def running(args: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """A child for the length of a block: killed in the ``finally`` if the block did not stop it itself."""
    proc = start(args, **popen)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            with contextlib.suppress(Exception):
                proc.communicate(timeout=10)


def sandbox(db: Any, *extra: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """``tenantdeck sandbox --port 0 --db DB`` served on loopback, with no TENANTDECK_* variable of the test's
    environment; returns the process and the variables of the export line it prints first (base URL, key,
    secret). Stop it with :func:`stop`."""
    import os
    import select
    import shlex

    env = {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}
    proc = tenantdeck("sandbox", "--port", "0", "--db", str(db), *extra,
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    if not ready:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        raise AssertionError(f"the sandbox printed no export line within 30 s; stderr: {err}")
    export = proc.stdout.readline().strip()
    if not export.startswith("export "):
        proc.kill()
        raise AssertionError(f"expected an export line first on stdout, got {export!r}")
    return proc, dict(pair.split("=", 1) for pair in shlex.split(export)[1:])
