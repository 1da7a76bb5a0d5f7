"""Issue 32, item 6: what the service cannot hold is refused offline, at the field that makes it too large.

The drafts are pulled from the built-in sandbox (the ``local`` profile, an isolated database) and run through the
real commands. ``validate`` says the error at the field's line; ``diff``, ``plan`` and ``push`` refuse the same
draft before a single request. The limits are the sandbox's own: a property test holds ``validate`` and the
sandbox to the same verdict on drafts around the limit.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.api.client import ManagementClient
from tenantdeck.cli import cli
from tenantdeck.draft import load_text
from tenantdeck.jsonlimits import BODY_MAX_BYTES, EXTENSION_SETTINGS_MAX_BYTES, json_size, largest_part
from tenantdeck.sandbox import create_app
from tenantdeck.textsafe import shortened
from tests.fuzzing import examples
from tests.requests_log import record_requests

BIG_WORD = 10_000_000
MANY_WORDS = 100_000


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    values = {"TENANTDECK_CONFIG_DIR": str(tmp_path / "config"), "TENANTDECK_DATA_DIR": str(tmp_path / "data"),
              "TENANTDECK_CACHE_DIR": str(tmp_path / "cache")}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    return values


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return record_requests(monkeypatch)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def pulled(tmp_path: Path) -> Path:
    code, _, err = run("pull", "--draft", "d.yaml")
    assert code == 0, err
    return tmp_path / "d.yaml"


def with_badwords(draft: Path, words: str) -> int:
    """Write ``words`` (YAML flow or block text) as the first app's bad words; returns the line of the key."""
    text = draft.read_text()
    assert "badwords: [darn]" in text
    draft.write_text(text.replace("badwords: [darn]", "badwords:" + words, 1))
    return text[: text.index("badwords: [darn]")].count("\n") + 1


def big_word(draft: Path) -> tuple[int, str]:
    line = with_badwords(draft, ' [darn, "' + "x" * BIG_WORD + '"]')
    return line, "badwords[1]"


def many_words(draft: Path) -> tuple[int, str]:
    line = with_badwords(draft, "\n" + "".join(f"          - word{i:06d}\n" for i in range(MANY_WORDS)))
    return line, "badwords"


@pytest.mark.parametrize("make", [big_word, many_words], ids=["10MB-word", "100000-words"])
def test_validate_says_the_limit_at_the_fields_line(env: dict[str, str], tmp_path: Path, make: Any) -> None:
    draft = pulled(tmp_path)
    line, field = make(draft)
    code, out, err = run("validate", "d.yaml")
    assert code == exitcodes.ERROR, out + err
    (problem,) = [p for p in out.splitlines() if "too_large" in p or "262,144 bytes" in p]
    assert problem.startswith(f"d.yaml:{line}:") or problem.startswith(f"d.yaml:{line + 1}:"), problem
    assert f"apps[0].extension_settings.profanity-filter.{field}:" in problem
    assert "262,144 bytes (256 KiB)" in problem and "Profanity filter" in problem
    assert len(problem) < 400  # the value itself is never repeated

    code, out, _ = run("validate", "d.yaml", "--format", "json")
    doc = json.loads(out)
    (found,) = [p for p in doc["problems"] if p["code"] == "too_large"]
    assert found["path"] == f"apps[0].extension_settings.profanity-filter.{field}"
    assert doc["valid"] is False


@pytest.mark.parametrize("command", [["diff"], ["plan", "-o", "p.json"], ["push", "--yes", "--draft"]])
def test_every_command_that_validates_refuses_before_any_request(
    env: dict[str, str], tmp_path: Path, requests: list[str], command: list[str]
) -> None:
    draft = pulled(tmp_path)
    big_word(draft)
    requests.clear()
    code, out, err = run(*command, "d.yaml")
    assert code == exitcodes.ERROR, out + err
    assert "262,144 bytes (256 KiB)" in out + err and "not valid" in out + err
    assert requests == []  # nothing was read, let alone sent


def test_a_widget_body_over_the_body_limit_is_an_error_at_its_field(env: dict[str, str], tmp_path: Path) -> None:
    draft = pulled(tmp_path)
    text = draft.read_text()
    key = "        style:\n"
    assert key in text
    css = "a" * (BODY_MAX_BYTES + 1)
    draft.write_text(text.replace(key, key + f"          custom_css: '{css}'\n", 1))
    code, out, _ = run("validate", "d.yaml")
    assert code == exitcodes.ERROR
    (problem,) = [p for p in out.splitlines() if "1,048,576 bytes (1 MiB)" in p]
    assert ".widgets[0].style.custom_css:" in problem and "request body" in problem


# --- one rule, one place: validate and the sandbox agree on where the limit is ---------------------------------

