"""Policies as data: reading the rules file (located errors, did-you-mean, CEL compiled on read) and what each
check means, on plain draft data. No service here (tests/policies/test_policy_fleet.py has the sandbox)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.policies.evaluator import PolicyEngine, evaluate, normalise
from tenantdeck.policies.fix import plan_fixes
from tenantdeck.policies.model import load_policies, parse_field
from tests.fuzzing import examples


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "d.policies.yaml"
    path.write_text("format: 1\npolicies:\n" + text)
    return path


def app(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "region": "eu", **fields}


def names(evaluation: Any, rule: str) -> list[str]:
    return [v.app_name for v in evaluation.of_rule(rule)]


def test_a_broken_rule_is_located_and_the_others_still_load(tmp_path: Path) -> None:
    path = write(tmp_path, """\
  - name: ok
    check: {field: team.admins, count: {min: 1}}
    message: m
  - name: typo
    check: {field: "webhooks[*].webhookUrl", matches: "^https://"}
    message: m
  - name: bad-cel
    check: {cel: "app.name +"}
    message: m
  - name: two-kinds
    check: {field: name, equals: x, required: true}
    message: m
  - name: unknown-key
    check: {field: name, equals: x}
    mesage: m
  - name: ok
    check: {field: name, required: true}
    message: duplicate name
  - name: bad-regex
    check: {field: name, matches: "("}
    message: m
  - name: extension
    check: {field: extension_settings.profanity-filter.dropMesage, equals: true}
    message: m
""")
    policies = load_policies(path)
    assert [r.name for r in policies.rules] == ["ok"]
    rendered = [p.render() for p in policies.problems]
    assert rendered[0].startswith(f"{path}:7:20: error: policies[1].check.field: rule typo: ")
    assert "did you mean `webhookURL`?" in rendered[0]
    assert rendered[1].startswith(f"{path}:10:18: error: policies[2].check.cel: rule bad-cel: the CEL expression "
                                  "does not compile")
    assert "rule two-kinds: a check is exactly one of cel" in rendered[2] and "equals, required" in rendered[2]
    assert any("policies[4].mesage: rule unknown-key: unknown key" in r for r in rendered[3:5])
    assert any("policies[4].message: rule unknown-key: required" in r for r in rendered[3:5])
    assert "a second rule named 'ok'" in rendered[5]
    assert "not a regular expression" in rendered[6]
    assert "has no setting 'dropMesage'; did you mean `dropMessage`?" in rendered[7]


def test_field_paths() -> None:
    assert parse_field("widgets[*].style.primary_color") == ("widgets", "*", "style", "primary_color")
    assert parse_field("settings['core.conversations.updateOnReplies']") == (
        "settings", "core.conversations.updateOnReplies")
    assert parse_field("webhooks[0].enabled") == ("webhooks", 0, "enabled")
    for bad in ("", ".name", "webhooks[x]", "a..b"):
        with pytest.raises(ValueError):
            parse_field(bad)


def test_shorthands_mean_what_the_docs_say(tmp_path: Path) -> None:
    policies = load_policies(write(tmp_path, """\
  - name: https
    check: {field: "webhooks[*].webhookURL", matches: "^https://"}
    message: https
  - name: colour
    check: {field: "widgets[*].style.primary_color", one_of: ["#3366FF"]}
    message: colour
  - name: admins
    check: {field: team.admins, count: {min: 2}}
    message: admins
  - name: no-sms
    check: {field: sms, forbidden: true}
    severity: warning
    message: no sms
  - name: region
    select: {labels: {tier: gold}}
    check: {field: region, equals: eu}
    message: gold is in the eu
  - name: same-settings
    select: {names: ["T*"]}
    check: {field: settings, same: true}
    message: same settings
"""))
    assert not policies.problems
    apps = [
        app("T1", labels={"tier": "gold"}, webhooks=[{"id": "a", "webhookURL": "https://x"},
                                                    {"id": "b", "webhookURL": "http://x"}],
            team={"admins": ["a@x.io", "b@x.io"]}, settings={"core.x": True}),
        app("T2", region="us", labels={"tier": "gold"}, sms={"fromMobileNo": "+1"}, settings={"core.x": True},
            widgets=[{"extends": "brand"}]),
        app("T3", region="us", settings={"core.x": False}, widgets=[{"style": {"primary_color": "#000000"}}]),
        app("Other", settings={"core.x": False}),
    ]
    presets = {"brand": {"style": {"primary_color": "#3366FF"}}}
    ev = evaluate(policies, apps, presets)
    assert names(ev, "https") == ["T1"] and ev.of_rule("https")[0].path == ("webhooks", 1, "webhookURL")
    assert names(ev, "colour") == ["T3"]  # T2 inherits the brand colour from its preset; T1 has no widget
    assert ev.of_rule("colour")[0].found == "'#000000'"
    assert names(ev, "admins") == ["T2", "T3", "Other"]  # an unmanaged team counts as none
    assert names(ev, "no-sms") == ["T2"] and not ev.of_rule("no-sms")[0].is_error
    assert names(ev, "region") == ["T2"] and ev.selected["region"] == 2  # T3 is in the us but not gold
    assert names(ev, "same-settings") == ["T3"]  # the odd one out among T1-T3; Other is not selected
    assert ev.selected == {"https": 4, "colour": 4, "admins": 4, "no-sms": 4, "region": 2, "same-settings": 3}


def test_a_cel_rule_that_raises_on_one_app_is_a_located_warning_and_the_rest_still_run(tmp_path: Path) -> None:
    path = write(tmp_path, """\
  - name: sms-https
    check: {cel: "app.sms.websiteURL.startsWith('https://')"}
    message: m
  - name: named
    check: {cel: "app.name != ''"}
    message: m
  - name: not-a-verdict
    check: {cel: "app.name"}
    message: m
