"""An over-limit value the draft itself sets (a user trial): an invalid draft, not a three-way conflict.

The trial set webhook ``alerts``'s name to 60 characters in a draft in sync with the service. ``validate`` called it
a warning "kept as the service holds it" (exit 0) and ``diff``/``push`` a conflict ("the draft and the service
changed these differently", exit 3), sending the user to take-theirs or pull. The service changed nothing.

``validate`` (and the editor's F8, the same function) now tells the two apart with the committed base, the lock
file beside the draft: a value the base does not hold is the draft's own, an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenantdeck import exitcodes
from tenantdeck.draft.load import load_draft
from tests.sync.helpers_push import app_named, edit_draft, run_push
from tests.sync.test_held_values import SECRETS, live_plan

LONG = "L" * 60


def rename_hook(draft: Path) -> None:
    def change(d: Any) -> None:
        app_named(d, "Acme Support").webhooks[0].name = LONG  # the sandbox's seed (the trial: the demo's alerts)

    edit_draft(draft, change)


def test_the_service_holding_an_over_limit_name_is_only_a_warning(sandbox: Any, tmp_path: Path) -> None:
    """The half that is right today and must stay so: a value the draft did not change is kept with a warning."""
    from tests.sync.helpers_push import call, run_pull

    app_id = call(sandbox, "list_apps")[0].id
    sandbox.state.store.create_webhook(app_id, {"id": "held1", "name": "n" * 60, "webhookURL": "https://e.example/t",
                                                "enabled": True}, None, 25)
    path = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, path)
    result = load_draft(str(path))
    held = [p for p in result.problems if p.code == "held_webhook_name"]
    assert held and not held[0].is_error and "kept as the service holds it" in held[0].message
    assert [p for p in counted(path) if p.code == "held_webhook_name"] == held  # validate and F8 agree
    assert live_plan(sandbox, path).conflicts == []


def counted(draft: Path) -> list[Any]:
    """The draft's problems as ``validate`` counts them and F8 lists them (one function for both)."""
    from tenantdeck.policies.draft_problems import all_problems

    result = load_draft(str(draft))
    return all_problems(draft, result.doc.data, result.problems, result.doc)


def test_validate_calls_a_draft_changed_over_limit_name_an_error(sandbox: Any, draft: Path) -> None:
    """The lock file beside the draft (the committed base) shows the service holds another name: the draft changed
    it, every push refuses it, and validate says so (trial J, J3: validate --strict passed what push refused)."""
    assert draft.with_name("tenantdeck.lock.json").exists()
    rename_hook(draft)
    problems = [p for p in counted(draft) if "webhook name is 60 characters" in p.message]
    assert problems and problems[0].is_error, [p.render() for p in problems]
    assert "kept as the service holds it" not in problems[0].message
    assert "a push refuses to send it" in problems[0].message and "the service holds" in problems[0].message
    from click.testing import CliRunner

    from tenantdeck.cli import cli

    checked = CliRunner().invoke(cli, ["validate", str(draft)])
    assert checked.exit_code == exitcodes.ERROR, checked.output



def test_diff_and_push_call_a_draft_changed_over_limit_name_an_invalid_draft(sandbox: Any, draft: Path) -> None:
    rename_hook(draft)
    plan = live_plan(sandbox, draft)
    assert plan.conflicts and all(c.invalid for c in plan.conflicts), plan.conflicts
    code, err = run_push(sandbox, draft, SECRETS)
    assert code == exitcodes.ERROR, err
    assert "changed the same settings differently" not in err and "webhook name is 60 characters" in err


def test_plan_names_a_draft_changed_over_limit_name_a_refused_value_and_exits_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`plan` said "1 conflict(s)" and exited 3 for it (trial G) while `diff` said refused, exit 1: the same code and
    the same word now (the local sandbox, through the command line)."""
    from click.testing import CliRunner

    from tenantdeck.cli import cli

    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(cli, ["pull", "tenantdeck.yaml"]).exit_code == 0
    rename_hook(tmp_path / "tenantdeck.yaml")
    diff = CliRunner().invoke(cli, ["diff", "tenantdeck.yaml"])
    plan = CliRunner().invoke(cli, ["plan", "tenantdeck.yaml", "-o", "p.json"])
    assert diff.exit_code == plan.exit_code == exitcodes.ERROR, (diff.output, plan.output)
    assert "1 refused value(s) of the draft" in plan.stderr and "conflict" not in plan.stderr
    assert not (tmp_path / "p.json").exists()
