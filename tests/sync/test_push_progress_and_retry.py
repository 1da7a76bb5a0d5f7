"""The push's progress figures (injectable clock), a retry's scope, and the local sandbox's faults from the
environment."""

from __future__ import annotations

import pytest

from tenantdeck.sync.events import PushEvent
from tenantdeck.sync.plan import Plan
from tenantdeck.sync.progress import PushProgress
from tenantdeck.sync.remote.engine import op_identity, retry_scope, unfinished_ops
from tenantdeck.sync.remote.push import OpResult, PushResult
from tenantdeck.sync.types import Step
from tenantdeck.targets import ProfileError, sandbox_faults


def step(key: str, app: str, kind: str, rid: str = "", depends: tuple[str, ...] = ()) -> Step:
    return Step(key=key, kind=kind, app_id=None, app_name=app, resource=rid or app, depends_on=list(depends),
                destructive=False, changes=[], payload={}, app_key=f"new:{app}", rid=rid)


def test_progress_counts_rate_eta_and_what_is_running_from_events_and_the_clock() -> None:
    now = [100.0]
    progress = PushProgress(4, lambda: now[0])
    a, b = step("a", "Acme", "create_app"), step("b", "Globex", "update_widget", "w1")
    progress.feed(PushEvent("started", op=a, total=4))
    progress.feed(PushEvent("started", op=b, total=4))
    assert progress.rate is None and "rate —" in progress.line() and "ETA —" in progress.line()
    assert "running: Acme: create app, Globex: update widget" in progress.line()
    now[0] = 102.0
    progress.feed(PushEvent("applied", op=a, done=1, total=4, counts={"applied": 1}))
    assert progress.rate == 0.5 and progress.eta == 6.0
    assert progress.line().startswith("1/4 done · 0.5 ops/s · ETA 6s · running: Globex: update widget")
    progress.feed(PushEvent("failed", op=b, done=2, total=4, counts={"applied": 1, "failed": 1}))
    assert "1 failed" in progress.line() and "running" not in progress.line()


def test_a_frozen_clock_shows_no_rate_or_eta() -> None:
    progress = PushProgress(2, lambda: 0.0)
    progress.feed(PushEvent("applied", op=step("a", "A", "create_app"), done=1, total=2))
    assert progress.rate is None and progress.line() == "1/2 done · rate — · ETA —"


def test_a_retry_keeps_only_what_was_not_applied_and_what_that_needs() -> None:
    create = step("c1", "New", "create_app")
    widget = step("c2", "New", "create_widget", "new:Support", depends=("c1",))
    other = step("u1", "Acme", "update_widget", "w1")
    done = step("u2", "Globex", "update_widget", "w2")
    previous = PushResult([OpResult(done, "applied"), OpResult(other, "applied"), OpResult(create, "failed", "503"),
                           OpResult(widget, "not_attempted", "needs c1 first")])
    only = unfinished_ops(previous)
    assert only == {op_identity(create), op_identity(widget)}
    fresh = Plan(operations=[create, widget, step("u3", "Initech", "update_sms")],
                 fingerprints={"new:New/app:": "x", "new:Initech/sms:": "y"})
    scoped, left = retry_scope(fresh, only)
    assert [op.key for op in scoped.operations] == ["c1", "c2"] and left == 1
    assert list(scoped.fingerprints) == ["new:New/app:"]
    # a dependency of a retried operation comes along even when it was not in the failed set
    scoped, left = retry_scope(fresh, frozenset({op_identity(widget)}))
    assert [op.key for op in scoped.operations] == ["c1", "c2"] and left == 1


def test_sandbox_faults_come_from_the_environment_and_bad_values_are_refused() -> None:
    assert sandbox_faults({}) == {}
    env = {"TENANTDECK_SANDBOX_FAIL_RATE": "0.25", "TENANTDECK_SANDBOX_RNG_SEED": "7",
           "TENANTDECK_SANDBOX_LATENCY_MS": "20", "TENANTDECK_SANDBOX_RETRY_AFTER": "0"}
    assert sandbox_faults(env) == {"fail_rate": 0.25, "rng_seed": 7, "latency_ms": 20, "retry_after": 0}
    with pytest.raises(ProfileError, match=r"TENANTDECK_SANDBOX_FAIL_RATE='2' must be between 0\.0 and 1\.0"):
        sandbox_faults({"TENANTDECK_SANDBOX_FAIL_RATE": "2"})
    with pytest.raises(ProfileError, match="is not an integer"):
        sandbox_faults({"TENANTDECK_SANDBOX_RNG_SEED": "seven"})


def test_the_command_line_draws_the_same_figures_plain_in_a_log_and_as_a_bar_on_a_terminal() -> None:
    """One implementation of the numbers (PushProgress); the CLI only draws them: throttled plain lines where no
    terminal is (CI logs), a rich bar on one, both with the TUI's words."""
    import io

    from tenantdeck.cli.progress import ProgressReporter

    now = [0.0]
    log = io.StringIO()
    cli = ProgressReporter(3, stream=log, interval=5.0, clock=lambda: now[0])
    ops = [step(k, name, "update_widget", "w") for k, name in (("a", "Acme"), ("b", "Globex"), ("c", "Initech"))]
    for done, op in enumerate(ops, 1):
        cli.handle(PushEvent("started", op=op, total=3))
        now[0] += 1.0
        cli.handle(PushEvent("applied", op=op, done=done, total=3, counts={"applied": done}))
    cli.finish()
    lines = log.getvalue().splitlines()
    # the first result at once, the next within the interval held back, the last (final) always
    assert lines == ["push: 1/3 done · 1.0 ops/s · ETA 2s", "push: 3/3 done · 1.0 ops/s · ETA 0s"]
    assert lines[-1] == cli.line() == "push: " + cli.progress.line()

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = ProgressReporter(2, stream=screen, clock=lambda: 0.0)
    hostile, plain = step("x", "\x1b[2J[bold]Evil", "update_widget", "w"), step("y", "Acme", "update_widget", "w")
    bar.handle(PushEvent("started", op=hostile, total=2))
    bar.handle(PushEvent("started", op=plain, total=2))
    bar.handle(PushEvent("applied", op=plain, done=1, total=2, counts={"applied": 1}))
    bar.finish()  # drawn at the stop: the hostile app is still running
    drawn = screen.getvalue()
    assert "1/2" in drawn and "[bold]Evil" in drawn and "\x1b[2J" not in drawn  # data shown, never interpreted
