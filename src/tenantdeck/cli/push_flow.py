"""``tenantdeck push`` as the CLI shows it: the engine's plan, refusals and events rendered as text, the question
asked on a terminal, and the documented exit codes (see :mod:`tenantdeck.exitcodes`).

All decisions are the engine's (:mod:`tenantdeck.sync.remote.engine`); this module only renders them, so the TUI can
render the same values its own way.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tenantdeck import exitcodes
from tenantdeck.problems import render_text
from tenantdeck.sync.remote.engine import PushRefused, PushRequest, PushResult, prepare_push, push
from tenantdeck.sync.render import render_text as render_plan
from tenantdeck.textsafe import shown

if TYPE_CHECKING:
    from tenantdeck.targets import Target

Confirm = Callable[[str], bool]

#: refusal kind -> exit code
REFUSAL_EXIT = {"conflicts": exitcodes.CONFLICT, "stale_plan": exitcodes.CONFLICT,
                "wrong_target": exitcodes.WRONG_TARGET, "policy_violations": exitcodes.VIOLATIONS}


@dataclass(slots=True)
class PushOptions(PushRequest):
    """The request plus what only a command line has: ``--yes`` and a terminal to ask."""

    yes: bool = False
    interactive: bool = False  #: a terminal is there to answer the question
    confirm: Confirm | None = None
    lock_timeout: float | None = None  #: seconds to wait for another process's workspace lock (None: the default)
    #: ``push --format json``: what the push did, as data; filled by :func:`push_flow` (docs/json-output.md)
    report: dict[str, Any] | None = None
    #: ``promote SOURCE DEST``: the desired state is what this account has (:mod:`tenantdeck.sync.remote.promote`)
    source: Target | None = None


def _err(stream: TextIO, text: str) -> None:
    """Every line of the push's output: plans, notices and refusals quote names and the service's words."""
    text = shown(text, newlines=True)
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


def render_refusal(refused: PushRefused, err: TextIO) -> int:
    """Print why nothing was pushed; returns the exit code."""
    for notice in refused.notices:
        _err(err, notice)
    if refused.kind in ("conflicts", "refused_values") and refused.plan is not None:
        _err(err, render_plan(refused.plan))
    if refused.problems:
        _err(err, render_text(refused.problems).rstrip("\n"))
    prefix = "stale: " if refused.kind == "stale_plan" else "error: "
    for line in refused.lines:
        _err(err, prefix + line)
    _err(err, f"error: {refused.summary}")
    if refused.kind == "policy_violations":
        _err(err, "note: fix the draft (`tenantdeck policy fix`) or let a rule through with "
                  "--allow-violation RULE --reason TEXT")
    return REFUSAL_EXIT.get(refused.kind, exitcodes.ERROR)


async def _push_flow(target: Target, opts: PushOptions, *, env: Mapping[str, str],
                     err: TextIO | None = None) -> int:
    """Prepare, show, ask, push, summarise (holding the workspace lock); returns the exit code."""
    from tenantdeck.cli.progress import ProgressReporter

    err = err if err is not None else sys.stderr
    if opts.source is not None:
        from tenantdeck.sync.remote.promote import prepare_promote

        _err(err, f"Reading {opts.source.describe()} and {target.describe()} ...")
        prepared = await prepare_promote(opts.source, target, opts, env)
    else:
        def reading() -> None:
            if opts.plan_file is None:
                _err(err, f"Reading the service ({target.describe()}) ...")

        prepared = await prepare_push(target, opts, env, reading=reading)
    report = opts.report if opts.report is not None else {}
    if isinstance(prepared, PushRefused):
        report["refusal"] = prepared.to_json()
        if prepared.plan is not None:
            report["plan"] = prepared.plan.to_json(with_snapshots=False)
        return render_refusal(prepared, err)
    for notice in prepared.notices:
        _err(err, notice)
    if opts.source is None and prepared.local.warnings:  # the draft's own (literal secrets...), located
        _err(err, render_text(prepared.local.warnings).rstrip("\n"))
    if prepared.draft_warnings:  # the same, found by the push (an unset ${VAR} it does not send)
        _err(err, render_text(prepared.draft_warnings).rstrip("\n"))
    for warning in prepared.warnings:
        _err(err, f"warning: {warning}")
    said = [p.render() for p in prepared.draft_warnings] + prepared.warnings  # said now: kept for the JSON
    prepared.warnings.clear()
    prepared.draft_warnings.clear()
    plan = prepared.plan
    report["plan"] = plan.to_json(with_snapshots=False)
    _err(err, render_plan(plan))
    if not plan.operations:
        return exitcodes.OK
    if not opts.yes:
        if not opts.interactive or opts.confirm is None:
            _err(err, "error: refusing to push without confirmation: no terminal to ask; pass --yes")
            _refusal(opts, "not_confirmed", "no terminal to ask; pass --yes")
            return exitcodes.USAGE
        where = "the in-process sandbox" if target.in_process else target.base_url
        count = prepared.pending
        if not opts.confirm(f"Push {count} operation{'s' if count != 1 else ''} to {target.name} ({where})?"):
            _err(err, "Nothing pushed.")
            _refusal(opts, "declined", "the question was answered no")
            return exitcodes.ERROR
    progress = ProgressReporter(len(plan.operations), stream=err)
    result = PushResult()  # filled as the push runs, so an interrupted one is summarised too
    try:
        await push(prepared, target, progress.handle, saved_plan=opts.plan_file, result=result)
    finally:
        progress.finish()
        _err(err, result.summary())
        report["result"] = result.to_json()
        report["result"]["warnings"][:0] = said  # every warning of the push, those said before it ran included
    if result.write_failed:
        return exitcodes.WRITE_FAILED
    if not result.complete:
        return exitcodes.PARTIAL
    return exitcodes.LOST_UPDATE if result.lost_updates else exitcodes.OK


async def push_flow(target: Target, opts: PushOptions, *, env: Mapping[str, str],
                    err: TextIO | None = None) -> int:
    """Prepare, show, ask, push, summarise; returns the exit code.

    The whole run, plan and apply, holds the draft's workspace lock: a second push of the same draft started
    meanwhile waits, then plans from what this one did (nothing left to create), or gives up after
    ``opts.lock_timeout`` naming this one (exit :data:`~tenantdeck.exitcodes.LOCKED`). A local write that fails
    (disk full) stops it with :data:`~tenantdeck.exitcodes.WRITE_FAILED` and one line, never a traceback.
    """
    from tenantdeck.atomic import WriteFailed
    from tenantdeck.sync.workspace.lock import WorkspaceLocked, hold
    from tenantdeck.sync.workspace.state import Workspace

    err = err if err is not None else sys.stderr
    draft = opts.draft_path or draft_of_plan(opts.plan_file)
    terminated = _on_sigterm_cancel()
    try:
        with hold(Workspace(draft), "tenantdeck push", timeout=opts.lock_timeout):
            return await _push_flow(target, opts, env=env, err=err)
    except asyncio.CancelledError:
        if not terminated():
            raise
        _err(err, "error: stopped by SIGTERM; what was applied is journalled: run the same command again to finish")
        return exitcodes.TERMINATED
    except WorkspaceLocked as exc:
        _err(err, f"error: {exc}")
        _refusal(opts, "locked", str(exc))
        return exitcodes.LOCKED
    except WriteFailed as exc:
        _err(err, f"error: {exc}; nothing more was sent; free space and run push again")
        return exitcodes.WRITE_FAILED
    finally:
        terminated(stop=True)


def _refusal(opts: PushOptions, kind: str, summary: str) -> None:
    """A refusal the engine did not make (the lock, the question) in the JSON report, as the engine's are."""
    if opts.report is not None:
        opts.report["refusal"] = {"kind": kind, "summary": summary, "lines": [], "problems": [], "notices": []}


