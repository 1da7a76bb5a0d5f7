"""Type-checked rules (issue 33 item 4), through ``validate`` and ``policy list`` with a policies file: a CEL check
reading a field no app can hold is an error at the rule's line with a did-you-mean (never a per-app warning that
turns the rule off); a settings key or a label no app and no catalog knows is a warning with a did-you-mean, and
so is a rule that selects no app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.draft.session import DraftSession

DRAFTS = Path(__file__).resolve().parent.parent / "tui" / "drafts"
SETTING = "core.conversations.updateOnReplies"
#: a rule every app keeps: the typo'd rules beside it must not hide it, nor it them
KEPT = {"name": "has-a-name", "check": {"field": "name", "required": True}, "message": "m"}


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """The editor's demo fleet, its first app labelled ``tier: gold`` and holding one app setting."""
    path = tmp_path / "d.yaml"
    path.write_text((DRAFTS / "policies-demo.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    session = DraftSession.open(path)
    session.set(("apps", 0, "labels"), {"tier": "gold"})
    session.set(("apps", 0, "settings"), {SETTING: True})
    session.save()
    return path


def rules(draft: Path, *entries: dict[str, Any]) -> Path:
    path = draft.with_name("d.policies.yaml")
    path.write_text(yaml.safe_dump({"format": 1, "policies": [KEPT, *entries]}, sort_keys=False))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def problems(result: Result) -> list[dict[str, Any]]:
    return [p for p in json.loads(result.stdout)["problems"] if p["code"].startswith("policy")]


@pytest.mark.parametrize(("cel", "wrong", "meant"), [
    ("app.webhoks.all(w, w.enabled)", "app.webhoks", "webhooks"),
    ("app.webhooks.all(w, w.enabeld)", "app.webhooks[*].enabeld", "enabled"),
    ("!has(app.sms) || has(app.sms.twilioAcountSid)", "app.sms.twilioAcountSid", "twilioAccountSid"),
    ("app.widgets.all(w, w.style.primary_colr == '#03A9F4')", "app.widgets[*].style.primary_colr", "primary_color"),
    ("app.extension_settings['gifs-giphy'].giphyApiKy != ''", "app.extension_settings['gifs-giphy'].giphyApiKy",
     "giphyApiKey"),
])
def test_an_unknown_field_in_a_cel_check_is_an_error_at_its_line(draft: Path, cel: str, wrong: str,
                                                                  meant: str) -> None:
    path = rules(draft, {"name": "typo", "check": {"cel": cel}, "message": "m"})
    checked = run("validate", str(draft), "--format", "json")
    assert checked.exit_code == exitcodes.ERROR
    [problem] = problems(checked)
    assert problem["severity"] == "error" and problem["code"] == "policy-rule"
    assert (problem["file"], problem["line"]) == (str(path), line_of(path, "cel:"))
    assert problem["message"].startswith(f"rule typo: reads {wrong}: ") and f"did you mean `{meant}`?" in \
        problem["message"]

    listed = run("policy", "list", str(draft), "--format", "json")
    assert listed.exit_code == exitcodes.ERROR  # the rule does not run: the verdict is incomplete
    doc = json.loads(listed.stdout)
    assert [r["name"] for r in doc["rules"]] == ["has-a-name"]
    assert [p["message"] for p in doc["problems"]] == [problem["message"]]


def test_a_settings_key_or_label_no_one_knows_is_a_warning_with_a_did_you_mean(draft: Path) -> None:
    path = rules(
        draft,
        {"name": "replies", "check": {"field": "settings['core.conversations.updateOnReplys']", "equals": True},
         "message": "m"},
        {"name": "replies-cel", "check": {"cel": "app.settings['core.conversations.updateOnReplys'] == true"},
         "message": "m"},
        {"name": "gold", "select": {"labels": {"teir": "gold"}}, "check": {"field": "name", "required": True},
         "message": "m"},
        {"name": "golden", "select": {"labels": {"tier": "glod"}}, "check": {"field": "name", "required": True},
         "message": "m"},
        {"name": "kept-gold", "select": {"labels": {"tier": "gold"}}, "check": {"field": "name", "required": True},
         "message": "m"},
    )
    checked = run("validate", str(draft), "--format", "json")
    found = {(p["message"], p["severity"], p["line"]) for p in problems(checked) if p["code"] == "policy-fleet"}
    text = path.read_text().splitlines()
    setting_lines = [i for i, line in enumerate(text, 1) if "updateOnReplys" in line]
    assert found == {
        (f"rule replies: no app and no catalog entry has the setting 'core.conversations.updateOnReplys'; did "
         f"you mean `{SETTING}`?", "warning", setting_lines[0]),
        (f"rule replies-cel: no app and no catalog entry has the setting 'core.conversations.updateOnReplys'; "
         f"did you mean `{SETTING}`?", "warning", setting_lines[1]),
        ("rule gold: no app has the label 'teir'; did you mean `tier`?", "warning", line_of(path, "teir")),
        ("rule gold: selects no app, so it checks nothing", "warning", line_of(path, "teir") - 1),
        ("rule golden: no app has the label tier: 'glod'; did you mean `gold`?", "warning", line_of(path, "glod")),
        ("rule golden: selects no app, so it checks nothing", "warning", line_of(path, "glod") - 1),
    }
    listed = run("policy", "list", str(draft), "--format", "json")
    assert {m for m, _, _ in found} <= {p["message"] for p in json.loads(listed.stdout)["problems"]}
    assert {r["name"]: r["selected"] for r in json.loads(listed.stdout)["rules"]}["kept-gold"] == 1


def test_the_recipes_and_a_guarded_optional_section_still_load(draft: Path) -> None:
    """A field the models know but an app may leave out (``sms``) is no typo: guarded with has(), it loads."""
    rules(draft, {"name": "sms", "check": {"cel": "!has(app.sms) || app.sms.twilioAccountSid != ''"},
                  "message": "m"})
    checked = run("validate", str(draft), "--format", "json")
    assert checked.exit_code == exitcodes.OK, checked.stdout
    assert problems(checked) == []
