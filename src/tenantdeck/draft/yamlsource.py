"""YAML text -> plain Python data, with every YAML-level problem located.

Why not ``yaml.load``: it composes a full node tree and then constructs through a generic, generator-based
constructor; it silently lets a later duplicate key win, expands aliases (alias bombs), and on deep nesting the C
composer recurses until the process segfaults. Here the C parser (libyaml) is driven event by event and the data
is built by one flat loop with an explicit stack, which

* is faster than ``yaml.load`` itself (no ``Node`` objects, memoised resolution of plain scalars), so the validate
  path can afford pydantic within its performance budget;
* refuses anchors and aliases at the event, so nothing is ever expanded;
* sees duplicate keys, non-text keys, merge keys and unsupported tags as they are built;
* stops at a nesting limit instead of crashing;
* remembers, by key path, the few plain scalars whose YAML 1.1 reading is surprising (``yes``, ``0777``, ``1:30``)
  so that later messages can say so.

Positions of *data* (to place pydantic and cross-object problems) are not collected here: the happy path does not
pay for them. :mod:`tenantdeck.draft.locate` composes a node tree on demand, only when there is something to place.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Final

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from tenantdeck.problems import PathPart, Problem, Severity

#: Drafts larger than this are refused before they are read (a 1,000-app draft is about 3 MB).
MAX_BYTES: Final = 32 * 1024 * 1024
#: Deeper nesting than this is refused (a draft is about 6 levels deep); it also keeps the C composer, which
#: recurses per level, far away from the stack limit when positions are composed later.
MAX_DEPTH: Final = 64
TOO_DEEP: Final = f"nested more than {MAX_DEPTH} levels deep; a draft is far shallower"

HAVE_LIBYAML: Final[bool] = bool(getattr(yaml, "__with_libyaml__", False))
if HAVE_LIBYAML:
    from yaml import CSafeLoader as _EventLoader
else:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _EventLoader

_TAG: Final = "tag:yaml.org,2002:"
STR_TAG: Final = _TAG + "str"
INT_TAG: Final = _TAG + "int"
FLOAT_TAG: Final = _TAG + "float"
BOOL_TAG: Final = _TAG + "bool"
NULL_TAG: Final = _TAG + "null"
TIMESTAMP_TAG: Final = _TAG + "timestamp"
MERGE_TAG: Final = _TAG + "merge"
VALUE_TAG: Final = _TAG + "value"
_MAP_TAGS: Final = frozenset({None, "!", _TAG + "map"})
_SEQ_TAGS: Final = frozenset({None, "!", _TAG + "seq"})

#: The YAML 1.1 words PyYAML reads as booleans although YAML 1.2 (and most editors) read them as text.
YAML11_ONLY_BOOLS: Final = frozenset({"yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"})
_CANONICAL_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_IMPLICIT = Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = SafeConstructor()
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Surprise:
    """A plain scalar whose YAML 1.1 meaning is probably not what was meant (``no``, ``0777``, ``1:30``)."""

    path: tuple[PathPart, ...]
    raw: str
    value: object
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The second (or later) occurrence of a key in one mapping, at ``line``/``column``."""

    path: tuple[PathPart, ...]
    line: int
    column: int


@dataclass(slots=True)
class Parsed:
    """The outcome of reading a draft's text.

    ``fatal`` is true when the data must not be validated (syntax error, aliases, too deep, several documents):
    then ``data`` is ``None`` and ``problems`` says why.
    """

    data: Any = None
    problems: list[Problem] = field(default_factory=list)
    surprises: list[Surprise] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    fatal: bool = False
    empty: bool = False
    #: anchors and aliases seen; only the first is a problem (an alias bomb is one error, not hundreds)
    aliases: int = 0


def _problem(
    file: str,
    line0: int,
    col0: int,
    message: str,
    path: tuple[PathPart, ...] = (),
    code: str = "",
    severity: Severity = Severity.ERROR,
) -> Problem:
    return Problem(severity, message, path, file, line0 + 1, col0 + 1, code)


