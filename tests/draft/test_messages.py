"""One test per special message: line, column, key path and wording, in the draft's own words."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from tenantdeck.draft import load_draft, load_text, pydantic_problems, yamlsource
from tenantdeck.problems import Severity
from tests.draft.conftest import MINIMAL, load, only


def test_minimal_draft_is_valid() -> None:
    result = load(MINIMAL)
    assert result.problems == []
    assert result.ok and result.draft is not None
    assert result.draft.apps[0].name == "Acme"


def test_duplicate_key_names_both_lines() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            name: Other
        """)
    p = only(result)
    assert (p.line, p.column, p.key_path) == (5, 5, "apps[0].name")
    assert p.message.startswith("duplicate key `name` in the same mapping (lines 3 and 5)")
    assert p.render() == f"d.yaml:5:5: error: apps[0].name: {p.message}"


def test_anchor_and_alias_are_refused_once_at_the_first() -> None:
    result = load("""\
        format: 1
        presets: {}
        apps:
          - &app
            name: Acme
            region: eu
          - *app
        """)
    assert result.draft is None
    got = [(p.line, p.column, p.code) for p in result.problems]
    assert got == [(4, 5, "yaml-alias")]  # one error however many aliases (an alias bomb has hundreds)
    assert result.problems[0].message.startswith("anchor &app: anchors and aliases are not supported")
    assert result.problems[0].message.endswith("(and 1 more anchor or alias after this one)")


def test_alias_bomb_is_refused_without_expanding() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    start = time.perf_counter()
    result = load_text("\n".join(lines) + "\n", "bomb.yaml")
    assert time.perf_counter() - start < 2.0
    assert result.draft is None
    assert {p.code for p in result.problems} == {"yaml-alias"}


def test_tab_in_indentation() -> None:
    result = load("format: 1\napps:\n\t- name: Acme\n")
    p = only(result)
    assert (p.line, p.column, p.code) == (3, 1, "yaml-tab")
    assert p.message == "tab character in the indentation; YAML indents with spaces only"


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes(b"format: 1\napps:\n  - name: Caf\xe9\n")
    p = only(load_draft(f))
    assert (p.line, p.column) == (3, 14)
    assert p.message == "byte 0xe9 at offset 29 is not valid UTF-8; save the file as UTF-8"


def test_utf16_is_named(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes("format: 1\n".encode("utf-16"))
    assert "UTF-16" in only(load_draft(f)).message


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes(b"\xef\xbb\xbf" + MINIMAL.encode())
    assert load_draft(f).ok


def test_truncated_inside_quotes() -> None:
    p = only(load('format: 1\napps:\n  - name: "Acme\n'))
    assert (p.line, p.column, p.code) == (3, 11, "yaml-truncated")
    assert p.message == 'the file ends inside the quoted text that starts here; close it with "'


def test_truncated_inside_flow_list() -> None:
    p = only(load("format: 1\napps:\n  - name: Acme\n    extensions:\n      enabled: [polls, reactions\n"))
    assert (p.line, p.column, p.code) == (5, 16, "yaml-truncated")
    assert "ends before the list `[` started here is closed" in p.message


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_empty_file(text: str) -> None:
    p = only(load_text(text, "d.yaml"))
    assert (p.line, p.column, p.code) == (1, 1, "empty")
    assert p.message == "the file is empty; a draft starts with `format: 1`"


def test_only_comments() -> None:
    p = only(load("# nothing yet\n# still nothing\n"))
    assert p.code == "empty" and "only comments" in p.message


def test_file_over_the_size_cap_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "big.yaml"
    with open(f, "wb") as fh:
        fh.truncate(33 * 1024 * 1024)  # sparse: costs nothing on disk
    opened: list[object] = []
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or (_ for _ in ()).throw(AssertionError))
    p = only(load_draft(f))
    assert opened == []
    assert p.code == "file-too-large"
    assert p.message == "the file is 33.0 MiB; drafts are limited to 32 MiB"


def test_missing_file(tmp_path: Path) -> None:
    p = only(load_draft(tmp_path / "nope.yaml"))
    assert (p.code, p.message) == ("file-missing", "no such file")
    assert p.line == 0 and p.render().startswith(f"{tmp_path / 'nope.yaml'}:1:1: error: ")  # no position: the start
    assert (p.to_json()["line"], p.to_json()["column"]) == (None, None)  # docs/json-output.md: null, not 0


