"""A ``same`` rule's words are true, over generated fleets: each difference names a key where the app and the
majority disagree, with the number of apps that really hold the majority's value there; a tie is said exactly when
no value is held by the most apps; the fix (no tie) makes every app agree, writing only the keys that differ;
``contains`` and colour comparisons mean what docs/policies.md says."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.absent import ABSENT
from tenantdeck.policies.evaluator import PolicyEngine, same_key
from tenantdeck.policies.fix import plan_fixes
from tenantdeck.policies.model import load_policies
from tests.fuzzing import examples

RULES = """\
format: 1
policies:
  - name: one-set
    check: {field: settings, same: true}
    message: one set of settings
"""

SETTINGS = st.dictionaries(st.sampled_from(["core.a", "core.b", "core.c"]), st.booleans() | st.just(["x"]),
                           max_size=3)


def _policies(tmp: Path, text: str = RULES) -> Any:
    path = tmp / "d.policies.yaml"
    path.write_text(text)
    policies = load_policies(path)
    assert not policies.problems, [p.render() for p in policies.problems]
    return policies


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(SETTINGS, min_size=1, max_size=7))
def test_a_same_violation_says_what_is_true(tmp_path_factory: Any, fleet: list[dict[str, Any]]) -> None:
    policies = _policies(tmp_path_factory.mktemp("p"))
    apps = [{"name": f"A{i}", "region": "eu", "settings": s} for i, s in enumerate(fleet)]
    evaluation = PolicyEngine(policies).evaluate(apps, {})
    counts = Counter(same_key(s) for s in fleet)
    top = max(counts.values())
    tie = sum(1 for n in counts.values() if n == top) > 1
    flagged = {v.app_index for v in evaluation.violations}
    if tie:
        assert flagged == set(range(len(fleet))) and all(v.tie for v in evaluation.violations)
    else:
        (majority,) = [k for k, n in counts.items() if n == top]
        assert flagged == {i for i, s in enumerate(fleet) if same_key(s) != majority}
    for v in evaluation.violations:
        assert v.differs and v.found.endswith("(a tie: no majority)") == tie
        for d in v.differs:
            assert d.key is not None and d.total == len(fleet)
            assert same_key(fleet[v.app_index].get(d.key, ABSENT)) == same_key(d.here) != same_key(d.other)
            assert d.count == sum(1 for s in fleet if same_key(s.get(d.key, ABSENT)) == same_key(d.other))

    plan, _ = plan_fixes(policies, {"apps": apps})
    if tie:
        assert not plan.edits and len(plan.left) == len(fleet)
        return
    for edit in plan.edits:
        _, i, _, key = edit.path
        if edit.value is ABSENT:
            del apps[i]["settings"][key]
        else:
            apps[i]["settings"][key] = edit.value
    assert len({same_key(a["settings"]) for a in apps}) == 1
    assert PolicyEngine(policies).evaluate(apps, {}).violations == []


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "darn"]), max_size=3) | st.none(), min_size=1, max_size=5))
def test_contains_breaks_exactly_the_lists_without_the_value_and_its_fix_adds_it(
        tmp_path_factory: Any, lists: list[list[str] | None]) -> None:
    policies = _policies(tmp_path_factory.mktemp("p"), """\
format: 1
policies:
  - name: darn
    check: {field: "extension_settings.profanity-filter.badwords", contains: darn}
    message: m
""")
    apps = [{"name": f"A{i}", "region": "eu",
             **({"extension_settings": {"profanity-filter": {"badwords": list(words)}}} if words is not None else {})}
            for i, words in enumerate(lists)]
    evaluation = PolicyEngine(policies).evaluate(apps, {})
    assert {v.app_index for v in evaluation.violations} == {i for i, w in enumerate(lists) if w is None
                                                            or "darn" not in w}
    plan, _ = plan_fixes(policies, {"apps": apps})
    for edit in plan.edits:
        i, path = edit.path[1], edit.path[2:]
        if edit.append:
            apps[i]["extension_settings"]["profanity-filter"]["badwords"].append(edit.value)
        else:
            apps[i].setdefault("extension_settings", {}).setdefault("profanity-filter", {})[path[-1]] = edit.value
    after = [a["extension_settings"]["profanity-filter"]["badwords"] for a in apps]
    assert after == [[*w, "darn"] if w is not None and "darn" not in w else w or ["darn"] for w in lists]


@given(st.sampled_from(["#03a9f4", "#03A9F4", "#03a9F4"]), st.booleans())
def test_colours_compare_whatever_their_case_or_length(tmp_path_factory: Any, colour: str, short: bool) -> None:
    policies = _policies(tmp_path_factory.mktemp("p"), """\
format: 1
policies:
  - name: brand
    check: {field: "widgets[*].style.primary_color", one_of: ["#03A9F4", "#3366FF"]}
    message: m
  - name: exact
    check: {field: "widgets[*].style.primary_color", equals: "#36f"}
    message: m
""")
    written = "#36F" if short else colour
    apps = [{"name": "A", "region": "eu", "widgets": [{"style": {"primary_color": written}}]}]
    rules = {v.rule for v in PolicyEngine(policies).evaluate(apps, {}).violations}
    assert rules == (set() if short else {"exact"})  # #36F is #3366FF; #36f is not #03A9F4


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(SETTINGS, min_size=1, max_size=7), st.data())
def test_after_an_edit_the_words_are_those_of_a_full_evaluation(tmp_path_factory: Any, fleet: list[dict[str, Any]],
                                                               data: Any) -> None:
    """The editor re-evaluates only what an edit moved: every flagged app's counts, not just the edited app's."""
    policies = _policies(tmp_path_factory.mktemp("p"))
    apps = [{"name": f"A{i}", "region": "eu", "settings": s} for i, s in enumerate(fleet)]
    engine = PolicyEngine(policies)
    engine.evaluate(apps, {})
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(apps) - 1))
        apps[i] = {**apps[i], "settings": data.draw(SETTINGS)}
        updated = engine.update(apps, {}, [i])
        full = PolicyEngine(policies).evaluate(apps, {})
        assert [v.to_json() for v in updated.violations] == [v.to_json() for v in full.violations]
