"""What a violation says, through the real commands against the sandbox (issue 33 item 6): a ``same`` rule names
the keys that differ, the majority's value and how many apps hold it, and says a tie (which ``policy fix`` does
not settle); values are YAML in text and JSON in JSON; colours compare as colours; ``history`` shows the violations
a push let through and why; ``contains`` (the list holds a value) has an obvious fix and located misuse."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.draft.session import DraftSession
from tenantdeck.textsafe import shown
from tests.policies import test_policy_fleet as recipes_test
from tests.policies.test_policy_fleet import app_index, edit, run

fleet = recipes_test.fleet  # the recipes' account, pushed and compliant (three gold apps, one set of settings)

KEY = "core.conversations.updateOnCallActivity"


def _settings(draft: Path, i: int) -> dict[str, object]:
    return dict(yaml.safe_load(draft.read_text())["apps"][i]["settings"])


def _policy_list(draft: Path) -> dict[str, object]:
    listed = run("policy", "list", str(draft), "--format", "json")
    return dict(json.loads(listed.stdout))


def test_a_same_violation_names_the_key_the_majority_and_the_count(fleet: Path) -> None:
    j = app_index(fleet, "Globex Community")
    was = _settings(fleet, j)[KEY]
    edit(fleet, ("apps", j, "settings", KEY), not was)
    checked = run("validate", str(fleet))
    assert checked.exit_code == exitcodes.ERROR
    line = next(x for x in checked.output.splitlines() if "gold-tier-settings" in x)
    here, there = ("true", "false") if not was else ("false", "true")
    assert f"({KEY}: {here} here, {there} in 2 of 3 apps)" in line, line
    assert f"apps[{j}].settings.{KEY}: " in line  # located at the key, not the whole mapping
    assert "{'" not in line  # no Python dict

    doc = _policy_list(fleet)
    (violation,) = [v for v in doc["violations"] if v["rule"] == "gold-tier-settings"]  # type: ignore[union-attr]
    assert violation["app"] == "Globex Community" and violation["tie"] is False
    assert violation["differs"] == [{"key": KEY, "here": not was, "majority": was, "count": 2, "of": 3}]
    assert isinstance(violation["found"], dict) and violation["found"][KEY] is (not was)


def test_a_tie_is_said_and_policy_fix_does_not_pick_a_side(fleet: Path) -> None:
    i, j = app_index(fleet, "Acme Support"), app_index(fleet, "Globex Community")
    edit(fleet, ("apps", app_index(fleet, "Initech Field Chat"), "labels"), {"tier": "silver"})  # two gold apps
    was = _settings(fleet, j)[KEY]
    edit(fleet, ("apps", j, "settings", KEY), not was)
    checked = run("validate", str(fleet))
    lines = [x for x in checked.output.splitlines() if "gold-tier-settings" in x]
    assert len(lines) == 2 and all(x.endswith("in 1 of 2 apps (a tie: no majority))") for x in lines), lines
    before = fleet.read_text()

    fixed = run("policy", "fix", str(fleet))
    assert fixed.exit_code == exitcodes.VIOLATIONS
    refused = [x for x in fixed.stderr.splitlines() if x.startswith("not fixed: error: policy gold-tier-settings")]
    assert len(refused) == 2 and all("the apps tie, so there is no majority to write" in x for x in refused)
    assert fleet.read_text() == before  # nothing picked, nothing written
    assert (_settings(fleet, i)[KEY], _settings(fleet, j)[KEY]) == (was, not was)


def test_values_are_yaml_in_text_and_json_in_json(fleet: Path) -> None:
    i = app_index(fleet, "Acme Support")
    edit(fleet, ("apps", i, "widgets", 0, "style", "primary_color"), "#FF0000")
    long_url = "http://127.0.0.1:8788/" + "x" * 200  # plain http is valid for a loopback host, not for the rule
    edit(fleet, ("apps", i, "webhooks", 0, "webhookURL"), long_url)
    text = run("validate", str(fleet)).output
    colour = next(x for x in text.splitlines() if "brand-colour" in x)
    assert colour.endswith("(found '#FF0000')"), colour
    hook = next(x for x in text.splitlines() if "https-webhooks" in x)
    assert "(found http://127.0.0.1:8788/xxx" in hook and hook.endswith("…)")
    assert len(hook.split("(found ", 1)[1]) == 60 + len(")")  # shortened to 60 characters

    doc = _policy_list(fleet)
    found = {v["rule"]: v for v in doc["violations"]}  # type: ignore[union-attr]
    assert found["brand-colour"]["found"] == "#FF0000" and found["brand-colour"]["found_text"] == "'#FF0000'"
    assert found["https-webhooks"]["found"] == long_url  # whole, not shortened


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4), max_leaves=12))
def test_a_value_in_text_is_one_safe_line_of_bounded_length(value: object) -> None:
    from tenantdeck.policies.wording import LIMIT, value_text

    text = value_text(value)
    assert len(text) <= LIMIT and shown(text) == text and "\n" not in text, text


def test_colours_compare_as_colours(fleet: Path) -> None:
    """The service writes colours in lower case: `#03a9f4` keeps `one_of: ["#03A9F4", ...]`, offline, before
    a push and live."""
    i = app_index(fleet, "Acme Support")
    edit(fleet, ("apps", i, "widgets", 0, "style", "primary_color"), "#03a9f4")
    assert run("validate", str(fleet)).exit_code == exitcodes.OK
    assert run("push", "--draft", str(fleet), "--yes").exit_code == exitcodes.OK
    assert run("audit", str(fleet)).exit_code == exitcodes.OK
    edit(fleet, ("apps", i, "widgets", 0, "style", "primary_color"), "#36F")  # #3366FF, written short
    assert run("validate", str(fleet)).exit_code == exitcodes.OK


def test_history_shows_the_violations_a_push_let_through_and_why(fleet: Path) -> None:
    j = app_index(fleet, "Globex Community")
    edit(fleet, ("apps", j, "team", "admins"), ["lead1@example.test"])
    let = run("push", "--draft", str(fleet), "--yes", "--allow-violation", "two-admins", "--reason",
              "pilot tenant\x1b[2J")
    assert let.exit_code == exitcodes.OK, let.stderr
    text = run("history", "--draft", str(fleet)).output
    assert 'allowed       policy two-admins (Globex Community): reason "pilot tenant\\x1b[2J"' in text, text
    assert "\x1b" not in text


def test_contains_is_fixed_by_adding_the_value(fleet: Path) -> None:
    """The recipe's profanity rule is a `contains`: switched off in the draft, `policy fix` switches it back on
    (taking it out of `disabled`), touching only those lines and keeping the comments."""
    k = app_index(fleet, "Initech Field Chat")
    edit(fleet, ("apps", k, "extensions"), {"enabled": ["push-notification"], "disabled": ["profanity-filter"]})
    text = fleet.read_text().replace("  enabled: [push-notification]\n",
                                     "  # pager duty\n      enabled: [push-notification]\n")
    fleet.write_text(text)
    checked = run("validate", str(fleet))
    assert "policy profanity-filter-on" in checked.output and "found [push-notification]" in checked.output
    fixed = run("policy", "fix", str(fleet))
    assert fixed.exit_code == exitcodes.OK, fixed.output
    assert "extensions.enabled: add profanity-filter (policy profanity-filter-on)" in fixed.stdout
    after = fleet.read_text()
    assert "    # pager duty\n      enabled: [push-notification, profanity-filter]\n" in after
    assert yaml.safe_load(after)["apps"][k]["extensions"] == {"enabled": ["push-notification", "profanity-filter"],
                                                              "disabled": []}
    changed = [line[1:].strip() for line in difflib.unified_diff(text.splitlines(), after.splitlines(), n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["enabled: [push-notification]", "disabled: [profanity-filter]",
                       "enabled: [push-notification, profanity-filter]", "disabled: []"], changed
    assert run("validate", str(fleet)).exit_code == exitcodes.OK


def test_contains_on_a_word_list_and_on_every_webhook(fleet: Path) -> None:
    (fleet.parent / "d.policies.yaml").write_text("""\