def quote(text: str) -> str:
    """``text`` as a YAML single-quoted scalar (what a user should type to mean the string)."""
    return "'" + text.replace("'", "''") + "'"


# --------------------------------------------------------------------------------------------------------------
# Escapes: how a character is written inside double quotes
# --------------------------------------------------------------------------------------------------------------

#: YAML's named escapes, as the draft's writer (:mod:`tenantdeck.draft.emit`) writes them
NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0", "\x07": "\\a",
            "\b": "\\b", "\x0b": "\\v", "\x0c": "\\f", "\x1b": "\\e", "\x85": "\\N", "\u2028": "\\L",
            "\u2029": "\\P"}  # fmt: skip


def escape(char: str) -> str:
    """One character as a YAML double-quoted escape, in ruamel's spelling (``\\x85``, ``\\u202E``)."""
    code = ord(char)
    return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def escaped(char: str) -> str:
    """``char`` as the writer escapes it inside double quotes, whether or not it would be escaped there: a named
    escape where YAML has one (``\\e``, ``\\a``, ``\\t``), else :func:`escape`'s (``\\x7F``, ``\\u202E``). The one
    spelling: the writer's (:func:`tenantdeck.draft.emit.scalar`) and the advice of :func:`reader_problem`; it lives
    here, below the writer, because the reader's message needs it too."""
    return NAMED_ESCAPES.get(char) or escape(char)


# --------------------------------------------------------------------------------------------------------------
# Reading bytes
# --------------------------------------------------------------------------------------------------------------


def read_text(
    path: str | os.PathLike[str], *, display: str | None = None, max_bytes: int = MAX_BYTES,
    beside: str | os.PathLike[str] | None = None,
) -> tuple[str | None, list[Problem]]:
    """The file's text, or located problems (missing, not a regular file, too large, not UTF-8, empty, outside the
    draft's folder ``beside`` after every link: a policies or targets file beside a draft).

    Read through :mod:`tenantdeck.safefile`: a FIFO, socket, device or directory is refused before anything is
    read, and at most ``max_bytes + 1`` bytes are ever read, so a huge or endless file (``/dev/zero``) costs nothing.
    """
    from tenantdeck import safefile

    name = display if display is not None else os.fspath(path)
    try:
        data = safefile.read_bytes(path, max_bytes, beside=beside)
    except safefile.FileRefused as exc:
        return None, [_refused(name, exc, max_bytes)]
    return decode(data, name)


def _refused(name: str, exc: Any, max_bytes: int) -> Problem:
    """The problem of a file :mod:`tenantdeck.safefile` would not read (``exc`` is its ``FileRefused``)."""
    if exc.code == "too-large":
        return _too_large(name, exc.size or max_bytes + 1, max_bytes, at_least="more than" in exc.reason)
    if exc.code == "missing":
        return Problem(Severity.ERROR, "no such file", (), name, 0, 0, "file-missing")
    reason = f"cannot read the file: {exc.reason.removeprefix('cannot read it: ')}" if exc.code == "unreadable" \
        else exc.reason
    return Problem(Severity.ERROR, reason, (), name, 0, 0, "file-unreadable")


def _too_large(name: str, size: int, cap: int, *, at_least: bool = False) -> Problem:
    mib = size / (1024 * 1024)
    what = f"more than {cap // (1024 * 1024)} MiB" if at_least else f"{mib:.1f} MiB"
    return Problem(
        Severity.ERROR,
        f"the file is {what}; drafts are limited to {cap // (1024 * 1024)} MiB",
        (),
        name,
        0,
        0,
        "file-too-large",
    )


