"""Text output shortens a long name as it shortens a long value (issue 32 item 6): a webhook named with 5,000
characters made `diff` print one 5,109-character conflict line (found by the hostile-user trial). The JSON output
keeps every name whole."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.policies.test_policy_fleet import app_index, edit, fleet, run  # noqa: F401 (fleet: a fixture)

LONG = "a" * 5000 + "!"


def test_a_long_name_is_shortened_in_text_and_whole_in_json(fleet: Path) -> None:  # noqa: F811
    fleet.with_name("tenantdeck.policies.yaml").unlink(missing_ok=True)
    i = app_index(fleet, "Acme Support")
    hooks = yaml.safe_load(fleet.read_text())["apps"][i]["webhooks"]
    edit(fleet, ("apps", i, "webhooks", 0), {**hooks[0], "name": LONG})
    text = run("diff", str(fleet)).output
    assert "aaaa" in text
    assert max(len(line) for line in text.splitlines()) < 1200, max(text.splitlines(), key=len)[:300]
    assert LONG in run("diff", str(fleet), "--format", "json").output  # the JSON keeps it whole
