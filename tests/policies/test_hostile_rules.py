"""Rules that cannot hang (issue 32, items 3 and 4): a pattern that backtracks and a CEL check that would take 10^8
steps finish in seconds through the real ``validate``, ``audit`` and ``policy list`` against the sandbox, a webhook
named as a hostile admin would name it in the dashboard, and the other rules' violations are still reported.

No timing threshold: a hang is caught by pytest-timeout (these tests fail that way without the fixes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.cli import cli

#: what a dashboard user can name a webhook: ``^(a+)+$`` backtracks on it for longer than the universe lasts
HOSTILE_NAME = "a" * 5000 + "!"
DIGITS = "[0,1,2,3,4,5,6,7,8,9]"


def nested_all(depth: int) -> str:
    """``depth`` nested ``[0..9].all(...)``: 10^depth steps."""
    expr = "true"
    for i in range(depth):
        expr = f"{DIGITS}.all(x{i}, {expr})"
    return expr


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A pulled sandbox account whose first app's first webhook a dashboard user renamed to :data:`HOSTILE_NAME`
    (then pulled again: the draft holds it too); returns the draft."""
    from tenantdeck.sandbox.store import KEEP_PASSWORD, Store

    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    draft = tmp_path / "d.yaml"
    assert run("pull", "--draft", str(draft)).exit_code == 0
    app = next(a for a in yaml.safe_load(draft.read_text())["apps"] if a.get("webhooks"))
    store = Store(tmp_path / "data" / "sandbox.sqlite3")  # the dashboard holds what the API refuses (> 50)
    hook = next(h for h in store.list_webhooks(app["id"], None, 100, 0)[0] if h["id"] == app["webhooks"][0]["id"])
    body = {k: v for k, v in hook.items() if k not in ("createdAt", "updatedAt", "password")}
    store.update_webhook(app["id"], hook["id"], {**body, "name": HOSTILE_NAME}, KEEP_PASSWORD)
    pulled = run("pull", "--draft", str(draft))
    assert pulled.exit_code == 0, pulled.output
    assert HOSTILE_NAME in draft.read_text()
    return draft


def rules(draft: Path, *entries: dict[str, Any]) -> None:
    draft.with_name("d.policies.yaml").write_text(yaml.safe_dump({"format": 1, "policies": list(entries)}))


#: a rule every app breaks: the other rules' violations must still be reported
PLAIN = {"name": "named-x", "check": {"field": "name", "equals": "x"}, "message": "every app is called x"}
BACKTRACKING = {"name": "plain-names", "check": {"field": "webhooks[*].name", "matches": "^(a+)+$"},
                "message": "webhook names are a's"}


def violated(doc: dict[str, Any]) -> set[str]:
    return {v["rule"] for v in doc["violations"]}


def test_a_backtracking_pattern_on_a_hostile_name_finishes(account: Path) -> None:
    rules(account, BACKTRACKING, PLAIN)
    checked = run("validate", str(account), "--format", "json")
    assert checked.exit_code == exitcodes.ERROR
    found = {p["message"].split(":")[0] for p in json.loads(checked.stdout)["problems"] if p["code"] == "policy"}
    assert found == {"policy plain-names", "policy named-x"}
    audited = run("audit", str(account), "--format", "json")
    assert audited.exit_code == exitcodes.VIOLATIONS, audited.output
    doc = json.loads(audited.stdout)
    assert violated(doc) == {"plain-names", "named-x"}
    assert [v["app"] for v in doc["violations"] if v["rule"] == "plain-names"] != []


def test_cel_matches_is_linear_too(account: Path) -> None:
    rule = {"name": "cel-names", "check": {"cel": "app.webhooks.all(w, w.name.matches('^(a+)+$'))"},
            "message": "webhook names are a's"}
    rules(account, rule, PLAIN)
    audited = run("audit", str(account), "--format", "json")
    assert audited.exit_code == exitcodes.VIOLATIONS, audited.output
    assert violated(json.loads(audited.stdout)) == {"cel-names", "named-x"}


# -- offline: what the linear-time engine refuses, and that it means what Python's `re` means ---------------------


@pytest.mark.parametrize(("pattern", "construct"), [
    (r"^(a)\1$", "a backreference"), ("^(?=https)", "a lookaround"), ("(?<!s)://", "a negative lookaround"),
    ("(?P<x>a)(?P=x)", "a named backreference"), ("a++", "a possessive quantifier"), ("(", "not a regular expression"),
])
def test_a_pattern_that_needs_backtracking_is_a_located_error_naming_it(tmp_path: Path, pattern: str,
                                                                        construct: str) -> None:
    from tenantdeck.policies.model import load_policies

    path = tmp_path / "d.policies.yaml"
    path.write_text(yaml.safe_dump({"format": 1, "policies": [
        PLAIN, {"name": "r", "check": {"field": "name", "matches": pattern}, "message": "m"}]}, sort_keys=False))
    policies = load_policies(path)
    assert [r.name for r in policies.rules] == ["named-x"]  # the other rule still runs
    [problem] = policies.problems
    assert problem.path == ("policies", 1, "check", "matches") and problem.line > 0
    assert construct in problem.message and "rule r" in problem.message


def _patterns() -> st.SearchStrategy[str]:
    atoms = st.sampled_from(["a", "b", ".", "[ab]", "[^a]", r"\d", "x"])
    return st.recursive(atoms, lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{1,2}"])).map(lambda p: f"(?:{p[0]}){p[1]}"),
        inner.map(lambda p: f"^{p}"), inner.map(lambda p: f"({p})"),
    ), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(pattern=_patterns(), text=st.text(alphabet="ab1x\n", max_size=12))
def test_the_linear_engine_finds_what_python_finds(pattern: str, text: str) -> None:
    """For every pattern both engines read, a `matches` check gives Python's `re.search` verdict."""
    import re

    from tenantdeck.policies.patterns import compile_pattern

    assert (compile_pattern(pattern).search(text) is not None) == (re.search(pattern, text) is not None)