def decode(data: bytes, name: str = "") -> tuple[str | None, list[Problem]]:
    """UTF-8 text (a UTF-8 byte-order mark is accepted), or one problem placed at the first bad byte."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, [
            Problem(Severity.ERROR, "the file is UTF-16 encoded; save it as UTF-8", (), name, 1, 1, "not-utf8")
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
        message = f"byte 0x{data[start]:02x} at offset {start} is not valid UTF-8; save the file as UTF-8"
        return None, [Problem(Severity.ERROR, message, (), name, line, column, "not-utf8")]
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        offset = text.index("\x00")
        line = text.count("\n", 0, offset)
        col = offset - (text.rfind("\n", 0, offset) + 1)
        return None, [
            _problem(name, line, col, "the file contains a NUL character; it is not a text file", code="not-text")
        ]
    return text, []


# --------------------------------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------------------------------


def resolve_plain(raw: str) -> str:
    """The tag PyYAML gives a plain (unquoted, untagged) scalar: the YAML 1.1 rules, exactly as ``yaml.load``."""
    for tag, regexp in _IMPLICIT.get(raw[0] if raw else "", ()):
        if regexp.match(raw):
            return tag
    return STR_TAG


def construct_scalar(tag: str, raw: str) -> Any:
    """Python value of a scalar with a resolved ``tag``. Raises ``ValueError`` for tags a draft cannot hold."""
    if tag in (STR_TAG, VALUE_TAG):
        return raw
    if tag == NULL_TAG:
        return None
    if tag == BOOL_TAG:
        value = SafeConstructor.bool_values.get(raw.lower())
        if value is None:
            raise ValueError(f"{quote(raw)} is not true or false")
        return value
    node = ScalarNode(tag, raw)
    try:
        if tag == INT_TAG:
            return _CONSTRUCTOR.construct_yaml_int(node)
        if tag == FLOAT_TAG:
            return _CONSTRUCTOR.construct_yaml_float(node)
        if tag == TIMESTAMP_TAG:
            return _CONSTRUCTOR.construct_yaml_timestamp(node)
    except (ValueError, ConstructorError, OverflowError) as exc:
        raise ValueError(f"{quote(raw)} cannot be read as a {tag.removeprefix(_TAG)}") from exc
    raise ValueError(
        f"the tag !{tag.removeprefix(_TAG)} is not supported in a draft"
        if tag.startswith(_TAG)
        else f"the tag {tag} is not supported in a draft"
    )


def is_surprising(tag: str, raw: str) -> bool:
    """True when a plain scalar's YAML 1.1 reading differs from what YAML 1.2 tools (and most people) expect."""
    if tag == BOOL_TAG:
        return raw in YAML11_ONLY_BOOLS
    if tag == INT_TAG:
        return _CANONICAL_INT.fullmatch(raw) is None  # 0777, 0x1f, 0b101, 1_000, 1:30
    if tag == FLOAT_TAG:
        return "_" in raw or ":" in raw  # 1_000.5, 1:30.0 (base 60)
    return tag == TIMESTAMP_TAG


# --------------------------------------------------------------------------------------------------------------
# Events -> data
# --------------------------------------------------------------------------------------------------------------


def parse(text: str, file: str = "") -> Parsed:
    """Build plain data from ``text``; never raises for any input text."""
    out = Parsed()
    if not text.strip():
        out.empty = True
        out.problems.append(_problem(file, 0, 0, "the file is empty; a draft starts with `format: 1`", code="empty"))
        return out
    loader = _EventLoader(text)
    try:
        _build(loader, text, file, out)
    except yaml.MarkedYAMLError as exc:
        out.data = None
        out.fatal = True
        out.problems.append(syntax_problem(exc, text, file))
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: placed by its offset
        out.data = None
        out.fatal = True
        out.problems.append(reader_problem(exc, text, file))
    except yaml.YAMLError as exc:  # anything else without a mark
        out.data = None
        out.fatal = True
        out.problems.append(_problem(file, 0, 0, f"cannot read the YAML: {' '.join(str(exc).split())}",
                                     code="yaml-syntax"))
    finally:
        loader.dispose()
    _count_aliases(out)
    return out


