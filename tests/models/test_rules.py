"""Cross-object rules: presets, extension dependencies, uniqueness, secrets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tenantdeck.draft import load_draft
from tenantdeck.models import Draft
from tenantdeck.problems import Severity, format_path
from tenantdeck.rules import check_draft, missing_secret_variables, resolve_widget
from tests.models.factories import app, draft, full_settings, webhook


def problems(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(p.severity.value, format_path(p.path), p.message) for p in check_draft(Draft.model_validate(data))]


def test_valid_draft_has_no_problems() -> None:
    assert problems(draft(app("A"), app("B"))) == []


def test_widget_inherits_preset_and_applies_overrides() -> None:
    parsed = Draft.model_validate(draft(app("A")))
    settings = resolve_widget(parsed, parsed.apps[0].widgets[0])
    assert settings is not None
    assert settings.main.send_gifs is True  # override
    assert settings.main.block_user is True  # from preset
    assert settings.name == "A support"


def test_one_preset_edit_rolls_out_to_every_app() -> None:
    data = draft(*(app(f"App{i}") for i in range(5)))
    data["presets"]["support"]["style"]["primary_color"] = "#123456"
    parsed = Draft.model_validate(data)
    colours = {resolve_widget(parsed, a.widgets[0]).style.primary_color for a in parsed.apps}  # type: ignore[union-attr]
    assert colours == {"#123456"}


def test_unknown_preset_with_did_you_mean() -> None:
    data = draft(app("A", widgets=[{"extends": "suport"}]))
    assert problems(data) == [
        ("error", "apps[0].widgets[0].extends", "no preset named 'suport'; presets: support; did you mean `support`?")
    ]


def test_standalone_widget_must_be_complete() -> None:
    data = draft(app("A", widgets=[{"name": "Solo", "main": {"send_gifs": True}}]))
    paths = {p[1] for p in problems(data)}
    assert "apps[0].widgets[0].style" in paths and "apps[0].widgets[0].sidebar" in paths


def test_explicit_empty_override_is_an_error() -> None:
    data = draft(app("A", widgets=[{"extends": "support", "main": {"send_gifs": None}}]))
    assert problems(data) == [
        (
            "error",
            "apps[0].widgets[0].main.send_gifs",
            "has no value; write a value, or remove the key to inherit it from preset 'support'",
        )
    ]


def test_toggle_needing_a_disabled_extension_is_an_error_naming_it() -> None:
    data = draft(app("A", extensions={"enabled": [], "disabled": ["polls"]}))
    data["presets"]["support"]["main"]["allow_creating_polls"] = True
    [(severity, path, message)] = problems(data)
    assert severity == "error" and path == "apps[0].widgets[0].main.allow_creating_polls"
    assert "'polls' extension" in message and "inherited from preset 'support'" in message


def test_toggle_needing_an_extension_set_in_the_widget_points_at_the_widget() -> None:
    data = draft(app("A", widgets=[{"extends": "support", "main": {"enable_message_translation": True}}]))
    [(_severity, path, message)] = problems(data)
    assert path == "apps[0].widgets[0].main.enable_message_translation"
    assert "'message-translation'" in message and "inherited" not in message


def test_toggle_needing_an_extension_is_a_warning_when_state_unknown() -> None:
    data = draft(app("A", extensions=None))
    data["apps"][0]["widgets"][0]["main"]["show_stickers"] = True
    [(severity, _path, message)] = problems(data)
    assert severity == "warning" and "cannot tell" in message


def test_enabled_extension_satisfies_the_toggle() -> None:
    data = draft(app("A", extensions={"enabled": ["stickers"]}))
    data["apps"][0]["widgets"][0]["main"]["show_stickers"] = True
    assert problems(data) == []


def test_extension_both_enabled_and_disabled() -> None:
    data = draft(app("A", extensions={"enabled": ["polls"], "disabled": ["polls"]}))
    assert problems(data)[0][1] == "apps[0].extensions.disabled[0]"


def test_webhook_ids_unique_within_app() -> None:
    data = draft(app("A", webhooks=[webhook("h1"), webhook("h1")]))
    assert problems(data) == [("error", "apps[0].webhooks[1].id", "webhooks[0] of this app has the same id")]


def test_same_webhook_id_in_two_apps_is_fine() -> None:
    assert problems(draft(app("A"), app("B"))) == []


def test_app_names_unique_in_a_draft() -> None:
    assert problems(draft(app("A"), app("A")))[0][1] == "apps[1].name"


def test_literal_secret_is_a_warning_that_never_quotes_it() -> None:
    data = draft(app("A", webhooks=[webhook(password="hunter2")]))
    [(severity, path, message)] = problems(data)
    assert severity == Severity.WARNING and path == "apps[0].webhooks[0].password"
    assert "hunter2" not in message


def test_http_loopback_webhook_is_a_warning() -> None:
    data = draft(app("A", webhooks=[webhook(webhookURL="http://localhost:8000/x")]))
    assert problems(data)[0][0] == "warning"


def test_unset_secret_variable_only_matters_at_push() -> None:
    parsed = Draft.model_validate(draft(app("A")))
    assert check_draft(parsed) == []
    [problem] = missing_secret_variables(parsed, env={})
    assert format_path(problem.path) == "apps[0].webhooks[0].password" and "HOOK_PASSWORD" in problem.message
    assert missing_secret_variables(parsed, env={"HOOK_PASSWORD": "x"}) == []


def test_full_settings_fixture_is_itself_valid() -> None:
    data = draft(app("A", widgets=[full_settings("Standalone")]))
    assert problems(data) == []


def test_values_outside_the_documented_rules_are_warnings_with_a_path() -> None:
    hook = webhook("test_webhook201", name="n" * 51, triggers=["message_sent", "mesage_sent"])
    found = problems(draft(app("A", webhooks=[hook])))
    assert [(sev, path) for sev, path, _ in found] == [
        ("warning", "apps[0].webhooks[0].id"),
        ("warning", "apps[0].webhooks[0].name"),
        ("warning", "apps[0].webhooks[0].triggers[1]"),
    ]
    assert "letters and digits" in found[0][2] and "refuses to create" in found[0][2]
    assert found[2][2].endswith("did you mean `message_sent`?")


def test_a_name_with_a_control_character_is_warned_about(tmp_path: Path) -> None:
    """A trial: `validate` said "valid" for an app named with an ESC and an OSC title sequence. It is a warning (the
    service may hold such a name, and pull keeps it), located, and the message shows the name escaped."""
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(yaml.safe_dump({"format": 1, "apps": [{"name": "Acme \x1b]0;PWNED\x07 x", "region": "us",
                                                           "webhooks": [{"id": "h1", "name": "ok\u202e",
                                                                         "webhookURL": "https://h.example/x",
                                                                         "triggers": []}]}]}), encoding="utf-8")
    found = {(p.key_path, p.code) for p in load_draft(path).problems}
    assert found == {("apps[0].name", "name_control"), ("apps[0].webhooks[0].name", "name_control")}
    assert all("\x1b" not in p.message for p in load_draft(path).problems)
