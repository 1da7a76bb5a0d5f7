"""The editor's review lists a plan with the symbols, labels and lines the CLI prints: one place decides them
(:mod:`tenantdeck.sync.review` on top of :mod:`tenantdeck.sync.render`), the screen only renders the rows."""

from __future__ import annotations

import copy
from typing import Any

from tenantdeck.models import Draft
from tenantdeck.sync.compare import compare_all
from tenantdeck.sync.kinds import canonical_app_from_draft
from tenantdeck.sync.plan import build_plan
from tenantdeck.sync.render import render_text
from tenantdeck.sync.review import conflict_detail, review_rows, review_status, where
from tests.models import factories

KEY = b"r" * 32


def busy_plan(*, conflict: bool = False) -> Any:
    """Added and removed triggers, widget settings, a deleted webhook and drift; or, with ``conflict``, a conflict
    too (then no step: a push refuses until it is settled)."""
    data = factories.draft(factories.app("Acme"))
    data["apps"][0]["id"] = "a1"
    data["apps"][0]["widgets"][0]["id"] = "w1"
    draft = Draft.model_validate(data)
    env = {"HOOK_PASSWORD": "OldPw1"}
    base = canonical_app_from_draft(draft, 0, secret_key=KEY, env=env)
    base["webhooks"]["gone"] = {**copy.deepcopy(base["webhooks"]["hook1"]), "name": "Old hook"}
    new = canonical_app_from_draft(draft, 0, secret_key=KEY, env=env)
    new["widgets"]["w1"]["main"]["share_location"] = True
    new["widgets"]["w1"]["style"]["primary_color"] = "#111111"
    new["webhooks"]["hook1"]["triggers"] = ["message_sent", "call_initiated"]
    live = copy.deepcopy(base)
    if conflict:
        live["widgets"]["w1"]["style"]["primary_color"] = "#222222"  # both changed it, differently
    live["widgets"]["w1"]["style"]["background_color"] = "#EEEEEE"  # drift
    return build_plan(compare_all([new], {"a1": base}, {"a1": live}), draft, allow_delete=True)


def test_every_step_row_has_the_symbol_and_label_the_cli_prints() -> None:
    plan = busy_plan()
    text = render_text(plan)
    rows = review_rows(plan)
    steps = [r for r in rows if r.step is not None and r.change is None and not r.key.endswith(".folded")]
    assert len(steps) == len(plan.operations) >= 3
    assert {r.symbol for r in steps} >= {"~", "+", "-"}  # triggers added, removed; a webhook deleted
    for row in steps:
        assert f"  {row.symbol} {row.text}" in text or f'  {row.symbol} delete app "' in text, (row, text)
    for row in rows:
        if row.change is not None:
            assert f"      {row.symbol} {row.text.strip()}" in text, (row, text)


def test_drift_comes_after_the_steps_and_says_what_the_cli_says() -> None:
    plan = busy_plan()
    rows = review_rows(plan)
    kinds = [r.key.rstrip("0123456789").split(".")[0] for r in rows]
    assert kinds.index("drift") > max(i for i, k in enumerate(kinds) if k == "op")
    drift = rows[kinds.index("drift")]
    assert drift.symbol == "~" and "Background colour (style.background_color)" in drift.text
    assert drift.text.split(": ", 1)[1] in render_text(plan)


def test_a_conflict_row_names_its_keys_and_its_three_sides() -> None:
    plan = busy_plan(conflict=True)
    rows = review_rows(plan)
    conflict = next(r for r in rows if r.conflict is not None)
    assert conflict.symbol == "!" and conflict.settleable and "(t takes theirs, m keeps mine)" in conflict.text
    assert "base" in conflict_detail(conflict.conflict) and "live" in conflict_detail(conflict.conflict)
    status = review_status(plan, online=True, where="profile local", allow_delete=True)
    assert "against the service (profile local)" in status and "1 conflict(s)" in status


def test_enter_leads_to_the_app_and_the_tab_of_what_changed() -> None:
    plan = busy_plan()
    rows = review_rows(plan)
    widget = next(r for r in rows if r.change is not None and r.change.path == "main.share_location")
    lead = where(widget)
    assert lead is not None and (lead.app_id, lead.kind, lead.section) == ("a1", "widget", "main")
    assert lead.is_app({"id": "a1", "name": "Acme"}) and not lead.is_app({"id": "a2", "name": "Acme"})
    hook = next(r for r in rows if r.step is not None and "triggers" in r.text and r.change is None)
    assert where(hook) is not None and where(hook).kind == "triggers"  # type: ignore[union-attr]
    assert where(next(r for r in rows if r.key.startswith("drift"))) is None


def test_a_name_cannot_add_a_line_to_the_conflict_detail() -> None:
    plan = busy_plan(conflict=True)
    conflict = next(r.conflict for r in review_rows(plan) if r.conflict is not None)
    assert conflict is not None
    conflict.app = "Acme\n  live  forged"
    assert conflict_detail(conflict).count("\n") == 3 and "forged" in conflict_detail(conflict).split("\n")[0]


def _refused(name: str = "Order events", triggers: list[str] | None = None) -> tuple[Any, list[Any]]:
    """A plan that renames webhook hook1 (and sets its triggers) on an app the service holds, and the draft's own
    problems."""
    from tenantdeck.rules import check_draft

    data = factories.draft(factories.app("Acme"))
    data["apps"][0]["id"] = "a1"
    data["apps"][0]["widgets"][0]["id"] = "w1"
    base = canonical_app_from_draft(Draft.model_validate(data), 0, secret_key=KEY, env={"HOOK_PASSWORD": "Pw1"})
    data["apps"][0]["webhooks"][0]["name"] = name
    if triggers is not None:
        data["apps"][0]["webhooks"][0]["triggers"] = triggers
    draft = Draft.model_validate(data)
    new = canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "Pw1"})
    plan = build_plan(compare_all([new], {"a1": base}, {"a1": copy.deepcopy(base)}), draft)
    return plan, check_draft(draft)


def test_a_refused_row_leads_to_the_draft_value_it_names() -> None:
    """Enter on a REFUSED row goes where the draft's warning of the same value is (trial F, F5): the name whose
    reason the refusal quotes; an undocumented trigger by its quoted id; nothing for a refusal no warning names."""
    from tenantdeck.sync.review import refused_problem, refused_text
    from tenantdeck.sync.types import Conflict

    plan, problems = _refused(name="N" * 60)
    [row] = [r for r in review_rows(plan) if r.refused is not None]
    assert row.conflict is None and not row.settleable  # nothing to take from either side
    found = refused_problem(row.refused, 0, problems)  # type: ignore[arg-type]
    assert found is not None and found.key_path == "apps[0].webhooks[0].name"
    assert refused_problem(row.refused, 1, problems) is None  # type: ignore[arg-type]  # another app's: not it
    text = refused_text(plan)
    assert "N" * 60 in text and "at most 50 may be sent" in text and "Enter on its REFUSED row" in text

    plan, problems = _refused(triggers=["message_sent", "legacy_thing"])
    [row] = [r for r in review_rows(plan) if r.refused is not None]
    found = refused_problem(row.refused, 0, problems)  # type: ignore[arg-type]
    assert found is not None and found.key_path == "apps[0].webhooks[0].triggers[1]", found

    unreadable = Conflict("Acme", "a1", "certificate", "", "certificate", "", "", "", False,
                          "refused: cannot read the certificate file: gone", invalid=True)
    assert refused_problem(unreadable, 0, problems) is None