def peek_apps(text: str, count: int) -> list[Any] | None:
    """The first ``count`` items of the top-level ``apps`` list (all of them if there are fewer), read without
    parsing the rest: what a list of apps can show while a big draft is still being read.

    None when the text does not read that far the way a draft does (a syntax error or an alias before them, no
    ``apps`` list at the top): the caller then waits for the whole parse, which says what is wrong.
    """
    out = Parsed()
    loader = _EventLoader(text)
    try:
        _build(loader, text, "", out, stop_after_apps=max(count, 1))
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    if out.fatal or any(p.code == "yaml-alias" for p in out.problems):
        return None
    data = out.data
    if isinstance(data, _Peeked):
        return list(data.apps)
    apps = data.get("apps") if isinstance(data, dict) else None
    return apps[:count] if isinstance(apps, list) else None


class _Peeked:
    """What :func:`_build` leaves in ``out.data`` when it stopped early for :func:`peek_apps`."""

    __slots__ = ("apps",)

    def __init__(self, apps: list[Any]) -> None:
        self.apps = apps


def _path(stack: list[list[Any]]) -> tuple[PathPart, ...]:
    """Key path of the value being built, from the builder's stack (only computed when something is reported)."""
    parts: list[PathPart] = []
    for frame in stack:
        if frame[2]:
            parts.append(frame[1])
        else:
            parts.append(len(frame[0]))
    return tuple(parts)


def _build(loader: Any, text: str, file: str, out: Parsed, *, stop_after_apps: int | None = None) -> None:
    """The hot loop. Frames are ``[container, pending_key, is_mapping, start_mark]``.

    ``stop_after_apps``: return as soon as the top-level ``apps`` list has that many items, leaving them in
    ``out.data`` as a :class:`_Peeked` (checked only when a container ends, so a whole parse does not pay for it).
    """
    get_event = loader.get_event
    cache: dict[str, Any] = {}
    cache_get = cache.get
    no_key = _MISSING
    stack: list[list[Any]] = []
    root: Any = _MISSING
    documents = 0

    while True:
        ev = get_event()
        kind = type(ev)
        if kind is ScalarEvent:
            if ev.anchor is not None:
                _alias_problem(out, file, ev, stack, anchor=True)
            if ev.implicit[0]:
                raw = ev.value
                value = cache_get(raw, no_key)
                if value is no_key:
                    value, cacheable = _plain_value(raw, ev, stack, file, out)
                    if cacheable:
                        cache[raw] = value
            elif ev.tag is None or ev.tag == "!":
                value = ev.value
            else:
                value = _tagged_value(ev, stack, file, out)
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if ev.anchor is not None:
                _alias_problem(out, file, ev, stack, anchor=True)
            is_map = kind is MappingStartEvent
            if ev.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
                out.problems.append(
                    _problem(
                        file,
                        ev.start_mark.line,
                        ev.start_mark.column,
                        f"the tag {ev.tag} is not supported in a draft",
                        _path(stack),
                        "yaml-tag",
                    )
                )
            if len(stack) >= MAX_DEPTH:
                out.problems.append(
                    _problem(
                        file,
                        ev.start_mark.line,
                        ev.start_mark.column,
                        TOO_DEEP,
                        code="too-deep",
                    )
                )
                out.fatal = True
                out.data = None
                return
            stack.append([{} if is_map else [], no_key, is_map, ev.start_mark])
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            value = stack.pop()[0]
            if (stop_after_apps is not None and len(stack) == 2 and stack[0][1] == "apps" and not stack[1][2]
                    and len(stack[1][0]) + 1 >= stop_after_apps):
                out.data = _Peeked([*stack[1][0], value])
                return
        elif kind is AliasEvent:
            _alias_problem(out, file, ev, stack, anchor=False)
            value = None
        elif kind is DocumentStartEvent:
            documents += 1
            if documents > 1:
                out.problems.append(
                    _problem(
                        file,
                        ev.start_mark.line,
                        ev.start_mark.column,
                        "a second YAML document starts here; a draft is a single document (remove the `---`)",
                        code="yaml-multiple-documents",
                    )
                )
                out.fatal = True
                out.data = None
                return
            continue
        elif kind is StreamEndEvent:
            break
        else:  # StreamStart, DocumentEnd
            continue

        # attach `value` to its parent
        if not stack:
            root = value
            continue
        top = stack[-1]
        if top[2]:
            key = top[1]
            if key is no_key:
                if type(value) is not str:
                    value = _as_key(value, ev, kind, stack, file, out)
                if value in top[0]:
                    _duplicate(out, file, ev, kind, stack, value)
                top[1] = value
                continue
            if key is not None:  # None: a key that was refused and reported
                top[0][key] = value
            top[1] = no_key
        else:
            top[0].append(value)

    if root is _MISSING:
        out.empty = True
        out.problems.append(
            _problem(file, 0, 0, "the file has only comments; a draft starts with `format: 1`", code="empty")
        )
        out.fatal = True
        return
    out.data = root


