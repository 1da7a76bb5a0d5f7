"""Every YAML file tenantdeck reads besides a draft (profiles, credentials, settings, themes, keymap) goes through
the draft's guarded reader, :func:`tenantdeck.draft.yamlsource.parse`.

``yaml.safe_load`` expands aliases: a "billion laughs" ``profiles.yaml`` of ten lines grows to gigabytes and hung
``tenantdeck doctor`` until it was killed; deep nesting made the C composer recurse. The draft's reader refuses
anchors and aliases at the event, stops at a nesting limit, refuses files over a size limit before reading them,
and places every problem at a file and line. Here its problems become one :class:`ConfigFileError` whose
``str()`` is ``FILE:LINE:COL: error: message`` (the first problem; a config file is fixed one mistake at a time).

Data comes out as ``yaml.safe_load`` would give it (YAML 1.1 scalars), except that keys must be text and a key
given twice in one mapping is an error rather than "the last one wins".
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Final

from tenantdeck.draft import yamlsource
from tenantdeck.problems import Problem, Severity

#: Config files are a few kilobytes; anything over this is refused before it is read.
MAX_CONFIG_BYTES: Final = 1024 * 1024


class ConfigFileError(Exception):
    """A config file that cannot be used; ``problem`` is located, ``str()`` is its one rendered line."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        super().__init__(problem.render())

    @property
    def line(self) -> int:
        return self.problem.line

    @property
    def message(self) -> str:
        return self.problem.message


def load_file(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_CONFIG_BYTES) -> Any:
    """The data of the YAML file at ``path`` (None when it is empty or only comments).

    ``what`` names the file in messages ("profiles file", "theme file"). Raises :class:`ConfigFileError`,
    including for a file that is missing or unreadable (callers that treat "missing" as "defaults" check first).
    """
    return read_file(path, what, max_bytes=max_bytes)[0]


def read_file(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_CONFIG_BYTES,
              beside: str | os.PathLike[str] | None = None) -> tuple[Any, str]:
    """:func:`load_file`, and the text it was read from (to place later problems, such as a model's). ``beside``:
    the draft's folder, for a file kept beside a draft (:func:`tenantdeck.safefile.beside`)."""
    name = os.fspath(path)
    text, problems = yamlsource.read_text(path, display=name, max_bytes=max_bytes, beside=beside)
    if text is None:
        raise ConfigFileError(reworded(problems[0], what, max_bytes))
    return load_text(text, name, what), text


def load_text(text: str, file: str, what: str) -> Any:
    """Like :func:`load_file`, for text already read (``file`` is where it came from, for the messages)."""
    if not text.strip():
        return None
    parsed = yamlsource.parse(text, file)
    if parsed.empty:
        return None
    errors = [p for p in parsed.problems if p.severity is Severity.ERROR]
    if errors:
        raise ConfigFileError(reworded(errors[0], what))
    if parsed.duplicates:
        dup = parsed.duplicates[0]
        key = dup.path[-1] if dup.path else "?"
        raise ConfigFileError(
            Problem(
                Severity.ERROR,
                f"the key {key!r} is given twice in the same mapping; keep one",
                dup.path,
                file,
                dup.line,
                dup.column,
                "yaml-duplicate-key",
            )
        )
    return parsed.data


def in_words(exc: ConfigFileError) -> str:
    """The problem without the file name, for messages that already name the file: ``not valid YAML at line 3:
    ...`` for what the YAML reader found, the bare message for a file that could not be read at all."""
    problem = exc.problem
    if problem.line:
        return f"not valid YAML at line {problem.line}: {problem.message}"
    return problem.message


def reworded(problem: Problem, what: str, max_bytes: int = MAX_CONFIG_BYTES) -> Problem:
    """The draft reader's words ("a draft ...") said of this file instead."""
    message = problem.message
    if problem.code in ("file-missing", "file-unreadable"):
        message = f"cannot read the {what}: {message.replace(', not a draft file', '')}"
    elif problem.code == "file-too-large":
        message = f"{message.split(';')[0]}; a {what} is limited to {max_bytes // 1024} KiB"
    elif problem.code == "too-deep":
        message = f"nested more than {yamlsource.MAX_DEPTH} levels deep; a {what} is far shallower"
    else:
        message = message.replace("in a draft", f"in a {what}").replace("a draft is", f"a {what} is")
    return replace(problem, message=message)
