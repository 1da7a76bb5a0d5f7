"""Rendering (text, markdown, JSON) and the `diff` CLI contract: exit codes, stdout only the format."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.models import Draft
from tenantdeck.sync.compare import compare_all
from tenantdeck.sync.kinds import canonical_app_from_draft
from tenantdeck.sync.plan import build_plan
from tenantdeck.sync.render import render_json, render_markdown, render_text
from tenantdeck.textsafe import shown, unsafe
from tests.fuzzing import examples
from tests.models import factories
from tests.sync.helpers_push import edit_draft, make_sandbox, run_pull

KEY = b"r" * 32


def sample_plan(**env: str) -> Any:
    data = factories.draft(factories.app("Acme"))
    data["apps"][0]["id"] = "a1"
    data["apps"][0]["widgets"][0]["id"] = "w1"
    draft = Draft.model_validate(data)
    base = canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "OldPw1"})
    new = canonical_app_from_draft(draft, 0, secret_key=KEY, env={"HOOK_PASSWORD": "RotatedPw77"})
    new["widgets"]["w1"]["main"]["share_location"] = True
    live = copy.deepcopy(base)
    live["widgets"]["w1"]["style"]["background_color"] = "#EEEEEE"
    return build_plan(compare_all([new], {"a1": base}, {"a1": live}), draft)


def test_text_is_terraform_style_with_labels_and_folded_lines() -> None:
    text = render_text(sample_plan())
    assert '  ~ update widget "Acme support" (w1)' in text
    assert "      ~ Allow sharing location (main.share_location): false -> true" in text
    assert "        (64 unchanged settings)" in text
    assert "      ~ Basic Auth password (password): will rotate" in text
    assert 'Background colour (style.background_color): "#FFFFFF" -> "#EEEEEE"' in text
    assert text.rstrip().endswith("Plan: 0 to create, 2 to update, 0 to delete.")
    assert "RotatedPw77" not in text and "OldPw1" not in text


def test_markdown_has_a_table_per_resource() -> None:
    md = render_markdown(sample_plan())
    assert md.startswith("## tenantdeck plan")
    assert "| ~ | Allow sharing location | `main.share_location` | `false` | `true` |" in md
    assert "| ~ | Basic Auth password | `password` | `(set)` | `will rotate` |" in md
    assert "### Drift" in md


def test_json_is_versioned_and_secret_free() -> None:
    doc = json.loads(render_json(sample_plan()))
    assert doc["format_version"] == 1
    assert doc["summary"] == {"create": 0, "update": 2, "delete": 0, "skipped_deletions": 0, "conflicts": 0,
                              "drift": 1}
    assert [op["kind"] for op in doc["operations"]] == ["update_widget", "update_webhook"]
    assert "snapshots" not in doc
    assert "RotatedPw77" not in json.dumps(doc)


def test_diff_cli_exit_codes_and_stdout(tmp_path: Path) -> None:
    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    runner = CliRunner()

    result = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft), "--format", "json"])
    assert result.exit_code == exitcodes.OK, result.output
    assert json.loads(result.stdout)["operations"] == []

    edit_draft(draft, lambda d: setattr(d.apps[0].widgets[0].main, "send_gifs", True))
    result = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft)])
    assert result.exit_code == exitcodes.CHANGES
    assert "~ Allow GIFs (main.send_gifs): false -> true" in result.stdout

    result = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft), "--format", "markdown"])
    assert result.stdout.startswith("## tenantdeck plan")

    edit_draft(draft, lambda d: d.apps.pop(1))
    result = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft)])
    assert result.exit_code == exitcodes.CHANGES
    assert "1 deletion skipped (use --allow-delete)" in result.stdout

    draft.write_text(draft.read_text().replace("send_gifs: true", "send_gifs: maybe"))
    result = runner.invoke(cli, ["diff", "--offline", "--draft", str(draft)])
    assert result.exit_code == exitcodes.ERROR
    assert result.stdout == "" and "send_gifs" in result.stderr


def test_history_cli_lists_pushes(tmp_path: Path) -> None:
    from tests.sync.helpers_push import run_push

    sandbox = make_sandbox(tmp_path / "db.sqlite3")
    draft = tmp_path / "tenantdeck.yaml"
    run_pull(sandbox, draft)
    edit_draft(draft, lambda d: setattr(d.apps[1].webhooks[0], "enabled", False))
    env = {"TENANTDECK_ACME_SUPPORT_ORDERS_PASSWORD": "p", "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "t"}
    code, err = run_push(sandbox, draft, env)
    assert code == exitcodes.OK, err
    result = CliRunner().invoke(cli, ["history", "--draft", str(draft), "--format", "json"])
    (record,) = json.loads(result.stdout)["pushes"]
    assert record["counts"]["failed"] == 0 and record["counts"]["applied"] >= 1
    assert record["counts"]["not_attempted"] == 0 and record["profile"] == "test"
    assert {"who", "when", "plan_hash", "journal", "base_url"} <= set(record)
    text = CliRunner().invoke(cli, ["history", "--draft", str(draft)]).stdout
    assert "complete" in text and "applied=" in text


def test_a_note_about_no_app_names_no_app() -> None:
    """A policies-file problem is a plan note with no app: it read `app "": policies file: ...`."""
    from tenantdeck.sync.types import Note

    plan = sample_plan()
    plan.notes[:] = [Note("", "policies file: d.policies.yaml:4:18: error: rule x"), Note("Acme", "policy y")]
    text, md = render_text(plan), render_markdown(plan)
    assert "  * policies file: d.policies.yaml:4:18" in text and '  * app "Acme": policy y' in text
    assert "- `policies file: d.policies.yaml:4:18" in md and '- `app "Acme": policy y`' in md
    assert 'app ""' not in text + md


@given(st.text(max_size=30))
def test_a_value_spells_a_control_character_as_every_screen_does(text: str) -> None:
    """A changed value is shown as JSON, whose own escape for a control character (``\\u001b``) differs from the one
    every other screen shows (``\\x1b``, textsafe.shown): a trial saw the same webhook name both ways on one review.
    Now each control is spelled as ``shown`` spells it, and a value's own ``\\u001b`` text (a backslash and five
    letters) is still shown as that text."""
    from tenantdeck.sync.render import value_text
    from tenantdeck.textsafe import shown

    out = value_text(text)
    assert not unsafe(out)
    if "…" in out:  # cut short: what is shown of it is checked by the fitted-rows tests
        return
    for char in set(text):
        if ord(char) < 0x20 and char not in "\b\f\n\r\t":  # JSON's own short escapes are kept as JSON writes them
            assert shown(char) in out, (text, out)
    if "\\u001b" in text:
        assert "\\\\u001b" in out, (text, out)


#: what a name from a pull request or the dashboard tried in trial J (J18), and what a code span must survive
HOSTILE_NAMES = ["**bold** [a](https://e.example) <b>x</b>", "<img src=https://x.example/p>@octocat", "`<b>x</b>`",
                 "``a`` `", "a | b", "@octocat", "# heading", "x\n<script>y</script>", " <b>x</b> "]


@settings(max_examples=examples(40), deadline=None)
@given(name=st.one_of(st.sampled_from(HOSTILE_NAMES),
                      st.text(alphabet=st.sampled_from("`*_[]()<>!@#|\\ax:/=.\n-"), min_size=1, max_size=40)))
def test_a_name_in_the_markdown_plan_is_never_markup_a_link_or_a_mention(name: str) -> None:
    """The markdown plan is posted as a pull request's comment (docs/ci.md): an app, widget or webhook name, a
    resource, a conflict's or a note's words that came from the draft or the service are code spans there, so
    nothing of them is read as Markdown, HTML, a link, an image or an @mention (trial J, J18: a widget named
    ``<img src=…>@octocat`` was an image and a mention). Read back with a CommonMark parser with GFM tables and HTML
    on, as GitHub reads it: every ``@`` and ``<`` of the document is inside a code span."""
    from markdown_it import MarkdownIt

    from tenantdeck.sync.types import Conflict, Note

    plan = sample_plan()
    for op in plan.operations:
        op.app_name, op.resource = name, f'widget "{name}" (w1)'
    plan.notes[:] = [Note(name, f"policy {name}")]
    plan.conflicts[:] = [Conflict(app=name, app_id="a1", resource=f'webhook "{name}"', path="name",
                                  label="Name", base="a", draft="b", live="c", message=f"refused: {name}"),
                         Conflict(app=name, app_id="a1", resource=f'webhook "{name}"', path="name",
                                  label="Name", base=name, draft=name, live=name)]
    md = render_markdown(plan)
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(md)
    inline = [child for tok in tokens if tok.children for child in tok.children]
    kinds = {t.type for t in [*tokens, *inline]}
    assert not kinds & {"html_inline", "html_block", "link_open", "image"}, (name, md)
    texts = [t.content for t in inline if t.type == "text"]
    assert not any("@" in t or "<" in t for t in texts), (name, [t for t in texts if "@" in t or "<" in t])
    # the name reads the same in a heading as in a table cell (a pipe is escaped in a cell only: elsewhere a code
    # span shows the backslash)
    heading = next(tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open"
                   and tokens[i + 1].content.startswith("App "))
    in_table = list(itertools.accumulate((t.type == "table_open") - (t.type == "table_close") for t in tokens))
    cells = [c.content for tok, inside in zip(tokens, in_table, strict=True) if inside
             for c in tok.children or [] if c.type == "code_inline"]
    span = next(c.content for c in heading.children or [] if c.type == "code_inline")
    assert span in cells, (name, md)
    assert span == shown(name.replace("\n", " ")), (name, span)  # whole: no space, backslash or character lost
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert all(h.startswith(("tenantdeck plan", "App ", "Drift", "Conflicts", "Notes")) for h in headings), headings