@pytest.mark.parametrize(("char", "what", "escape"), [("\x1b", "U+001B (ESC)", "\\e"),
                                                      ("\x07", "U+0007 (BEL)", "\\a"),
                                                      ("\x7f", "U+007F (DEL)", "\\x7F"),
                                                      ("\x9b", "U+009B", "\\x9B")])
def test_a_character_yaml_does_not_allow_is_placed_at_its_line_and_column(char: str, what: str, escape: str) -> None:
    """Trial J, J2: a raw ESC pasted into a webhook name was "1:1: cannot read the YAML: unacceptable character
    #x001b: control characters are not allowed\\n  in "<unicode string>", position 3815"."""
    p = only(load("format: 1\napps:\n  - name: Audit " + char + "[2J trail\n"))
    assert (p.line, p.column, p.code) == (3, 17, "yaml-character")
    assert p.message == (f"the character {what} cannot be written as it is in YAML; in a double-quoted string "
                         f"write it as {escape}")
    assert "\n" not in p.render()


@pytest.mark.parametrize("char", ["\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x80", "\x9b",
                                  "\x9f", "\ufffe"])
def test_the_escape_a_refused_character_is_told_is_the_one_the_writer_writes(char: str) -> None:
    """One spelling: the reader suggested ``\\u0007`` and ``\\e or \\u001b`` while the writer, which
    a save runs, writes ``\\a`` and ``\\e``; the advice is now the writer's own, and it reads back as the
    character."""
    from tenantdeck.draft.emit import scalar

    p = only(load("format: 1\napps:\n  - name: x" + char + "\n"))
    told = p.message.rsplit("write it as ", 1)[1]
    assert scalar("x" + char) == f'"x{told}"'
    assert yaml.load(f'"{told}"', Loader=yaml.SafeLoader) == char


def test_a_refused_character_after_multi_byte_ones_is_placed_by_characters() -> None:
    """Trial K, K1: libyaml gives a byte offset; with ``café ☕`` on an earlier line the ESC was placed lines off."""
    p = only(load("# café ☕ ééé\nformat: 1\napps:\n  - name: ééé\x1b[2J\n"))
    assert (p.line, p.column, p.code) == (4, 14, "yaml-character")


def test_no_read_as_boolean_where_text_is_meant() -> None:
    p = only(load('format: 1\napps:\n  - name: no\n    region: eu\n    version: "3"\n'))
    assert (p.line, p.column, p.key_path) == (3, 11, "apps[0].name")
    assert p.message == "`no` is read as the boolean false in YAML; quote it: 'no'"


def test_on_in_a_listing_value() -> None:
    # `none` is a real listing value; `off` is read as a boolean and is not one of them
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            widgets:
              - name: W
                sidebar:
                  user_listing: off
        """)
    p = only(result, "yaml-implicit-type")
    assert (p.line, p.column, p.key_path) == (8, 25, "apps[0].widgets[0].sidebar.user_listing")
    assert p.message == "`off` is read as the boolean false in YAML; expected one of all_users, friends, none"


def test_number_where_a_quoted_version_is_meant() -> None:
    p = only(load("format: 1\napps:\n  - name: Acme\n    region: eu\n    version: 3\n"))
    assert (p.line, p.column, p.key_path) == (5, 14, "apps[0].version")
    assert p.message == "`3` is read as the number 3 in YAML; quote it: '3'"


def test_float_where_text_is_meant() -> None:
    p = only(load("format: 1\napps:\n  - name: 1.10\n    region: eu\n"))
    assert p.message == "`1.10` is read as the number 1.1 in YAML; quote it: '1.10'"


def test_octal_where_text_is_meant() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            webhooks:
              - id: 0777
                name: Hook
                webhookURL: https://hooks.example.com/x
        """)
    p = only(result)
    assert (p.line, p.column, p.key_path) == (6, 13, "apps[0].webhooks[0].id")
    assert p.message == "`0777` is read as the octal number 511 in YAML; quote it: '0777'"


def test_base60_and_date_where_text_is_meant() -> None:
    result = load("format: 1\napps:\n  - name: 1:30\n    region: eu\n  - name: 2024-01-01\n    region: eu\n")
    assert [p.message for p in result.problems] == [
        "`1:30` is read as the base-60 number 90 in YAML; quote it: '1:30'",
        "`2024-01-01` is read as the date 2024-01-01 in YAML; quote it: '2024-01-01'",
    ]


