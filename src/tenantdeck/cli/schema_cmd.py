"""`tenantdeck schema`: print the JSON Schema of the draft format (what ``make schema`` commits), or of one of the
other files tenantdeck reads, so an editor checks each as it is typed and a CI job can check it before using it.

Each schema is made from the model that reads the file (one source of the rules); the two files read without a
pydantic model (``settings.yaml``, ``keymap.yaml``) get a schema written here from the same patterns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#"


def _model_schema(model: Any, name: str, title: str) -> dict[str, Any]:
    body = model.model_json_schema(mode="validation")
    return {"$schema": SCHEMA_DRAFT, "$id": f"urn:tenantdeck:{name}", "title": title,
            **{k: v for k, v in body.items() if k != "title"}}


def profiles_schema() -> dict[str, Any]:
    from tenantdeck.targets import ProfilesFile

    return _model_schema(ProfilesFile, "profiles", "tenantdeck profiles.yaml (accounts and where their credentials "
                         "come from)")


def policies_schema() -> dict[str, Any]:
    from tenantdeck.policies.model import PoliciesFile

    return _model_schema(PoliciesFile, "policies-format-1", "tenantdeck fleet policies (<draft>.policies.yaml)")


def theme_schema() -> dict[str, Any]:
    from tenantdeck.prefs.theme_model import ThemeFile

    return _model_schema(ThemeFile, "theme", "tenantdeck editor theme (themes/*.yaml)")


def targets_schema() -> dict[str, Any]:
    from tenantdeck.draft import target_overrides

    return target_overrides.targets_schema()


def settings_schema() -> dict[str, Any]:
    """``settings.yaml``: the editor's remembered choices (:mod:`tenantdeck.prefs.settings`); other keys are kept."""
    return {"$schema": SCHEMA_DRAFT, "$id": "urn:tenantdeck:settings", "title": "tenantdeck editor settings "
            "(settings.yaml)", "type": ["object", "null"], "additionalProperties": True, "properties": {
                "theme": {"type": ["string", "null"], "description": "The theme's name (a built-in or themes/*.yaml)"},
                "events_port": {"type": "integer", "minimum": 0, "maximum": 65535,
                                "description": "The Events screen's receiver port (0: a free one; default 8788)"}}}


def keymap_schema() -> dict[str, Any]:
    """``keymap.yaml``: binding id -> keys (:mod:`tenantdeck.prefs.keymap`), with its own patterns."""
    from tenantdeck.prefs.keymap import _ID, _KEY

    key = _KEY.pattern
    keys = {"type": "string", "pattern": rf"^\s*{key}\s*(,\s*{key}\s*)*$"}
    return {"$schema": SCHEMA_DRAFT, "$id": "urn:tenantdeck:keymap", "title": "tenantdeck editor keymap "
            "(keymap.yaml): binding id -> keys", "type": ["object", "null"], "additionalProperties": False,
            "patternProperties": {rf"^{_ID.pattern}$": {"oneOf": [
                {**keys, "description": "Comma-separated Textual key names, e.g. f2,alt+w"},
                {"type": "array", "items": {"type": "string", "pattern": rf"^\s*{key}\s*$"}, "minItems": 1}]}}}


#: option -> (schema builder, what the option's help says)
KINDS: dict[str, tuple[Callable[[], dict[str, Any]], str]] = {
    "targets": (targets_schema, "the targets file (<draft>.targets.yaml: per profile, app ids and values that differ)"),
    "profiles": (profiles_schema, "profiles.yaml (accounts: base_url, key_env/secret_env or credentials_file)"),
    "policies": (policies_schema, "the fleet policies file (<draft>.policies.yaml)"),
    "settings": (settings_schema, "the editor's settings.yaml"),
    "keymap": (keymap_schema, "the editor's keymap.yaml"),
    "theme": (theme_schema, "a theme file (themes/*.yaml)"),
}


def _options(func: Any) -> Any:
    for kind, (_, what) in reversed(KINDS.items()):
        func = click.option(f"--{kind}", "kinds", flag_value=kind, multiple=True,
                            help=f"The schema of {what} instead of the draft's.")(func)
    return func


@click.command("schema")
@_options
def command(kinds: tuple[str, ...]) -> None:
    """Print the JSON Schema of the draft format, or of another file with --KIND (for editors and CI)."""
    if len(kinds) > 1:
        raise click.UsageError(f"choose one of {', '.join('--' + k for k in kinds)}")
    if kinds:
        import json

        click.echo(json.dumps(KINDS[kinds[0]][0](), indent=2, ensure_ascii=False))
        return
    from tenantdeck.draft.schema import schema_text

    click.echo(schema_text(), nl=False)
