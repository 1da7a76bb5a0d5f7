"""The user's keymap (``keymap.yaml`` in the config directory): binding id -> keys, applied with
``App.set_keymap``.

Example::

    save: f2,alt+w          # comma-separated alternatives
    apps.filter: f           # ids are shown in F1 help and in the README

A broken file, a wrong type or an unusable key is reported line by line and that entry is left out; the rest
applies. So is an entry that takes a key another action needs (:func:`refuse_clashes`): ``problems: ctrl+q`` left
Quit without a key, silently, since Textual moves a key given to one binding away from the others of its screen.
Keys are Textual key names (``textual keys`` shows what a terminal sends); a name Textual does not know is left out
too (:func:`unknown_keys`). :func:`settle` is the whole rule, for the editor's notice and ``tenantdeck doctor``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
        written = [k.strip() for k in keys.split(",") if k.strip()]
        parts = [k.lower() for k in written]
        bad = [k for k in written if not _KEY.fullmatch(k.lower())]  # named as written ('\e[2J', not '\x1b[2j')
        if bad:
            result.problems.append(f"{binding_id}: {', '.join(map(repr, bad))} is not a key name "
                                   "(e.g. f5, ctrl+r, alt+x, shift+tab)")
            continue
        result.bindings[binding_id] = ",".join(parts)
    return result


@dataclass(frozen=True, slots=True)
class Bound:
    """One binding as the keymap rules see it (the TUI hands these over: the core never imports Textual)."""

    id: str
    keys: tuple[str, ...]
    #: what its footer or help calls it ("Quit")
    description: str
    #: runs before the focused widget's and the screen's keys (Textual's priority binding)
    priority: bool = False
    #: the class that declares it: a key moves between bindings of one class; across classes, one shadows another
    owner: str = ""


def _keys(keymap: dict[str, str], bound: Bound) -> set[str]:
    """The keys ``bound`` has once ``keymap`` is applied, before any clash is settled."""
    return set(keymap[bound.id].split(",")) if bound.id in keymap else set(bound.keys)


def _name(bound: Bound) -> str:
    return f"{bound.description} ({bound.id})" if bound.description else bound.id


def refuse_clashes(keymap: Keymap, scopes: list[list[Bound]]) -> list[str]:
    """Leave out of ``keymap.bindings`` every entry that takes a key another binding of the same scope needs, and
    say which; return what to tell the user. A scope is the bindings that work together (one screen's and the
    app's, which work on every screen). Textual gives a keymap's key to the entry and takes it away from every
    other binding of its screen, silently; so an entry is refused when that would leave another action with no key
    at all (``problems: ctrl+q``: Quit had only ctrl+q), or when the other binding runs first whatever the entry
    says (a priority binding of the app: the entry would never run). Taking one of several keys applies and is
    said (``help: ctrl+s``: Save keeps f2)."""
    said: list[str] = []
    while True:
        wanted = keymap.bindings
        refused: dict[str, str] = {}
        notes: list[str] = []
        for scope in scopes:
            for entry in (b for b in scope if b.id in wanted and b.id not in refused):
                for other in scope:
                    if other.id == entry.id:
                        continue
                    taken = sorted(set(wanted[entry.id].split(",")) & _keys(wanted, other))
                    if other.owner != entry.owner:  # no key moves across classes: a key the entry had is as it was
                        taken = [k for k in taken if k not in entry.keys]  # (`save: f2,alt+w`, the docs' example)
                    if not taken:
                        continue
                    left = _keys(wanted, other) - set(wanted[entry.id].split(","))
                    keys = ", ".join(taken)
                    if other.priority and not entry.priority and other.owner != entry.owner:
                        refused[entry.id] = (f"{entry.id}: {keys} is the key of {_name(other)}, which runs first; "
                                             "entry left out")
                    elif not left:
                        refused[entry.id] = f"{entry.id}: {keys} is the only key of {_name(other)}; entry left out"
                    else:
                        notes.append(f"{entry.id}: {keys} taken from {_name(other)}, which keeps "
                                     f"{', '.join(sorted(left))}")
                    if entry.id in refused:
                        break
        if not refused:
            return said + list(dict.fromkeys(notes))
        said.extend(refused[i] for i in sorted(refused))
        keymap.bindings = {i: keys for i, keys in wanted.items() if i not in refused}


def unknown_ids(keymap: Keymap, known: set[str]) -> list[str]:
    return sorted(set(keymap.bindings) - known)


def risky_keys(keymap: Keymap) -> list[str]:
    """Entries that rely only on keys tmux, screen or terminals often take."""
    return sorted(b for b, keys in keymap.bindings.items() if all(k in RISKY for k in keys.split(",")))


def unknown_keys(keymap: Keymap, is_key: Callable[[str], bool]) -> list[str]:
    """Leave out of ``keymap.bindings`` every entry with a key ``is_key`` refuses (the TUI's: a name Textual
    knows), and say which. ``quit: notakey`` passed the file's syntax, and Textual gave Quit a key no terminal
    sends, taking ctrl+q away."""
    said = []
    for binding_id, keys in list(keymap.bindings.items()):
        bad = [k for k in keys.split(",") if not is_key(k)]
        if bad:
            said.append(f"{binding_id}: {', '.join(map(repr, bad))} is not a key name Textual knows (e.g. f5, "
                        "ctrl+r, alt+x, shift+tab, question_mark); entry left out")
            del keymap.bindings[binding_id]
    return said


def settle(keymap: Keymap, scopes: list[list[Bound]], known: set[str], is_key: Callable[[str], bool]) -> list[str]:
    """Everything said of the keymap file against the app's bindings (``scopes`` and ``known`` ids, which the TUI
    reads from the app's classes, and ``is_key``, Textual's key names): its problems, the entries
    :func:`unknown_keys` and :func:`refuse_clashes` leave out of ``keymap.bindings``, ids no binding has, and
    entries only on keys a terminal often takes. One rule for the editor's notice at start and ``tenantdeck
    doctor``'s warning (trial K4 found doctor ``ok`` for a keymap whose entries the editor then left out)."""
    problems = list(keymap.problems)
    if keymap.bindings:
        problems += unknown_keys(keymap, is_key)
        problems += refuse_clashes(keymap, scopes)
        unknown = unknown_ids(keymap, known)
        if unknown:
            problems.append(f"no key has the id {', '.join(unknown)} (F1 and the README list the ids)")
        risky = risky_keys(keymap)
        if risky:
            problems.append(f"{', '.join(risky)}: only keys tmux, screen or terminals often take; add another")
    return problems
