"""The editor's view of the fleet policies (``policies/view.py``, no Textual): edits noted and evaluated
incrementally to the same verdict as a full evaluation, the badges that changed, the rows of the screens, where a
violation's jump lands."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.draft.session import Change, ChangeKind
from tenantdeck.policies.evaluator import PolicyEngine, Violation
from tenantdeck.policies.view import Badge, FleetPolicies, jump_target
from tests.fuzzing import examples

DRAFTS = Path(__file__).resolve().parent.parent / "tui" / "drafts"
NAME = "policies-demo"


def _fleet(tmp_path: Path, rules: str | None = None) -> tuple[FleetPolicies, dict[str, Any]]:
    draft = tmp_path / f"{NAME}.yaml"
    text = (DRAFTS / f"{NAME}.yaml").read_text(encoding="utf-8")
    draft.write_text(text, encoding="utf-8")
    (tmp_path / f"{NAME}.policies.yaml").write_text(
        rules if rules is not None else (DRAFTS / f"{NAME}.policies.yaml").read_text(encoding="utf-8"),
        encoding="utf-8")
    return FleetPolicies(draft), yaml.safe_load(text)


def _edit(kind: ChangeKind, *paths: str) -> Change:
    return Change(1, kind, paths, ())


def _same_as_full(fleet: FleetPolicies, data: dict[str, Any]) -> None:
    assert fleet.policies is not None and fleet.evaluation is not None
    full = PolicyEngine(fleet.policies).evaluate(data["apps"], data.get("presets"))
    assert [v.to_json() for v in fleet.evaluation.violations] == [v.to_json() for v in full.violations]


def test_nothing_is_read_until_asked(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    assert not fleet.read_yet and fleet.badge(0) == "" and fleet.rule_rows() == []
    changed = fleet.refresh(data)
    assert fleet.read_yet and changed == {0, 2, 5}
    assert fleet.badges == {0: Badge(1, 0), 2: Badge(1, 1), 5: Badge(1, 0)}
    assert [fleet.badge(i) for i in range(6)] == ["✗1", "", "✗1 !1", "", "", "✗1"]


def test_edits_are_evaluated_incrementally_to_the_full_verdict(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    fleet.refresh(data)
    data["apps"][1]["widgets"][0]["main"] = {"send_gifs": True}
    fleet.note(_edit(ChangeKind.SET, "apps[1].widgets[0].main.send_gifs"))
    assert fleet.stale
    calls: list[list[int]] = []
    engine = fleet.engine
    assert engine is not None
    original = engine.update

    def spy(apps: Any, presets: Any, changed: Any) -> Any:
        calls.append(list(changed))
        return original(apps, presets, changed)

    engine.update = spy  # type: ignore[method-assign]
    assert fleet.refresh(data) == {1}
    assert calls == [[1]]  # only the edited app was evaluated again
    assert not fleet.stale
    _same_as_full(fleet, data)


def test_an_edit_outside_one_app_evaluates_everything(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    fleet.refresh(data)
    data["presets"]["support"]["main"]["send_gifs"] = True  # every app extending the preset now breaks no-gifs
    fleet.note(_edit(ChangeKind.SET, "presets.support.main.send_gifs"))
    changed = fleet.refresh(data)
    assert changed == {1, 3}  # Acme US and Initech inherit it; Umbrella writes its own widget, Hooli has none
    _same_as_full(fleet, data)
    del data["apps"][0]
    fleet.note(_edit(ChangeKind.DELETE, "apps[0]"))  # the indexes moved: everything again
    fleet.refresh(data)
    _same_as_full(fleet, data)
    assert fleet.badge(0) == "✗1"  # Acme US, now first


def test_same_rule_moves_other_apps_badges(tmp_path: Path) -> None:
    """A ``same`` rule compares apps: one app's edit can change the majority, and so other apps' badges."""
    rules = ("format: 1\npolicies:\n  - name: one-region\n    check: {field: region, same: true}\n"
             "    severity: warning\n    message: one region\n")
    fleet, data = _fleet(tmp_path, rules)
    fleet.refresh(data)  # eu 3, us 2, in 1: the us and in apps break it
    assert {i for i in range(6) if fleet.badge(i)} == {1, 3, 4}
    data["apps"][0]["region"] = "us"
    data["apps"][2]["region"] = "us"  # us 4 now: the eu apps break it
    fleet.note(_edit(ChangeKind.TRANSACTION, "apps[0].region", "apps[2].region"))
    assert fleet.refresh(data) == {1, 4, 5}  # neither edited app: 1 and 4 comply now, 5 breaks it
    assert {i for i in range(6) if fleet.badge(i)} == {3, 5}
    _same_as_full(fleet, data)


def test_rows_and_problems(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    fleet.refresh(data)
    rows = {r.name: r for r in fleet.rule_rows()}
    assert list(rows) == ["no-gifs", "brand-colour", "our-hook-host", "one-webhook", "team-admins"]
    assert (rows["no-gifs"].apps_text, rows["no-gifs"].check, rows["no-gifs"].severity) == (
        "2 of 6", "widgets[*].main.send_gifs equals false", "error")
    found = [(r.violation.app_name, r.where, r.found) for r in fleet.violation_rows("our-hook-host")]
    assert found == [("Hooli", "webhooks[0].webhookURL", "https://hooks.elsewhere.example/5")]
    problems = fleet.problem_rows()
    assert [(p.location, p.count) for p in problems] == [("line 23", 1), ("line 20", 6)]
    assert problems[1].text.endswith("(and 5 more apps)")
    assert problems[0].where == f"{NAME}.policies.yaml:23:18"
    assert "3 apps break them (3 with an error)" in fleet.summary() and "2 problems" in fleet.summary()


def test_the_rules_file_changing_on_disk(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    assert not fleet.changed_on_disk()  # never read: nothing to compare
    fleet.refresh(data)
    assert not fleet.changed_on_disk()
    fleet.path.write_text("format: 1\npolicies: []\n", encoding="utf-8")
    assert fleet.changed_on_disk()
    fleet.read()
    assert fleet.refresh(data) == {0, 2, 5} and fleet.badges == {}
    fleet.path.unlink()
    assert fleet.changed_on_disk()
    fleet.read()
    assert not fleet.active and "No rules" in fleet.summary()


def test_plan_fixes_on_the_drafts_data(tmp_path: Path) -> None:
    fleet, data = _fleet(tmp_path)
    plan = fleet.plan_fixes(copy.deepcopy(data))
    assert [(e.path, e.value) for e in plan.edits] == [
        (("apps", 0, "widgets", 0, "main", "send_gifs"), False),
        (("apps", 2, "widgets", 0, "main", "send_gifs"), False),
        (("apps", 2, "widgets", 0, "style", "primary_color"), "#03A9F4"),
    ]
    assert [v.rule for v, _ in plan.left] == ["our-hook-host"]


def _violation(path: tuple[Any, ...]) -> Violation:
    return Violation("r", "error", "m", 3, "App", "id", path, "x")


def test_jump_targets() -> None:
    cases = {
        ("widgets", 1, "main", "send_gifs"): ("main", "apps[3].widgets[1].main.send_gifs"),
        ("widgets", 0, "style", "primary_color"): ("style", "apps[3].widgets[0].style.primary_color"),
        ("widgets", "*", "sidebar", "calls"): ("sidebar", "apps[3].widgets[0].sidebar.calls"),
        ("webhooks", 0, "webhookURL"): ("webhooks", "apps[3].webhooks[0].webhookURL"),
        ("team", "admins"): ("team", "apps[3].team.admins"),
        ("settings", "core.x"): ("settings", "apps[3].settings.core.x"),
        ("extension_settings", "profanity-filter", "dropMessage"):
            ("extensions", "apps[3].extension_settings.profanity-filter.dropMessage"),
        ("sms", "messageDelay"): ("sms", "apps[3].sms.messageDelay"),
        (): (None, "apps[3]"),
    }
    for path, (tab, key_path) in cases.items():
        target = jump_target(_violation(path))
        assert (target.app_index, target.tab, target.key_path) == (3, tab, key_path), path


def test_check_text_and_cell() -> None:
    """Each kind of check as the Policies screen says it, whole and cut to its column."""
    from tenantdeck.policies.model import Check
    from tenantdeck.policies.view import CHECK_WIDTH, check_cell, check_text

    cases = [
        (Check(field="team.admins", count={"min": 2}), "team.admins count >= 2"),
        (Check(field="team.admins", count={"min": 1, "max": 3}), "team.admins count 1..3"),
        (Check(field="settings", same=True), "settings same"),
        (Check(field="sms", forbidden=True), "sms forbidden"),
        (Check(field="widgets[*].style.primary_color", one_of=["#03A9F4"]),
         'widgets[*].style.primary_color one_of ["#03A9F4"]'),
        (Check(cel="size(app.webhooks)\n   <= 1"), "size(app.webhooks) <= 1"),
        (Check(field="webhooks[*].name", equals="a\u202eb"), 'webhooks[*].name equals "a\\u202eb"'),
    ]
    for check, text in cases:
        assert check_text(check) == text
        cell = check_cell(check)
        assert len(cell) <= CHECK_WIDTH and (cell == text or "…" in cell)
    assert check_cell(Check(field="widgets[*].main.send_gifs", equals=False)) == "…main.send_gifs equals false"


def test_allowance_is_checked_as_the_cli_checks_it(tmp_path: Path) -> None:
    from tenantdeck.policies.checks import Allowance, NotAllowed, allowance
    from tenantdeck.policies.model import load_policies

    fleet, _ = _fleet(tmp_path)
    policies = load_policies(fleet.path)
    assert allowance(policies, ["no-gifs", "no-gifs"], "  pilot tenant ") == Allowance(("no-gifs",), "pilot tenant")
    assert not allowance(policies, [], "ignored")
    with pytest.raises(NotAllowed, match="a reason is required") as missing:
        allowance(policies, ["no-gifs"], "   ")
    assert missing.value.rule is None
    with pytest.raises(NotAllowed, match="did you mean") as unknown:
        allowance(policies, ["no-gif"], "why")
    assert unknown.value.rule == "no-gif"


def test_the_reviews_gate_from_a_plans_notes() -> None:
    from tenantdeck.policies.checks import Allowance
    from tenantdeck.policies.view import policy_gate, refusal_text
    from tenantdeck.sync.types import Note

    notes = [Note("A", "policy no-gifs ...", "policy", {"rule": "no-gifs", "severity": "error"}),
             Note("B", "policy no-gifs ...", "policy", {"rule": "no-gifs", "severity": "error"}),
             Note("B", "policy brand ...", "policy", {"rule": "brand", "severity": "warning"}),
             Note("", "skipped deletes", "info")]
    gate = policy_gate(notes)
    assert gate.refused and [r.text() for r in gate.blocking] == ["no-gifs (2 apps)"]
    assert gate.lines()[0].startswith("Push refused: it would break no-gifs (2 apps). ")
    assert gate.lines()[1] == "Policy warnings: brand (1 app)."
    let = policy_gate(notes, Allowance(("no-gifs", "brand"), "pilot"))
    assert not let.refused and [r.name for r in let.errors] == ["no-gifs"]
    assert let.lines()[0] == "Allowed (pilot): no-gifs (2 apps); the history records it."
    problem = policy_gate([Note("", "policies file: ...", "policy", {"severity": "error"})])
    assert problem.refused and "rules file has 1 problem" in problem.lines()[0]
    assert not policy_gate([]).lines()
    idle = policy_gate(notes, pushes=False)  # nothing to push: nothing is gated, the account is described
    assert not idle.refused
    assert idle.lines()[0] == "Nothing to push; the account breaks no-gifs (2 apps) (P lists the apps)."
    for line in [*gate.lines(), refusal_text("policy_violations", ["no-gifs"], "the push would leave ...")]:
        assert "--" not in line and "tenantdeck " not in line


@settings(max_examples=examples(200), deadline=None)
@given(cel=st.text(max_size=120), pattern=st.text(max_size=60), field=st.sampled_from(
    ["webhooks[*].webhookURL", "widgets[*].style.primary_color", "settings['core.a.b']", "team.admins",
     "widgets[*].名前.表示.設定.長い名前の項目"]))
def test_a_checks_cell_fits_its_column_and_is_safe_for_a_terminal(cel: str, pattern: str, field: str) -> None:
    """Whatever a rules file holds, the Check cell is at most CHECK_WIDTH columns and holds nothing a terminal
    would act on (every control character escaped), and the jump's field reading never raises."""
    from tenantdeck.policies.celview import first_field
    from tenantdeck.policies.model import Check
    from tenantdeck.policies.view import CHECK_WIDTH, check_cell, check_text
    from tenantdeck.textsafe import cell_width, shown

    for check in (Check(cel=cel), Check(field=field, equals=pattern), Check(field=field, one_of=[pattern, 1])):
        cell, text = check_cell(check), check_text(check)
        assert cell_width(cell) <= CHECK_WIDTH and shown(cell) == cell and shown(text) == text
    first_field(cel)