def test_yaml11_boolean_accepted_with_a_warning() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            webhooks:
              - id: hook1
                name: Hook
                webhookURL: https://hooks.example.com/x
                enabled: yes
        """)
    p = only(result)
    assert p.severity is Severity.WARNING and result.ok
    assert (p.line, p.column, p.key_path) == (9, 18, "apps[0].webhooks[0].enabled")
    assert p.message.startswith("`yes` is read as the boolean true in YAML; write true")


def test_quoted_true_for_a_boolean() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            webhooks:
              - id: hook1
                name: Hook
                webhookURL: https://hooks.example.com/x
                enabled: "true"
        """)
    p = only(result)
    assert p.message == "expected true or false, got the quoted text 'true'; remove the quotes"


def test_unknown_key_did_you_mean() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            widgets:
              - extends: base
                main:
                  sned_gifs: true
        presets: {}
        """)
    p = only(result, "extra_forbidden")
    assert (p.line, p.column, p.key_path) == (8, 11, "apps[0].widgets[0].main.sned_gifs")
    assert p.message == "unknown key `sned_gifs`; did you mean `send_gifs`?"


def test_unknown_key_lists_the_few_allowed_ones() -> None:
    p = only(load(MINIMAL + "    colour: red\n"))
    assert p.message == (
        "unknown key `colour`; expected one of: id, name, region, version, labels, extensions, widgets, sms, webhooks, "
        "team, extension_settings, push_certificates, settings"
    )


def test_enum_value_did_you_mean() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            widgets:
              - name: W
                sidebar:
                  user_listing: all_user
        """)
    p = only(result, "literal_error")
    assert p.message == "`all_user` is not one of all_users, friends, none; did you mean `all_users`?"


def test_missing_required_key_points_at_its_mapping() -> None:
    p = only(load("format: 1\napps:\n  - name: Acme\n    version: '3'\n"))
    assert (p.line, p.column, p.key_path) == (3, 5, "apps[0].region")
    assert p.message == "missing required key `region`"


def test_wrong_container_in_yaml_words() -> None:
    p = only(load("format: 1\napps:\n  name: Acme\n"))
    assert (p.line, p.column, p.key_path) == (3, 3, "apps")
    assert p.message == "expected a list (lines starting with `- `), got a mapping"
    assert "dict" not in p.message and "Input should" not in p.message


def test_root_must_be_a_mapping() -> None:
    p = only(load("- format: 1\n"))
    assert p.message.startswith("a draft is a mapping with the keys format, presets and apps")


def test_non_text_key() -> None:
    result = load("format: 1\npresets:\n  3: {}\napps: []\n")
    p = only(result, "yaml-key-type")
    assert (p.line, p.column) == (3, 3)
    assert p.message == "`3` is read as the number 3 in YAML and keys must be text; quote the key: '3'"


def test_multiple_documents() -> None:
    p = only(load(MINIMAL + "---\nformat: 1\n"))
    assert (p.line, p.column, p.code) == (6, 1, "yaml-multiple-documents")


def test_deep_nesting_is_refused_not_crashed() -> None:
    p = only(load_text("a: " + "[" * 200_000, "deep.yaml"))
    assert p.code == "too-deep"
    # at the bracket that goes past the limit: the builder counts the top mapping as a level, the pre-scan only
    # brackets, so which one answers (PyYAML 6.0.4's libyaml stops first, 6.0's hands the events over) moves it by one
    assert p.line == 1 and p.column in (3 + yamlsource.MAX_DEPTH, 4 + yamlsource.MAX_DEPTH)


