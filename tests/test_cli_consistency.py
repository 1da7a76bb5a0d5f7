"""The commands behave alike where a user expects them to (issue 7): the draft argument, --concurrency, help on
every option, documented exit codes, and colour only for a person at a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tenantdeck import exitcodes
from tenantdeck.cli import COMMANDS, cli
from tenantdeck.cli.output import color_enabled, style_line
from tests import procs

ROOT = Path(__file__).resolve().parents[1]
DRAFT_COMMANDS = ("validate", "init", "pull", "diff", "plan", "history")
VALID = "format: 1\napps:\n  - name: Acme\n    region: eu\n"
BAD = "format: 1\napps:\n  - name: no\n    region: eu\n"


def command(name: str) -> click.Command:
    found = cli.get_command(click.Context(cli), name)
    assert found is not None, name
    return found


def every_command() -> list[tuple[str, click.Command]]:
    return [(name, command(name)) for name in sorted(COMMANDS)]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
            "TENANTDECK_BASE_URL": ""}


# --- the draft: positional or --draft, everywhere ---------------------------------------------------------------


@pytest.mark.parametrize("name", DRAFT_COMMANDS)
def test_every_draft_command_takes_the_draft_both_ways(name: str) -> None:
    params = {p.name: p for p in command(name).params}
    assert isinstance(params.get("draft_arg"), click.Argument), name
    assert isinstance(params.get("draft_opt"), click.Option) and params["draft_opt"].opts == ["--draft"], name
    usage = CliRunner().invoke(cli, [name, "--help"]).output
    assert f" {name} [OPTIONS] [DRAFT]" in usage and "--draft DRAFT" in usage


@pytest.mark.parametrize("form", [["{f}"], ["--draft", "{f}"], ["{f}", "--draft", "{f}"]])
def test_validate_diff_and_history_accept_either_form(tmp_path: Path, env: dict[str, str], form: list[str]) -> None:
    draft = tmp_path / "d.yaml"
    draft.write_text(VALID, encoding="utf-8")
    args = [a.format(f=draft) for a in form]
    runner = CliRunner()
    assert runner.invoke(cli, ["validate", *args]).exit_code == exitcodes.OK
    diff = runner.invoke(cli, ["diff", "--offline", *args], env=env)
    assert diff.exit_code == exitcodes.CHANGES, diff.output  # one app to create
    assert '+ create app "Acme"' in diff.stdout
    assert runner.invoke(cli, ["history", *args]).exit_code == exitcodes.OK


def test_init_and_pull_take_the_positional_form(tmp_path: Path, env: dict[str, str]) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["init", "--draft", str(tmp_path / "a.yaml")]).exit_code == 0
    assert (tmp_path / "a.yaml").exists()
    pulled = runner.invoke(cli, ["pull", str(tmp_path / "b.yaml")], env=env)
    assert pulled.exit_code == 0, pulled.output
    assert (tmp_path / "b.yaml").exists()


@pytest.mark.parametrize("name", DRAFT_COMMANDS)
def test_two_different_drafts_is_a_usage_error(tmp_path: Path, env: dict[str, str], name: str) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    result = CliRunner().invoke(cli, [name, str(one), "--draft", str(two)], env=env)
    assert result.exit_code == exitcodes.USAGE, result.output
    assert "the draft is given twice" in result.output
    assert not one.exists() and not two.exists()


def test_push_takes_a_planfile_and_says_how_to_give_the_draft(tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    draft.write_text(VALID, encoding="utf-8")
    result = CliRunner().invoke(cli, ["push", str(draft)])
    assert result.exit_code == exitcodes.USAGE
    assert f"tenantdeck push --draft {draft}" in result.output
    help_text = " ".join(CliRunner().invoke(cli, ["push", "--help"]).output.split())
    assert "push takes the draft only as --draft: its positional argument is a saved PLANFILE" in help_text


# --- options spelled and ranged alike --------------------------------------------------------------------------


def test_concurrency_has_one_range_and_default_everywhere() -> None:
    found = {}
    for name, cmd in every_command():
        for param in cmd.params:
            if param.name == "concurrency":
                assert isinstance(param.type, click.IntRange)
                found[name] = (param.type.min, param.type.max, param.default, param.metavar)
    assert set(found) == {"pull", "diff", "plan", "push", "promote"}
    assert len(set(found.values())) == 1, found


def test_latency_is_shown_as_milliseconds() -> None:
    latency = next(p for p in command("sandbox").params if p.name == "latency_ms")
    assert isinstance(latency, click.Option) and latency.metavar == "MS"
    help_text = " ".join(CliRunner().invoke(cli, ["sandbox", "--help"]).output.split())
    assert "--latency MS Delay every request by MS milliseconds" in help_text


def test_every_option_of_every_command_has_help() -> None:
    missing = []
    for name, cmd in [("(group)", cli), *every_command()]:
        for param in cmd.params:
            if isinstance(param, click.Option):
                if not (param.help or "").strip():
                    missing.append(f"{name} {param.opts[0]}")
            elif isinstance(param, click.Argument):
                # arguments take no help text in click: the command's help or an option's must explain them
                shown = (param.metavar or param.name or "").strip("[]").upper()
                texts = [cmd.help or ""] + [p.help or "" for p in cmd.params if isinstance(p, click.Option)]
                if not any(shown in text for text in texts):
                    missing.append(f"{name} argument {shown}")
    assert missing == []


def test_plan_documents_its_exit_codes() -> None:
    help_text = CliRunner().invoke(cli, ["plan", "--help"]).output
    for code, meaning in ((0, "nothing to push"), (2, "changes to push"), (3, "conflicts"), (1, "error")):
        assert f"{code}  {meaning}" in help_text, (code, help_text)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`plan`" in readme.split("## Exit codes", 1)[1].split("##", 1)[0]


# --- colour ----------------------------------------------------------------------------------------------------


def test_style_line_colours_only_the_level_word() -> None:
    line = "d.yaml:3:11: error: apps[0].name: `no` is read as the boolean false"
    styled = style_line(line)
    assert styled != line and click.unstyle(styled) == line
    assert styled.startswith("d.yaml:3:11: \x1b[31m")
    assert click.unstyle(style_line("warning: x")) == "warning: x" and "\x1b[33m" in style_line("warning: x")
    assert style_line("pulled 3 apps") == "pulled 3 apps"


def test_no_color_or_no_terminal_means_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert color_enabled(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_enabled(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "")
    assert color_enabled(Tty())  # type: ignore[arg-type]  # set but empty does not count (no-color.org)
    assert not color_enabled(open(os.devnull, "w"))  # noqa: SIM115


def run_on_a_terminal(args: list[str], extra_env: dict[str, str]) -> str:
    """Run tenantdeck with stdout and stderr on a pseudo-terminal; returns everything it wrote."""
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"PYTHONPATH": str(ROOT / "src")} | extra_env
    proc = procs.tenantdeck(*args, stdout=follower, stderr=follower,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # EIO: the other side is closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_errors_are_red_on_a_terminal_and_plain_with_no_color(tmp_path: Path) -> None:
    draft = tmp_path / "d.yaml"
    draft.write_text(BAD, encoding="utf-8")
    coloured = run_on_a_terminal(["validate", str(draft)], {})
    assert "\x1b[31m\x1b[1merror:\x1b[0m" in coloured, coloured
    plain = run_on_a_terminal(["validate", str(draft)], {"NO_COLOR": "1"})
    assert "\x1b[" not in plain and ": error: apps[0].name:" in plain
    piped = subprocess.run([sys.executable, "-m", "tenantdeck", "validate", str(draft)], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=False)
    assert "\x1b[" not in piped.stdout + piped.stderr
