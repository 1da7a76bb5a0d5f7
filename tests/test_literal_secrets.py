"""Issue 32, item 7: a secret written inline is said, by every command, and never passes silently.

* ``validate``, ``diff``, ``plan`` and ``push`` warn, at the field's line, about a literal in any field the
  catalog marks secret (``giphyApiKey: 'sk_live_…'`` passed without a word: only SMS and webhook secrets were
  checked); ``--strict`` makes it an error, found before any request.
* ``pull`` says (a note, no value) when it replaced such a literal with a ``${VAR}`` reference.
* the pre-push check refuses a variable whose value is itself a ``${OTHER}`` reference, naming the variable, never
  the value (it used to reach the service and fail there, after earlier writes: a partial push).

Through the real commands against the built-in sandbox (the ``local`` profile, an isolated database).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.draft import load_text
from tenantdeck.models.extension_catalog import BY_ID, DRAFT_EXTENSIONS
from tenantdeck.problems import format_path, strict
from tests.fuzzing import examples
from tests.requests_log import record_requests
from tests.sandbox.ext_samples import settings_for

LITERAL = "sk_live_4f9a8b7c6d5e"  # the value that must never be printed


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TENANTDECK_BASE_URL", "TENANTDECK_KEY", "TENANTDECK_SECRET", "TENANTDECK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("CONFIG", "DATA", "CACHE"):
        monkeypatch.setenv(f"TENANTDECK_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return record_requests(monkeypatch)


def run(*args: str, **env: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env or None)
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def with_giphy_key(tmp_path: Path, value: str) -> int:
    """Pull, then give the first app Giphy settings with ``value`` as its key; returns the key's line."""
    code, _, err = run("pull", "--draft", "d.yaml")
    assert code == 0, err
    draft = tmp_path / "d.yaml"
    text = draft.read_text()
    anchor = "        badwords: [darn]\n"
    assert anchor in text
    draft.write_text(text.replace(anchor, anchor + f"      gifs-giphy:\n        giphyApiKey: '{value}'\n", 1))
    return text[: text.index(anchor)].count("\n") + 3


WHERE = "apps[0].extension_settings.gifs-giphy.giphyApiKey"


def test_validate_warns_at_the_line_and_strict_makes_it_an_error(env: None, tmp_path: Path) -> None:
    line = with_giphy_key(tmp_path, LITERAL)
    code, out, err = run("validate", "d.yaml")
    assert code == exitcodes.OK, out + err
    assert f"d.yaml:{line}:22: warning: {WHERE}: a literal secret" in out
    code, out, err = run("validate", "d.yaml", "--strict")
    assert code == exitcodes.ERROR
    assert f"d.yaml:{line}:22: error: {WHERE}: a literal secret" in out and "invalid" in err
    code, out, _ = run("validate", "d.yaml", "--strict", "--format", "json")
    doc = json.loads(out)
    assert doc["valid"] is False and doc["exit_code"] == exitcodes.ERROR
    assert [p["severity"] for p in doc["problems"] if p["code"] == "literal_secret"] == ["error"]
    assert LITERAL not in out


@pytest.mark.parametrize("command", [["diff"], ["plan"], ["push", "--yes", "--draft"]])
def test_diff_plan_and_push_warn_and_strict_refuses_before_any_request(
    env: None, tmp_path: Path, requests: list[str], command: list[str]
) -> None:
    line = with_giphy_key(tmp_path, LITERAL)
    requests.clear()
    code, out, err = run(*command, "d.yaml", "--strict")
    assert code == exitcodes.ERROR, out + err
    assert f"d.yaml:{line}:22: error: {WHERE}: a literal secret" in out + err and "--strict" in out + err
    assert requests == []
    assert "Reading the service" not in out + err  # it is not read: saying so would mislead
    code, out, err = run(*command, "d.yaml")
    assert code in (exitcodes.OK, exitcodes.CHANGES), out + err
    assert f"d.yaml:{line}:22: warning: {WHERE}: a literal secret" in err
    assert LITERAL not in out + err


def test_pull_says_it_replaced_the_literal_with_a_reference(env: None, tmp_path: Path) -> None:
    line = with_giphy_key(tmp_path, LITERAL)
    code, _, err = run("push", "--yes", "--draft", "d.yaml")
    assert code == exitcodes.OK, err
    code, out, err = run("pull", "--draft", "d.yaml")
    assert code == exitcodes.OK, err
    (note,) = [n for n in err.splitlines() if n.startswith("note:") and "literal secret" in n]
    assert f"d.yaml:{line}: {WHERE}: the literal secret is now ${{TENANTDECK_" in note
    draft = (tmp_path / "d.yaml").read_text()
    assert LITERAL not in out + err + draft and "giphyApiKey: '${TENANTDECK_" in draft


def test_a_variable_whose_value_is_a_reference_is_refused_before_any_write(
    env: None, tmp_path: Path, requests: list[str]
) -> None:
    with_giphy_key(tmp_path, "${GIPHY_KEY}")
    requests.clear()
    code, out, err = run("push", "--yes", "--draft", "d.yaml", GIPHY_KEY="${OTHER_SECRET}")
    assert code == exitcodes.ERROR, out + err
    assert f"{WHERE}: the value of ${{GIPHY_KEY}} would be refused by the service: it is itself a" in err
    assert "OTHER_SECRET" not in out + err  # the value is never printed
    assert [r for r in requests if not r.startswith("GET")] == []  # nothing was written


# --- every secret the catalog marks, not a list written here ------------------------------------------------------

def _draft(ext: str, settings: dict[str, Any]) -> str:
    return json.dumps({"format": 1, "apps": [{"name": "A", "region": "us",
                                              "extension_settings": {ext: settings}}]})


def _secret_paths(value: Any, path: tuple[Any, ...], spec_settings: Any) -> list[tuple[Any, ...]]:
    out = []
    for setting in spec_settings:
        if setting.key not in value:
            continue
        if setting.secret:
            out.append((*path, setting.key))
        if setting.type == "object":
            out += _secret_paths(value[setting.key], (*path, setting.key), setting.fields)
    return out


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from([e for e in DRAFT_EXTENSIONS if any(s.secret for _, s in BY_ID[e].fields())]))
def test_a_literal_in_every_secret_field_of_the_catalog_is_a_located_warning(ext: str) -> None:
    spec = BY_ID[ext]
    settings_doc = settings_for(spec)
    result = load_text(_draft(ext, settings_doc), file="d.yaml")
    expected = {format_path(("apps", 0, "extension_settings", ext, *p))
                for p in _secret_paths(settings_doc, (), spec.settings)}
    assert expected
    found = [p for p in result.problems if p.code == "literal_secret"]
    assert {p.key_path for p in found} == expected
    assert all(not p.is_error and p.line > 0 for p in found)
    assert all(p.is_error for p in strict(found))
