"""A raw bidi or control character in a YAML comment is told, located (trial finding K7).

A value holding one is escaped by the next save (:mod:`tenantdeck.draft.raw_scalars`); a comment cannot be: YAML has
no escapes there, and the admin's text is not rewritten. A reviewer reading the draft in a pull request saw the
comment reordered by a U+202E and was told nothing. ``validate`` (and so the editor's Problems list, which shows
validate's list) now warns once per comment line, at the first such character, naming it without writing it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.cli import cli
from tenantdeck.draft import load_text
from tenantdeck.draft.raw_scalars import COMMENT_CODE, QUIET_IN_COMMENTS, comment_problems
from tenantdeck.draft.session import DraftSession
from tenantdeck.draft.yamlsource import _REFUSED_BY_YAML
from tenantdeck.problems import Problem, Severity
from tenantdeck.textsafe import unsafe
from tests.draft.conftest import MINIMAL
from tests.fuzzing import examples

RLO = "\u202e"
#: the characters the save's rule (textsafe.unsafe) calls unsafe that YAML lets a comment hold: not a line break to
#: YAML (those end the comment: tested on their own) and not one YAML refuses anywhere (a located yaml-character error)
IN_COMMENTS = [chr(c) for c in range(0x3000) if unsafe(chr(c)) and chr(c) not in "\n\r\x85\u2028\u2029"
               and _REFUSED_BY_YAML.match(chr(c)) is None]
#: of those, what a comment is warned of (a tab is whitespace a reviewer sees: raw_scalars.QUIET_IN_COMMENTS)
TOLD = [ch for ch in IN_COMMENTS if ch not in QUIET_IN_COMMENTS]


def comments(text: str) -> list[Problem]:
    return [p for p in load_text(text, "d.yaml").problems if p.code == COMMENT_CODE]


def test_the_unsafe_characters_a_comment_can_hold_are_the_tab_and_the_bidi_controls() -> None:
    bidi = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
    assert IN_COMMENTS == ["\t", *bidi]  # noqa: SIM300
    assert bidi == TOLD  # the tab is not told of: whitespace a reviewer sees as such


def test_validate_warns_at_the_character_and_names_it_without_writing_it(tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    draft.write_text(f"format: 1\n# reviewed by {RLO}gnp.exe\napps:\n  - name: Acme  # owner: x{RLO}y\n"
                     '    region: eu\n    version: "3"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 0, result.output  # a warning: the data is what it seems
    lines = result.stdout.splitlines()
    assert [line.split(": warning: ")[0] for line in lines] == [f"{draft}:2:15", f"{draft}:4:27"]
    assert "this comment holds U+202E RIGHT-TO-LEFT OVERRIDE" in lines[0]
    assert "a YAML comment cannot escape a character: delete it" in lines[0]
    assert RLO not in result.output
    assert "valid (0 errors, 2 warnings)" in result.stderr


def test_one_warning_a_line_naming_each_character_once() -> None:
    (p,) = comments(MINIMAL + f"# a\tb{RLO}b{RLO}c\u2066d\te\n")
    assert (p.line, p.column, p.severity) == (6, 6, Severity.WARNING)
    assert p.message.startswith("this comment holds U+202E RIGHT-TO-LEFT OVERRIDE and U+2066 LEFT-TO-RIGHT ISOLATE, "
                                "which a reviewer does not see")
    assert comments(MINIMAL + "# a\tb\n") == []  # a tab alone: nothing to tell


def test_a_value_holding_the_character_after_a_hash_is_not_a_comment() -> None:
    """Quoted and block scalars hold ``#`` and the character as data (escaped by the next save, not told here);
    a ``#`` inside a plain word starts no comment."""
    text = textwrap.dedent(f"""\
        format: 1
        apps:
          - name: 'Acme # {RLO}'
            region: eu
            version: "3"
            webhooks:
              - id: a#{RLO}b
                name: "x # {RLO}"
                webhookURL: https://example.com/x
            sms:
              template: |
                # {RLO} not a comment
                end
        """)
    assert comments(text) == []
    assert comments(text.replace("end\n", f"end\n# but this one {RLO}\n")) != []


def test_a_yaml_line_break_ending_a_comment_is_told_as_one() -> None:
    """U+2028 ends a comment for YAML but not for git diff or a pull request page: what follows it on the line is
    read as data while a reviewer reads it as part of the comment."""
    (p,) = comments(MINIMAL.replace("region: eu", "region: eu  # the region\u2028    extra: 1", 1))
    assert (p.line, p.column) == (4, 29)
    assert "U+2028 LINE SEPARATOR" in p.message and "read as YAML, not as the comment" in p.message


def test_a_file_that_does_not_read_keeps_the_warnings_before_the_error(tmp_path: Path) -> None:
    """validate, and the editor, which opens such a file read-only with the same list."""
    text = f"format: 1\n# {RLO}\napps: [\n"
    found = load_text(text, "d.yaml").problems
    assert [p.code for p in found] == [COMMENT_CODE, "yaml-truncated"]
    path = tmp_path / "d.yaml"
    path.write_text(text, encoding="utf-8")
    session = DraftSession.open(path)
    assert session.read_only
    assert [(p.line, p.column, p.code) for p in session.problems] == [(p.line, p.column, p.code) for p in found]


