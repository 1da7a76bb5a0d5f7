"""Bulk edits: the one-pass splice of ``DraftSession.set_many`` gives the same data as the edits made one by one,
is one undo step that gives back the original bytes, and the pure selection and edit builders of ``draft.bulk``
and ``draft.preset_view``."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.draft import bulk, preset_view, splice, yamlsource
from tenantdeck.draft.sample import sample_text
from tenantdeck.draft.session import DraftSession
from tenantdeck.draft.session.splicing import same as _same
from tenantdeck.models import catalog
from tests.draft.test_properties import TRAPS
from tests.draft.test_session_properties import OTHER_STYLE
from tests.fuzzing import examples

SAMPLE = sample_text("schema.json")

FLEET = textwrap.dedent("""\
    # a fleet: widgets extend a preset
    format: 1
    presets:
      support:
        name: Support
        style:
          primary_color: '#112233'
        main:
          send_gifs: false
          show_stickers: true
    apps:
    - id: a0
      name: Tenant 0
      region: us
      widgets:
      - extends: support
        name: Support 0
        main:
          send_gifs: true   # aligned comment
      webhooks:
      - id: events
        name: Events
        webhookURL: https://hooks.example.com/0
        triggers:
        - message_sent
    - id: a1
      name: "Tenant 1"
      region: eu
      widgets:
      - extends: support
        name: Support 1
      webhooks:
      - id: events
        name: Events
        webhookURL: https://hooks.example.com/1
        triggers: [message_sent, group_created]
    - id: a2
      name: Tenant 2
      region: eu
      widgets:
        - name: Own
          version: v2
          style: {primary_color: '#000000'}
          main:
            send_gifs: false

            # a comment inside
            show_stickers: false
    - id: a3
      name: Tenant 3
      region: in
