"""The editor's remembered choices (``settings.yaml`` in the config directory): for now, the theme.

Read leniently (a missing, empty or hand-broken file means the defaults, with the problem reported) and written
atomically, keeping any keys this version does not know so a newer version's settings survive an older editor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SETTINGS_FILE = "settings.yaml"


@dataclass(slots=True)
class Settings:
    theme: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    problem: str = ""


def settings_path(config: Path) -> Path:
    return config / SETTINGS_FILE


def load(config: Path) -> Settings:
    path = settings_path(config)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError) as exc:
        return Settings(problem=f"{path}: cannot be read ({exc})")
    try:
        doc = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        return Settings(problem=f"{path}: not valid YAML ({str(exc).splitlines()[0]}); using the defaults")
    if doc is None:
        return Settings()
    if not isinstance(doc, dict):
        return Settings(problem=f"{path}: expected a mapping such as `theme: tenantdeck-dark`; using the defaults")
    theme = doc.get("theme")
    extra = {k: v for k, v in doc.items() if k != "theme"}
    if theme is not None and not isinstance(theme, str):
        return Settings(extra=extra, problem=f"{path}: theme must be a theme's name; using the default")
    return Settings(theme, extra)


def save(config: Path, settings: Settings) -> None:
    from tenantdeck.atomic import atomic_write_text

    doc = {**settings.extra, "theme": settings.theme}
    text = "# tenantdeck editor settings (written by the editor; safe to edit)\n" + yaml.safe_dump(
        doc, sort_keys=False, allow_unicode=True)
    atomic_write_text(settings_path(config), text, make_parents=True)