def test_a_character_yaml_refuses_in_a_comment_is_told_to_be_deleted_not_escaped() -> None:
    """An ESC or BEL is refused by YAML anywhere (the located yaml-character error); its advice was a double-quoted
    escape, which a comment cannot hold."""
    for text, at in ((f"format: 1\n# a \x1b[2J {RLO}\napps: []\n", (2, 5)), ("format: 1  # x\x07\n", (1, 15))):
        (p,) = load_text(text, "d.yaml").problems
        assert (p.line, p.column, p.code) == (*at, "yaml-character")
        assert p.message.endswith("cannot be written as it is in YAML, not even in a comment, and a comment has no "
                                  "escapes: delete it"), p.message
    (p,) = load_text("format: 1\nname: '# \x1b'  # \x07\n", "d.yaml").problems  # the first one, in a value
    assert (p.line, p.column) == (2, 10) and p.message.endswith("in a double-quoted string write it as \\e")


def test_the_policies_and_targets_files_are_told_too(tmp_path: Path) -> None:
    """Both are read by the draft's YAML reader and reviewed in the same pull request."""
    draft = tmp_path / "d.yaml"
    draft.write_text(MINIMAL, encoding="utf-8")
    (tmp_path / "d.policies.yaml").write_text(f"format: 1  # {RLO}\npolicies: []\n", encoding="utf-8")
    (tmp_path / "d.targets.yaml").write_text(f"format: 1\n# {RLO}\ntargets: {{}}\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 0, result.output
    assert [line.split(": warning: ")[0] for line in result.stdout.splitlines()] == [
        f"{tmp_path / 'd.policies.yaml'}:1:14", f"{tmp_path / 'd.targets.yaml'}:2:3"]

    from tenantdeck.policies.checks import policies_for

    assert policies_for(draft).problems == []  # a warning of the file blocks no rule and no push


def test_the_editor_lists_it_and_moves_it_with_the_lines(tmp_path: Path) -> None:
    """The Problems list (F8) shows validate's list (``all_problems``), the session's own problems first."""
    from tenantdeck.policies.draft_problems import all_problems

    path = tmp_path / "d.yaml"
    path.write_text(MINIMAL + f"# {RLO}\n", encoding="utf-8")
    session = DraftSession.open(path)
    (p,) = [p for p in session.problems if p.code == COMMENT_CODE]
    assert (p.file, p.line, p.column) == (str(path), 6, 3)
    session.set("apps[0].sms", {"fromMobileNo": "+15550100"})  # two more lines above the comment
    (p,) = [p for p in session.problems if p.code == COMMENT_CODE]
    assert p.line == 6 + session.text.count("\n") - (MINIMAL + "# x\n").count("\n")
    assert session.text.split("\n")[p.line - 1] == f"# {RLO}"
    listed = all_problems(path, session.snapshot()[1], session.problems, session)
    assert [(q.line, q.code) for q in listed if q.code == COMMENT_CODE] == [(p.line, COMMENT_CODE)]


def test_a_clean_draft_costs_one_pass_and_no_parse(monkeypatch: object) -> None:
    """The common case reads no YAML events at all (the bound: docs/benchmarks.md)."""
    import tenantdeck.draft.raw_scalars as rs

    def boom(*args: object) -> list[int]:
        raise AssertionError("events read for a draft with no candidate")

    monkeypatch.setattr(rs, "in_comments", boom)  # type: ignore[attr-defined]
    assert comment_problems(MINIMAL + f"key: '{RLO}'\t# a tab before the comment\n", "d.yaml") == []


_WORD = st.text(st.sampled_from([*IN_COMMENTS, "a", "Z", " ", "#", ":", "'", '"', "-", "é", "☕", "|", "{"]),
                max_size=12)


@st.composite
def drafts_with_comments(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A draft whose apps' lines carry end-of-line and whole-line comments of generated text (unsafe characters,
    ``#``, quotes), and names holding the same characters in quotes; with where each warning must be."""
    lines = ["format: 1", "apps:"]
    expected: list[tuple[int, int]] = []

    def comment(prefix: str) -> str:
        text = draw(_WORD)
        hit = next((i for i, ch in enumerate(text) if ch in TOLD), None)
        if hit is not None:
            expected.append((len(lines) + 1, len(prefix) + 3 + hit))  # 1-based, after "# "
        return prefix + "# " + text

    for i in range(draw(st.integers(1, 4))):
        name = draw(_WORD).replace("'", "''")
        for line in (f"  - name: 'app {i} {name}'", "    region: eu", '    version: "3"'):
            lines.append(comment(line + "  ") if draw(st.booleans()) else line)
            if draw(st.booleans()):
                lines.append(comment(draw(st.sampled_from(["", "  ", "    "]))))
    return "\n".join(lines) + "\n", expected


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drafts_with_comments())
def test_each_comment_line_with_an_unsafe_character_gets_exactly_one_warning(
        case: tuple[str, list[tuple[int, int]]]) -> None:
    text, expected = case
    result = load_text(text, "d.yaml")  # never raises
    found = [(p.line, p.column) for p in result.problems if p.code == COMMENT_CODE]
    assert found == expected, (text, [p.render() for p in result.problems])
    assert [(p.line, p.column) for p in comment_problems(text, "d.yaml")] == expected  # the events alone: same
    assert all(not unsafe(p.message) for p in result.problems)
