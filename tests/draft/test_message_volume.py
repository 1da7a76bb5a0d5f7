"""One mistake, one line: an alias bomb or a mistyped trigger id must not flood the terminal (issue 7)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tenantdeck.cli import cli
from tenantdeck.models import catalog

BILLION_LAUGHS = "format: 1\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_an_alias_bomb_is_one_error(tmp_path: Path) -> None:
    draft = tmp_path / "bomb.yaml"
    draft.write_text(BILLION_LAUGHS + "apps: []\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{draft}:2:4: error: a: anchor &a: anchors and aliases are not supported")
    assert "(and 80 more anchors or aliases after this one)" in lines[0]
    assert result.stderr.strip() == f"{draft}: invalid (1 error, 0 warnings)"


def test_a_single_anchor_says_nothing_about_more(tmp_path: Path) -> None:
    draft = tmp_path / "one.yaml"
    draft.write_text("format: 1\napps:\n  - &x\n    name: A\n    region: eu\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 1
    assert result.stdout.count("\n") == 1 and "more anchors" not in result.stdout


HOOK = (
    "format: 1\napps:\n  - name: A\n    region: eu\n    webhooks:\n      - id: h\n        name: H\n"
    "        webhookURL: https://x.example\n        triggers: [{triggers}]\n"
)


def test_an_unknown_extension_suggests_one_and_points_at_the_list(tmp_path: Path) -> None:
    assert len(catalog.EXTENSION_IDS) > 8
    draft = tmp_path / "d.yaml"
    draft.write_text("format: 1\napps:\n  - name: A\n    region: eu\n    extensions:\n"
                     "      enabled: [pollz, zzzzqqq]\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 1
    typo, nonsense = result.stdout.splitlines()
    n = len(catalog.EXTENSION_IDS)
    assert typo.endswith(f"`pollz` is not one of the {n} accepted values; did you mean `polls`? "
                         "(`tenantdeck schema` lists them all)")
    assert nonsense.endswith(f"`zzzzqqq` is not one of the {n} accepted values (`tenantdeck schema` lists them all)")
    for line in (typo, nonsense):
        assert "reactions" not in line and len(line) < 250, line


def test_an_unknown_trigger_is_one_warning_line_with_a_suggestion(tmp_path: Path) -> None:
    # a trigger id the service may hold is kept (issue 8), so it is a warning, and still one short line
    draft = tmp_path / "d.yaml"
    draft.write_text(HOOK.format(triggers="message_sentt"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert result.exit_code == 0
    (line,) = result.stdout.splitlines()
    assert "warning:" in line and line.endswith("; did you mean `message_sent`?")
    assert "group_member_kicked" not in line and len(line.split(": warning: ", 1)[1]) < 250, line


def test_a_short_list_is_still_written_out(tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    draft.write_text("format: 1\napps:\n  - name: A\n    region: eu2\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(draft)])
    assert "`eu2` is not one of us, eu, in; did you mean `eu`?" in result.stdout
