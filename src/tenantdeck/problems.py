"""Located diagnostics shared by every part of tenantdeck.

A `Problem` is what a user sees when something is wrong with a draft, a profile or a server answer. It always says
where (file, line, column, key path) and what, in the draft's own words, so that editors and CI can jump to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from tenantdeck.textsafe import shortened_runs, shown

PathPart = str | int


class Severity(StrEnum):
    """How bad a problem is: errors make a draft invalid, warnings do not."""

    ERROR = "error"
    WARNING = "warning"


def closest(word: object, choices: Iterable[object]) -> str | None:
    """The choice a typo most likely meant (difflib, as Harlequin suggests config keys), or None."""
    import difflib  # only when there is a typo to explain

    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """``; did you mean `x`?`` or an empty string: the end of a message about a value or key ``word``."""
    match = closest(word, choices)
    return f"; did you mean `{match}`?" if match else ""


def format_path(loc: Sequence[PathPart]) -> str:
    """Render a key path the way users write it: ``apps[3].widgets[0].main.send_gifs``."""
    out: list[str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(("." if out else "") + str(part))
    return "".join(out)


#: one part of a written key path: ``[3]`` (a list index) or ``.name`` / ``name`` (a key)
_PATH_PART = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


class PathSyntaxError(ValueError):
    """A key path written in a way :func:`format_path` never writes (``apps[x]``, ``apps.``, ``apps[0]name``)."""


def parse_path(path: str | Sequence[PathPart]) -> tuple[PathPart, ...]:
    """The inverse of :func:`format_path`: ``"apps[3].webhooks[0].password"`` -> ``("apps", 3, "webhooks", 0,
    "password")``; a sequence of parts is returned as a tuple.

    Strict, so a typo is an error rather than another path: a text that :func:`format_path` would not write back
    the same raises :class:`PathSyntaxError` (a ``ValueError``). A key holding ``.`` or ``[`` (a preset named
    ``v1.2``) cannot be told apart in the written form: pass such paths as tuples.
    """
    if not isinstance(path, str):
        return tuple(path)
    parts: list[PathPart] = []
    for m in _PATH_PART.finditer(path):
        parts.append(int(m.group(1)) if m.group(1) is not None else m.group(2))
    if format_path(parts) != path:
        raise PathSyntaxError(f"cannot read the path {path!r}; write it as apps[3].widgets[0].main.send_gifs")
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class Problem:
    """One located diagnostic. ``line`` and ``column`` are 1-based; 0 means "not known"."""

    severity: Severity
    message: str
    path: tuple[PathPart, ...] = ()
    file: str = ""
    line: int = 0
    column: int = 0
    code: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key_path(self) -> str:
        return format_path(self.path)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def located(self, file: str, line: int, column: int) -> Problem:
        """A copy of this problem placed at a position."""
        return Problem(self.severity, self.message, self.path, file, line, column, self.code, self.extra)

    def render(self) -> str:
        """``FILE:LINE:COL: error|warning: KEY.PATH: message`` (the key part is left out at the document root; a
        position not known is written 1:1; :meth:`to_json` says null).

        One line, safe for a terminal: messages quote the draft's and the service's values (a key, a name), which
        may carry control characters or a newline that would forge a line of its own; those are shown escaped. A
        long value quoted in the message is shortened (:func:`~tenantdeck.textsafe.shortened_runs`); the JSON
        output keeps it whole.
        """
        key = f"{self.key_path}: " if self.path else ""
        return shown(f"{self.where}: {self.severity.value}: {key}{shortened_runs(self.message)}")

    @property
    def where(self) -> str:
        """``FILE:LINE:COL``, as an editor's jump list reads it. A problem of the whole file (too large, unreadable)
        has no position: the start of the file, as an editor jumps to it (0:0 is no line at all; trial J, J9)."""
        return f"{self.file or '<draft>'}:{self.line or 1}:{self.column or 1}"

    def to_json(self) -> dict[str, object]:
        """docs/json-output.md: ``line``/``column`` 1-based, null when the problem has no place in the text (it said
        0 for a whole-file problem: trial K, K2)."""
        data = asdict(self)
        data["severity"] = self.severity.value
        data["path"] = self.key_path
        data["line"] = self.line or None
        data["column"] = self.column or None if self.line else None
        data.pop("extra")
        return data


def error(message: str, path: Sequence[PathPart] = (), code: str = "") -> Problem:
    return Problem(Severity.ERROR, message, tuple(path), code=code)


def warning(message: str, path: Sequence[PathPart] = (), code: str = "") -> Problem:
    return Problem(Severity.WARNING, message, tuple(path), code=code)


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Line order (then column, then path), errors before warnings at the same place; duplicates dropped."""
    seen: set[tuple[object, ...]] = set()
    unique: list[Problem] = []
    for p in problems:
        key = (p.file, p.line, p.column, p.severity, p.path, p.message)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return sorted(unique, key=lambda p: (p.file, p.line, p.column, p.severity is not Severity.ERROR, p.key_path))


#: the warnings ``--strict`` (validate, diff, plan, push) makes errors: a secret written as a value in the draft
STRICT_CODES: frozenset[str] = frozenset({"literal_secret"})


def strict(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` with the warnings of :data:`STRICT_CODES` made errors (``--strict``): the one place that
    decides what strictness means, for every command that has the option."""
    return [Problem(Severity.ERROR, p.message, p.path, p.file, p.line, p.column, p.code, p.extra)
            if p.code in STRICT_CODES and not p.is_error else p for p in problems]


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.is_error for p in problems)


def render_text(problems: Iterable[Problem]) -> str:
    return "".join(p.render() + "\n" for p in problems)


def render_json(problems: Iterable[Problem]) -> str:

    from tenantdeck.textsafe import json_text

    return json_text([p.to_json() for p in problems], indent=2) + "\n"


class ProblemError(Exception):
    """Raised where a single located problem must stop an operation (e.g. a profile file that cannot be read)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.render())
        self.problem = problem