def _on_sigterm_cancel() -> Callable[..., bool]:
    """SIGTERM (a CI runner's stop) cancels the running push as Ctrl-C does, so it journals what is in flight,
    prints its summary and the JSON report is written; returns ``terminated(stop=False)``: whether it came (with
    ``stop``: also uninstall the handler). Off the main thread (no signal handlers there) nothing is installed."""
    import signal

    loop, task, came = asyncio.get_running_loop(), asyncio.current_task(), []

    def stop() -> None:
        came.append(True)
        if task is not None:
            task.cancel()

    previous = signal.getsignal(signal.SIGTERM)
    try:
        loop.add_signal_handler(signal.SIGTERM, stop)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False

    def terminated(stop: bool = False) -> bool:
        nonlocal installed
        if stop and installed:
            loop.remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, previous)  # whatever the caller had (a test runner's, the default)
            installed = False
        if came and task is not None:
            task.uncancel()
        return bool(came)

    return terminated


def draft_of_plan(plan_file: Path | None) -> Path:
    """The draft a saved plan names (what :func:`prepare_push` will read), to lock its workspace first and to find
    the account it records."""
    import json

    from tenantdeck import safefile
    from tenantdeck.jsonlimits import too_deep

    try:
        raw = safefile.read_bytes(plan_file, safefile.STATE_MAX_BYTES) if plan_file else b"{}"
        doc = {} if too_deep(raw) else json.loads(raw)  # nested deeper than Python's parser recurses: no plan
        named = doc.get("draft_path") if isinstance(doc, dict) else None
    except (OSError, ValueError):
        named = None  # prepare_push says why the plan cannot be read
    return Path(named) if isinstance(named, str) and named else Path("tenantdeck.yaml")


__all__ = ["PushOptions", "draft_of_plan", "push_flow", "render_refusal"]

