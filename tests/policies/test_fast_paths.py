"""The policies engine's fast paths give what the obvious slow ones give.

- A compiled shorthand path (:mod:`tenantdeck.policies.finder`) over the app as the draft holds it, against the
  generic walk over the normalised app (every widget merged with its preset and the defaults).
- A cel check on the app cut down to what it reads (:mod:`tenantdeck.policies.celview`), against the same check on
  the whole normalised app: same verdict, same error.
- The whole engine (batches, memoised cel views, compiled selectors) against a reference written the plain way.

Drafts are random, shaped like real ones and not: sections that are strings, lists where mappings go, None. By
default half the examples they had before (95 cases of 30 drafts each, not 60: the file was 14 s of the suite's CPU),
ten times as many in the long run (tests/fuzzing.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tenantdeck.absent import ABSENT
from tenantdeck.policies.cellib import cel
from tenantdeck.policies.celview import WHOLE, needs, prune
from tenantdeck.policies.evaluator import PolicyEngine, normalise, selected, shorthand_breaks, shorthand_ok, values_at
from tenantdeck.policies.finder import compile_finder
from tenantdeck.policies.model import load_policies
from tests.fuzzing import examples

# -- random drafts -------------------------------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "x", "v2", "#03A9F4", "a b"]))
SECTION_KEYS = ["send_gifs", "share_location", "primary_color", "calls", "custom_css", "nope",
                "sidebar_navigation_sequence"]
section = st.one_of(st.dictionaries(st.sampled_from(SECTION_KEYS), scalars, max_size=4), scalars)
widget = st.one_of(
    st.fixed_dictionaries({}, optional={"name": scalars, "id": scalars, "extends": st.sampled_from(["p", "q", 3]),
                                        "style": section, "sidebar": section, "main": section,
                                        "other": scalars}),
    scalars)
hook = st.one_of(st.fixed_dictionaries({}, optional={"name": scalars, "webhookURL": scalars, "enabled": scalars,
                                                     "triggers": st.lists(scalars, max_size=2)}), scalars)
nested = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(["a", "b", "admins"]), inner,
                                                                       max_size=3)), max_leaves=8)
app_strategy = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.sampled_from(["Tenant 01", "Tenant 02", "Acme"]), scalars),
    "id": st.one_of(st.sampled_from(["t-1", "t-2"]), scalars),
    "labels": st.one_of(st.dictionaries(st.sampled_from(["tier", "x"]), st.sampled_from(["gold", "free"]),
                                        max_size=2), scalars),
    "widgets": st.one_of(st.lists(widget, max_size=3), scalars),
    "webhooks": st.one_of(st.lists(hook, max_size=3), scalars),
    "team": st.one_of(st.dictionaries(st.sampled_from(["admins", "moderators"]), nested, max_size=2), scalars),
    "sms": nested, "region": scalars, "settings": nested,
})
#: presets that set what widgets leave out (most widgets extend "p")
preset = st.fixed_dictionaries({"main": st.dictionaries(st.sampled_from(SECTION_KEYS), scalars, min_size=1),
                                "style": st.dictionaries(st.sampled_from(SECTION_KEYS), scalars, min_size=1)},
                               optional={"name": scalars, "sidebar": section})
presets_strategy = st.one_of(st.none(), st.dictionaries(st.sampled_from(["p", "q"]),
                                                        st.one_of(preset, widget, st.just({"name": "P"})),
                                                        max_size=2))

#: a widget of each layer: its own value, its preset's, the default's
LAYERED = {"widgets": [{"extends": "p", "main": {"send_gifs": True}},
                       {"extends": "p", "style": {"custom_css": "x"}, "sidebar": {"calls": False}},
                       {"extends": "q"}, "junk"]}
LAYERED_PRESETS = {"p": {"main": {"send_gifs": None, "share_location": True, "nope": 1},
                         "style": {"primary_color": "x"},
                         "sidebar": {"calls": True, "sidebar_navigation_sequence": ["chats"]}},
                   "q": {"main": "not a mapping", "name": "Q"}}
PATHS = [("widgets", "*", "main", "send_gifs"), ("widgets", 0, "style", "primary_color"),
         ("widgets", 2, "sidebar", "calls"), ("widgets", "*", "style"), ("widgets", "*", "name"),
         ("widgets", "*", "id"), ("widgets",), ("widgets", "*"), ("widgets", "x"), ("widgets", "*", "main", "nope"),
         ("widgets", "*", "style", "custom_css", "*"), ("webhooks", "*", "webhookURL"), ("webhooks", 1, "name"),
         ("webhooks", "*", "triggers", "*"), ("webhooks",), ("labels", "tier"), ("labels",), ("team", "admins"),
         ("team", "admins", "*", "a"), ("team", "admins", 0), ("sms", "a"), ("sms", "*"), ("region",),
         ("settings", "a", "b"), ("settings", "*", "admins"),
         ("widgets", "*", "sidebar", "sidebar_navigation_sequence"),
         ("widgets", 1, "sidebar", "sidebar_navigation_sequence", "*")]
OKS: dict[str, Callable[[Any], bool]] = {
    "never": lambda v: False, "present": lambda v: v is not ABSENT, "bool": lambda v: isinstance(v, bool),
    "truthy": lambda v: v is ABSENT or bool(v),
}


@pytest.mark.parametrize("parts", PATHS, ids=lambda parts: ".".join(map(str, parts)))
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(app=app_strategy, presets=presets_strategy, ok=st.sampled_from(sorted(OKS)))
@example(app=LAYERED, presets=LAYERED_PRESETS, ok="never")
def test_a_compiled_path_finds_what_the_walk_over_the_normalised_app_finds(app: dict[str, Any], presets: Any,
                                                                           parts: tuple[Any, ...], ok: str) -> None:
    test = OKS[ok]
    expected = next(((p, v) for p, v in values_at(normalise(app, presets), parts) if not test(v)), None)
    assert compile_finder(parts)(app, presets, test) == expected


def test_a_compiled_path_holds_the_paths_keys_as_data_not_code() -> None:
    parts = ("settings", "x') or __import__('os').system('false') or ('", "*")
    find = compile_finder(parts)
    app = {"settings": {parts[1]: ["a"]}}
    assert find(app, None, lambda v: False) == ((*parts[:2], 0), "a")


# -- cel views ------------------------------------------------------------------------------------------------------

EXPRESSIONS = [
    "!has(app.sms) || app.sms.a != ''",
    "app.webhooks.all(w, w.enabled == true)",
    "app.webhooks.exists(w, has(w.name))",
    "size(app.webhooks) <= 2",
    "app.webhooks.size() < 3",
    "!has(app.team) || app.team.admins.all(a, string(a).endsWith('x'))",
    "has(app.team.admins)",
    "app.team.admins.a == 1",
    "app.widgets.all(w, w.main.send_gifs == false)",
    "app.widgets.exists(w, has(w.sidebar.calls) && w.style.custom_css == '' && has(w.main.nope))",
    "app.widgets.all(w, w.main.size() > 0 && w.name != '')",
    "app.widgets.map(w, w.style.primary_color).exists(c, c == '#03A9F4')",
    "app.labels.all(k, k != 'x')",
    "size(app.labels) > 0",
    "'app.sms.a' != string(app.region) // app.team",
    "app.webhooks.filter(w, w.enabled == true).size() == size(app.webhooks)",
    "app.webhooks.map(w, app.region).size() >= 0",
    "[1, 2].all(x, has(app.sms.b))",
    "app.sms == {}",
    "app.sms['a'] == 1",
    "app.settings.a.b == 1",
    "has(app.settings.a) && has(app.settings.a.admins)",
    "app.all(k, k != 'sms')",
    "size(app) > 2",
    "app.webhooks.all(app, app.enabled == true)",
    "app.webhooks.exists(w, w.triggers.exists(t, t == 'x'))",
    "app.team.admins.map(a, a.b).size() > 0",
    "app.settings['a'] == 1",
    "app['settings'][\"b\"].admins == 1",
    "app.webhooks[0].name == 'x'",
    "app.team['admins'][1] == 'x'",
    "app.sms[1] == 1",
    "app.settings['a.b'] == 1 || app.settings['a'].a == 2",
]


def _outcome(program: Any, app: Any) -> tuple[str, Any]:
    try:
        return "ok", program.execute(cel.Context(variables={"app": app}))
    except Exception as exc:  # compared: the cut-down app must raise what the whole one raises
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("source", EXPRESSIONS)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(app=app_strategy, presets=presets_strategy)
def test_a_cel_check_on_the_cut_down_app_gives_what_it_gives_on_the_whole(app: dict[str, Any], presets: Any,
                                                                        source: str) -> None:
    program = cel.compile(source)
    whole = normalise(app, presets)
    assert _outcome(program, prune(whole, needs(source))) == _outcome(program, whole)


@pytest.mark.parametrize("source", [e for e in EXPRESSIONS  # the engine cuts these down field by field
                                    if not (needs(e).whole or needs(e).size or needs(e).items is not None)])
@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(app=app_strategy, presets=presets_strategy)
@example(app=LAYERED, presets=LAYERED_PRESETS)
def test_the_engine_builds_the_cut_down_app_without_normalising_it_all(app: dict[str, Any], presets: Any,
                                                                       source: str) -> None:
    from tenantdeck.policies.evaluator import _view

    need = needs(source)
    assert _view(app, presets, need) == prune(normalise(app, presets), need)


def test_what_a_check_reads() -> None:
    sms = needs("!has(app.sms) || app.sms.twilioAccountSid != ''")
    assert list(sms.keys) == ["sms"] and sms.keys["sms"].flat == ("twilioAccountSid",)
    hooks = needs("size(app.webhooks) <= 3 && app.webhooks.all(w, w.enabled)")
    assert prune({"webhooks": [{"enabled": True, "password": "${P}"}, "x"], "name": "n"}, hooks) == \
        {"webhooks": [{"enabled": True}, "x"]}
    # a string or a comment is no reference; a bare app, a quoted field or an index reads all of it
    assert list(needs("'app.team.x' == app.name // app.sms").keys) == ["name"]
    assert needs("app == {}") is WHOLE
    assert needs("app.`team-x` == 1") is WHOLE
    assert needs("app['sms'] == 1").keys["sms"].whole
    assert needs("app.settings['a.b'] == 1").keys["settings"].flat == ("a.b",)
    assert needs("app.settings[k] == 1").keys["settings"].whole


# -- the engine against a plain reference -------------------------------------------------------------------------

RULES = """\
format: 1
policies:
  - {name: gifs, check: {field: "widgets[*].main.send_gifs", equals: false}, message: m}
  - {name: colour, check: {field: "widgets[*].style.primary_color", one_of: ["#03A9F4", "x"]}, message: m,
     severity: warning}
  - {name: hooks, check: {field: "webhooks[*].webhookURL", matches: "^x"}, message: m}
  - {name: names, check: {field: "webhooks[*].name", required: true}, message: m}
  - {name: admins, check: {field: team.admins, count: {min: 1, max: 2}}, message: m, select: {names: ["Tenant*"]}}
  - {name: region, check: {field: region, forbidden: true}, message: m, select: {labels: {tier: gold}}}
  - {name: sameish, check: {field: settings.a, same: true}, message: m}
  - {name: ids, check: {field: "widgets[0].id", required: true}, message: m, select: {ids: ["t-*"]}}
  - {name: setting, check: {cel: "!has(app.settings) || app.settings.a != ''"}, message: m}
  - {name: enabled, check: {cel: "app.webhooks.all(w, w.enabled == true)"}, message: m}
  - {name: few, check: {cel: "size(app.webhooks) <= 2"}, message: m}
  - {name: whole, check: {cel: "app.all(k, k != 'settings')"}, message: m}
  - {name: wcel, check: {cel: "app.widgets.all(w, w.main.send_gifs == false && has(w.style.primary_color))"},
     message: m}
