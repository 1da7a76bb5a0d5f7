"""Canonical state: defaults never show as changes, secrets become states, server-only fields disappear."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck.api.models import RemoteApp, RemoteExtension, RemoteWidget
from tenantdeck.models import Draft, catalog
from tenantdeck.models.secrets import fingerprint
from tenantdeck.sync.canonical import normalise_widget_settings, secret_state_of_draft
from tenantdeck.sync.kinds import canonical_app_from_draft, canonical_app_from_remote
from tenantdeck.sync.types import UNKNOWN, RemoteAppBundle, is_unknown
from tests.fuzzing import examples
from tests.models import factories

KEY = b"k" * 32
TOKEN = "twilio-token-value-1"


def _bundle(*, settings: dict | None = None, webhooks: list | None = None, sms: dict | None = None,
            extensions: list | None = None) -> RemoteAppBundle:
    return RemoteAppBundle(
        app=RemoteApp(id="app1", name="Acme", region="us", version=None, created_at=1),
        extensions=extensions,
        widgets=[RemoteWidget(widget_id="w1", settings=settings or factories.full_settings("Acme support"))],
        sms=sms,
        webhooks=webhooks or [],
    )


def _minimal_remote_settings() -> dict:
    """What a service may return: only the required keys, the spec's spaced foreground, server-only fields."""
    full = factories.full_settings("Acme support")
    required_main = {t.key: full["main"][t.key] for t in catalog.MAIN_TOGGLES if t.default is None}
    return {
        "name": "Acme support",
        "appId": "app1",
        "widgetId": "w1",
        "createdAt": 123,
        "style": {
            "docked_layout_icon_background": "#03a9f4",
            "docked_layout_icon_close": full["style"]["docked_layout_icon_close"],
            "docked_layout_icon_open": full["style"]["docked_layout_icon_open"],
            "foreground_color": " #000000",
            "custom_css": None,
        },
        "sidebar": {k: full["sidebar"][k] for k in
                    ("users", "groups", "calls", "recent_chat_listing", "user_listing", "sidebar_navigation_sequence")},
        "main": {**required_main, "show_stickers": False, "an_unknown_server_flag": True},
    }


def test_server_defaults_and_spaced_colour_normalise_to_the_full_draft_form() -> None:
    remote = normalise_widget_settings(_minimal_remote_settings())
    full = normalise_widget_settings(factories.full_settings("Acme support"))
    assert remote == full
    assert remote["style"]["foreground_color"] == "#000000"
    assert "appId" not in remote and "widgetId" not in remote and "createdAt" not in remote
    assert "an_unknown_server_flag" not in remote["main"]
    assert "custom_css" not in remote["style"]
    assert remote["version"] == "v2"


def test_normalisation_is_idempotent_and_keeps_real_differences() -> None:
    settings = factories.full_settings("X", send_gifs=True)
    once = normalise_widget_settings(settings)
    assert normalise_widget_settings(once) == once
    assert once["main"]["send_gifs"] is True
    assert once != normalise_widget_settings(factories.full_settings("X"))


def test_draft_and_remote_of_the_same_app_are_equal() -> None:
    data = factories.draft(factories.app("Acme", id="app1", extensions=None, webhooks=[
        factories.webhook("hook1", password="${HOOK_PW}")]))
    data["apps"][0]["widgets"][0]["id"] = "w1"
    data["apps"][0]["sms"] = {"fromMobileNo": "+12345678", "messageDelay": 60, "twilioAccountSid": "AC1",
                             "twilioAuthToken": "${TWILIO}", "websiteURL": "www.somewebsite.com"}
    draft = Draft.model_validate(data)
    env = {"HOOK_PW": "pw1", "TWILIO": TOKEN}
    local = canonical_app_from_draft(draft, 0, secret_key=KEY, env=env)

    preset = copy.deepcopy(data["presets"]["support"])
    preset["name"] = "Acme support"
    preset["main"]["send_gifs"] = True
    remote_hook = {**factories.webhook("hook1"), "password": "pw1", "createdAt": 5, "updatedAt": 6}
    remote_hook.pop("triggers")
    remote_hook["triggers"] = ["group_created", "message_sent"]
    bundle = _bundle(settings=preset, webhooks=[remote_hook],
                     sms={"fromMobileNo": "+12345678", "messageDelay": 60.0, "twilioAccountSid": "AC1",
                          "twilioAuthToken": TOKEN})
    remote = canonical_app_from_remote(bundle, secret_key=KEY)
    assert remote == local
    json.dumps(remote)  # plain JSON

    # each kind builds its own part, from both sides, and no two kinds claim the same key (issue 9)
    from tenantdeck.sync.kinds import KINDS

    for side in ("draft", "remote"):
        parts = [k.from_draft(draft, draft.apps[0], secret_key=KEY, env=env) if side == "draft"
                 else k.from_remote(bundle, secret_key=KEY) for k in KINDS]
        keys = [key for part in parts for key in part]
        assert len(keys) == len(set(keys)) and set(keys) == set(local), side