""")

words = st.one_of(st.sampled_from(TRAPS), st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s != ""))
toggles = st.sampled_from([t.key for t in catalog.MAIN_TOGGLES[:8]])
colours = st.sampled_from(["#ff0000", "#00FF00", "#abcdef"])


def an_edit(draw: Any, data: Any) -> tuple[tuple[Any, ...], Any] | None:
    apps = data.get("apps") or []
    i = draw(st.integers(0, len(apps) - 1))
    app = apps[i]
    widgets = app.get("widgets") or []
    hooks = app.get("webhooks") or []
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return ("apps", i, "name"), draw(words)
    if choice == 1:
        return ("apps", i, "region"), draw(st.sampled_from(["us", "eu", "in"]))
    if choice == 2 and widgets:
        return ("apps", i, "widgets", draw(st.integers(0, len(widgets) - 1)), "main", draw(toggles)), draw(
            st.booleans())
    if choice == 3 and widgets:
        return ("apps", i, "widgets", 0, "style", "primary_color"), draw(colours)
    if choice == 4 and hooks:
        triggers = draw(st.lists(st.sampled_from(catalog.TRIGGER_IDS[:8]), max_size=5, unique=True))
        return ("apps", i, "webhooks", draw(st.integers(0, len(hooks) - 1)), "triggers"), triggers
    if choice == 5 and widgets:
        return ("apps", i, "widgets", 0, "sidebar", "user_listing"), draw(
            st.sampled_from(catalog.LISTING_VALUES["user_listing"]))
    return None


def open_text(tmp_path: Path, name: str, text: str) -> DraftSession:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return DraftSession.open(path, validate=False)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), original=st.sampled_from([SAMPLE, OTHER_STYLE, FLEET]))
def test_bulk_splice_loads_to_the_same_data_as_edits_one_by_one(tmp_path: Path, data: st.DataObject,
                                                                 original: str) -> None:
    bulk_session = open_text(tmp_path, "bulk.yaml", original)
    one_by_one = open_text(tmp_path, "one.yaml", original)
    edits = [e for e in (an_edit(data.draw, bulk_session.data) for _ in range(data.draw(st.integers(1, 8)))) if e]
    bulk_session.set_many(edits)
    for path, value in edits:
        one_by_one.set(path, value)
    parsed = yamlsource.parse(bulk_session.text)
    assert not parsed.fatal
    assert _same(parsed.data, bulk_session.data)
    assert parsed.data == one_by_one.data
    if bulk_session.can_undo:
        bulk_session.undo()
    assert bulk_session.text == original
    bulk_session.redo()
    assert yamlsource.parse(bulk_session.text).data == one_by_one.data


def test_a_bulk_toggle_is_one_line_per_app_and_one_undo_step(tmp_path: Path) -> None:
    session = open_text(tmp_path, "fleet.yaml", FLEET)
    session.validate_all()
    edits = [(("apps", i, "widgets", 0, "main", "send_gifs"), False) for i in range(3)]
    session.set_many(edits)
    last = session._undo[-1]
    assert [t.kind for t in last.text] == ["regions"]  # one pass, no ruamel merge
    before, after = FLEET.splitlines(), session.text.splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
    # app 0: the value flips in place (comment kept in its column); app 1 gains `main:` + the key; app 2 already so
    assert changed[0] == ("      send_gifs: true   # aligned comment", "      send_gifs: false  # aligned comment")
    assert "    name: Support 1\n    main:\n      send_gifs: false\n  webhooks:" in session.text
    assert session.get("apps[2].widgets[0].main.send_gifs") is False
    assert len(session._undo) == 1
    session.undo()
    assert session.text == FLEET
    assert not session.can_undo


def test_bulk_falls_back_for_what_it_cannot_find_and_still_matches(tmp_path: Path) -> None:
    session = open_text(tmp_path, "fleet.yaml", FLEET)
    # a flow mapping (style of app 2) and a trigger list written in flow style (app 1)
    session.set_many([(("apps", 2, "widgets", 0, "style", "primary_color"), "#abcdef"),
                      (("apps", 1, "webhooks", 0, "triggers"), ["message_sent", "group_created", "call_initiated"])])
    parsed = yamlsource.parse(session.text).data
    assert parsed["apps"][2]["widgets"][0]["style"] == {"primary_color": "#abcdef"}
    assert parsed["apps"][1]["webhooks"][0]["triggers"][-1] == "call_initiated"
    assert "# a comment inside" in session.text


def test_bulk_edit_problems_follow_the_edit(tmp_path: Path) -> None:
    session = open_text(tmp_path, "fleet.yaml", FLEET)
    original = session.validate_all()
    problems = session.set_many([(("apps", 0, "widgets", 0, "style", "primary_color"), "red")])
    colour = [p for p in problems if p.key_path == "apps[0].widgets[0].style.primary_color"]
    assert len(colour) == 1 and colour[0].line == session.line_of("apps[0].widgets[0].style.primary_color")
    assert colour[0] in session.problems
    session.undo()
    assert session.problems == original


def test_a_literal_secret_is_refused_by_a_bulk_edit(tmp_path: Path) -> None:
    from tenantdeck.draft.session import DraftSessionError

    session = open_text(tmp_path, "fleet.yaml", FLEET)
    with pytest.raises(DraftSessionError, match="literal secret"):
        session.set_many([(("apps", 0, "name"), "x"), (("apps", 0, "webhooks", 0, "password"), "hunter2")])
    assert session.text == FLEET
    assert session.get("apps[0].name") == "Tenant 0"


def test_locate_finds_the_smallest_entry() -> None:
    region = "- id: a\n  widgets:\n  - name: W\n    main:\n      send_gifs: true\n      x: 1\n  webhooks: []\n"
    span = splice.locate(region, (0, "widgets", 0, "main", "send_gifs"))
    assert span is not None and region[span.start : span.end] == "      send_gifs: true\n"
    item = splice.locate(region, (0, "widgets", 0))
    assert item is not None and item.item and region[item.start : item.end].startswith("  - name: W")
    assert splice.locate(region, (0, "nope")) == splice.Span(0, len(region), 0, 1, True)


# ----------------------------------------------------------------------------------------------------------------
# Selection and edit builders
# ----------------------------------------------------------------------------------------------------------------


def fleet_data() -> Any:
    return yamlsource.parse(FLEET).data


def test_select_apps_by_each_criterion() -> None:
    data = fleet_data()
    assert bulk.select_apps(data) == [0, 1, 2, 3]
    assert bulk.select_apps(data, text="tenant 1") == [1]
    assert bulk.select_apps(data, region="eu") == [1, 2]
    assert bulk.select_apps(data, preset="support") == [0, 1]
    assert bulk.select_apps(data, marked={0, 2, 3}, region="eu") == [2]
    assert bulk.select_apps(data, marked=set()) == []


def test_set_field_skips_what_is_already_so_and_overrides_under_the_widget() -> None:
    data = fleet_data()
    field = bulk.find_field("Allow GIFs") or bulk.find_field("send_gifs")
    assert field is not None and field.kind == bulk.TOGGLE
    edit = bulk.set_field(data, [0, 1, 2, 3], field, False)
    # app 0 overrides true -> override set to false; app 1 inherits false from the preset: already; app 2 own false
    assert edit.changed == (0,)
    assert edit.already == (1, 2)
    assert edit.skipped == ((3, "no widget"),)
    assert edit.edits == ((("apps", 0, "widgets", 0, "main", "send_gifs"), False),)
    assert edit.sentence() == "1 app will change, 2 already so; 1 skipped (no widget)."
    on = bulk.set_field(data, [0, 1, 2], field, True)
    assert on.changed == (1, 2) and on.already == (0,)


def test_set_field_values_are_checked() -> None:
    colour = bulk.find_field("style.primary_color")
    listing = bulk.find_field("user_listing")
    assert colour is not None and listing is not None
    assert bulk.parse_value(colour, "#A1b2c3") == ("#A1b2c3", None)
    assert bulk.parse_value(colour, "red")[1]
    assert bulk.parse_value(listing, "friends") == ("friends", None)
    assert "one of" in str(bulk.parse_value(listing, "some")[1])
    toggle = bulk.find_field("send_gifs")
    assert toggle is not None
    assert bulk.parse_value(toggle, "on") == (True, None)
    assert bulk.parse_value(toggle, "maybe")[1]


def test_add_trigger() -> None:
    data = fleet_data()
    edit = bulk.add_trigger(data, [0, 1, 2], "events", "group_created")
    assert edit.changed == (0,) and edit.already == (1,) and edit.skipped == ((2, "no webhook 'events'"),)
    assert edit.edits == ((("apps", 0, "webhooks", 0, "triggers"), ["message_sent", "group_created"]),)
    assert bulk.trigger_problem("group_created") is None and bulk.trigger_problem("nope")
    assert bulk.webhook_ids(data) == ["events"]


def test_preset_view_counts_apps_and_overrides() -> None:
    data = fleet_data()
    assert preset_view.presets(data) == [preset_view.PresetRow("support", 2, 2)]
    assert preset_view.extending(data, "support") == [0, 1]
    by_key = {f.path: f for f in preset_view.fields(data, "support")}
    assert by_key[("main", "send_gifs")].value is False and by_key[("main", "send_gifs")].overriding == 1
    assert by_key[("main", "show_stickers")].source == "preset" and by_key[("main", "show_stickers")].overriding == 0
    assert by_key[("style", "primary_color")].value == "#112233"
    assert by_key[("main", "allow_creating_polls")].source in ("default", "unset")


def test_an_app_setting_is_set_across_the_fleet_only_where_it_differs() -> None:
    from tenantdeck.draft import bulk

    data = {"apps": [
        {"name": "A", "region": "us", "settings": {"core.conversations.updateOnReplies": True}},
        {"name": "B", "region": "us", "settings": {"core.conversations.updateOnReplies": False, "x.y": True}},
        {"name": "C", "region": "eu"},
    ]}
    field = bulk.find_field("Conversations update on replies")
    assert field is not None and field.kind == bulk.SETTING and bulk.parse_value(field, "on") == (True, None)
    edit = bulk.set_field(data, bulk.select_apps(data), field, True)
    assert edit.already == (0,) and edit.changed == (1, 2)
    assert edit.edits == ((("apps", 1, "settings", "core.conversations.updateOnReplies"), True),
                          (("apps", 2, "settings"), {"core.conversations.updateOnReplies": True}))
    assert edit.sentence() == "2 apps will change, 1 already so."
    assert bulk.find_field("core.notifications.push.advanced.included") is None  # a list: not settable


PROFANITY_FLEET = textwrap.dedent("""\
    format: 1
    apps:
    - id: p0
      name: Tenant 0
      region: us
      extension_settings:
        profanity-filter:
          dropMessage: false
          badwords: [darn]   # house list
    - id: p1
      name: Tenant 1
      region: us
      extension_settings:
        profanity-filter:
          dropMessage: true
          badwords:
          - darn
          - heck
    - id: p2
      name: Tenant 2
      region: us
    """)


def test_one_word_added_to_every_filter_list_is_one_undo_step(tmp_path: Path) -> None:
    session = open_text(tmp_path, "fleet.yaml", PROFANITY_FLEET)
    field = bulk.find_field("profanity-filter.badwords")
    assert field is not None and field.kind == bulk.ADD_ITEM and field.extension == "profanity-filter"
    value, problem = bulk.parse_value(field, " heck ")
    assert (value, problem) == ("heck", None)
    edit = bulk.set_field(session.data, [0, 1, 2], field, value)
    assert (edit.changed, edit.already, edit.skipped) == ((0,), (1,), ((2, "no profanity-filter settings"),))
    assert edit.sentence() == "1 app will change, 1 already so; 1 skipped (no profanity-filter settings)."
    session.set_many(list(edit.edits))
    session.validate_all()
    assert session.get("apps[0].extension_settings.profanity-filter.badwords") == ["darn", "heck"]
    assert "# house list" in session.text  # the rest of the file as it was
    assert len(session._undo) == 1
    session.undo()
    assert session.text == PROFANITY_FLEET


def test_extension_fields_take_the_catalogs_types() -> None:
    drop = bulk.find_field("Profanity filter: Drop the message")
    assert drop is not None and drop.kind == bulk.EXTENSION and drop.choices == (True, False)
    provider = bulk.find_field("push-notification.pushProvider")
    assert provider is not None and provider.choices == (1, 2, 0)
    assert bulk.parse_value(provider, "2") == (2, None)
    assert bulk.parse_value(provider, "apns") == (2, None)
    assert "one of 1 (FCM), 2 (APNs), 0 (FCM and APNs)" in str(bulk.parse_value(provider, "7")[1])
    reports = bulk.find_field("report-user.maxReports")
    assert reports is not None
    assert bulk.parse_value(reports, "0")[1] == "Report user: Reports before action must be at least 1 report"
    assert bulk.find_field("gifs-giphy.giphyApiKey") is None  # secrets are not a fleet edit
