"""Trial J17: a value the user wrote raw with a control or bidi character is escaped on the editor's next save.

docs/security.md ("the draft (YAML)") promises it; the editor's save splices only what changed and wrote a raw
U+202E on a line nobody touched back as it was, so ``git diff`` and ``cat`` showed ``Audit exe.png``. Over generated
drafts with raw characters in every kind of scalar (plain on one line or several, single- and double-quoted, ``|``
and ``>`` blocks, keys, flow list items; inside apps, presets and at the root) and in comments: after one edit and a
save, the file holds no raw character outside comments, reads back as the data, keeps its line count, and every
line that held none is unchanged but the edited one; undo and redo still find the text they expect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenantdeck.draft.raw_scalars import RAW, double_quoted, escaped_text, escapes, positions
from tenantdeck.draft.session import DraftSession
from tenantdeck.draft.yamlsource import parse
from tests.fuzzing import examples

#: the raw characters a YAML file can hold at all (C0 and C1 but tab, NEL, and DEL are refused by a reader raw)
RAW_CHARS = "\t\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
BIDI = RAW_CHARS[1:]

words = st.text(alphabet="abcd", min_size=1, max_size=4)


@st.composite
def value(draw: st.DrawFn, tab: bool) -> str:
    """Words with raw characters between them: starts and ends with a letter (a plain scalar can hold it), never
    reads as another type (no letter of yes/no/on/null/true)."""
    chars = st.sampled_from(RAW_CHARS if tab else BIDI)
    parts = [draw(words)]
    for _ in range(draw(st.integers(0, 3))):
        parts.append(draw(st.one_of(st.just(" "), chars, st.text(chars, min_size=1, max_size=2))))
        parts.append(draw(words))
    return "".join(parts)


def _block(lines: list[str], indent: str) -> str:
    return "".join(f"\n{indent}{line}" for line in lines)


@st.composite
def scalar(draw: st.DrawFn, indent: str) -> str:
    """One value written in a style hypothesis picks, after ``key:`` at ``indent`` (what follows the colon)."""
    style = draw(st.sampled_from(["plain", "single", "double", "literal", "folded", "multi", "flow", "safe"]))
    if style == "plain":
        return " " + draw(value(False))
    if style == "single":
        return " '" + draw(value(True)).replace("'", "''") + "'"
    if style == "double":
        return ' "' + draw(value(True)) + '"'
    if style in ("literal", "folded"):
        lines = draw(st.lists(value(True), min_size=1, max_size=3))
        return " " + ("|" if style == "literal" else ">") + _block(lines, indent + "  ")
    if style == "multi":
        lines = draw(st.lists(value(False), min_size=2, max_size=3))
        return " " + lines[0] + _block(lines[1:], indent + "  ")
    if style == "flow":
        return " [" + ", ".join(draw(st.lists(value(False), min_size=1, max_size=3))) + "]"
    return " " + draw(words)  # no raw character at all


@st.composite
def drafts(draw: st.DrawFn) -> str:
    out = ["# a draft with values written raw", "format: 1"]
    if draw(st.booleans()):
        out.append("note:" + draw(scalar("")))
    out.append("presets:")
    out.append("  sales:")
    out.append("    title:" + draw(scalar("    ")))
    out.append("apps:")
    for i in range(draw(st.integers(1, 4))):
        out.append(f"  - name: app{i}")
        out.append("    flag: true")
        out.append("    label:" + draw(scalar("    ")))
        if draw(st.booleans()):
            out.append(f"    # a comment with {draw(value(True))} in it")
        out.append("    extra:")
        out.append(f"      {draw(value(False))}: 1  # after {draw(value(True))}")
        out.append("      other:" + draw(scalar("      ")))
        out.append("    hooks:")
        out.append("      - name:" + draw(scalar("        ")))
        out.append("        enabled: false")
    return "\n".join(out) + "\n"


def read(text: str) -> Any:
    parsed = parse(text, "t.yaml")
    assert not parsed.fatal and not parsed.problems, [p.render() for p in parsed.problems]
    return parsed.data


def raw_value_lines(text: str) -> set[int]:
    """0-based lines of every scalar whose characters hold a raw one (told by PyYAML's own marks): the lines a
    save may rewrite besides the edited one."""
    import yaml

    out: set[int] = set()
    stack = [yaml.compose(text, Loader=yaml.SafeLoader)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            stack += [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        else:
            start, end = node.start_mark.index, node.end_mark.index
            while node.style in ("|", ">") and text[end - 1] == "\n":  # a block ends at the next line's start
                end -= 1
            if RAW.search(text, start, end) is not None:
                out.update(range(text.count("\n", 0, start), text.count("\n", 0, end) + 1))
    return out


def comment_or_clean(line: str) -> bool:
    """No raw character, or only in its comment (a comment is not a value and cannot hold an escape)."""
    return RAW.search(line.partition("#")[0]) is None


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=drafts(), data=st.data())
def test_an_editor_save_escapes_every_value_written_raw(tmp_path: Path, text: str, data: st.DataObject) -> None:
    path = tmp_path / "d.yaml"
    path.write_bytes(text.encode("utf-8"))
    session = DraftSession.open(path, validate=False)
    assert not session.read_only, session.problems
    original = read(text)
    app = data.draw(st.integers(0, len(original["apps"]) - 1))
    session.set(f"apps[{app}].flag", False)
    session.save()
    written = path.read_text(encoding="utf-8")
    expected = read(text)
    expected["apps"][app]["flag"] = False
    assert read(written) == expected == session.data
    assert written == session.text
    old_lines, new_lines = text.split("\n"), written.split("\n")
    assert len(old_lines) == len(new_lines), "a value keeps its lines"
    assert all(comment_or_clean(line) for line in new_lines), written
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    rewritten = raw_value_lines(text)
    edited = [i for i in changed if i not in rewritten]
    assert len(edited) == 1 and new_lines[edited[0]].strip() == "flag: false", (edited, written)
    assert all(not old_lines[i].lstrip().startswith("#") for i in changed)  # comments kept byte for byte
    for i in changed:  # a comment after a rewritten value is kept as it was
        if "  # " in old_lines[i]:
            assert new_lines[i].endswith(old_lines[i][old_lines[i].index("  # "):])
    # undo and redo find the text they expect: the raw values come back with the undone edit, and go again
    assert session.undo() is not None
    assert session.data == original and session.text == text and session.dirty
    assert session.redo() is not None
    assert session.text == written and not session.dirty
    session.undo()
    session.save()
    assert read(path.read_text(encoding="utf-8")) == original
    assert all(comment_or_clean(line) for line in path.read_text(encoding="utf-8").split("\n"))
    session.redo()
    assert session.data == expected


def test_a_value_typed_with_a_raw_character_after_a_save_is_written_escaped(tmp_path: Path) -> None:
    """The save looks for raw characters again only when something could have brought one (the session's
    ``_raw_free``): an edit writes through the escaping writer, undo brings older text back."""
    path = tmp_path / "d.yaml"
    path.write_text("format: 1\napps:\n  - name: a\u202eb\n    flag: true\n  - name: c\n", encoding="utf-8")
    session = DraftSession.open(path, validate=False)
    session.set("apps[1].name", "d\u2066e")
    session.save()
    assert RAW.search(path.read_text(encoding="utf-8")) is None
    session.set("apps[0].flag", False)
    session.set("apps[1].name", "f\u202eg")
    session.save()
    assert RAW.search(path.read_text(encoding="utf-8")) is None
    session.undo()
    session.undo()
    session.undo()
    assert "a\u202eb" in session.text  # the text as read, raw value and all
    session.save()
    assert RAW.search(path.read_text(encoding="utf-8")) is None
    assert read(path.read_text(encoding="utf-8"))["apps"][0]["name"] == "a\u202eb"


def test_a_draft_not_laid_out_in_blocks_is_escaped_as_a_whole(tmp_path: Path) -> None:
    """No regions to look in (a quoted root key, apps in flow style): the whole text is the piece."""
    path = tmp_path / "d.yaml"
    text = '"format": 1  # q\u202e\napps: [{name: a\u202eb, flag: true}, {name: c}]\nnote: d\u2066e\n'
    path.write_text(text, encoding="utf-8")
    session = DraftSession.open(path, validate=False)
    assert session._layout is None or session._layout.apps is None
    session.set("apps[0].flag", False)
    session.save()
    written = path.read_text(encoding="utf-8")
    assert all(comment_or_clean(line) for line in written.split("\n")), written
    assert read(written) == {"format": 1, "apps": [{"name": "a\u202eb", "flag": False}, {"name": "c"}],
                             "note": "d\u2066e"}
    assert written.startswith('"format": 1  # q\u202e\n')
    session.undo()  # the text as read, raw values and all (the edit went through the ruamel merge)
    assert session.text == text
    session.save()  # no merge now: the save's own look escapes them, the whole text being the piece
    written = path.read_text(encoding="utf-8")
    assert all(comment_or_clean(line) for line in written.split("\n")), written
    assert read(written) == read(text) and written.count("\n") == text.count("\n")


def test_the_trial_case_is_one_escaped_line() -> None:
    text = "apps:\n  - name: a\n    webhooks:\n      - id: audit  # c\n        name: Audit \u202egnp.exe\n"
    assert escaped_text(text) == text.replace("Audit \u202egnp.exe", '"Audit \\u202Egnp.exe"')


def test_a_block_keeps_its_lines_and_its_value() -> None:
    text = "a: |\n  e\u202ef\n   g\nb: >\n  x\u2066y\n  z\nc: one\n  two\u200e\n  three\nd: 1\n"
    new = escaped_text(text)
    assert new.count("\n") == text.count("\n") and RAW.search(new) is None
    assert read(new) == read(text)
    assert new.endswith("d: 1\n")


def test_crlf_line_breaks_are_the_files_own_not_raw_characters() -> None:
    text = "a: plain\r\nb: |\r\n  x\u202ey\r\n  z\r\n"
    assert escapes(text.replace("\u202e", "")) == []
    new = escaped_text(text)
    assert read(new) == read(text) and "\r\n" in new and "\u202e" not in new


def test_an_escaped_value_already_written_double_quoted_is_not_respelled() -> None:
    text = 'a: "x\\u202Ey"  # kept\nb: plain\n'
    assert escapes(text) == []


def test_a_continued_line_keeps_its_leading_space() -> None:
    written = double_quoted("a\n  b", 1, "  ")
    assert read(f"k: {written}\n") == {"k": "a\n  b"}


@settings(max_examples=examples(200), deadline=None)
@given(st.text(st.sampled_from(["a", " ", "#", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u202e",
                                "\u2066", "\u2028", "é", "☕", "\U0001f600", "\ud800"])))
def test_positions_are_every_raw_character_of_the_rule_in_order(text: str) -> None:
    """:func:`positions` finds each distinct character again with ``str.find`` (the character class over the whole
    text cost ~40 ms a call at 5 MB, which the editor's comment check pays on every change): the same offsets, in
    order, as the rule itself (:data:`RAW`) gives."""
    assert positions(text) == [m.start() for m in RAW.finditer(text)]
