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
    """Every app's steps a sync test plans (``build_plan``, directly or through diff, plan, push and promote) are
    checked the way ``push FILE`` checks a saved plan (:func:`tenantdeck.sync.remote.planfile.disagreements`,
    after a JSON round trip): the rules that derive a payload from its changes must agree with how each kind builds
    it, or a good saved plan would be refused. Session-scoped, so hypothesis tests take no function-scoped
    fixture."""
    import json

    from tenantdeck.sync import plan as plan_module
    from tenantdeck.sync.remote.planfile import disagreements

    class Checked(plan_module._AppPlanner):
        def build(self) -> None:
            super().build()
            steps = plan_module.Plan(operations=self.destructive + self.ops, snapshots=self.plan.snapshots,
                                     fingerprints=self.plan.fingerprints, allow_delete=self.allow_delete)
            found = disagreements(plan_module.Plan.from_json(json.loads(json.dumps(steps.to_json()))))
            assert not found, found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plan_module, "_AppPlanner", Checked)
        yield