def test_remote_sms_token_is_only_a_fingerprint() -> None:
    remote = canonical_app_from_remote(
        _bundle(sms={"twilioAccountSid": "AC1", "twilioAuthToken": TOKEN, "appId": "app1"}), secret_key=KEY
    )
    sms = remote["sms"]
    assert sms["twilioAuthToken"] == {"fingerprint": fingerprint(TOKEN, KEY)}
    assert TOKEN not in json.dumps(remote)
    # missing optional fields filled from the catalog; the server's appId dropped
    assert sms["fromMobileNo"] == catalog.SMS_DEFAULTS["fromMobileNo"]
    assert sms["messageDelay"] == 60 and "appId" not in sms


def test_webhook_fields_the_service_does_not_return_are_unknown() -> None:
    listed = {"id": "h1", "name": "H", "webhookURL": "https://e.example/h", "enabled": True, "createdAt": 1,
              "triggers": ["message_sent"]}
    hook = canonical_app_from_remote(_bundle(webhooks=[listed]), secret_key=KEY)["webhooks"]["h1"]
    assert hook["password"] == UNKNOWN
    assert is_unknown(hook["useBasicAuth"]) and is_unknown(hook["username"]) and is_unknown(hook["retryOnFailure"])
    assert hook["enabled"] is True and "createdAt" not in hook


def test_extensions_unknown_when_the_service_has_no_per_app_flag() -> None:
    known = [RemoteExtension("polls", "Polls", True), RemoteExtension("e2ee", "E2EE", False)]
    assert canonical_app_from_remote(_bundle(extensions=known), secret_key=KEY)["extensions"] == {
        "e2ee": False, "polls": True}
    unknown = [RemoteExtension("polls", "Polls", None)]
    # not reported is unknown (the base stands in), not read is None: neither is "no extension enabled"
    assert canonical_app_from_remote(_bundle(extensions=unknown), secret_key=KEY)["extensions"] is UNKNOWN
    assert canonical_app_from_remote(_bundle(extensions=None), secret_key=KEY)["extensions"] is None


@pytest.mark.parametrize(
    ("value", "env", "expected"),
    [
        (None, {}, None),
        ("${PW}", {}, {"ref": "PW"}),
        ("${PW}", {"PW": "abc"}, {"fingerprint": fingerprint("abc", KEY)}),
        ("literal1", {}, {"fingerprint": fingerprint("literal1", KEY)}),
    ],
)
def test_draft_secret_states(value: str | None, env: dict, expected: dict | None) -> None:
    assert secret_state_of_draft(value, secret_key=KEY, env=env) == expected


def test_fingerprints_depend_on_the_workspace_key() -> None:
    a = secret_state_of_draft("${PW}", secret_key=KEY, env={"PW": "abc"})
    b = secret_state_of_draft("${PW}", secret_key=b"z" * 32, env={"PW": "abc"})
    assert a != b


def test_draft_widget_without_id_is_keyed_by_name_and_extensions_map() -> None:
    draft = Draft.model_validate(factories.draft(factories.app("Acme", extensions={"enabled": ["polls"],
                                                                                    "disabled": ["e2ee"]})))
    local = canonical_app_from_draft(draft, 0, secret_key=KEY, env={})
    assert list(local["widgets"]) == ["new:Acme support"]
    assert local["extensions"] == {"e2ee": False, "polls": True}
    assert local["webhooks"]["hook1"]["password"] == {"ref": "HOOK_PASSWORD"}
    assert local["webhooks"]["hook1"]["triggers"] == ["group_created", "message_sent"]


_NAMES = st.one_of(st.sampled_from(["apiToken", "relaySecret", "password", "clientApiKey", "privateKey", "hour",
                                    "name", "keyId", "url"]), st.text(min_size=1, max_size=12))
_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(min_size=1, max_size=12)),
                     lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_NAMES, inner, max_size=3)),
                     max_leaves=12)


@settings(max_examples=examples(200), deadline=None)
@given(extra=st.dictionaries(_NAMES.filter(lambda k: k not in {"sendGridApiKey", "messageDelay"}), _JSON,
                             min_size=1, max_size=4))
def test_no_text_under_a_key_named_like_a_secret_reaches_the_base(extra: dict[str, object]) -> None:
    """Whatever the service holds under keys the catalog does not know, a text under a key whose name says secret
    (at any depth, in lists too) is only a fingerprint in the canonical state the base is written from."""
    from tenantdeck.models.secrets import names_a_secret
    from tenantdeck.sync.kinds.extension_settings import KIND

    def secrets_in(value: object, key: str) -> list[str]:
        if isinstance(value, str):
            return [value] if value and names_a_secret(key) else []  # an empty text holds no secret
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in secrets_in(v, str(k))]
        if isinstance(value, list):
            return [s for v in value for s in secrets_in(v, key)]
        return []

    held = {"messageDelay": 120, **extra}
    remote = RemoteAppBundle(app=RemoteApp(id="a1", name="A", region="us", version=None, created_at=1), extensions=None,
                             extension_settings={"email-notification": held})
    state = KIND.from_remote(remote, secret_key=b"k" * 32)
    assert secrets_in(state, "") == [], state  # under a key named like a secret: only fingerprints are left
