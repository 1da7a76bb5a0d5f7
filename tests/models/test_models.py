"""Each model rule from the spec tables and the reference's limits, one behaviour per test."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from tenantdeck.models import App, AppCreate, Draft, Main, Sidebar, SmsSettings, Style, Webhook, WidgetSettings, catalog
from tenantdeck.models.base import held_marks
from tests.models.factories import app, draft, full_main, full_settings, webhook


def errors_of(model: Any, data: Any) -> list[tuple[tuple[Any, ...], str, str]]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return [(tuple(e["loc"]), e["type"], e["msg"]) for e in info.value.errors()]


def test_factory_draft_is_valid() -> None:
    Draft.model_validate(draft(app("A"), app("B")))


# --- app -------------------------------------------------------------------------------------------------------


def test_app_version_must_be_the_string_3_not_the_number() -> None:
    errs = errors_of(AppCreate, {"name": "A", "region": "us", "version": 3})
    assert errs[0][0] == ("version",)


def test_app_region_is_one_of_us_eu_in() -> None:
    errs = errors_of(AppCreate, {"name": "A", "region": "asia"})
    assert errs[0][1] == "literal_error" and "'us', 'eu' or 'in'" in errs[0][2]


def test_app_name_at_most_100_characters() -> None:
    AppCreate.model_validate({"name": "x" * 100, "region": "eu"})
    assert errors_of(AppCreate, {"name": "x" * 101, "region": "eu"})[0][1] == "string_too_long"


def test_app_name_must_not_be_blank() -> None:
    assert errors_of(AppCreate, {"name": "  ", "region": "eu"})[0][1] == "blank"


def test_unknown_keys_are_refused() -> None:
    errs = errors_of(App, {"name": "A", "region": "us", "regoin": "eu"})
    assert errs == [(("regoin",), "extra_forbidden", "Extra inputs are not permitted")]


def test_at_most_25_webhooks_per_app() -> None:
    hooks = [webhook(f"h{i}") for i in range(26)]
    errs = errors_of(App, app("A", webhooks=hooks))
    assert errs[0][0] == ("webhooks",) and errs[0][1] == "too_long"


def test_at_most_25_widgets_per_app() -> None:
    widgets = [{"extends": "support", "name": f"w{i}"} for i in range(26)]
    assert errors_of(App, app("A", widgets=widgets))[0][1] == "too_long"


# --- widget ------------------------------------------------------------------------------------------------------


def test_full_widget_settings_validate() -> None:
    settings = WidgetSettings.model_validate(full_settings())
    assert settings.version == "v2"


def test_main_has_46_toggles_and_29_required() -> None:
    assert len(Main.model_fields) == 46
    assert sum(1 for t in catalog.MAIN_TOGGLES if t.required) == 29


def test_required_toggle_without_default_must_be_present() -> None:
    main = full_main()
    del main["allow_creating_polls"]
    assert errors_of(Main, main) == [(("allow_creating_polls",), "missing", "Field required")]


def test_required_toggle_with_default_falls_back_to_it() -> None:
    main = full_main()
    del main["block_user"]
    assert Main.model_validate(main).block_user is True


def test_optional_toggle_defaults_follow_the_spec() -> None:
    main = {t.key: False for t in catalog.MAIN_TOGGLES if t.required and t.default is None}
    parsed = Main.model_validate(main)
    assert parsed.send_gifs is False and parsed.view_shared_media is True and parsed.show_typing_indicators is None


def test_toggles_are_strict_booleans() -> None:
    errs = errors_of(Main, full_main(send_gifs="yes"))  # type: ignore[arg-type]
    assert errs[0][0] == ("send_gifs",) and errs[0][1] == "bool_type"


def test_style_docked_icon_fields_are_required() -> None:
    errs = errors_of(Style, {})
    assert {e[0][0] for e in errs} == {
        "docked_layout_icon_background",
        "docked_layout_icon_close",
        "docked_layout_icon_open",
    }


@pytest.mark.parametrize("colour", ["#fff", "#03A9F4", "#03a9f4"])
def test_colours_accept_rgb_and_rrggbb(colour: str) -> None:
    data = full_settings()["style"] | {"primary_color": colour}
    assert Style.model_validate(data).primary_color == colour


@pytest.mark.parametrize("colour", ["03A9F4", "#03A9F", "red", "#GGGGGG", "#03A9F4FF"])
def test_colours_reject_anything_else(colour: str) -> None:
    data = full_settings()["style"] | {"primary_color": colour}
    assert errors_of(Style, data)[0][1] == "colour"


def test_foreground_default_is_normalised_not_the_spec_typo() -> None:
    data = full_settings()["style"]
    del data["foreground_color"]
    assert Style.model_validate(data).foreground_color == "#000000"
    assert catalog.STYLE_DEFAULTS["foreground_color"] == "#000000"


def test_the_spec_typo_in_a_draft_gets_a_specific_message() -> None:
    data = full_settings()["style"] | {"foreground_color": " #000000"}
    errs = errors_of(Style, data)
    assert errs[0][1] == "colour_whitespace" and "'#000000'" in errs[0][2]


def test_sidebar_six_required_fields() -> None:
    errs = errors_of(Sidebar, {})
    assert {e[0][0] for e in errs} == {
        "users",
        "groups",
        "calls",
        "recent_chat_listing",
        "user_listing",
        "sidebar_navigation_sequence",
    }


def test_listing_values_outside_the_documented_ones_are_held_not_refused() -> None:
    """Issue 8: the service may hold another value; the model keeps it, the Held mark carries the rule."""
    data = full_settings()["sidebar"] | {"user_listing": "everyone"}
    assert Sidebar.model_validate(data).user_listing == "everyone"
    marks = held_marks(Sidebar)
    assert {k: m.choices for k, m in marks.items()} == catalog.LISTING_VALUES
    assert marks["user_listing"].breaks("everyone") and not marks["user_listing"].breaks("friends")
    assert errors_of(Sidebar, data | {"user_listing": False})[0][1] == "string_type"  # still text
    schema = Sidebar.model_json_schema()["properties"]["user_listing"]
    assert schema["enum"] == ["all_users", "friends", "none"]  # editors still offer the documented values


def test_navigation_may_reorder_and_omit() -> None:
    data = full_settings()["sidebar"] | {"sidebar_navigation_sequence": ["groups", "chats"]}
    assert Sidebar.model_validate(data).sidebar_navigation_sequence == ["groups", "chats"]


def test_navigation_may_not_add() -> None:
    data = full_settings()["sidebar"] | {"sidebar_navigation_sequence": ["chats", "stories"]}
    assert errors_of(Sidebar, data)[0][0] == ("sidebar_navigation_sequence", 1)


def test_navigation_may_not_repeat() -> None:
    data = full_settings()["sidebar"] | {"sidebar_navigation_sequence": ["chats", "users", "chats"]}
    errs = errors_of(Sidebar, data)
    assert errs[0][1] == "navigation_repeat" and "'chats' appears twice" in errs[0][2]


def test_widget_name_single_line_and_bounded() -> None:
    assert errors_of(WidgetSettings, full_settings(name="a\nb"))[0][1] == "single_line"
    # the bound is a Held rule (the service may hold a longer name): checked by rules.py, the plan, the sandbox
    assert WidgetSettings.model_validate(full_settings(name="x" * 101)).name == "x" * 101
    assert held_marks(WidgetSettings)["name"].max_length == 100
    assert WidgetSettings.model_json_schema()["properties"]["name"]["maxLength"] == 100


def test_widget_version_is_always_v2() -> None:
    data = full_settings() | {"version": "v3"}
    assert errors_of(WidgetSettings, data)[0][0] == ("version",)


# --- webhook -----------------------------------------------------------------------------------------------------


def test_webhook_ids_the_service_holds_are_accepted_but_not_blank_or_spaced() -> None:
    # the OpenAPI's own example id breaks the documented rule: the model must take it (rules.py warns, plan refuses
    # to create such an id)
    assert Webhook.model_validate(webhook("test_webhook201")).id == "test_webhook201"
    assert Webhook.model_validate(webhook("x" * 51)).id == "x" * 51
    assert errors_of(Webhook, webhook("has space"))[0][1] == "string_pattern_mismatch"
    assert errors_of(Webhook, webhook(""))[0][1] == "string_too_short"


def test_webhook_url_must_be_https() -> None:
    errs = errors_of(Webhook, webhook(webhookURL="http://example.com/hook"))
    assert errs[0][1] == "url_scheme"


def test_webhook_url_http_allowed_for_loopback() -> None:
    assert Webhook.model_validate(webhook(webhookURL="http://127.0.0.1:9000/hook"))


def test_webhook_url_at_most_255() -> None:
    url = "https://example.com/" + "a" * 240
    assert errors_of(Webhook, webhook(webhookURL=url))[0][1] == "string_too_long"


def test_basic_auth_needs_username_and_password() -> None:
    errs = errors_of(Webhook, webhook(username=None, password=None))
    assert errs[0][1] == "basic_auth_incomplete" and "username and password" in errs[0][2]


def test_basic_auth_off_needs_nothing() -> None:
    Webhook.model_validate(webhook(useBasicAuth=False, username=None, password=None))


def test_unknown_trigger_is_kept_by_the_model() -> None:
    # the service may hold trigger ids the documented list lacks; rules.py warns, the plan refuses to add one
    assert Webhook.model_validate(webhook(triggers=["message_sent", "mesage_sent"])).triggers[1] == "mesage_sent"
    assert errors_of(Webhook, webhook(triggers=["message_sent", ""]))[0][0] == ("triggers", 1)


def test_triggers_may_not_repeat() -> None:
    assert errors_of(Webhook, webhook(triggers=["message_sent", "message_sent"]))[0][1] == "duplicate_item"


def test_password_limits_apply_to_literal_values() -> None:
    assert errors_of(Webhook, webhook(password="a" * 101))[0][1] == "string_too_long"
    assert errors_of(Webhook, webhook(password="has space"))[0][1] == "password_chars"


def test_broken_secret_reference_is_named() -> None:
    (error,) = errors_of(Webhook, webhook(password="${HOOK_PASSWORD"))
    assert error[1] == "secret_reference"
    assert error[2].endswith("write it as ${NAME}")  # the message says how, with no doubled braces


def test_webhook_body_leaves_triggers_out() -> None:
    body = Webhook.model_validate(webhook()).body()
    assert "triggers" not in body and body["password"] == "${HOOK_PASSWORD}"


# --- sms ----------------------------------------------------------------------------------------------------------


def sms(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "fromMobileNo": "+12345678",
        "messageDelay": 60,
        "twilioAccountSid": "AC123",
        "twilioAuthToken": "${TWILIO_TOKEN}",
        "websiteURL": "https://example.com",
    }
    return data | fields


def test_sms_all_five_fields_required() -> None:
    assert len(errors_of(SmsSettings, {})) == 5


def test_sms_delay_is_a_number_not_a_string() -> None:
    assert errors_of(SmsSettings, sms(messageDelay="60"))[0][:2] == (("messageDelay",), "number_type")


def test_sms_delay_not_negative() -> None:
    assert errors_of(SmsSettings, sms(messageDelay=-1))[0] == (("messageDelay",), "setting_bounds",
                                                               "must be at least 0 seconds")


# --- draft -------------------------------------------------------------------------------------------------------


def test_draft_format_is_required() -> None:
    data = draft()
    del data["format"]
    assert errors_of(Draft, data)[0][0] == ("format",)


def test_unknown_extension_rejected() -> None:
    data = draft(app("A", extensions={"enabled": ["polls", "polll"]}))
    assert errors_of(Draft, data)[0][0] == ("apps", 0, "extensions", "enabled", 1)


def test_widget_override_types_are_checked_before_merging() -> None:
    data = draft(app("A", widgets=[{"extends": "support", "main": {"send_gifs": "on"}}]))
    assert errors_of(Draft, data)[0][0] == ("apps", 0, "widgets", 0, "main", "send_gifs")


def test_json_schema_describes_every_toggle() -> None:
    schema = Draft.model_json_schema()
    main = schema["$defs"]["Main"]["properties"]
    assert main["allow_creating_polls"]["description"].startswith("Enable polls")
    assert len(main) == 46


def test_models_round_trip_through_json() -> None:
    parsed = Draft.model_validate(draft(app("A"), app("B")))
    again = Draft.model_validate(parsed.model_dump(mode="json", exclude_none=True))
    assert again == parsed
    assert copy.deepcopy(parsed) == parsed


def test_webhook_url_http_to_a_hostname_that_only_looks_like_loopback_is_refused() -> None:
    """`127.example.com` is resolved by DNS like any name; only localhost and loopback IPs count as local."""
    assert errors_of(Webhook, webhook(webhookURL="http://127.example.com/hook"))[0][1] == "url_scheme"
    assert Webhook.model_validate(webhook(webhookURL="http://[::1]:9000/hook"))