def _plain_value(raw: str, ev: ScalarEvent, stack: list[list[Any]], file: str, out: Parsed) -> tuple[Any, bool]:
    """Construct a plain scalar that missed the cache; note YAML 1.1 surprises with their path.

    The second item says whether the value may be memoised: only when nothing had to be reported about it.
    """
    tag = resolve_plain(raw)
    if tag == STR_TAG:
        return raw, True
    if tag == MERGE_TAG:
        out.problems.append(
            _problem(
                file,
                ev.start_mark.line,
                ev.start_mark.column,
                "merge keys (<<) are not supported in a draft; write the keys out",
                _path(stack),
                "yaml-merge",
            )
        )
        return raw, False
    try:
        value = construct_scalar(tag, raw)
    except ValueError as exc:
        out.problems.append(
            _problem(
                file,
                ev.start_mark.line,
                ev.start_mark.column,
                f"{exc}; quote it if it is meant as text: {quote(raw)}",
                _path(stack),
                "yaml-scalar",
            )
        )
        return raw, False
    if not is_surprising(tag, raw):
        return value, True
    if not _expecting_key(stack):
        out.surprises.append(Surprise(_path(stack), raw, value, ev.start_mark.line + 1, ev.start_mark.column + 1))
    return value, False


def _tagged_value(ev: ScalarEvent, stack: list[list[Any]], file: str, out: Parsed) -> Any:
    try:
        return construct_scalar(ev.tag, ev.value)
    except ValueError as exc:
        out.problems.append(
            _problem(file, ev.start_mark.line, ev.start_mark.column, str(exc), _path(stack), "yaml-tag")
        )
        return ev.value


def _expecting_key(stack: list[list[Any]]) -> bool:
    return bool(stack) and stack[-1][2] and stack[-1][1] is _MISSING


def _as_key(value: Any, ev: Any, kind: type, stack: list[list[Any]], file: str, out: Parsed) -> Any:
    """Keys of a draft are always text: anything else is reported (and kept as its raw text so validation goes on)."""
    if type(value) is str:
        return value
    mark = ev.start_mark
    if kind is ScalarEvent:
        raw = ev.value
        message = scalar_reading(raw, value)
        out.problems.append(
            _problem(
                file,
                mark.line,
                mark.column,
                f"{message} and keys must be text; quote the key: {quote(raw)}",
                (*_path(stack)[:-1], raw),
                "yaml-key-type",
            )
        )
        return raw
    if kind is AliasEvent:
        return None
    top = stack[-1]
    start = top[3] if kind is MappingEndEvent or kind is SequenceEndEvent else mark
    out.problems.append(
        _problem(
            file,
            start.line,
            start.column,
            "a key must be plain text, not a list or mapping",
            _path(stack)[:-1],
            "yaml-key-type",
        )
    )
    return None


