"""What a draft says about keys of the management interface it does not manage or does not know: a settings key
the service is not known to report is kept with a did-you-mean warning, a known boolean given a list is an error,
and ``moderation`` (deprecated endpoints) says where moderation is configured instead."""

from __future__ import annotations

from pathlib import Path

from tenantdeck.draft import load_draft

HEAD = "format: 1\napps:\n  - name: One\n    region: us\n"


def problems(tmp_path: Path, body: str) -> dict[tuple[str, int], tuple[str, str]]:
    path = tmp_path / "tenantdeck.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return {(p.key_path, p.line): (p.severity.value, p.message) for p in load_draft(path).problems}


def test_an_unknown_setting_is_kept_with_the_nearest_known_key(tmp_path: Path) -> None:
    found = problems(tmp_path, "    settings:\n      core.conversations.updateOnReply: true\n")
    ((key, line), (severity, message)), = found.items()
    assert (key, line, severity) == ("apps[0].settings.core.conversations.updateOnReply", 6, "warning")
    assert message.endswith("did you mean `core.conversations.updateOnReplies`?")


def test_a_known_boolean_setting_given_a_list_is_an_error(tmp_path: Path) -> None:
    found = problems(tmp_path, "    settings:\n      core.notifications.push.enabled: [x]\n")
    assert found == {("apps[0].settings.core.notifications.push.enabled", 6):
                     ("error", "Push notifications enabled is true or false")}


def test_moderation_says_where_it_is_configured(tmp_path: Path) -> None:
    found = problems(tmp_path, "    moderation:\n      rules: []\n")
    ((key, line), (severity, message)), = found.items()
    assert (key, line, severity) == ("apps[0].moderation", 5, "error")
    assert "deprecated" in message and "/moderation REST API" in message