"""


def _reference(policies: Any, apps: list[Any], presets: Any) -> list[tuple[Any, ...]]:
    """Every rule over every normalised app, the plain way (no compiled paths, no views, no memo)."""
    out = []
    for i, raw in enumerate(apps):
        app = normalise(raw, presets)
        for rule in policies.rules:
            kind = rule.check.kind
            if not selected(rule, app) or kind == "same":
                continue
            if kind == "cel":
                status, verdict = _outcome(policies.programs[rule.name], app)
                if status == "ok" and verdict is False:
                    out.append((rule.name, i, ()))
                elif status != "ok" or not isinstance(verdict, bool):
                    name = raw.get("name") if isinstance(raw, dict) else None
                    out.append((rule.name, str(name) if name is not None else f"apps[{i}]", "problem"))
                continue
            broken = shorthand_breaks(rule, policies.paths[rule.name], app, kind)
            if broken is not None:
                out.append((rule.name, i, broken[0]))
    return out


@pytest.fixture(scope="module")
def rules(tmp_path_factory: Any) -> Any:
    path: Path = tmp_path_factory.mktemp("rules") / "d.policies.yaml"
    path.write_text(RULES)
    policies = load_policies(path)
    assert not policies.problems and len(policies.rules) == 13
    return policies


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(apps=st.lists(app_strategy, max_size=12), presets=presets_strategy)
def test_the_engine_finds_what_a_plain_evaluation_finds(rules: Any, apps: list[Any], presets: Any) -> None:
    evaluation = PolicyEngine(rules).evaluate(apps, presets)
    found = [(v.rule, v.app_index, v.path) for v in evaluation.violations if v.rule != "sameish"]
    found += [(p.message.split()[1].rstrip(":"), _named(p.message), "problem") for p in evaluation.problems]
    assert sorted(found, key=repr) == sorted(_reference(rules, apps, presets), key=repr)


def _named(message: str) -> str:
    """The app a problem's message names (``... on app 'NAME': ...``)."""
    return message.split(" on app ", 1)[1].split("'")[1]


def test_shorthand_ok_reads_absent_as_not_written() -> None:
    assert shorthand_ok(_rule("required: true"))(ABSENT) is False
    assert shorthand_ok(_rule("forbidden: true"))(ABSENT) is True


def _rule(check: str) -> Any:
    import yaml

    from tenantdeck.policies.model import Rule

    return Rule.model_validate({"name": "r", "message": "m", "check": {"field": "name", **yaml.safe_load(check)}})
