"""What a bulk edit's refresh reuses gives the answers of the slow path, and an edit is still seen.

After an edit, the session re-validates only the App fields the edit lay inside (a copy of the app's model that
shares the other fields' models), the editor's change states canonicalise those models (not validated again) and
keep each kind's canonical part while the model fields it reads (``Kind.reads``) are the same objects, and
``compare_app`` skips the kinds whose section is equal on every side. Each is checked here against the way that
does no reuse: a fresh validation of the session's text, a fresh ``AppStates`` without models, a canonical app
without kept parts, a comparison of every kind.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tenantdeck.sync.compare as compare_module
from tenantdeck.draft.load import load_text
from tenantdeck.draft.session import DraftSession
from tenantdeck.models import App, Draft, catalog
from tenantdeck.sync.compare import compare_app
from tenantdeck.sync.kinds import KINDS, canonical_app_from_draft
from tenantdeck.sync.kinds.base import flatten
from tenantdeck.sync.types import UNKNOWN
from tenantdeck.sync.workspace.local import load_local
from tenantdeck.sync.workspace.offline import AppStates
from tenantdeck.sync.workspace.state import Workspace
from tenantdeck.tui.editor import Editor
from tests.fuzzing import examples

ENV = {"TWILIO_AUTH_TOKEN": "tw-secret", "HOOK_PASSWORD": "hook-secret"}  # FCM_PRIVATE_KEY left unset


def full_app(i: int) -> dict[str, Any]:
    """An app with every kind written out (as bench/validate.py's full draft, smaller)."""
    return {
        "id": f"app{i}",
        "name": f"Tenant {i}",
        "region": ("us", "eu", "in")[i % 3],
        "version": "3",
        "extensions": {"enabled": ["stickers", "polls", "profanity-filter", "push-notification"],
                       "disabled": ["e2ee"]},
        "widgets": [{"name": f"Support {i}", "version": "v2", "style": copy.deepcopy(catalog.STYLE_DEFAULTS),
                     "sidebar": {**copy.deepcopy(catalog.SIDEBAR_DEFAULTS), "calls": True, "user_settings": True},
                     "main": {t.key: bool(t.default) for t in catalog.MAIN_TOGGLES}}],
        "sms": {"fromMobileNo": "+12345678", "messageDelay": 60, "twilioAccountSid": f"AC{i:032d}",
                "twilioAuthToken": "${TWILIO_AUTH_TOKEN}", "websiteURL": "www.example.com"},
        "webhooks": [{"id": f"h{i}", "name": "Hook", "webhookURL": f"https://hooks.example.com/{i}",
                      "useBasicAuth": True, "username": "td", "password": "${HOOK_PASSWORD}", "enabled": True,
                      "triggers": ["message_sent", "group_created"]}],
        "team": {"admins": [f"admin{i}@tenants.example"], "moderators": []},
        "extension_settings": {
            "profanity-filter": {"dropMessage": False, "badwords": ["darn", f"tenant{i}"]},
            "push-notification": {"version": 2, "pushProvider": 1, "sendEditMessageNotification": True,
                                  "fcmCredentials": {"project_id": f"t{i}", "client_email": f"p@t{i}.example",
                                                     "private_key": "${FCM_PRIVATE_KEY}", "private_key_id": "k"}},
        },
        "settings": {"core.conversations.updateOnReplies": i % 2 == 0, "core.notifications.push.enabled": True},
    }


APPS = 3
#: (path inside an app, the values it takes): inside one field (validated alone), a field's item, a whole
#: top-level value (validated whole), and values that do not validate (the app's model is then None)
EDITS: list[tuple[tuple[Any, ...], list[Any]]] = [
    (("widgets", 0, "main", "send_gifs"), [True, False]),
    (("widgets", 0, "style", "primary_color"), ["#112233", "#ABCDEF", "red"]),
    (("extension_settings", "profanity-filter", "badwords"), [["darn"], ["darn", "heck", "blargh"], [3]]),
    (("extension_settings", "push-notification", "fcmCredentials", "private_key"), ["${OTHER_VAR}"]),
    (("sms", "messageDelay"), [30, 60, "soon"]),
    (("team", "moderators"), [[], ["mod@tenants.example"]]),
    (("settings", "core.conversations.updateOnReplies"), [True, False, ["x"]]),  # a list: the rules' error
    (("webhooks", 0, "enabled"), [True, False]),
    (("webhooks", 0, "triggers"), [["message_sent"], ["message_sent", "group_created", "not_a_trigger"]]),
    (("name",), ["Renamed", "Tenant 0"]),
]


def open_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Editor:
    """An editor on a draft of full apps with a base snapshot equal to it (every app in sync)."""
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FCM_PRIVATE_KEY", raising=False)
    path = tmp_path / "tenantdeck.yaml"
    data = {"format": 1, "presets": {}, "apps": [full_app(i) for i in range(APPS)]}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    editor = Editor(path)
    editor.session.validate_all()
    draft = Draft.model_validate(editor.session.data)
    draft._source = path
    workspace = Workspace(path)
    key = workspace.secret_key()
    workspace.write_base_apps({app.id: canonical_app_from_draft(draft, i, secret_key=key, env=os.environ)
                               for i, app in enumerate(draft.apps) if app.id})
    assert set(editor.compute_app_states().values()) == {"in sync"}
    return editor


def check_against_slow_path(editor: Editor, tmp_path: Path) -> None:
    session = editor.session
    models = session.validated_models()
    assert models is not None
    for i, raw in enumerate(session.data["apps"]):
        try:
            fresh: App | None = App.model_validate(raw)
        except ValueError:
            fresh = None
        assert models[0][i] == fresh, i
    again = tmp_path / "again.yaml"
    again.write_text(session.text, encoding="utf-8")
    fresh_session = DraftSession.open(again, display=session.file)
    assert [(p.path, p.message, p.line) for p in session.problems] == \
        [(p.path, p.message, p.line) for p in fresh_session.problems]
    states = editor.compute_app_states()
    assert states == AppStates(editor.path).compute(session.data, env=os.environ)
    # what the review plans from (DraftSession.load_result): load_text's answer, nothing read again
    loaded, fresh = session.load_result(), load_text(session.text, session.file)
    assert loaded is not None and loaded.doc.text == session.text
    assert (loaded.ok, loaded.draft) == (fresh.ok, fresh.draft)
    assert sorted((p.path, p.message) for p in loaded.problems if p.is_error) == \
        sorted((p.path, p.message) for p in fresh.problems if p.is_error)
    # and the canonical apps it plans with, from the change states' kept parts: those of the text loaded afresh
    if loaded.ok:
        assert loaded.draft is not None
        key = Workspace(editor.path).secret_key()
        assert editor.kept_states().parts_made_with(loaded.draft.presets, key, os.environ), "parts to reuse"
        reused = load_local(editor.path, os.environ, text=session.text, loaded=loaded, reuse=editor.kept_states())
        assert reused.apps == load_local(editor.path, os.environ, text=session.text).apps


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["set", "set_many", "undo", "redo"]),
                                st.lists(st.tuples(st.integers(0, APPS - 1), st.integers(0, len(EDITS) - 1),
                                                   st.integers(0, 2)), min_size=1, max_size=4)),
                      min_size=1, max_size=6))