def scalar_reading(raw: str, value: Any) -> str:
    """How YAML reads the plain scalar ``raw``, in words: "`no` is read as the boolean false in YAML"."""
    if value is None:
        if raw == "":
            return "an empty value is read as null in YAML"
        return f"`{raw}` is read as null (no value) in YAML"
    if isinstance(value, bool):
        return f"`{raw}` is read as the boolean {'true' if value else 'false'} in YAML"
    if isinstance(value, int):
        if ":" in raw:
            return f"`{raw}` is read as the base-60 number {value} in YAML"
        lowered = raw.lstrip("+-").lower()
        if lowered.startswith("0x"):
            return f"`{raw}` is read as the hexadecimal number {value} in YAML"
        if lowered.startswith("0b"):
            return f"`{raw}` is read as the binary number {value} in YAML"
        if lowered.startswith("0") and lowered != "0" and lowered.replace("_", "") != "0":
            return f"`{raw}` is read as the octal number {value} in YAML"
        return f"`{raw}` is read as the number {value} in YAML"
    if isinstance(value, float):
        return f"`{raw}` is read as the number {value!r} in YAML"
    return f"`{raw}` is read as the date {value} in YAML"


def _duplicate(out: Parsed, file: str, ev: Any, kind: type, stack: list[list[Any]], key: Any) -> None:
    """A key given twice, reported at the second; the line of the first is added by the loader (it needs positions)."""
    mark = stack[-1][3] if kind is MappingEndEvent or kind is SequenceEndEvent else ev.start_mark
    out.duplicates.append(Duplicate((*_path(stack)[:-1], key), mark.line + 1, mark.column + 1))


def _alias_problem(out: Parsed, file: str, ev: Any, stack: list[list[Any]], *, anchor: bool) -> None:
    """Report the first anchor or alias only, and count the rest (see :func:`_count_aliases`): one mistake, or a
    billion-laughs file, is one error to fix, not a screenful of identical lines."""
    out.fatal = True
    out.aliases += 1
    if out.aliases > 1:
        return
    mark = ev.start_mark
    what = f"anchor &{ev.anchor}" if anchor else f"alias *{ev.anchor}"
    message = (
        f"{what}: anchors and aliases are not supported in a draft "
        "(they can expand to enormous documents); write the values out"
    )
    out.problems.append(_problem(file, mark.line, mark.column, message, _path(stack), "yaml-alias"))


def _count_aliases(out: Parsed) -> None:
    """Say on the one alias problem how many anchors and aliases the file has."""
    if out.aliases <= 1:
        return
    for i, problem in enumerate(out.problems):
        if problem.code == "yaml-alias":
            more = out.aliases - 1
            note = f" (and {more} more anchor{'s' * (more != 1)} or alias{'es' * (more != 1)} after this one)"
            out.problems[i] = replace(problem, message=problem.message + note)
            return


# --------------------------------------------------------------------------------------------------------------
# Comments
# --------------------------------------------------------------------------------------------------------------

#: a ``#`` that can start a comment: first on its line or after a blank (YAML's rule; ``a#b`` is one plain word)
COMMENT_START = re.compile("(?<![^ \t\n\r\x85\u2028\u2029])#")


