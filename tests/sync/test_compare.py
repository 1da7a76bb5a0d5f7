"""Three-way comparison on canonical apps built in the test: sync, local, drift, conflict, merge, defaults, secrets."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tenantdeck.models import Draft
from tenantdeck.models.secrets import fingerprint
from tenantdeck.sync.canonical import normalise_widget_settings
from tenantdeck.sync.compare import classify, compare_all, compare_app
from tenantdeck.sync.kinds import canonical_app_from_draft
from tenantdeck.sync.plan import build_plan
from tenantdeck.sync.types import ABSENT, UNKNOWN
from tests.models import factories

KEY = b"k" * 32


def canon(app: dict[str, Any] | None = None, **env: str) -> tuple[Draft, dict[str, Any]]:
    """A draft of one app and its canonical form (the app gets id "a1" and widget id "w1")."""
    data = factories.draft(app or factories.app("Acme"))
    data["apps"][0]["id"] = "a1"
    for j, w in enumerate(data["apps"][0]["widgets"]):
        w["id"] = f"w{j + 1}"
    draft = Draft.model_validate(data)
    return draft, canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "pw1", **env})


@pytest.mark.parametrize(
    ("base", "draft", "live", "state"),
    [
        (1, 1, 1, "same"),
        (1, 2, 1, "local"),
        (1, 1, 2, "remote"),
        (1, 2, 2, "same"),
        (1, 2, 3, "conflict"),
        (ABSENT, 1, ABSENT, "local"),
        (1, ABSENT, 1, "local"),
    ],
)
def test_classify(base: Any, draft: Any, live: Any, state: str) -> None:
    assert classify(base, draft, live) == state


def test_identical_sides_are_in_sync() -> None:
    _, app = canon()
    diff = compare_app(app, copy.deepcopy(app), copy.deepcopy(app))
    assert diff.status == "in_sync"
    assert all(r.status == "in_sync" for r in diff.resources)
    plan = build_plan(compare_all([app], {"a1": app}, {"a1": copy.deepcopy(app)}), None)
    assert plan.operations == [] and plan.conflicts == [] and plan.drift == [] and plan.unchanged_apps == 1


def test_merge_without_clobbering_remote_field() -> None:
    """Remote changed field A, draft changed field B of the same widget: the PUT carries both."""
    draft_model, base = canon()
    draft = copy.deepcopy(base)
    live = copy.deepcopy(base)
    draft["widgets"]["w1"]["main"]["send_voice_notes"] = True  # B, locally
    live["widgets"]["w1"]["style"]["primary_color"] = "#FF0000"  # A, remotely
    plan = build_plan(compare_all([draft], {"a1": base}, {"a1": live}), draft_model)
    assert [op.kind for op in plan.operations] == ["update_widget"]
    sent = plan.operations[0].payload["settings"]
    assert sent["main"]["send_voice_notes"] is True
    assert sent["style"]["primary_color"] == "#FF0000"
    assert [c.path for c in plan.operations[0].changes] == ["main.send_voice_notes"]
    assert plan.operations[0].changes[0].label == "Allow voice notes"
    assert [(d.path, d.after) for d in plan.drift] == [("style.primary_color", "#FF0000")]
    assert plan.conflicts == []


def test_conflict_when_both_change_a_field_differently() -> None:
    draft_model, base = canon()
    draft, live = copy.deepcopy(base), copy.deepcopy(base)
    draft["widgets"]["w1"]["style"]["primary_color"] = "#111111"
    live["widgets"]["w1"]["style"]["primary_color"] = "#222222"
    plan = build_plan(compare_all([draft], {"a1": base}, {"a1": live}), draft_model)
    assert plan.operations == []
    (conflict,) = plan.conflicts
    assert (conflict.path, conflict.label) == ("style.primary_color", "Primary colour")
    assert (conflict.base, conflict.draft, conflict.live) == ("#03A9F4", "#111111", "#222222")


def test_same_change_on_both_sides_is_not_a_conflict() -> None:
    draft_model, base = canon()
    draft, live = copy.deepcopy(base), copy.deepcopy(base)
    for side in (draft, live):
        side["widgets"]["w1"]["main"]["share_location"] = True
    plan = build_plan(compare_all([draft], {"a1": base}, {"a1": live}), draft_model)
    assert plan.operations == [] and plan.conflicts == [] and plan.drift == []


def test_remote_only_webhook_and_drift_are_kept_not_deleted() -> None:
    draft_model, base = canon()
    live = copy.deepcopy(base)
    live["webhooks"]["extra"] = {**live["webhooks"]["hook1"], "name": "Added in the dashboard"}
    live["webhooks"]["hook1"]["enabled"] = False
    plan = build_plan(compare_all([base], {"a1": base}, {"a1": live}), draft_model, allow_delete=True)
    assert plan.operations == []
    assert {(d.resource, d.path) for d in plan.drift} >= {('webhook "Hook hook1" (hook1)', "enabled")}
    assert any(d.after == "created remotely" for d in plan.drift)


def test_server_defaults_never_show_as_changes() -> None:
    """The service returns only required fields (and the spec's ' #000000'); the draft wrote every default."""
    draft_model, app = canon()
    full = app["widgets"]["w1"]
    sparse = {
        "name": full["name"],
        "version": "v2",
        "style": {k: full["style"][k] for k in ("docked_layout_icon_background", "docked_layout_icon_close",
                                                 "docked_layout_icon_open")},
        "sidebar": {k: v for k, v in full["sidebar"].items() if k not in ("chats", "start_a_new_conversation",
                                                                          "group_listing")},
        "main": {k: v for k, v in full["main"].items() if k not in ("send_gifs", "allow_add_members")},
    }
    sparse["style"]["foreground_color"] = " #000000"
    sparse["main"]["send_gifs"] = full["main"]["send_gifs"]
    live = copy.deepcopy(app)
    live["widgets"]["w1"] = normalise_widget_settings(sparse)
    plan = build_plan(compare_all([app], {}, {"a1": live}), draft_model)
    assert plan.operations == [] and plan.drift == [] and plan.conflicts == []


def test_presets_are_resolved_before_comparing() -> None:
    """Changing a preset changes every widget that extends it; an override in the widget wins over the preset."""
    data = factories.draft(factories.app("A"), factories.app("B"))
    for i, a in enumerate(data["apps"]):
        a["id"] = f"a{i}"
        a["widgets"][0]["id"] = f"w{i}"
    base_draft = Draft.model_validate(data)
    base = {f"a{i}": canonical_app_from_draft(base_draft, i, secret_key=KEY, env={"HOOK_PASSWORD": "x"})
            for i in range(2)}
    data["presets"]["support"]["style"]["primary_color"] = "#00FF00"
    data["presets"]["support"]["main"]["send_gifs"] = True  # both widgets override send_gifs: no change
    new_draft = Draft.model_validate(data)
    apps = [canonical_app_from_draft(new_draft, i, secret_key=KEY, env={"HOOK_PASSWORD": "x"}) for i in range(2)]
    plan = build_plan(compare_all(apps, base, copy.deepcopy(base)), new_draft)
    assert [op.kind for op in plan.operations] == ["update_widget", "update_widget"]
    for op in plan.operations:
        assert [(c.path, c.after) for c in op.changes] == [("style.primary_color", "#00FF00")]
        assert op.unchanged == 64  # every other setting of the widget, folded into one line


def test_secret_rotation_is_detected_by_fingerprint_and_never_shown() -> None:
    draft_model, base = canon()
    _, draft = canon(HOOK_PASSWORD="NewSecretValue42")
    draft_model = Draft.model_validate(draft_model.model_dump(mode="json"))
    live = copy.deepcopy(base)
    live["webhooks"]["hook1"]["password"] = dict(UNKNOWN)  # the API never reports it: the base stands in
    assert base["webhooks"]["hook1"]["password"] == {"fingerprint": fingerprint("pw1", KEY)}
    plan = build_plan(compare_all([draft], {"a1": base}, {"a1": live}), draft_model)
    (op,) = plan.operations
    assert op.kind == "update_webhook"
    (change,) = op.changes
    assert change.secret and change.after == "will rotate" and change.before == "(set)"
    assert op.payload["password"] == {"$secret": {"app": "Acme", "app_id": "a1", "field": "webhooks.hook1.password",
                                                  "path": "apps[0].webhooks[0].password", "source": "env",
                                                  "var": "HOOK_PASSWORD"}}
    assert "NewSecretValue42" not in repr(plan.to_json())


def test_unknown_live_password_with_same_draft_secret_is_in_sync() -> None:
    _, base = canon()
    live = copy.deepcopy(base)
    live["webhooks"]["hook1"]["password"] = dict(UNKNOWN)
    assert build_plan(compare_all([base], {"a1": base}, {"a1": live}), None).operations == []


def test_unset_variable_is_not_a_change() -> None:
    _, base = canon()
    draft = copy.deepcopy(base)
    draft["webhooks"]["hook1"]["password"] = {"ref": "HOOK_PASSWORD"}
    assert build_plan(compare_all([draft], {"a1": base}, None), None).operations == []


def test_deletes_need_allow_delete_and_come_first() -> None:
    draft_model, base = canon()
    other = copy.deepcopy(base)
    other.update(id="gone", name="Gone app")
    draft = copy.deepcopy(base)
    del draft["webhooks"]["hook1"]
    draft["widgets"]["w1"]["main"]["send_gifs"] = False
    bases = {"a1": base, "gone": other}
    lives = copy.deepcopy(bases)
    plan = build_plan(compare_all([draft], bases, lives), draft_model)
    assert [op.kind for op in plan.operations] == ["update_widget"]
    assert plan.skipped_deletions == 2
    plan = build_plan(compare_all([draft], bases, lives), draft_model, allow_delete=True)
    assert [op.kind for op in plan.operations] == ["delete_webhook", "delete_app", "update_widget"]
    assert [op.destructive for op in plan.operations] == [True, True, False]


def test_widget_gone_from_draft_is_never_deleted() -> None:
    draft_model, base = canon()
    draft = copy.deepcopy(base)
    draft["widgets"] = {}
    plan = build_plan(compare_all([draft], {"a1": base}, copy.deepcopy({"a1": base})), draft_model,
                      allow_delete=True)
    assert plan.operations == []
    assert any("no widget delete" in n.message for n in plan.notes)


def test_new_app_plans_create_then_its_resources_in_order() -> None:
    data = factories.draft(factories.app("Fresh"))
    draft_model = Draft.model_validate(data)
    app = canonical_app_from_draft(draft_model, 0, secret_key=KEY, env={"HOOK_PASSWORD": "pw"})
    plan = build_plan(compare_all([app], {}, {}), draft_model)
    kinds = [op.kind for op in plan.operations]
    assert kinds == ["create_app", "set_extensions", "create_widget", "create_webhook", "add_triggers"]
    create = plan.operations[0].key
    assert all(create in op.depends_on for op in plan.operations[1:])
    assert plan.operations[3].key in plan.operations[4].depends_on
    assert plan.operations[3].payload["password"]["$secret"]["var"] == "HOOK_PASSWORD"


def test_offline_compares_draft_to_base() -> None:
    draft_model, base = canon()
    draft = copy.deepcopy(base)
    draft["extensions"]["reactions"] = True
    plan = build_plan(compare_all([draft], {"a1": base}, None), draft_model)
    assert plan.offline
    (op,) = plan.operations
    assert op.kind == "set_extensions" and op.payload == {"enabled": ["reactions"], "disabled": []}


def test_remote_change_to_a_field_the_draft_also_edited_the_same_way_has_no_drift() -> None:
    _, base = canon()
    live = copy.deepcopy(base)
    del live["webhooks"]["hook1"]
    draft = copy.deepcopy(base)
    draft["webhooks"]["hook1"]["enabled"] = False
    plan = build_plan(compare_all([draft], {"a1": base}, {"a1": live}), None)
    assert [c.message for c in plan.conflicts] == ["deleted remotely, changed in the draft"]