format: 1
policies:
  - name: darn
    check: {field: "extension_settings.profanity-filter.badwords", contains: darn}
    message: the word list holds darn
  - name: hooks-hear-messages
    select: {names: ["Acme*"]}
    check: {field: "webhooks[*].triggers", contains: message_sent}
    message: every webhook hears sent messages
""")
    session = DraftSession.open(fleet)
    apps = session.data["apps"]
    with session.transaction():
        for i in range(len(apps)):
            session.set(("apps", i, "extension_settings", "profanity-filter"),
                        {"dropMessage": False, "badwords": ["heck"] if i else []})
        session.set(("apps", app_index(fleet, "Acme Support"), "webhooks", 0, "triggers"), ["message_edited"])
    session.save()
    listed = _policy_list(fleet)
    assert {r["name"]: r["violations"] for r in listed["rules"]} == {  # type: ignore[union-attr]
        "darn": len(apps), "hooks-hear-messages": 1}
    assert run("policy", "fix", str(fleet)).exit_code == exitcodes.OK
    after = yaml.safe_load(fleet.read_text())["apps"]
    assert [a["extension_settings"]["profanity-filter"]["badwords"] for a in after] == [
        ["darn"] if i == 0 else ["heck", "darn"] for i in range(len(apps))]
    assert after[app_index(fleet, "Acme Support")]["webhooks"][0]["triggers"] == ["message_edited", "message_sent"]


def test_contains_misuse_is_located(fleet: Path) -> None:
    rules = fleet.parent / "d.policies.yaml"
    rules.write_text("""\
format: 1
policies:
  - name: on-a-text
    check: {field: name, contains: x}
    message: m
  - name: two-values
    check: {field: extensions.enabled, contains: [a, b]}
    message: m
  - name: on-settings
    check: {field: settings, contains: true}
    message: m
""")
    checked = run("validate", str(fleet))
    assert checked.exit_code == exitcodes.ERROR
    out = checked.output
    assert f"{rules}:4:20: error: policies[0].check.field: rule on-a-text: field name: is not a list" in out, out
    assert f"{rules}:7:12: error: policies[1].check: rule two-values: contains: one value the list must hold" in out
    assert f"{rules}:10:20: error: policies[2].check.field: rule on-settings: field settings: is not a list" in out