def in_comments(text: str, maybe: list[int]) -> list[int]:
    """The offsets of ``maybe`` (sorted) that lie in a comment: outside every event's span (a scalar with its
    quotes, tag or block lines, an alias, an indicator) and after a ``#`` that starts a comment on their line.

    libyaml's events are read up to the last offset (a comment is what lies between them, and only a ``#`` starts
    one there); past a YAML error nothing more is judged. Linear in the text up to the last offset."""
    loader = _EventLoader(text)
    out: list[int] = []
    k, n, gap = 0, len(maybe), 0  # gap: where the text outside every event read so far starts

    def judge(before: int) -> int:
        """Judge the offsets before ``before`` (in the gap, or inside an event that ended after them)."""
        i = k
        while i < n and maybe[i] < before:
            c = maybe[i]
            if c >= gap and COMMENT_START.search(text, max(gap, text.rfind("\n", 0, c) + 1), c) is not None:
                out.append(c)
            i += 1
        return i

    try:
        while k < n:
            ev = loader.get_event()
            if ev is None:
                k = judge(len(text) + 1)
                break
            start, end = ev.start_mark.index, ev.end_mark.index
            k = judge(start)
            while k < n and maybe[k] < end:  # inside the event: a value, not a comment
                k += 1
            gap = max(gap, end)
    except yaml.YAMLError:
        pass  # what follows the error is not judged: the reader reports the error itself
    finally:
        loader.dispose()
    return out


# --------------------------------------------------------------------------------------------------------------
# Syntax errors -> problems
# --------------------------------------------------------------------------------------------------------------


def flow_too_deep(text: str, end: int | None = None) -> tuple[int, int] | None:
    """Where the flow brackets (``[``, ``{``) of ``text[:end]`` first nest more than :data:`MAX_DEPTH` deep.

    Called only when the parser gave up, because whether it gives up first depends on the release: PyYAML 6.0.4's
    libyaml stops at its own flow-nesting limit (a syntax error, before the builder's depth guard sees an event),
    earlier releases hand the events over. The answer to a too-deep draft must not depend on that, so a parse
    error is checked against the same limit here. Quoted text and comments are skipped; a bracket inside a plain
    value could count too, which takes more than 64 unclosed ones in a file that failed to parse anyway.
    """
    depth = 0
    line = col = 0
    quote_char = ""
    comment = False
    prev = "\n"
    for ch in text[:end]:
        if ch == "\n":
            line += 1
            col = 0
            comment = False
            prev = ch
            continue
        if comment:
            pass
        elif quote_char:
            if ch == quote_char:
                quote_char = ""
        elif ch in "'\"" and (depth or prev in " \t:[{,-\n"):
            quote_char = ch
        elif ch == "#" and prev in " \t\n":
            comment = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line, col
        elif ch in "]}" and depth:
            depth -= 1
        prev = ch
        col += 1
    return None


#: a character YAML 1.1 does not allow in a stream (its printable set: tab, line breaks, printable ASCII, NEL and
#: the rest of Unicode but surrogates and U+FFFE/U+FFFF)
_REFUSED_BY_YAML = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: names of the characters YAML refuses most often in a draft (a pasted terminal escape, a bell)
_CONTROL_NAMES = {0x07: "BEL", 0x08: "BS", 0x0B: "VT", 0x0C: "FF", 0x1B: "ESC", 0x7F: "DEL"}


def reader_problem(exc: yaml.reader.ReaderError, text: str, file: str) -> Problem:
    """A character YAML does not allow written raw (an ESC pasted from a terminal): at its line and column, with the
    escape that writes it, spelt as the draft's writer spells it (:func:`escaped`: ``\\e``, ``\\x7F``), so that the
    advice and the next save agree; in a comment, which has no escapes, to delete it. PyYAML's own message gave only a
    character offset, over two lines, at 1:1 (trial J, J2)."""
    # libyaml reports a byte offset, PyYAML's reader a character one: the character itself is found again in the
    # text (the first one YAML refuses), so a file with multi-byte characters before it is placed right (trial K, K1)
    found = _REFUSED_BY_YAML.search(text)
    position = found.start() if found is not None else (
        exc.position if isinstance(exc.position, int) and 0 <= exc.position <= len(text) else 0)
    line0 = text.count("\n", 0, position)
    col0 = position - (text.rfind("\n", 0, position) + 1)
    code = exc.character if isinstance(exc.character, int) else ord(text[position]) if position < len(text) else 0
    name = _CONTROL_NAMES.get(code)
    what = f"U+{code:04X}" + (f" ({name})" if name else "")
    if _in_a_comment(text, position):  # no escape can write it there (trial K, K7)
        return _problem(file, line0, col0, f"the character {what} cannot be written as it is in YAML, not even in a "
                        "comment, and a comment has no escapes: delete it", code="yaml-character")
    escape = escaped(chr(code))
    return _problem(file, line0, col0, f"the character {what} cannot be written as it is in YAML; in a double-quoted "
                    f"string write it as {escape}", code="yaml-character")


