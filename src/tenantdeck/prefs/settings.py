"""The editor's remembered choices (``settings.yaml`` in the config directory): the theme, and the Events
screen's receiver port (``events_port``).

Read leniently (a missing, empty or hand-broken file means the defaults, a bad value its default, each problem
reported with the file, the key and why: the editor's notice at start and ``tenantdeck doctor`` say them) and written
atomically, keeping any keys this version does not know so a newer version's settings survive an older editor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tenantdeck.draft.configyaml import ConfigFileError, load_file

SETTINGS_FILE = "settings.yaml"


@dataclass(slots=True)
class Settings:
    theme: str | None = None
    #: the Events screen's receiver port (``events_port:``; 0 picks a free one); None: the default, 8788
    events_port: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: what is wrong, one line each, naming the file and the key: the value is left out (its default is used)
    problems: list[str] = field(default_factory=list)

    @property
    def problem(self) -> str:
        """Every problem, one per line ("" when there is none): the file is not rewritten while there is one."""
        return "\n".join(self.problems)


def settings_path(config: Path) -> Path:
    return config / SETTINGS_FILE


def load(config: Path) -> Settings:
    path = settings_path(config)
    try:  # the draft's guarded reader: an alias bomb or a huge file is a problem, not a hang
        doc = load_file(path, "settings file")
    except ConfigFileError as exc:
        if exc.problem.code == "file-missing":
            return Settings()
        p = exc.problem
        where = f"{path}:{p.line}:{p.column}: not valid YAML: " if p.line else f"{path}: "
        return Settings(problems=[f"{where}{p.message}; using the defaults"])
    if doc is None:
        return Settings()
    if not isinstance(doc, dict):
        return Settings(problems=[f"{path}: expected a mapping such as `theme: tenantdeck-dark`; using the defaults"])
    theme = doc.get("theme")
    port = doc.get("events_port")
    extra = {k: v for k, v in doc.items() if k not in ("theme", "events_port")}
    problems = []
    if theme is not None and (not isinstance(theme, str) or not theme.strip()):
        extra["theme"] = theme
        theme = None
        problems.append(f"{path}: theme: {_quoted(extra['theme'])} is not a theme's name; using the default")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535):
        extra["events_port"] = port  # kept as written, so saving the theme does not lose the user's line
        port = None
        problems.append(f"{path}: events_port: {_quoted(extra['events_port'])} is not a port number from 0 to "
                        "65535; using 8788")
    return Settings(theme, port, extra, problems)


def _quoted(value: Any) -> str:
    """A value from the file as it was written, cut short (the caller shows it escaped)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def save(config: Path, settings: Settings) -> None:
    from tenantdeck.atomic import atomic_write_text

    doc = {**settings.extra, "theme": settings.theme}
    if settings.events_port is not None:
        doc["events_port"] = settings.events_port
    text = "# tenantdeck editor settings (written by the editor; safe to edit)\n" + yaml.safe_dump(
        doc, sort_keys=False, allow_unicode=True)
    atomic_write_text(settings_path(config), text, make_parents=True)
