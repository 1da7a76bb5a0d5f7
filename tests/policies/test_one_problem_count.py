"""One count, one source (issue 37 item 2): for any draft, with or without a targets file and fleet policies,
``tenantdeck validate`` and the editor's Problems screen list the same problems, because both call
:func:`tenantdeck.policies.draft_problems.all_problems` (the editor with its session's own problems, placed by the
session; validate with the loader's). Generated drafts: values valid and not, rules of either severity."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.cli import cli
from tenantdeck.draft.session import DraftSession
from tenantdeck.policies.draft_problems import all_problems, counted
from tests.fuzzing import examples

REGIONS = st.sampled_from(["us", "eu", "in", "mars"])
COLOURS = st.sampled_from(["#03A9F4", "#fff", "blue", "#12345G", ""])
URLS = st.sampled_from(["https://hooks.example/a", "http://hooks.example/b", "ftp://x", "not a url"])
SEVERITIES = st.sampled_from(["error", "warning"])


@st.composite
def apps(draw: st.DrawFn, n: int) -> str:
    colour, region = draw(COLOURS), draw(REGIONS)
    text = f"  - name: App {n}\n    region: {region}\n"
    if draw(st.booleans()):
        text += f"    widgets:\n      - name: W{n}\n        style: {{primary_color: {json.dumps(colour)}}}\n"
    if draw(st.booleans()):
        text += ("    webhooks:\n      - id: h\n        name: H\n"
                 f"        webhookURL: {json.dumps(draw(URLS))}\n        triggers: [message_sent]\n")
    if draw(st.booleans()):
        text += f"    extensions: {{enabled: [{draw(st.sampled_from(['profanity-filter', 'no-such-thing']))}]}}\n"
    return text


@st.composite
def drafts(draw: st.DrawFn) -> tuple[str, str | None, str | None]:
    count = draw(st.integers(1, 3))
    text = "format: 1\napps:\n" + "".join(draw(apps(n)) for n in range(count))
    policies = None
    if draw(st.booleans()):
        policies = ("format: 1\npolicies:\n"
                    f"  - name: https\n    severity: {draw(SEVERITIES)}\n"
                    "    check: {field: \"webhooks[*].webhookURL\", matches: \"^https://\"}\n    message: https only\n"
                    f"  - name: profanity\n    severity: {draw(SEVERITIES)}\n"
                    "    check: {cel: \"has(app.extensions) && 'profanity-filter' in app.extensions.enabled\"}\n"
                    "    message: keep it on\n")
    targets = None
    if draw(st.booleans()):
        targets = f"format: 1\ntargets:\n  production:\n    apps:\n      App 0:\n        region: {draw(REGIONS)}\n"
    return text, policies, targets


def problem_list(problems: list[dict]) -> list[tuple[str, str, str, int]]:
    return sorted((p["severity"], p["path"], p["message"], p["line"]) for p in problems)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drafts())
def test_validate_and_the_editor_count_the_same_problems(tmp_path: Path, case: tuple[str, str | None, str | None]
                                                         ) -> None:
    text, policies, targets = case
    draft = tmp_path / "tenantdeck.yaml"
    draft.write_text(text, encoding="utf-8")
    for name, content in (("tenantdeck.policies.yaml", policies), ("tenantdeck.targets.yaml", targets)):
        (tmp_path / name).unlink(missing_ok=True)
        if content is not None:
            (tmp_path / name).write_text(content, encoding="utf-8")
    run = CliRunner().invoke(cli, ["validate", "--format", "json", str(draft)])
    document = json.loads(run.stdout)
    session = DraftSession.open(draft)
    editor = all_problems(session.path, session.data, session.problems, session)
    assert problem_list([p.to_json() for p in editor]) == problem_list(document["problems"])
    assert (document["errors"], document["warnings"]) == (sum(p.is_error for p in editor),
                                                          sum(not p.is_error for p in editor))
    assert counted(editor) in run.stderr if editor else True