def _in_a_comment(text: str, position: int) -> bool:
    """Whether the refused character at ``position`` is in a comment: judged on a copy whose refused characters are
    ``x`` (libyaml stops at the first one), so the events up to it can be read; only on this error path."""
    if position >= len(text) or COMMENT_START.search(text, text.rfind("\n", 0, position) + 1, position) is None:
        return False
    return in_comments(_REFUSED_BY_YAML.sub("x", text), [position]) == [position]


def syntax_problem(exc: yaml.MarkedYAMLError, text: str, file: str) -> Problem:
    """One located problem, in plain words, for a libyaml (or PyYAML) syntax error."""
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line, mark.column) if mark is not None else (0, 0)
    deep = flow_too_deep(text, mark.index + 1 if mark is not None else None)
    if deep is not None:
        return _problem(
            file, deep[0], deep[1], TOO_DEEP,
            code="too-deep",
        )
    lines = text.split("\n")
    line_text = lines[line] if 0 <= line < len(lines) else ""
    at_end = not text[mark.index :].strip() if mark is not None else False
    ctx = exc.context_mark

    if "\t" in line_text[: len(line_text) - len(line_text.lstrip(" \t"))] and (
        "tab" in problem or "cannot start any token" in problem or "expected" in problem
    ):
        tab_col = line_text.index("\t")
        return _problem(
            file, line, tab_col, "tab character in the indentation; YAML indents with spaces only", code="yaml-tab"
        )
    if "tab" in problem:
        return _problem(file, line, col, "tab character where YAML expects spaces; use spaces", code="yaml-tab")
    if "quoted scalar" in context and "end of stream" in problem and ctx is not None:
        q = text[ctx.index] if ctx.index < len(text) else '"'
        return _problem(
            file,
            ctx.line,
            ctx.column,
            f"the file ends inside the quoted text that starts here; close it with {q}",
            code="yaml-truncated",
        )
    if "flow sequence" in context and at_end and ctx is not None:
        return _problem(
            file,
            ctx.line,
            ctx.column,
            "the file ends before the list `[` started here is closed with `]`",
            code="yaml-truncated",
        )
    if "flow mapping" in context and at_end and ctx is not None:
        return _problem(
            file,
            ctx.line,
            ctx.column,
            "the file ends before the mapping `{` started here is closed with `}`",
            code="yaml-truncated",
        )
    if at_end and ("end of stream" in problem or "did not find expected" in problem):
        return _problem(file, line, col, f"the file ends unexpectedly ({problem})", code="yaml-truncated")
    if "mapping values are not allowed" in problem:
        return _problem(
            file,
            line,
            col,
            "a `: ` inside a value; quote the value if it contains `: `, or put the key on its own line",
            code="yaml-syntax",
        )
    if "cannot start any token" in problem:
        char = line_text[col] if col < len(line_text) else "?"
        return _problem(file, line, col, f"`{char}` cannot start a plain value; quote the value", code="yaml-syntax")
    if "did not find expected key" in problem or "expected '-' indicator" in problem:
        return _problem(
            file,
            line,
            col,
            "this line does not fit the indentation of the lines before it "
            "(check its spaces, or a missing `- ` or `key:`)",
            code="yaml-indentation",
        )
    if "could not find expected ':'" in problem:
        return _problem(file, line, col, "expected `key: value` (a `:` is missing)", code="yaml-syntax")
    words = f"{context}: {problem}" if context else problem
    return _problem(file, line, col, f"YAML syntax error: {words}", code="yaml-syntax")