def test_reused_models_parts_and_states_match_the_slow_path(
    steps: list[tuple[str, list[tuple[int, int, int]]]], tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tmp_path = tmp_path_factory.mktemp("reuse")
    editor = open_editor(tmp_path, monkeypatch)
    for verb, picks in steps:
        edits = []
        for app, which, value in picks:
            where, values = EDITS[which]
            edits.append((("apps", app, *where), values[value % len(values)]))
        if verb == "undo":
            editor.undo()
        elif verb == "redo":
            editor.redo()
        elif verb == "set":
            editor.set(*edits[0])
        else:
            editor.set_many(edits)
        check_against_slow_path(editor, tmp_path)


def test_an_edit_inside_one_field_shares_the_others_and_is_seen(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    editor = open_editor(tmp_path, monkeypatch)
    before = editor.session.validated_models()
    assert before is not None
    edits = [(("apps", i, "extension_settings", "profanity-filter", "badwords"), ["darn", "blargh"])
             for i in range(APPS)]
    assert editor.set_many(edits).ok
    after = editor.session.validated_models()
    assert after is not None
    for old, new in zip(before[0], after[0], strict=True):
        assert old is not None and new is not None and new is not old
        assert new.widgets is old.widgets and new.sms is old.sms  # not validated again: shared
        assert new.extension_settings is not old.extension_settings
        assert new.extension_settings.profanity_filter.badwords == ["darn", "blargh"]  # type: ignore[union-attr]
    assert set(editor.compute_app_states().values()) == {"modified"}
    editor.undo()
    assert set(editor.compute_app_states().values()) == {"in sync"}
    assert editor.set("apps[1].sms.messageDelay", 61).ok  # a kind whose part was kept by the last refresh
    assert editor.compute_app_states()["apps[1]"] == "modified"
    check_against_slow_path(editor, tmp_path)


def test_a_changed_environment_is_not_answered_from_kept_parts(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept parts hold fingerprints of ``${VAR}`` secrets: another value of the variable makes them anew."""
    editor = open_editor(tmp_path, monkeypatch)
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", "rotated")
    assert editor.set("apps[0].widgets[0].main.send_gifs", True).ok
    assert editor.compute_app_states()["apps[0]"] == "modified"
    assert editor.set("apps[0].widgets[0].main.send_gifs", False).ok
    # the token still differs from the base's (apps not edited keep their last state, as they always did)
    assert editor.compute_app_states()["apps[0]"] == "modified"
    assert AppStates(editor.path).compute(editor.session.data, env=os.environ)["apps[0]"] == "modified"


# -- Kind.reads says every field a kind's from_draft reads ---------------------------------------------------------

OTHER = {**full_app(7), "push_certificates": {"p12": "certs/apns.p12"}, "extensions": None, "team": None}
OTHER["widgets"][0]["main"]["send_gifs"] = not OTHER["widgets"][0]["main"]["send_gifs"]
OTHER["sms"]["messageDelay"] = 5
OTHER["settings"] = {"core.conversations.updateOnReplies": True}


@pytest.mark.parametrize("kind", [k for k in KINDS if k.reads is not None], ids=lambda k: k.name)
def test_a_kind_reads_only_the_fields_it_names(kind: Any) -> None:
    """A field a kind does not name, taken from another app, never changes its part (so a part kept while the
    named fields are the same objects is the part a fresh canonicalisation gives); the fields it names do."""
    mine = App.model_validate(full_app(1))
    other = App.model_validate({k: v for k, v in OTHER.items() if v is not None})
    draft = Draft.model_construct(format=1, presets={}, apps=[mine])

    def part(app: App) -> Any:
        return kind.from_draft(draft, app, secret_key=b"k" * 32, env=ENV)

    for name in sorted(set(App.model_fields) - set(kind.reads)):
        assert part(mine.model_copy(update={name: getattr(other, name)})) == part(mine), name
    if kind.reads:
        assert part(mine.model_copy(update={name: getattr(other, name) for name in kind.reads})) != part(mine)


# -- compare_app skips kinds whose section is equal on every side --------------------------------------------------

def _canonical(app: dict[str, Any]) -> dict[str, Any]:
    draft = Draft.model_validate({"format": 1, "apps": [app]})
    return canonical_app_from_draft(draft, 0, secret_key=b"k" * 32, env=ENV)


CANON = _canonical(full_app(2))
CHANGES: list[tuple[str, Any]] = [
    ("widgets", lambda w: {rid: {**v, "main": {**v["main"], "send_gifs": not v["main"]["send_gifs"]}}
                           for rid, v in (w or {}).items()}),
    ("widgets", lambda w: {}),
    ("sms", lambda s: {**(s or {}), "messageDelay": 1}),
    ("sms", lambda s: None),
    ("webhooks", lambda h: {rid: {**v, "triggers": ["message_sent"]} for rid, v in (h or {}).items()}),
    ("webhooks", lambda h: {rid: {**v, "password": dict(UNKNOWN)} for rid, v in (h or {}).items()}),
    ("team", lambda t: None),
    ("team", lambda t: {**(t or {}), "x@y.example": "moderator"}),
    ("extension_settings", lambda e: {**e, "profanity-filter": {**e["profanity-filter"], "badwords": []}}),
    ("extensions", lambda e: {**e, "polls": False}),
    ("settings", lambda s: {**s, "core.notifications.push.enabled": False}),
    ("name", lambda n: "Other"),
]


def _changed(app: dict[str, Any], which: list[int]) -> dict[str, Any]:
    out = copy.deepcopy(app)
    for n in which:
        section, change = CHANGES[n]
        out[section] = change(out.get(section))
    return out


def _shape(diff: Any) -> Any:
    return (diff.status, [(r.kind, r.rid, r.status, r.message, [(x.path, x.base, x.draft, x.live, x.state)
                                                               for x in r.leaves]) for r in diff.resources])


@settings(max_examples=examples(80), deadline=None)
@given(draft_changes=st.lists(st.integers(0, len(CHANGES) - 1), max_size=3),
       live_changes=st.lists(st.integers(0, len(CHANGES) - 1), max_size=3),
       offline=st.booleans())
def test_skipping_equal_sections_gives_the_full_comparison(draft_changes: list[int], live_changes: list[int],
                                                            offline: bool) -> None:
    draft, base = _changed(CANON, draft_changes), copy.deepcopy(CANON)
    live = base if offline else _changed(CANON, live_changes)
    fast = compare_app(draft, base, live, offline=offline)
    real = compare_module._kinds_to_compare
    try:
        compare_module._kinds_to_compare = lambda *sides: list(KINDS)  # type: ignore[assignment]
        slow = compare_app(draft, base, live, offline=offline)
    finally:
        compare_module._kinds_to_compare = real
    assert _shape(fast) == _shape(slow)
    if not draft_changes and (offline or not live_changes):
        assert fast.status == "in_sync"
    if draft_changes == [0] and offline:
        assert fast.status == "update"  # the edit is seen


# -- flatten's checks by type give the answer of the ABC checks ----------------------------------------------------

def _reference_flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """flatten as it was written before its checks by type: every value asked ``isinstance(.., Mapping)``."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{prefix}{key}"
        if item is None:
            continue
        is_state = isinstance(item, Mapping) and bool({"fingerprint", "ref", "unknown", "unreadable"} & set(item))
        if isinstance(item, Mapping) and not is_state:
            out.update(_reference_flatten(item, path + "."))
        else:
            out[path] = item
    return out


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
                     st.lists(st.integers(), max_size=2))
_keys = st.sampled_from(["a", "b", "fingerprint", "ref", "unknown", "unreadable", "x.y"])
_nested = st.recursive(_scalars, lambda inner: st.one_of(
    st.dictionaries(_keys, inner, max_size=4),
    st.dictionaries(_keys, inner, max_size=3).map(MappingProxyType),  # a Mapping that is not a dict
), max_leaves=12)


@settings(max_examples=examples(200), deadline=None)
@given(value=st.dictionaries(_keys, _nested, max_size=5))
def test_flatten_by_type_gives_the_answer_of_the_abc_checks(value: dict[str, Any]) -> None:
    assert flatten(value) == _reference_flatten(value)


def test_a_plan_keeps_its_parts_for_the_next_plan_of_apps_without_a_base(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The change states canonicalise only apps with a base; F6's plan made every part of 1,000 unbased apps again
    each time. A plan hands its parts back (``AppStates.keep_parts``): the next plan of the same models makes none,
    and after an edit only the kind whose fields changed, with the slow path's answer."""
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "tenantdeck.yaml"
    data = {"format": 1, "presets": {}, "apps": [full_app(i) for i in range(APPS)]}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    editor = Editor(path)
    editor.session.validate_all()
    assert set(editor.compute_app_states().values()) == {"no base"}
    made: list[str] = []  #: the kinds whose part was made (those without ``reads`` are made every time)
    kept = {kind.name for kind in KINDS if kind.reads is not None}
    for kind in KINDS:
        real = kind.from_draft

        def counted(*args: Any, _real: Any = real, _name: str = kind.name, **kwargs: Any) -> Any:
            made.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(kind, "from_draft", counted)

    def plan_apps() -> list[dict[str, Any]]:
        loaded = editor.session.load_result()
        assert loaded is not None
        return load_local(path, os.environ, text=editor.session.text, loaded=loaded, reuse=editor.kept_states()).apps

    first = plan_apps()
    assert len([m for m in made if m in kept]) == APPS * len(kept)
    made.clear()
    assert plan_apps() == first and not [m for m in made if m in kept]
    assert editor.set("apps[1].sms.messageDelay", 61).ok
    made.clear()
    again = plan_apps()
    assert [m for m in made if m in kept] == ["sms"]
    assert again == load_local(path, os.environ, text=editor.session.text).apps
    assert again[1] != first[1] and again[0] == first[0]