def _draft_text(words: list[str]) -> str:
    return ("format: 1\napps:\n  - name: A\n    region: us\n    extension_settings:\n      profanity-filter:\n"
            f"        dropMessage: false\n        badwords: {json.dumps(words)}\n")


async def _sandbox_takes(tmp: Path, words: list[str]) -> bool:
    app = create_app(tmp / "db.sqlite3", key="k", secret="s", seed=False)
    async with ManagementClient("http://sandbox", "k", "s", transport=httpx.ASGITransport(app=app)) as client:
        created = await client.create_app("A", "us")
        r = await client._http.post(f"/apps/{created.id}/extensions/profanity-filter/v1/settings",
                                    json={"settings": {"dropMessage": False, "badwords": words}})
    return r.status_code == 200


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(1, 40), slack=st.integers(-300, 300), wide=st.booleans())
def test_validate_and_the_sandbox_draw_the_limit_at_the_same_byte(
    tmp_path_factory: pytest.TempPathFactory, count: int, slack: int, wide: bool
) -> None:
    """Drafts within a few hundred bytes of the limit, some with characters of two UTF-8 bytes: a draft validates
    exactly when the sandbox stores it."""
    overhead = len('{"dropMessage":false,"badwords":[]}') + count * 3 - 1
    each = max(1, (EXTENSION_SETTINGS_MAX_BYTES - overhead + slack) // count)
    words = ["é" * (each // 2) if wide else "w" * each for _ in range(count)]
    result = load_text(_draft_text(words), file="d.yaml")
    too_large = [p for p in result.problems if p.code == "too_large"]
    took = asyncio.run(_sandbox_takes(tmp_path_factory.mktemp("sb"), words))
    assert took == (not too_large), (took, [p.render() for p in too_large])


# --- text output shortens long values; JSON keeps them -----------------------------------------------------------

def test_diff_text_shortens_a_long_value_and_json_keeps_it(env: dict[str, str], tmp_path: Path) -> None:
    draft = pulled(tmp_path)
    css = "a" * 30_000 + "TAIL"
    text = draft.read_text()
    key = "        style:\n"
    draft.write_text(text.replace(key, key + f"          custom_css: '{css}'\n", 1))
    for fmt in ("text", "markdown"):
        code, out, err = run("diff", "d.yaml", "--format", fmt)
        assert code == exitcodes.CHANGES, err
        (line,) = [line for line in out.splitlines() if "custom_css" in line]
        assert len(line) < 400, len(line)
        assert "…" in line and "TAIL" in line and "(30,006 chars)" in line  # start, end and length (with quotes)
    code, out, err = run("diff", "d.yaml", "--format", "json")
    assert code == exitcodes.CHANGES, err
    assert json.dumps(css) in out  # the whole value


@given(st.text(max_size=2000), st.integers(20, 500))
def test_a_shortened_text_keeps_its_start_end_and_length(text: str, limit: int) -> None:
    short = shortened(text, limit)
    if len(text) <= limit:
        assert short is text
        return
    tail = limit // 5
    assert short.startswith(text[: limit - tail]) and short.endswith(f"{text[-tail:]} ({len(text):,} chars)")
    assert len(short) <= limit + len(f"… ({len(text):,} chars)")


def test_a_problem_quoting_a_long_value_is_shortened_in_text_and_whole_in_json(
    env: dict[str, str], tmp_path: Path
) -> None:
    draft = pulled(tmp_path)
    value = "x" * 100_000
    text = draft.read_text()
    assert "recent_chat_listing: all_chats" in text
    draft.write_text(text.replace("recent_chat_listing: all_chats", f"recent_chat_listing: {value}", 1))
    _, out, _ = run("validate", "d.yaml")
    (line,) = [line for line in out.splitlines() if "recent_chat_listing" in line]
    # the lock file holds all_chats: the draft's own value, an error (trial J, J3), its quote shortened all the same
    assert len(line) < 600 and "(100,002 chars)" in line and line.endswith("a push refuses to send it")
    _, out, _ = run("validate", "d.yaml", "--format", "json")
    assert value in out


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=40),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
                    max_leaves=30), st.integers(1, 200))
@example([None], 4).via("null is four bytes: not over a limit of 4 (it was taken as five)")
@example([True, False], 4).via("true four bytes, false five")
def test_the_part_found_is_over_the_limit_and_none_of_its_children_is(value: Any, limit: int) -> None:
    """largest_part skips what cannot be over without encoding it; it must find what encoding would."""
    path = largest_part(value, limit)
    part = value
    for key in path:
        part = part[key]
    if path:
        assert json_size(part) > limit
    children = part.values() if isinstance(part, dict) else part if isinstance(part, list) else []
    assert all(json_size(child) <= limit for child in children)
