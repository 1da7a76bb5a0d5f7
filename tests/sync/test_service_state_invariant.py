"""Issue 34's invariant, over generated service states: whatever the service holds, ``pull`` reads it (or says
what it kept as the service holds it), ``diff`` right after has nothing to push, and a ``push`` right after sends
no request at all (the sandbox sees no write).

Generated in the sandbox's own store, as the real service may hold them: every documented extension setting in
each JSON type that could carry it (an id as a string or an integer, a number as a string, a flag as 0/1, a value
outside our enum), keys the catalog does not know, optional and required keys left out; team members whose email
our model refuses, emails equal but for case, developers; app settings of every JSON type (bool, number, string,
null, list, object) under keys documented, unknown and refused (a space, a control character, empty, too long);
widget fields (with a default or without) holding values of any JSON type, ones our model refuses among them; a
service that does not say which extensions are enabled.

A bounded number of examples in the normal run (``make test``); nightly, run more with
``TENANTDECK_INVARIANT_EXAMPLES=500 pytest tests/sync/test_service_state_invariant.py`` (docs/ci.md, "Nightly:
the service-state invariant, longer").
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS, Setting
from tenantdeck.models.extension_settings import settings_of
from tenantdeck.models.widget import SECTION_MODELS
from tests.fuzzing import examples
from tests.sandbox.ext_samples import settings_for
from tests.sync.helpers_push import app_named, call, live_plan, loaded, make_sandbox, run_pull, run_push
from tests.sync.service_states import (
    ServiceLike,
    hold_app_settings,
    hold_collaborator,
    hold_extension_settings,
    hold_widget_values,
)

EXAMPLES = int(os.environ.get("TENANTDECK_INVARIANT_EXAMPLES", examples(12)))
SECRETS = {"TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_number_text = st.integers(-10**6, 10**6).map(str)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.floats(allow_nan=False,
                    allow_infinity=False), _text)


def _value(setting: Setting) -> st.SearchStrategy[Any]:
    """A value for ``setting`` in any JSON type that could carry its meaning, the documented one included."""
    kind = setting.type
    if kind == "string":
        return st.one_of(_text, st.integers(0, 10**9), _number_text)
    if kind == "number":
        return st.one_of(st.integers(-10, 10**6), st.floats(0, 10**6, allow_nan=False), _number_text)
    if kind == "integer":
        values = list(setting.choice_values) or [0, 1]
        return st.one_of(st.sampled_from(values), st.integers(-5, 50), st.sampled_from(values).map(str))
    if kind == "bool":
        return st.one_of(st.booleans(), st.sampled_from([0, 1, "true", "false"]))
    if kind == "strings":
        return st.lists(st.one_of(_text, st.integers(0, 99)), max_size=3)
    if kind == "mapping":
        return st.dictionaries(_text, st.one_of(_text, st.integers()), max_size=3)
    inner = _settings(setting.fields)
    return inner if kind == "object" else st.lists(inner, max_size=2)


def _settings(fields: tuple[Setting, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """An object with each field present or left out, and maybe a key the catalog does not know."""
    present = st.fixed_dictionaries({}, optional={f.key: _value(f) for f in fields})
    unknown = st.dictionaries(st.sampled_from(["legacyFlag", "dashboardOnly", "x"]), _scalar, max_size=1)
    return st.builds(lambda known, extra: {**extra, **known}, present, unknown)


_bad_emails = st.sampled_from(["raj@localhost", "no-at-sign", "Ana@Acme.Example", "a b@acme.example",
                               "x@" + "y" * 300 + ".example"])
_emails = st.one_of(_bad_emails, st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.example", fullmatch=True))
_members = st.lists(st.tuples(_emails, st.sampled_from(["admin", "moderator", "developer"])), max_size=4,
                    unique_by=lambda m: m[0])
_json = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                    st.dictionaries(_text, inner, max_size=3)), max_leaves=6)
#: an app setting's key as another tool may have written it: documented, unknown, or one our model refuses (a space,
#: a control or bidi character, empty, too long)
_setting_keys = st.one_of(st.sampled_from(["core.limits.maxGroupSize", "core.conversations.updateOnReplies",
                                           "core.notifications.push.advanced.included", "core.number",
                                           "core.\x1b[31mred", "core.a b", "", "k" * 201, "core.\u202eevil"]),
                          st.from_regex(r"core\.[a-z]{1,8}", fullmatch=True), _text)
_app_settings = st.dictionaries(_setting_keys, st.one_of(st.booleans(), st.lists(_text, max_size=2), _json),
                                max_size=4)
_odd_strings = st.sampled_from(["red; background:url(http://evil.example/)", "", " ", "everyone", "\x1b[2J",
                                "#12345g", "\u202e#fff"])
#: fields of the app's widget as another tool may have written them: any field (one with a default, or one the
#: widget cannot do without), any JSON type, values our model refuses among them
_widget_values = st.dictionaries(
    st.sampled_from(list(SECTION_MODELS)),
    st.just(None), max_size=2).flatmap(lambda sections: st.fixed_dictionaries({
        section: st.dictionaries(st.sampled_from(list(SECTION_MODELS[section].model_fields)),
                                 st.one_of(_odd_strings, _json), min_size=1, max_size=2)
        for section in sections}))
_extensions = st.dictionaries(st.sampled_from(DRAFT_EXTENSIONS), st.just(None), max_size=2).flatmap(
    lambda chosen: st.fixed_dictionaries({ext: _settings(BY_ID[ext].settings) for ext in chosen}))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])
@given(extensions=_extensions, members=_members, hide_enabled=st.booleans(), app_settings=_app_settings,
       widget_values=_widget_values)
def test_pull_then_diff_then_push_sends_nothing(extensions: dict[str, dict[str, Any]],
                                                members: list[tuple[str, str]], hide_enabled: bool,
                                                app_settings: dict[str, Any],
                                                widget_values: dict[str, dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_in_sync(Path(tmp), extensions, members, hide_enabled, app_settings, widget_values)


def _same_meaning(setting: Setting, value: Any) -> st.SearchStrategy[Any]:
    """``value`` (valid) or a spelling of it the service may hold with the same meaning: an id as an integer."""
    if setting.int_id:
        return st.one_of(st.just(value), st.integers(0, 10**6))
    if setting.type == "object" and isinstance(value, dict):
        return _variant(setting.fields, value, optional_may_go=True)
    if setting.type == "objects" and isinstance(value, list):
        return st.tuples(*(_variant(setting.fields, item, optional_may_go=False) for item in value)).map(list)
    return st.just(value)


def _variant(fields: tuple[Setting, ...], valid: dict[str, Any], *, optional_may_go: bool,
             needed: frozenset[str] = frozenset()) -> st.SearchStrategy[dict[str, Any]]:
    """``valid`` with each value in a same-meaning spelling and, where allowed, optional keys left out (not one a
    switch makes required) and a key the catalog does not know added."""
    by_key = {f.key: f for f in fields}
    keep = {k: _same_meaning(by_key[k], v) for k, v in valid.items() if k in by_key and
            (by_key[k].required or k in needed or not optional_may_go)}
    may_go = {k: _same_meaning(by_key[k], v) for k, v in valid.items() if k in by_key and k not in keep}
    present = st.fixed_dictionaries(keep, optional=may_go)
    unknown = (st.dictionaries(st.sampled_from(["legacyFlag", "dashboardOnly"]), _scalar, max_size=1)
               if optional_may_go else st.just({}))
    return st.builds(lambda known, extra: {**extra, **known}, present, unknown)


def _readable(ext: str) -> st.SearchStrategy[dict[str, Any]]:
    spec = BY_ID[ext]
    valid = {k: v for k, v in settings_for(spec).items() if k not in {r for _, r in spec.removals}}
    needed = frozenset(name for rule in spec.requirements for name in rule.then)
    return _variant(spec.settings, valid, optional_may_go=True, needed=needed)


_readable_extensions = st.dictionaries(st.sampled_from(DRAFT_EXTENSIONS), st.just(None), min_size=1,
                                       max_size=2).flatmap(
    lambda chosen: st.fixed_dictionaries({ext: _readable(ext) for ext in chosen}))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])
@given(extensions=_readable_extensions)
def test_values_of_the_same_meaning_are_read_into_the_draft_in_their_type(
        extensions: dict[str, dict[str, Any]]) -> None:
    """An id held as an integer, a key the catalog does not know, an optional key left out: the entry is in the
    draft (not kept verbatim), each id in the JSON type the service holds, and the invariant holds."""
    with tempfile.TemporaryDirectory() as tmp:
        draft = check_in_sync(Path(tmp), extensions, [], False)
        pulled = settings_of(app_named(loaded(draft), "Acme Support").extension_settings)
    for ext, held in extensions.items():
        assert ext in pulled, f"{ext} was kept verbatim instead of read"
        for setting in BY_ID[ext].settings:
            if setting.int_id and setting.key in held:
                assert pulled[ext][setting.key] == held[setting.key]
                assert type(pulled[ext][setting.key]) is type(held[setting.key])


def check_in_sync(tmp: Path, extensions: dict[str, dict[str, Any]], members: list[tuple[str, str]],
                  hide_enabled: bool, app_settings: dict[str, Any] | None = None,
                  widget_values: dict[str, dict[str, Any]] | None = None) -> Path:
    """Hold the state in a sandbox in ``tmp``; pull; diff has nothing to push; a push sends no write. Returns the
    pulled draft."""
    sandbox = make_sandbox(tmp / "db.sqlite3")
    service = ServiceLike(sandbox, hide_enabled=hide_enabled)
    app_id = next(a.id for a in call(sandbox, "list_apps") if a.name == "Acme Support")
    for ext, value in extensions.items():
        hold_extension_settings(sandbox, app_id, ext, value)
    for email, role in members:
        hold_collaborator(sandbox, app_id, email, role)
    hold_app_settings(sandbox, app_id, app_settings or {})
    hold_widget_values(sandbox, app_id, widget_values or {})
    draft = tmp / "tenantdeck.yaml"
    run_pull(service, draft)  # never raises: what the draft cannot hold is kept, with a note
    plan = live_plan(service, draft, SECRETS)
    assert plan.operations == [] and plan.conflicts == [], [op.kind for op in plan.operations]
    assert not plan.has_changes
    # nothing is read as gone from the draft either (a widget dropped on pull said "remove it in the dashboard")
    assert plan.skipped_deletions == 0 and plan.notes == [], plan.notes
    service.writes.clear()
    code, err = run_push(service, draft, SECRETS)
    assert code == 0, err
    assert service.writes == []
    return draft
