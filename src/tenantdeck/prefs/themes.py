"""Theme files: the ones shipped in the package (``themes/`` at the top of the repository, in the wheel as
``tenantdeck/themes/``) and the user's own in ``<config dir>/themes/``.

Every file is validated by :class:`tenantdeck.prefs.theme_model.ThemeFile` (pydantic). Importing pydantic costs
more than a bare Textual app takes to paint, so validated results are cached in the data directory, keyed by each
file's path, size and modification time: a start with unchanged theme files reads one small JSON file and no
pydantic. A file that fails is reported (file name and the problem) and left out; the editor falls back to
:data:`DEFAULT_THEME`. A user theme with the name of a shipped one replaces it.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenantdeck import safefile

#: the validated-themes cache: one small verdict per theme file
CACHE_MAX_BYTES = 1024 * 1024

#: the shipped themes (a symlink to the repository's ``themes/`` in a checkout, a real folder in the wheel)
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "themes"
DEFAULT_THEME = "tenantdeck-dark"
CACHE_FILE = "theme-cache.json"
#: bump when :class:`ThemeFile` changes what it accepts, so cached verdicts are not trusted across versions
MODEL_VERSION = 1


@dataclass(frozen=True, slots=True)
class ThemeSpec:
    """A validated theme: ``kwargs`` are ``textual.theme.Theme``'s arguments."""

    name: str
    kwargs: dict[str, Any]
    source: Path
    bundled: bool
    description: str = ""


@dataclass(frozen=True, slots=True)
class ThemeFailure:
    path: Path
    message: str

    def render(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(slots=True)
class ThemeSet:
    themes: dict[str, ThemeSpec] = field(default_factory=dict)
    failures: list[ThemeFailure] = field(default_factory=list)
    validated: int = 0  #: files validated with pydantic in this load (0 when everything came from the cache)

    def failure_for(self, name: str) -> ThemeFailure | None:
        """The failure of the file named like theme ``name`` (``high-contrast.yaml`` for ``...-high-contrast``)."""
        for f in self.failures:
            if name == f.path.stem or name.endswith("-" + f.path.stem):
                return f
        return None


def user_dir(config: Path) -> Path:
    return config / "themes"


def theme_files(config: Path) -> list[tuple[Path, bool]]:
    """(path, bundled) of every ``*.yaml``/``*.yml`` file, shipped ones first, each folder in name order."""
    found: list[tuple[Path, bool]] = []
    for folder, bundled in ((BUNDLED_DIR, True), (user_dir(config), False)):
        with contextlib.suppress(OSError):
            # not only regular files: a FIFO, a device or a folder named like a theme is reported (by the reader),
            # not skipped (a folder was passed over without a word; trial L, L10)
            found += [(p, bundled) for p in sorted(folder.iterdir()) if p.suffix in (".yaml", ".yml")]
    return found


def validate_file(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(ThemeFile fields, "") or (None, what is wrong), in words that name the field."""
    from tenantdeck.draft.configyaml import ConfigFileError, in_words, load_file

    try:  # the draft's guarded reader: an alias bomb or a huge file is a problem, not a hang
        doc = load_file(path, "theme file")
    except ConfigFileError as exc:
        return None, ("is " if exc.problem.line else "") + in_words(exc)
    if not isinstance(doc, dict):
        return None, "must be a mapping with at least name, dark and primary"
    from pydantic import ValidationError

    from tenantdeck.prefs.theme_model import ThemeFile

    try:
        model = ThemeFile.model_validate(doc)
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(file)"
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = "unknown key (a theme has name, dark, primary, other Textual colours and variables)"
            parts.append(f"{loc}: {msg}")
        return None, "; ".join(parts)
    data = model.textual_kwargs()
    data["description"] = model.description
    return data, ""


def load_themes(config: Path, cache: Path | None) -> ThemeSet:
    """Every theme file, validated (or its verdict taken from ``cache`` when the file is unchanged)."""
    cached: dict[str, Any] = {}
    if cache is not None:
        with contextlib.suppress(OSError, ValueError):
            doc = json.loads(safefile.read_bytes(cache, CACHE_MAX_BYTES))
            if isinstance(doc, dict) and doc.get("version") == MODEL_VERSION and isinstance(doc.get("files"), dict):
                cached = doc["files"]
    result = ThemeSet()
    fresh: dict[str, Any] = {}
    for path, bundled in theme_files(config):
        key = str(path)
        try:
            st = path.stat()
        except OSError as exc:
            result.failures.append(ThemeFailure(path, f"cannot be read ({exc.strerror})"))
            continue
        stamp = [st.st_size, st.st_mtime_ns]
        entry = cached.get(key)
        if not (isinstance(entry, dict) and entry.get("stamp") == stamp):
            data, problem = validate_file(path)
            entry = {"stamp": stamp, "theme": data, "problem": problem}
            result.validated += 1
        fresh[key] = entry
        if entry.get("problem") or not isinstance(entry.get("theme"), dict):
            result.failures.append(ThemeFailure(path, str(entry.get("problem") or "is not a theme")))
            continue
        data = dict(entry["theme"])
        description = str(data.pop("description", ""))
        result.themes[data["name"]] = ThemeSpec(data["name"], data, path, bundled, description)
    if cache is not None and fresh != cached:
        with contextlib.suppress(OSError):
            from tenantdeck.atomic import atomic_write_json

            atomic_write_json(cache, {"version": MODEL_VERSION, "files": fresh}, make_parents=True)
    return result


def cache_path(data: Path) -> Path:
    return data / CACHE_FILE


def describe_dirs(config: Path) -> str:
    return f"shipped: {BUNDLED_DIR}{os.linesep}yours: {user_dir(config)}"
