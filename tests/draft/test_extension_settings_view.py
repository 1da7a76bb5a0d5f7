"""The extension settings form as data (draft/extension_settings_view.py): every catalog extension gets a form, edits
write YAML that validates again, secrets are never values, problems land on the row they name, typed text is parsed
with clear messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenantdeck.draft import extension_settings_view as xv
from tenantdeck.draft import load_draft
from tenantdeck.draft.session import DraftSession
from tenantdeck.models import catalog
from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS, EXTENSIONS, Setting

DRAFT = """\
format: 1
apps:
  - name: Acme
    region: us
    version: '3'
    extension_settings:
      profanity-filter: {dropMessage: false, badwords: [darn]}
      data-masking:
        dropMessage: false
        defaultRegexData:
          - {id: '1', name: US phone numbers, regex: '\\d{3}-\\d{4}', enableFlag: true}
        customregexData: []
      push-notification:
        version: 2
        pushProvider: 1
        fcmCredentials:
          project_id: acme
          client_email: push@acme.example
          private_key: ${FCM_KEY}
          private_key_id: k1
  - name: Globex
    region: eu
    version: '3'
"""
MARKER = "s3cr3t-VALUE-never-shown"
#: an extension the catalog gives no settings, taken from the catalog: a new entry (say polls) changes no test here
WITHOUT_SETTINGS = next(ext for ext in catalog.EXTENSION_IDS if ext not in BY_ID)


@pytest.fixture
def session(tmp_path: Path) -> DraftSession:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(DRAFT, encoding="utf-8")
    return DraftSession.open(path)


def form(session: DraftSession, ext: str, app: int = 0, **kw: Any) -> xv.Form:
    return xv.build_form(session.data, app, ext, session.problems_under(xv.prefix_of(app, ext)), **kw)


def row(f: xv.Form, *path: str | int) -> xv.Row:
    return next(r for r in f.rows if r.path == path)


def apply(session: DraftSession, edits: list[xv.Edit]) -> None:
    assert edits
    with session.transaction():
        for verb, path, value in edits:
            if verb == "set":
                session.set(path, value)
            elif verb == "insert":
                session.insert(path, value)
            else:
                session.delete(path)


def all_text(f: xv.Form) -> str:
    """Everything the form would put on a screen."""
    parts = [f.title, f.why_no_form, *(p.message for p in f.problems)]
    for r in f.rows:
        parts += [r.label, r.help, r.shown, *r.columns, *(p.message for p in r.problems)]
        if r.secret is not None:
            parts += [r.secret.words, r.secret.sentence]
        if r.kind in xv.TYPED:
            parts.append(xv.edit_text(r))
    return "\n".join(parts)


def _leaves(fields: tuple[Setting, ...], at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for s in fields:
        out.append((*at, s.key))
        if s.type == "object":
            out += _leaves(s.fields, (*at, s.key))
    return out


# -- every extension ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ext", DRAFT_EXTENSIONS)
def test_every_catalog_extension_renders_a_form(session: DraftSession, ext: str) -> None:
    """Without settings (the defaults shown dimmed) and once started from the defaults: one row per catalog field,
    nested ones included, each with an editor kind."""
    empty = form(session, ext, app=1)
    assert not empty.why_no_form and not empty.has_settings
    assert {r.path for r in empty.rows} >= set(_leaves(BY_ID[ext].settings))
    assert all(r.dimmed for r in empty.rows if r.depth == 0)
    apply(session, xv.start_edits(session.data, 1, ext))
    started = form(session, ext, app=1)
    assert started.has_settings
    kinds = {r.kind for r in started.rows}
    assert kinds <= {xv.TOGGLE, xv.SELECT, xv.NUMBER, xv.INTEGER, xv.TEXT, xv.SECRET, xv.STRINGS, xv.MAPPING,
                     xv.GROUP, xv.TABLE, xv.ITEM, xv.ENTRY, xv.ROW, xv.EXTRA}
    assert xv.EXTRA not in kinds
    secrets = [r for r in started.rows if r.setting is not None and r.setting.secret and r.required]
    assert all(r.kind == xv.SECRET and r.secret and r.secret.variable for r in secrets)


def test_which_extensions_have_a_form() -> None:
    """Every extension the editor lists either has a form or says why not."""
    for ext in catalog.EXTENSION_IDS:
        assert xv.has_form(ext) == (ext in DRAFT_EXTENSIONS), ext
        if not xv.has_form(ext):
            assert xv.why_no_form(ext)
    assert "SMS tab" in xv.why_no_form("sms-notification")
    assert "dashboard" in xv.why_no_form("intercom")
    assert "no settings" in xv.why_no_form(WITHOUT_SETTINGS)
    assert not [s.id for s in EXTENSIONS if s.id not in catalog.EXTENSION_IDS]


def test_settings_marker(session: DraftSession) -> None:
    data = session.data
    assert xv.settings_marker(data, 0, "profanity-filter") == "draft"
    assert xv.settings_marker(data, 0, "gifs-giphy") == "none"
    assert xv.settings_marker(data, 0, "sms-notification") == "SMS tab"
    assert xv.settings_marker(data, 0, WITHOUT_SETTINGS) == "-"


def test_rows_of_push_notification(session: DraftSession) -> None:
    f = form(session, "push-notification", env={"FCM_KEY": MARKER})
    provider = row(f, "pushProvider")
    assert provider.kind == xv.SELECT and provider.shown == "1 · FCM" and not provider.dimmed
    assert [label for _, label in provider.choices] == ["FCM", "APNs", "FCM and APNs"]
    assert row(f, "fcmCredentials").kind == xv.GROUP
    assert row(f, "fcmCredentials", "project_id").depth == 1
    web = row(f, "notificationInPayload", "web")
    assert web.kind == xv.TOGGLE and web.shown == "on (default)" and web.dimmed and not web.written
    key = row(f, "fcmCredentials", "private_key")
    assert key.kind == xv.SECRET and key.secret is not None
    assert key.secret.variable == "FCM_KEY" and key.secret.is_set
    assert key.shown == "variable set · ${FCM_KEY}"
    assert "Default: 2 · Token-based (recommended). Required." in row(f, "version").help
    unset = form(session, "push-notification", env={})
    assert row(unset, "fcmCredentials", "private_key").shown == "variable unset · ${FCM_KEY}"


def test_help_says_default_and_unit() -> None:
    email = BY_ID["email-notification"]
    delay = email.setting("messageDelay")
    assert delay is not None
    assert xv.help_of(delay) == ("Time interval after which notifications are sent. Default: 120 seconds. At least 0 "
                                 "seconds. Required.")


def test_a_switch_makes_fields_required(session: DraftSession) -> None:
    apply(session, xv.set_edits(session.data, 0, "push-notification", ("pushProvider",), 2))
    f = form(session, "push-notification")
    assert any("keyId and teamId and bundleId are required" in p.message for p in f.problems)
    key_id = row(f, "keyId")
    assert key_id.shown == "not set (required: the provider includes APNs)"
    assert "Required now: the provider includes APNs." in key_id.help


def test_table_rows_and_lists(session: DraftSession) -> None:
    f = form(session, "data-masking")
    table = row(f, "defaultRegexData")
    assert table.kind == xv.TABLE and table.columns == ("Id", "Name", "Pattern", "On")
    mask = row(f, "defaultRegexData", 0)
    assert mask.kind == xv.ROW and mask.columns == ("1", "US phone numbers", "\\d{3}-\\d{4}", "on")
    item = xv.build_form(session.data, 0, "data-masking", under=("defaultRegexData", 0))
    assert item.title == "Data masking > Default masks > 1"
    assert [r.key for r in item.rows] == ["id", "name", "regex", "enableFlag"]
    words = form(session, "profanity-filter")
    assert row(words, "badwords").shown == "1 item: darn"
    assert row(words, "badwords", 0).kind == xv.ITEM
    gone = xv.build_form(session.data, 0, "data-masking", under=("defaultRegexData", 5))
    assert gone.missing and not gone.rows


# -- edits ----------------------------------------------------------------------------------------------------------


def test_edits_write_yaml_that_validates_again(session: DraftSession, tmp_path: Path) -> None:
    """A toggle, a choice, a number, a list item, a mapping entry, a secret reference, a new mask: saved, the file
    loads with no problem and the values read back."""
    data = session.data
    apply(session, xv.toggle_edits(data, 0, "profanity-filter", row(form(session, "profanity-filter"),
                                                                     "dropMessage")))
    apply(session, xv.add_edits(session.data, 0, "profanity-filter", ("badwords",), "heck"))
    apply(session, xv.set_edits(session.data, 0, "push-notification", ("version",), 0))
    apply(session, xv.set_edits(session.data, 0, "push-notification", ("notificationInPayload", "ios"), False))
    apply(session, xv.set_edits(session.data, 0, "email-notification", ("messageDelay",), 90))
    for key, value in (("senderEmail", "n@acme.example"), ("senderName", "Acme"), ("sendGridTemplateId", "t1"),
                       ("sendGridUnsubscribeGroupId", "g1")):
        apply(session, xv.set_edits(session.data, 0, "email-notification", (key,), value))
    apply(session, xv.set_edits(session.data, 0, "gifs-giphy", ("giphyApiKey",), "${GIPHY_KEY}"))
    apply(session, xv.add_edits(session.data, 0, "message-shortcuts", ("shortcuts",), ("!ty", "Thank you")))
    block = session.get(("apps", 0, "extension_settings", "data-masking"))
    setting = xv.setting_at("data-masking", ("customregexData",))
    assert setting is not None
    new = xv.new_item(setting, block)
    assert new == {"id": "2", "name": "", "regex": ""}  # above the default mask's id 1
    apply(session, xv.add_edits(session.data, 0, "data-masking", ("customregexData",), new))
    for key, value in (("id", "9"), ("name", "Orders"), ("regex", "ORD-\\d+")):
        apply(session, xv.set_edits(session.data, 0, "data-masking", ("customregexData", 0, key), value))
    session.save()
    loaded = load_draft(Path(session.path))
    assert [p.render() for p in loaded.problems if p.is_error] == []
    block = loaded.doc.data["apps"][0]["extension_settings"]
    assert block["profanity-filter"] == {"dropMessage": True, "badwords": ["darn", "heck"]}
    assert block["push-notification"]["version"] == 0
    assert block["push-notification"]["notificationInPayload"] == {"ios": False}
    assert block["email-notification"]["messageDelay"] == 90
    assert block["gifs-giphy"] == {"giphyApiKey": "${GIPHY_KEY}"}
    assert block["message-shortcuts"] == {"shortcuts": {"!ty": "Thank you"}}
    assert block["data-masking"]["customregexData"] == [{"id": "9", "name": "Orders", "regex": "ORD-\\d+"}]


def test_one_undo_step_per_edit(session: DraftSession) -> None:
    """Starting settings for an app without any block is one edit (and so one undo)."""
    before = session.text
    apply(session, xv.set_edits(session.data, 1, "profanity-filter", ("badwords",), ["a", "b"]))
    assert session.get(("apps", 1, "extension_settings")) == {
        "profanity-filter": {"dropMessage": False, "badwords": ["a", "b"]}}
    session.undo()
    assert session.text == before


def test_start_and_stop(session: DraftSession) -> None:
    assert xv.start_edits(session.data, 0, "profanity-filter") == []
    apply(session, xv.start_edits(session.data, 1, "gifs-giphy"))
    assert session.get(("apps", 1, "extension_settings", "gifs-giphy")) == {
        "giphyApiKey": "${TENANTDECK_GLOBEX_GIPHY_API_KEY}"}
    assert xv.stop_edits(session.data, 1, "gifs-giphy") == [("delete", ("apps", 1, "extension_settings"), None)]
    apply(session, xv.stop_edits(session.data, 0, "profanity-filter"))
    assert "profanity-filter" not in session.get(("apps", 0, "extension_settings"))
    assert "data-masking" in session.get(("apps", 0, "extension_settings"))


def test_new_push_settings_fill_what_the_provider_needs() -> None:
    block = xv.new_settings("push-notification", "Acme Support")
    assert block["pushProvider"] == 1
    assert block["fcmCredentials"]["private_key"] == "${TENANTDECK_ACME_SUPPORT_FCM_PRIVATE_KEY}"


def test_remove(session: DraftSession) -> None:
    words = form(session, "profanity-filter")
    edits, why = xv.remove_edits(session.data, 0, "profanity-filter", row(words, "badwords"))
    assert edits == [] and "required" in why
    edits, why = xv.remove_edits(session.data, 0, "profanity-filter", row(words, "badwords", 0))
    apply(session, edits)
    assert session.get(("apps", 0, "extension_settings", "profanity-filter", "badwords")) == []
    push = form(session, "push-notification")
    _, why = xv.remove_edits(session.data, 0, "push-notification", row(push, "keyId"))
    assert why == "APNs key id is not set in the draft."


def test_toggle_on_a_mask_flips_its_switch(session: DraftSession) -> None:
    mask = row(form(session, "data-masking"), "defaultRegexData", 0)
    apply(session, xv.toggle_edits(session.data, 0, "data-masking", mask))
    assert session.get(("apps", 0, "extension_settings", "data-masking", "defaultRegexData", 0, "enableFlag")) is False


# -- secrets ----------------------------------------------------------------------------------------------------------


def test_secrets_never_appear_as_values(session: DraftSession) -> None:
    """Neither a set variable's value nor a literal the draft holds is in any text the form shows, or in what an
    edit line starts with."""
    apply(session, xv.set_edits(session.data, 0, "push-notification", ("fcmCredentials", "private_key"),
                                "${FCM_KEY}"))
    shown = all_text(form(session, "push-notification", env={"FCM_KEY": MARKER}))
    assert "${FCM_KEY}" in shown and MARKER not in shown
    # a literal (written by hand; the session itself refuses to write one)
    path = Path(session.path)
    path.write_text(DRAFT.replace("${FCM_KEY}", MARKER), encoding="utf-8")
    literal = DraftSession.open(path)
    f = form(literal, "push-notification", env={})
    key = row(f, "fcmCredentials", "private_key")
    assert key.secret is not None and key.secret.literal and key.secret.variable is None
    assert MARKER not in all_text(f)
    assert xv.edit_text(key) == "${TENANTDECK_ACME_FCM_PRIVATE_KEY}"
    table = xv.build_form(literal.data, 0, "data-masking")
    assert MARKER not in all_text(table)


def test_a_secret_is_typed_as_a_reference_only(session: DraftSession) -> None:
    key = row(form(session, "push-notification"), "fcmCredentials", "private_key")
    assert xv.parse(key, " ${OTHER_KEY} ").value == "${OTHER_KEY}"
    literal = xv.parse(key, "-----BEGIN PRIVATE KEY-----")
    assert not literal.ok and "${ENV_VAR}" in literal.error and "BEGIN" not in literal.error
    broken = xv.parse(key, "$OTHER_KEY")
    assert not broken.ok and "${NAME}" in broken.error


# -- problems -------------------------------------------------------------------------------------------------------


def test_a_bad_pattern_is_reported_on_its_field(session: DraftSession) -> None:
    apply(session, xv.set_edits(session.data, 0, "data-masking", ("defaultRegexData", 0, "regex"), "[0-9"))
    session.validate_all()
    parent = form(session, "data-masking")
    mask = row(parent, "defaultRegexData", 0)
    assert [p.message for p in mask.problems] == [
        "is not a valid regular expression: unterminated character set at position 0"]
    item = form(session, "data-masking", under=("defaultRegexData", 0))
    assert row(item, "defaultRegexData", 0, "regex").problems and not item.problems
    assert xv.check_value(session.data, 0, "data-masking", ("customregexData",),
                          [{"id": "5", "name": "x", "regex": "(a"}]) == [
        "is not a valid regular expression: missing ), unterminated subpattern at position 0"]


def test_unknown_keys_are_shown_and_removable(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(DRAFT.replace("badwords: [darn]}", "badwords: [darn], dropMesage: true}"), encoding="utf-8")
    session = DraftSession.open(path)
    f = form(session, "profanity-filter")
    extra = row(f, "dropMesage")
    assert extra.kind == xv.EXTRA and extra.problems
    assert "unknown key" in extra.problems[0].message
    edits, _ = xv.remove_edits(session.data, 0, "profanity-filter", extra)
    assert edits == [("delete", ("apps", 0, "extension_settings", "profanity-filter", "dropMesage"), None)]


def test_control_characters_from_the_draft_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(DRAFT.replace("badwords: [darn]", 'badwords: ["\\e[2Jdarn"]'), encoding="utf-8")
    f = form(DraftSession.open(path), "profanity-filter")
    assert "\x1b" not in all_text(f)
    assert row(f, "badwords", 0).shown == "\\x1b[2Jdarn"


# -- typed text -------------------------------------------------------------------------------------------------------


def test_parse_typed_values() -> None:
    email = xv.build_form({"apps": [{"name": "A"}]}, 0, "email-notification")
    delay = row(email, "messageDelay")
    assert xv.parse(delay, " 90 ").value == 90
    assert xv.parse(delay, "1.5").value == 1.5
    assert xv.parse(delay, "soon").error == "must be a number of seconds, such as 120"
    assert xv.parse(delay, "-1").error == "must be at least 0 seconds"
    assert xv.parse(delay, "inf").error == "must be a finite number of seconds"
    push = xv.build_form({"apps": [{"name": "A"}]}, 0, "push-notification")
    provider = row(push, "pushProvider")
    assert xv.parse(provider, "apns").value == 2
    assert xv.parse(provider, "0").value == 0
    assert xv.parse(provider, "7").error == "must be one of 1 (FCM), 2 (APNs), 0 (FCM and APNs)"
    words = xv.build_form({"apps": [{"name": "A"}]}, 0, "profanity-filter")
    assert xv.parse(row(words, "badwords"), "a, b,, c ").value == ["a", "b", "c"]
    assert xv.parse_entry("!ty = Thank you", {}).value == ("!ty", "Thank you")
    assert not xv.parse_entry("no equals", {}).ok
    assert "already there" in xv.parse_entry("!ty=x", {"!ty": "y"}).error
    report = xv.build_form({"apps": [{"name": "A"}]}, 0, "report-user")
    assert xv.parse(row(report, "maxReports"), "0").error == "must be at least 1 report"


def test_push_notification_says_which_certificates_the_draft_and_the_service_have() -> None:
    app = {"name": "Acme", "push_certificates": {"p8": "certs/acme.p8"}}
    assert xv.certificate_notes(app, None) == (
        "APNs certificates: .p8 certs/acme.p8 · service (last pull/push): not read yet",)
    held = {"push_certificates": {"p12": {"path": {"unknown": True}, "file": {"unknown": True}}}}
    assert xv.certificate_notes({"name": "Acme"}, held) == (
        "APNs certificates: none in the draft · service (last pull/push): .p12",)
    data = {"format": 1, "apps": [app]}
    form = xv.build_form(data, 0, "push-notification", last_read={"push_certificates": {}})
    assert form.notes == ("APNs certificates: .p8 certs/acme.p8 · service (last pull/push): none",)
    assert xv.build_form(data, 0, "profanity-filter").notes == ()


def test_the_team_tab_says_who_the_service_keeps_read_only() -> None:
    from tenantdeck.draft import team_view as tv

    base = {"service_team": [{"email": "owner@acme.example", "role": "owner"},
                             {"email": "ana@acme.example", "role": "developer"}]}
    assert tv.service_line(base) == ("Owner: owner@acme.example · developers: ana@acme.example (the service's, "
                                     "read-only; as of the last pull or push)")
    assert tv.service_line(None) == "" and tv.service_line({"service_team": []}) == ""
