"""Issue 19, item 8: hostile data never reaches a terminal raw.

The function (:func:`tenantdeck.textsafe.shown`) by its properties, then every command-line output path over a
sandbox on 127.0.0.1 holding an app whose name writes the clipboard (OSC 52), clears the screen and reverses the
text after it: ``pull``, ``diff`` (text, markdown), ``plan``, ``push``'s refusal, ``validate``, ``history``,
``listen``'s text mode, and the service's error messages.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tenantdeck.api.client import ManagementClient
from tenantdeck.api.errors import ApiError, ValidationFailed
from tenantdeck.problems import Problem, Severity
from tenantdeck.sandbox import create_app
from tenantdeck.textsafe import shown
from tests import procs
from tests.loopback import serve_on_loopback

KEY, SECRET = "textsafe-key", "textsafe-secret"
#: OSC 52 (set the clipboard to "evil"), BEL, clear screen, right-to-left override, then markup
EVIL = "Evil\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e[bold]x"
EVIL_SHOWN = "Evil\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\u202e[bold]x"
#: what a terminal would act on: C0 but the newline, DEL, C1, bidi controls, line/paragraph separators
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
CONTROLS = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))] + list(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def assert_safe(text: str) -> None:
    found = UNSAFE.search(text)
    assert found is None, f"raw {found.group()!r} at {found.start()} in {text!r}"


# -- the function ---------------------------------------------------------------------------------------------


def test_the_evil_name_is_shown_escaped_markup_and_all() -> None:
    assert shown(EVIL) == EVIL_SHOWN
    assert shown("a\tb\r\nc\x7f\x9b\u2066") == "a\\tb\\r\\nc\\x7f\\x9b\\u2066"
    assert shown("two\nlines\x1b", newlines=True) == "two\nlines\\x1b"
    assert shown("\ud800") == "\\ud800"  # a lone surrogate (a body decoded with surrogateescape) cannot be encoded


@pytest.mark.parametrize("char", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_every_control_and_bidi_character_is_escaped(char: str) -> None:
    assert shown(char) == (repr(char)[1:-1] if ord(char) < 0x100 else f"\\u{ord(char):04x}")
    assert char not in shown(f"a{char}b", newlines=True) or char == "\n"


def test_printable_text_is_the_same_object() -> None:
    """The hot path (every cell of a 5,000-app table): nothing to change, nothing copied."""
    text = "Acme Support · widget «main» 👩\u200d💻\xa0[bold]x\\x1b"  # a ZWJ emoji and a no-break space too
    assert shown(text) is text and shown(text, newlines=True) is text


@given(st.text())
def test_output_never_holds_a_control_or_bidi_character(text: str) -> None:
    assert_safe(shown(text))
    assert "\n" not in shown(text)
    assert_safe(shown(text, newlines=True))


@given(st.text(alphabet=st.characters().filter(str.isprintable)))
def test_printable_text_is_unchanged(text: str) -> None:
    assert shown(text) == text and shown(text, newlines=True) == text


@given(st.text())
def test_shown_twice_is_shown_once(text: str) -> None:
    assert shown(shown(text)) == shown(text)
    assert shown(shown(text, newlines=True), newlines=True) == shown(text, newlines=True)


def test_a_rendered_problem_is_one_safe_line() -> None:
    problem = Problem(Severity.ERROR, f"unknown key '{EVIL}'\nfake: error: line", ("apps", 0), "d.yaml", 3, 5)
    assert problem.render() == (f"d.yaml:3:5: error: apps[0]: unknown key '{EVIL_SHOWN}'\\nfake: error: line")


def test_an_error_from_the_service_is_shown_escaped() -> None:
    error = ValidationFailed(f"create app '{EVIL}'", status=422, message=f"name {EVIL} is not allowed",
                             hint=f"fix {EVIL}")
    assert_safe(str(error)) and assert_safe(repr(error))
    assert EVIL_SHOWN in str(error)
    assert str(ApiError("list apps", message="\u202eok")) == "list apps failed: \\u202eok"


# -- the command line over a loopback sandbox --------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "sandbox.sqlite3", key=KEY, secret=SECRET, seed=True)
    with serve_on_loopback(app) as url:
        asyncio.run(_plant(url))
        yield url


async def _plant(url: str) -> None:
    """Someone else's data on the service: an app and a webhook named to attack the admin's terminal."""
    async with ManagementClient(url, KEY, SECRET) as client:
        app = await client.create_app(EVIL, "us")
        await client.create_webhook(app.id, {"id": "evilhook", "name": EVIL, "webhookURL":
                                             "https://example.com/\u202egnp.exe", "useBasicAuth": False,
                                             "enabled": True, "retryOnFailure": False})


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TENANTDECK_KEY", KEY)
    monkeypatch.setenv("TENANTDECK_SECRET", SECRET)
    monkeypatch.setenv("TENANTDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TENANTDECK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli(*args: str) -> Any:
    from tenantdeck.cli import cli as group

    return CliRunner().invoke(group, list(args), standalone_mode=True)


def add_app_named(draft: Path, name: str) -> None:
    """A new app in the draft whose name the service already has: the plan creates it and reports the clash."""
    text = draft.read_text()
    assert "\napps:\n" in text
    draft.write_text(text.replace("\napps:\n", f"\napps:\n  - name: {json.dumps(name)}\n    region: eu\n", 1))


def test_pull_diff_plan_and_push_print_hostile_names_escaped(server: str, workdir: Path) -> None:
    pulled = cli("pull", "--base-url", server, "--draft", "d.yaml")
    assert pulled.exit_code == 0, pulled.stderr
    assert_safe(pulled.stdout + pulled.stderr)
    assert EVIL in _names(workdir / "d.yaml"), "the name itself is kept, as data, in the draft"

    add_app_named(workdir / "d.yaml", EVIL)
    for args in (("diff",), ("diff", "--format", "markdown"), ("plan",), ("diff", "--offline")):
        result = cli(*args, "--base-url", server, "--draft", "d.yaml") if "--offline" not in args else cli(
            *args, "--draft", "d.yaml")
        out = result.stdout + result.stderr
        assert "Traceback" not in out, out
        assert_safe(out)
        assert "Evil\\x1b]52;c;ZXZpbA==" in out, (args, out)  # shown, escaped: the reviewer sees what it is
    conflicts = cli("diff", "--base-url", server, "--draft", "d.yaml")
    assert conflicts.exit_code == 3 and f'app "{EVIL_SHOWN}"' in conflicts.stdout

    push = cli("push", "--yes", "--base-url", server, "--draft", "d.yaml")
    assert push.exit_code == 3, push.stderr
    assert_safe(push.stdout + push.stderr)
    assert EVIL_SHOWN in push.stderr


def _names(draft: Path) -> list[str]:
    from tenantdeck.draft import load_draft

    result = load_draft(draft)
    assert result.draft is not None
    return [a.name for a in result.draft.apps]


def test_diff_json_stays_data(server: str, workdir: Path) -> None:
    """JSON is for programs: the name round-trips exactly (json.dumps escapes C0 itself)."""
    assert cli("pull", "--base-url", server, "--draft", "d.yaml").exit_code == 0
    add_app_named(workdir / "d.yaml", EVIL)
    result = cli("diff", "--format", "json", "--base-url", server, "--draft", "d.yaml")
    names = {op["app_name"] for op in json.loads(result.stdout)["operations"]}
    assert EVIL in names


def test_validate_prints_the_drafts_own_words_escaped(workdir: Path) -> None:
    draft = workdir / "bad.yaml"
    draft.write_text('format: 1\napps:\n  - name: x\n    region: "\\e]52;c;ZXZpbA==\\a\\u202e"\n'
                     '    "k\\e[2J": 1\n')
    result = cli("validate", str(draft))
    assert result.exit_code == 1
    assert_safe(result.stdout + result.stderr)
    assert "\\x1b]52;c;ZXZpbA==\\x07\\u202e" in result.stdout and "k\\x1b[2J" in result.stdout
    assert len(result.stdout.splitlines()) == result.stdout.count(": error: ") + result.stdout.count(": warning: ")


def test_history_prints_a_tampered_record_escaped(workdir: Path) -> None:
    from tenantdeck.sync.workspace.state import Workspace

    path = Workspace(workdir / "d.yaml").history_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"who": EVIL, "when": "2026-01-01T00:00:00+00:00", "result": "complete",
                                "profile": "\u202eprod", "plan_hash": "\x1b[2J", "counts": {"applied": 1},
                                "journal": "j\x07.jsonl"}) + "\n")
    result = cli("history", "--draft", str(workdir / "d.yaml"))
    assert result.exit_code == 0, result.stderr
    assert_safe(result.stdout)
    assert EVIL_SHOWN in result.stdout and "profile=\\u202eprod" in result.stdout
    as_json = cli("history", "--format", "json", "--draft", str(workdir / "d.yaml"))
    assert json.loads(as_json.stdout)["pushes"][0]["who"] == EVIL  # the record, as data


@pytest.mark.e2e
def test_listen_text_mode_prints_a_hostile_delivery_escaped() -> None:
    listen = procs.tenantdeck("listen", "--port", "0", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**_env(), "NO_COLOR": "1"})
    try:
        assert listen.stderr is not None
        first = listen.stderr.readline()
        url = re.search(r"receiving on (http://127\.0\.0\.1:\d+)", first)
        assert url is not None, first
        body = {"trigger": "\x1b]52;c;ZXZpbA==\x07\u202eafter_message", "data": {}}
        answer = httpx.post(url.group(1) + "/hooks/%1B%5B2J%E2%80%AEx", json=body, timeout=10)
        assert answer.status_code == 200
        out, err = _drain(listen)
    finally:
        if listen.poll() is None:
            listen.kill()
            listen.communicate(timeout=10)
    assert "INVALID" in out or "unknown" in out.lower(), out
    assert_safe(out + err)
    assert "\\x1b]52;c;ZXZpbA==\\x07\\u202eafter_message" in out and "/hooks/\\x1b[2J\\u202ex" in out


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("TENANTDECK_")}


def _drain(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The delivery is printed after it is answered: give it a moment, then stop the listener (SIGTERM)."""
    import time

    time.sleep(0.5)
    return procs.stop(proc)


def test_json_output_is_the_same_data_and_safe_on_a_terminal() -> None:
    import json

    from tenantdeck.textsafe import json_text

    value = {"name": "Evil\x1b]52;c;x\x07\u202e\x85\x7f", "ok": "Zoë"}
    text = json_text(value, indent=2)
    assert json.loads(text) == value  # the same data for a program
    assert shown(text, newlines=True) == text  # nothing a terminal would act on
    assert "\\u202e" in text and "Zoë" in text  # escaped where needed, readable elsewhere