""")
    ev = evaluate(load_policies(path), [app("A"), app("B", sms={"websiteURL": "http://b"}), app("")], {})
    assert names(ev, "sms-https") == ["B"] and names(ev, "named") == [""]
    raised = [p.render() for p in ev.problems]
    assert raised[0].startswith(f"{path}:4:18: warning: ") and "could not be evaluated on app 'A'" in raised[0]
    assert "has()" in raised[0]
    assert any("not-a-verdict: gave str" in r for r in raised)


def test_a_rule_sees_the_widget_with_its_preset_and_the_defaults() -> None:
    normal = normalise(app("A", widgets=[{"extends": "p", "main": {"send_gifs": True}}]),
                       {"p": {"style": {"primary_color": "#111111"}}})
    widget = normal["widgets"][0]
    assert widget["style"]["primary_color"] == "#111111" and widget["main"]["send_gifs"] is True
    assert "allow_add_members" in widget["main"] and normal["labels"] == {} and "team" not in normal


def test_fixes_write_the_obvious_value_and_list_the_rest(tmp_path: Path) -> None:
    policies = load_policies(write(tmp_path, """\
  - name: colour
    check: {field: "widgets[*].style.primary_color", one_of: ["#3366FF", "#1A1A2E"]}
    message: m
  - name: same
    check: {field: "settings['core.x']", same: true}
    message: m
  - name: no-sms
    check: {field: sms, forbidden: true}
    message: m
  - name: https
    check: {field: "webhooks[*].webhookURL", matches: "^https://"}
    message: m
"""))
    data = {"presets": {"p": {"style": {"primary_color": "#999999"}}}, "apps": [
        app("A", widgets=[{"extends": "p"}], settings={"core.x": True}),
        app("B", settings={"core.x": True}, sms={"fromMobileNo": "+1"}),
        app("C", settings={"core.x": False}, webhooks=[{"id": "h", "webhookURL": "http://c"}]),
    ]}
    plan, _ = plan_fixes(policies, data)
    assert [(e.path, e.value) for e in plan.edits] == [
        (("apps", 0, "widgets", 0, "style", "primary_color"), "#3366FF"),  # on the widget, not the shared preset
        (("apps", 1, "sms"), plan.edits[1].value),
        (("apps", 2, "settings", "core.x"), True),  # the majority's
    ]
    assert plan.edits[1].text().endswith("sms: remove (policy no-sms)")
    assert [(v.rule, why) for v, why in plan.left] == [("https", "a matches check has no single value to write")]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["#3366FF", "#000000"]), st.integers(0, 3)),
                min_size=1, max_size=8), st.data())
def test_updating_one_app_gives_what_evaluating_all_gives(tmp_path_factory: Any, rows: list[Any], data: Any) -> None:
    """The editor re-evaluates only the edited app: the answer must be the full evaluation's."""
    path = write(tmp_path_factory.mktemp("p"), """\
  - name: colour
    check: {field: "widgets[*].style.primary_color", equals: "#3366FF"}
    message: m
  - name: admins
    check: {cel: "has(app.team) && size(app.team.admins) >= 2"}
    message: m
  - name: same
    check: {field: region, same: true}
    message: m
""")
    policies = load_policies(path)

    def make(row: Any, i: int) -> dict[str, Any]:
        eu, colour, admins = row
        return app(f"A{i}", region="eu" if eu else "us", widgets=[{"style": {"primary_color": colour}}],
                   team={"admins": [f"{n}@x.io" for n in range(admins)]})

    apps = [make(r, i) for i, r in enumerate(rows)]
    engine = PolicyEngine(policies)
    engine.evaluate(apps, {})
    i = data.draw(st.integers(0, len(apps) - 1))
    apps[i] = make(data.draw(st.tuples(st.booleans(), st.sampled_from(["#3366FF", "#000000"]), st.integers(0, 3))), i)
    updated = engine.update(apps, {}, [i])
    assert updated.violations == evaluate(policies, apps, {}).violations
