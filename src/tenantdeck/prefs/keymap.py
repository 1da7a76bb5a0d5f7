"""The user's keymap (``keymap.yaml`` in the config directory): binding id -> keys, applied with
``App.set_keymap``.

Example::

    save: f2,alt+w          # comma-separated alternatives
    apps.filter: f           # ids are shown in F1 help and in the README

A broken file, a wrong type or an unusable key is reported line by line and that entry is left out; the rest
applies. Keys are Textual key names (``textual keys`` shows what a terminal sends).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tenantdeck.draft.configyaml import ConfigFileError, in_words, load_file

KEYMAP_FILE = "keymap.yaml"
_ID = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*")
_KEY = re.compile(r"(?:(?:ctrl|alt|shift|super|meta|hyper)\+)*(?:[a-z0-9_]+|[^\s,+])")
#: keys a terminal multiplexer or the terminal itself usually takes (see TUI_NOTES / issue 10)
RISKY = {"ctrl+enter", "ctrl+s", "ctrl+b", "ctrl+a", "ctrl+h", "ctrl+j", "ctrl+k", "ctrl+l"}


@dataclass(slots=True)
class Keymap:
    bindings: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    path: Path | None = None


def keymap_path(config: Path) -> Path:
    return config / KEYMAP_FILE


def load(config: Path) -> Keymap:
    path = keymap_path(config)
    result = Keymap(path=path)
    try:  # the draft's guarded reader: an alias bomb or a huge file is a problem, not a hang
        doc = load_file(path, "keymap file")
    except ConfigFileError as exc:
        if exc.problem.code != "file-missing":
            result.problems.append(f"{in_words(exc)}; no key remapped")
        return result
    if doc is None:
        return result
    if not isinstance(doc, dict):
        result.problems.append("expected a mapping of binding id to keys, e.g. `save: f2,alt+w`; no key remapped")
        return result
    for binding_id, keys in doc.items():
        if not isinstance(binding_id, str) or not _ID.fullmatch(binding_id):
            result.problems.append(f"{binding_id!r} is not a binding id (ids look like save or apps.filter)")
            continue
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            result.problems.append(f"{binding_id}: keys must be text such as f5 or ctrl+r,f5")
            continue
        parts = [k.strip().lower() for k in keys.split(",") if k.strip()]
        bad = [k for k in parts if not _KEY.fullmatch(k)]
        if bad:
            result.problems.append(f"{binding_id}: {', '.join(map(repr, bad))} is not a key name "
                                   "(e.g. f5, ctrl+r, alt+x, shift+tab)")
            continue
        result.bindings[binding_id] = ",".join(parts)
    return result


def unknown_ids(keymap: Keymap, known: set[str]) -> list[str]:
    return sorted(set(keymap.bindings) - known)


def risky_keys(keymap: Keymap) -> list[str]:
    """Entries that rely only on keys tmux, screen or terminals often take."""
    return sorted(b for b, keys in keymap.bindings.items() if all(k in RISKY for k in keys.split(",")))
