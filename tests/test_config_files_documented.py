"""Issue 38: every configuration file tenantdeck reads has a JSON Schema (`tenantdeck schema --KIND`) and an
example in docs/configuration.md that the real reader loads without a problem and the schema accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml
from click.testing import CliRunner

from tenantdeck.cli import cli

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def example(name: str) -> str:
    """The yaml block of docs/configuration.md whose first line is ``# file: NAME``."""
    for block in re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S):
        if block.startswith(f"# file: {name}\n"):
            return block
    raise AssertionError(f"docs/configuration.md has no example of {name}")


def schema(kind: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["schema", f"--{kind}"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def load_profiles(path: Path) -> list[str]:
    from tenantdeck.targets import load_profiles

    load_profiles(path)
    return []


def load_targets(path: Path) -> list[str]:
    from tenantdeck.draft.target_overrides import read_target_overrides

    assert read_target_overrides(path.with_name("tenantdeck.yaml")) is not None
    return []


def load_policies(path: Path) -> list[str]:
    from tenantdeck.policies.model import load_policies

    return [p.message for p in load_policies(path).problems]


def load_settings(path: Path) -> list[str]:
    from tenantdeck.prefs.settings import load

    settings = load(path.parent)
    assert settings.theme
    return [settings.problem] if settings.problem else []


def load_keymap(path: Path) -> list[str]:
    from tenantdeck.prefs.keymap import load

    keymap = load(path.parent)
    assert keymap.bindings
    return keymap.problems


def load_theme(path: Path) -> list[str]:
    from tenantdeck.prefs.themes import validate_file

    data, problem = validate_file(path)
    return [problem] if data is None else []


CASES = [("profiles", "profiles.yaml", load_profiles), ("targets", "tenantdeck.targets.yaml", load_targets),
         ("policies", "tenantdeck.policies.yaml", load_policies), ("settings", "settings.yaml", load_settings),
         ("keymap", "keymap.yaml", load_keymap), ("theme", "themes/ocean.yaml", load_theme)]


@pytest.mark.parametrize(("kind", "name", "reader"), CASES, ids=[c[0] for c in CASES])
def test_each_documented_example_loads_and_fits_its_schema(kind: str, name: str, reader: Any,
                                                           tmp_path: Path) -> None:
    text = example(name)
    path = tmp_path / Path(name).name
    path.write_text(text)
    assert reader(path) == []
    validator = jsonschema_rs.validator_for(schema(kind))
    errors = [e.message for e in validator.iter_errors(yaml.safe_load(text))]
    assert errors == [], errors


@pytest.mark.parametrize(("kind", "bad"), [
    ("profiles", {"profiles": {"p": {"base_url": "https://x", "key_env": ""}}}),
    ("settings", {"events_port": 70000}),
    ("keymap", {"Save!": "f2"}),
    ("theme", {"name": "x", "dark": True}),
    ("policies", {"format": 2}),
    ("targets", {"format": 1, "targets": {"production": {"apps": {"A": {"nope": 1}}}}}),
])
def test_each_schema_refuses_what_its_reader_refuses(kind: str, bad: dict[str, Any]) -> None:
    assert not jsonschema_rs.validator_for(schema(kind)).is_valid(bad)


def test_kinds_exclude_each_other() -> None:
    assert CliRunner().invoke(cli, ["schema", "--profiles", "--keymap"]).exit_code == 64


def examples_elsewhere() -> list[tuple[str, str, str]]:
    """(page, kind, text) of every profiles.yaml and targets-file example on the other pages that show one."""
    root = PAGE.parent.parent
    found = []
    for page in ("README.md", "docs/ci.md"):
        for block in re.findall(r"```ya?ml\n(.*?)```", (root / page).read_text(encoding="utf-8"), flags=re.S):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and ("profiles" in data or "targets" in data):
                found.append((page, "profiles" if "profiles" in data else "targets", block))
    return found


def test_the_profiles_and_targets_examples_of_the_readme_and_ci_page_load(tmp_path: Path) -> None:
    """The README and docs/ci.md show profiles.yaml and a targets file too: the real readers load them, and the
    schemas accept them (one that drifted would teach a file tenantdeck refuses)."""
    found = examples_elsewhere()
    assert {(page, kind) for page, kind, _ in found} >= {("README.md", "profiles"), ("README.md", "targets"),
                                                        ("docs/ci.md", "targets")}
    for page, kind, text in found:
        name = "profiles.yaml" if kind == "profiles" else "tenantdeck.targets.yaml"
        path = tmp_path / name
        path.write_text(text)
        assert (load_profiles if kind == "profiles" else load_targets)(path) == [], page
        errors = [e.message for e in jsonschema_rs.validator_for(schema(kind)).iter_errors(yaml.safe_load(text))]
        assert errors == [], (page, errors)


def test_the_command_list_says_schema_covers_the_configuration_files() -> None:
    """`tenantdeck --help` is where a user looks first: its line for `schema` said "of the draft format" only."""
    result = CliRunner().invoke(cli, ["--help"])
    (line,) = [line for line in result.stdout.splitlines() if line.strip().startswith("schema ")]
    assert "--KIND" in line, line


def test_a_profiles_base_url_the_command_refuses_is_located(tmp_path: Path) -> None:
    """docs/ci.md's promote step writes profiles.yaml from the job's variables: one left empty (a secret not
    given to this job) is refused when the profile is used, at its FILE:LINE:COL like every other problem."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.yaml").write_text("profiles:\n  staging: {base_url: 'https://s.example'}\n"
                                          "  production: {base_url: '', key_env: PROD_KEY}\n")
    (tmp_path / "tenantdeck.yaml").write_text("format: 1\napps: []\n")
    result = CliRunner().invoke(cli, ["diff", "--profile", "production", "--draft", str(tmp_path / "tenantdeck.yaml")],
                                env={"TENANTDECK_CONFIG_DIR": str(config), "PROD_KEY": "k", "TENANTDECK_SECRET": "s"})
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"{config / 'profiles.yaml'}:3:16: error: profiles.production.base_url: "), \
        result.stderr  # located, and not behind a second "error:"
    assert "Traceback" not in result.stderr