def test_a_rule_over_its_cost_budget_is_a_problem_row_and_the_others_still_badge(tmp_path: Path) -> None:
    """Issue 32: the editor evaluates on each edit; eight nested comprehensions (10^8 steps) must neither hang it
    nor hide the other rules."""
    digits = "[0,1,2,3,4,5,6,7,8,9]"
    expr = "true"
    for i in range(8):
        expr = f"{digits}.all(x{i}, {expr})"
    rules = (DRAFTS / f"{NAME}.policies.yaml").read_text(encoding="utf-8").rstrip() + (
        f'\n  - name: ten-to-the-eight\n    check: {{cel: "{expr}"}}\n    message: m\n')
    fleet, data = _fleet(tmp_path, rules)
    fleet.refresh(data)
    assert [fleet.badge(i) for i in range(6)] == ["✗1", "", "✗1 !1", "", "", "✗1"]
    rows = [row.problem.message for row in fleet.problem_rows()]
    assert len(rows) == 3 and any("rule ten-to-the-eight: over its cost budget" in m for m in rows)
    assert "3 problems in the file" in fleet.summary()


def test_a_label_no_app_holds_is_a_problem_row_with_a_did_you_mean(tmp_path: Path) -> None:
    """Issue 33: a label typo in ``select`` silently selected no app; the editor says so, as validate does."""
    rules = (DRAFTS / f"{NAME}.policies.yaml").read_text(encoding="utf-8").rstrip() + (
        "\n  - name: gold\n    select: {labels: {teir: gold}}\n    check: {field: name, required: true}\n"
        "    message: m\n")
    fleet, data = _fleet(tmp_path, rules)
    data["apps"][0]["labels"] = {"tier": "gold"}
    fleet.refresh(data)
    rows = [row.problem.message for row in fleet.problem_rows()]
    assert "rule gold: no app has the label 'teir'; did you mean `tier`?" in rows
    assert "rule gold: selects no app, so it checks nothing" in rows


def test_a_rule_that_did_not_run_on_an_app_is_not_called_compliance(tmp_path: Path) -> None:
    """The summary said "every app complies" while a rule had not run on an app (over its cost there): not run is
    not checked (found by a newcomer's hostile trial)."""
    expr = "true"
    for i in range(50):
        expr = f"app.webhooks.all(w{i}, {expr})"
    rules = f'format: 1\npolicies:\n  - name: deep\n    check: {{cel: "{expr}"}}\n    message: m\n'
    fleet, data = _fleet(tmp_path, rules)
    hook = {"name": "h", "webhookURL": "https://example.com/h", "triggers": []}
    data["apps"][0]["webhooks"] = [dict(hook, name=f"h{i}", id=f"h{i}") for i in range(3)]  # 3^50 steps there
    fleet.refresh(data)
    assert fleet.evaluation is not None and not fleet.evaluation.violations
    if fleet.evaluation.problems:  # the rule did not run on some app
        assert "every app complies" not in fleet.summary() and "some did not" in fleet.summary()
    else:
        raise AssertionError("the draft's apps are expected to be over the rule's cost: " + fleet.summary())
