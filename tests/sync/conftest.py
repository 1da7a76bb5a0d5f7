"""Fixtures of the sync tests: a seeded in-process sandbox, and a draft pulled from it (with its base)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sync.helpers_push import make_sandbox, run_pull


@pytest.fixture
def sandbox(tmp_path: Path) -> Any:
    return make_sandbox(tmp_path / "db.sqlite3")


@pytest.fixture
def draft(sandbox: Any, tmp_path: Path) -> Path:
    path = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, path)
    return path


@pytest.fixture(scope="session", autouse=True)
def every_plan_sends_what_it_shows() -> Iterator[None]:
    """Every plan a sync test builds (through ``plan_local``: diff, plan, push, promote) is checked the way
    ``push FILE`` checks a saved one (:func:`tenantdeck.sync.remote.planfile.disagreements`, after a JSON round
    trip): the rules that derive a payload from the changes must agree with how each kind builds it, or a good
    saved plan would be refused. Session-scoped, so hypothesis tests here take no function-scoped fixture."""
    import json

    from tenantdeck.sync.plan import Plan
    from tenantdeck.sync.remote.planfile import disagreements
    from tenantdeck.sync.workspace import local as local_module

    real = local_module.build_plan

    def checked(*args: Any, **kwargs: Any) -> Plan:
        plan = real(*args, **kwargs)
        found = disagreements(Plan.from_json(json.loads(json.dumps(plan.to_json()))))
        assert not found, found
        return plan

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(local_module, "build_plan", checked)
        yield
