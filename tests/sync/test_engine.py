"""The push engine as data: events in order, refusals as values, cancellation that resumes, and no printing.

The CLI and the TUI both render these values; nothing in ``tenantdeck.sync`` may write to a terminal, ask a
question or choose an exit code.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest

from tenantdeck.models import App, WidgetSettings
from tenantdeck.sync.remote.engine import Prepared, PushEvent, PushRefused, PushRequest, prepare_push, push
from tenantdeck.sync.remote.push import PushResult
from tests.models import factories
from tests.sync.helpers_push import (
    app_named,
    call,
    edit_draft,
    live_summary,
    loaded,
    target_for,
)

ENV = {"NEW_HOOK_PW": "EngineHookPw1"}


def add_apps(draft: Path, *names: str) -> None:
    def change(d: Any) -> None:
        d.presets["support"] = WidgetSettings.model_validate(factories.full_settings())
        for name in names:
            d.apps.append(App.model_validate(factories.app(
                name, webhooks=[factories.webhook("fresh", password="${NEW_HOOK_PW}")])))

    edit_draft(draft, change)


def prepare(sandbox: Any, draft: Path, env: dict[str, str] | None = None, **kw: Any) -> Prepared | PushRefused:
    return asyncio.run(prepare_push(target_for(sandbox), PushRequest(draft_path=draft, retry_base_delay=0.001, **kw),
                                    ENV if env is None else env))


def test_a_push_reports_each_operation_as_events_that_add_up_to_the_result(sandbox: Any, draft: Path) -> None:
    add_apps(draft, "Evented")
    prepared = prepare(sandbox, draft)
    assert isinstance(prepared, Prepared), prepared
    events: list[PushEvent] = []
    result = asyncio.run(push(prepared, target_for(sandbox), events.append))
    assert result.complete
    ops = [op.key for op in prepared.plan.operations]
    started = [e.op.key for e in events if e.kind == "started" and e.op]
    applied = [e.op.key for e in events if e.kind == "applied" and e.op]
    assert sorted(started) == sorted(ops) and sorted(applied) == sorted(ops)
    for key in ops:  # every operation starts before it is applied
        assert started.index(key) <= [e.op.key for e in events if e.op and e.kind in ("started", "applied")].index(
            key) + 1
    (assigned,) = [e for e in events if e.kind == "id_assigned" and e.op and e.op.kind == "create_app"]
    assert assigned.app_id == live_summary(sandbox)["apps"]["Evented"]["id"]
    last = [e for e in events if e.kind == "applied"][-1]
    assert last.done == last.total == len(ops) and dict(last.counts) == result.counts()
    assert app_named(loaded(draft), "Evented").id == assigned.app_id


def test_refusals_are_values_with_located_problems(sandbox: Any, draft: Path) -> None:
    add_apps(draft, "Refused")
    refused = prepare(sandbox, draft, env={})
    assert isinstance(refused, PushRefused) and refused.kind == "missing_secrets"
    (problem,) = refused.problems
    assert problem.file.endswith("tenantdeck.yaml") and problem.line > 0 and "NEW_HOOK_PW" in problem.message

    add_apps(draft)  # nothing new, but the variable is set below
    acme_id = app_named(loaded(draft), "Acme Support").id
    (widget,) = call(sandbox, "list_widgets", acme_id)
    call(sandbox, "update_widget", acme_id, widget.widget_id,
         {**widget.settings, "style": {**widget.settings["style"], "primary_color": "#222222"}})

    def conflicting(d: Any) -> None:
        w = app_named(d, "Acme Support").widgets[0]
        w.style.primary_color = "#111111"

    edit_draft(draft, conflicting)
    refused = prepare(sandbox, draft)
    assert isinstance(refused, PushRefused) and refused.kind == "conflicts"
    assert refused.plan is not None
    (conflict,) = refused.plan.conflicts
    assert (conflict.path, conflict.draft, conflict.live) == ("style.primary_color", "#111111", "#222222")


def test_a_cancelled_push_is_interrupted_safely_and_the_next_one_finishes(sandbox: Any, draft: Path) -> None:
    add_apps(draft, "Cut A", "Cut B", "Cut C")
    prepared = prepare(sandbox, draft, concurrency=1)
    assert isinstance(prepared, Prepared)
    result = PushResult()

    async def run_and_cancel() -> None:
        task: asyncio.Task[Any] | None = None

        def on_event(event: PushEvent) -> None:
            if event.kind == "applied" and event.done == 3 and task is not None:
                task.cancel()

        task = asyncio.create_task(push(prepared, target_for(sandbox), on_event, result=result))
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run_and_cancel())
    assert result.interrupted and not result.complete
    assert result.counts()["not_attempted"] > 0
    again = prepare(sandbox, draft)
    assert isinstance(again, Prepared), again
    assert asyncio.run(push(again, target_for(sandbox))).complete
    names = live_summary(sandbox)["app_names"]
    assert [names.count(n) for n in ("Cut A", "Cut B", "Cut C")] == [1, 1, 1]


def test_the_sync_package_never_prints_asks_or_exits() -> None:
    import tenantdeck.sync

    banned_modules = {"sys", "click", "tenantdeck.exitcodes", "rich", "textual"}
    root = Path(tenantdeck.sync.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if isinstance(node, ast.ImportFrom) and node.module == "tenantdeck":
                names = [f"tenantdeck.{a.name}" for a in node.names]
            for name in names:
                assert name not in banned_modules, f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("print", "input"), f"{path.name} calls {node.func.id}()"


def test_a_plan_is_made_from_the_editor_s_unsaved_text_without_reading_the_file(sandbox: Any, draft: Path) -> None:
    from tenantdeck.draft.session import DraftSession
    from tenantdeck.sync.remote.engine import plan_draft

    session = DraftSession.open(draft)
    acme = next(i for i, a in enumerate(session.data["apps"]) if a["name"] == "Acme Support")
    path = f"apps[{acme}].widgets[0].main.send_gifs"
    session.set(path, not session.get(path))
    before = draft.read_bytes()
    offline = asyncio.run(plan_draft(draft, ENV, text=session.text))
    online = asyncio.run(plan_draft(draft, ENV, text=session.text, target=target_for(sandbox)))
    for plan in (offline, online):
        assert not isinstance(plan, PushRefused), plan
        (op,) = plan.operations
        assert op.kind == "update_widget" and [c.path for c in op.changes] == ["main.send_gifs"]
    assert draft.read_bytes() == before, "planning never writes the draft"
    assert asyncio.run(plan_draft(draft, ENV)).operations == [], "the file itself has no change"