@pytest.mark.parametrize("text", ["a: " + "[" * 200_000, "a: " + "{b: " * 5_000, "a:\n" + "  [\n" * 3_000])
def test_too_deep_does_not_depend_on_which_parser_gives_up_first(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML 6.0.4's libyaml stops at its own nesting limit (a syntax error); 6.0.3's hands every event over and the
    builder's guard stops it; the pure-Python parser fails at the end of the stream. Each answers "too-deep"."""
    import yaml

    for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        monkeypatch.setattr(yamlsource, "_EventLoader", loader)
        assert only(load_text(text, "deep.yaml")).code == "too-deep", loader


def test_brackets_in_quotes_and_comments_are_not_nesting() -> None:
    opened = "[" * 100
    assert yamlsource.flow_too_deep(f"a: '{opened}'\nb: \"{opened}\" # {opened}\n") is None
    assert yamlsource.flow_too_deep("a: " + opened) == (0, 3 + yamlsource.MAX_DEPTH)


def test_rules_problems_are_located() -> None:
    result = load("""\
        format: 1
        presets: {}
        apps:
          - name: Acme
            region: eu
            widgets:
              - extends: suport
        """)
    p = only(result, "unknown_preset")
    assert (p.line, p.column, p.key_path) == (7, 18, "apps[0].widgets[0].extends")


def test_secret_values_never_appear_in_messages() -> None:
    result = load("""\
        format: 1
        apps:
          - name: Acme
            region: eu
            sms:
              fromMobileNo: "+1234"
              messageDelay: 60
              twilioAccountSid: AC1
              twilioAuthToken: 987654321
              websiteURL: x.example
            webhooks:
              - id: hook1
                name: Hook
                webhookURL: https://hooks.example.com/x
                useBasicAuth: true
                username: bot
                password: s3cr3t pa55
        """)
    rendered = "".join(p.render() for p in result.problems)
    assert "987654321" not in rendered and "s3cr3t" not in rendered and "pa55" not in rendered
    assert {p.key_path for p in result.problems} >= {"apps[0].sms.twilioAuthToken", "apps[0].webhooks[0].password"}


def test_all_problems_at_once_in_line_order() -> None:
    result = load("""\
        format: 1
        apps:
          - name: no
            region: mars
            version: 3
          - name: Two
            region: eu
            colour: red
        """)
    lines = [p.line for p in result.problems]
    assert lines == [3, 4, 5, 8]
    assert lines == sorted(lines)


def test_no_pydantic_jargon_in_any_message() -> None:
    result = load("""\
        format: 1
        presets: []
        apps:
          - name: [a]
            region: {x: 1}
            widgets: 3
            webhooks:
              - id: hook1
                name: Hook
                webhookURL: ftp://x
                enabled: 1
        """)
    assert len(result.problems) >= 5
    for p in result.problems:
        for jargon in ("Input should", "dict_type", "valid dictionary", "model_type", "bool_type", "[type="):
            assert jargon not in p.message, p.render()


def test_number_where_a_text_choice_is_expected_says_it_was_read_as_a_number(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("format: 1\napps:\n  - name: A\n    region: us\n    version: 3.0\n")
    [problem] = load_draft(path).problems
    assert (problem.line, problem.column, problem.key_path) == (5, 14, "apps[0].version")
    assert "read as the number" in problem.message and "'3'" in problem.message


@pytest.mark.parametrize(("written", "got"), [("1", "the number 1"), ("'yes'", "the text 'yes'"),
                                              ("{a: 1}", "a mapping"), ("2.5", "the number 2.5")])
def test_a_value_no_member_of_a_union_accepts_is_one_error_at_its_key(written: str, got: str) -> None:
    result = load(f"""\
        format: 1
        apps:
          - name: Acme
            region: eu
            settings:
              core.conversations.updateOnReplies: {written}
        """)
    p = only(result)
    assert (p.line, p.key_path) == (6, "apps[0].settings.core.conversations.updateOnReplies")
    assert p.message == f"expected true or false, or a list of text (lines starting with `- `), got {got}"


class _Inner(BaseModel):
    a: int


class _Unions(BaseModel):
    model_config = ConfigDict(strict=True)
    flag: bool | list[str] = False
    level: Literal["low", "high"] | int = 0
    inner: _Inner | str = ""
    maybe: bool | list[str] | None = None


@pytest.mark.parametrize("field", list(_Unions.model_fields))
@pytest.mark.parametrize("value", [1.5, {"x": 1}, True, "text", 3])
def test_no_union_member_tag_ever_reaches_a_key_path(field: str, value: object) -> None:
    """Every union, not one field: a value refused by all members is one problem at the key's own path."""
    try:
        _Unions.model_validate({field: value})
    except ValidationError as exc:
        problems = pydantic_problems.convert(exc, root=_Unions, data={field: value})
        if field == "inner" and isinstance(value, dict):  # the model member was meant: its own errors
            assert [p.path for p in problems] == [("inner", "a")]
        else:
            assert [p.path for p in problems] == [(field,)]
            assert problems[0].message.startswith("expected ")
