"""A value written raw with a control or bidi character in it becomes a double-quoted escape, in place.

docs/security.md promises that the draft holds no raw control or bidi character (``git diff``, ``cat`` and a pull
request page act on a raw U+202E: ``Audit <U+202E>gnp.exe`` reads ``Audit exe.png``) and that a value the user
wrote raw is escaped on the next save. The writers of fresh text already escape (:mod:`tenantdeck.draft.emit`,
:mod:`tenantdeck.draft.yaml_escapes`), but the editor's save writes its text as it is, spliced where values changed
and byte for byte elsewhere (:mod:`tenantdeck.draft.splice`), so a raw value on a line nobody touched stayed raw.

:func:`escapes` is the rule for a text: each scalar (value or key, plain, quoted or ``|``/``>`` block) whose
characters hold a raw unsafe one (:func:`tenantdeck.textsafe.unsafe`'s set: C0 but a line break, DEL, C1, the bidi
controls, U+2028/9) is rewritten as a double-quoted scalar of the very same value (:func:`tenantdeck.draft.emit.escape`
spelling), written over exactly as many lines as before, so that every other byte and every line number of the file
stays. Comments are not values and cannot hold an escape: they are left as written, and :func:`comment_problems`
warns of each comment line holding one instead (``validate``, the editor's Problems), so that a reviewer is told what
the pull request page will not show. A scalar whose replacement does not read back as the same value is left too
(the caller checks the whole piece; correctness beats the promise).

Bounded: the common case is one pass over the text's bytes that finds nothing (:func:`positions`: ~15 ms for 32 MiB);
only a text that holds a raw character is composed, and the session hands it one app or preset at a time.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tenantdeck.draft.emit import _escape
from tenantdeck.draft.yamlsource import COMMENT_START, HAVE_LIBYAML, in_comments
from tenantdeck.problems import Problem, Severity
from tenantdeck.textsafe import UNSAFE_BUT_BREAKS_CLASS

#: a raw character the promise is about: the unsafe set, but not a line break (``\n``, or ``\r\n``: the file's own)
RAW = re.compile(f"[{UNSAFE_BUT_BREAKS_CLASS}]|\\r(?!\\n)")
_CLASS = re.compile(f"[{UNSAFE_BUT_BREAKS_CLASS}]")
_LONE_CR = re.compile("\\r(?!\\n)")
_LEAD = re.compile(r"(?:[ ]*-[ ]+)*[ ]*")  #: a line's indentation and list dashes, before its key or value
#: the bytes of a draft that are never raw unsafe characters: printable ASCII and the line breaks
_PLAIN_BYTES = bytes(range(0x20, 0x7F)) + b"\n\r"

#: one change of a text: (start, end, what is written there instead)
Edit = tuple[int, int, str]


def positions(text: str) -> list[int]:
    """Where ``text`` (a whole draft) holds a raw unsafe character, in order; the common answer, none, in ~15 ms
    for 32 MiB: a regular expression with a character class walks 32 M characters in ~100 ms (~470 with the line
    break rule in it), so the bytes that cannot be one (printable ASCII, line breaks) are dropped in C first and only
    what is left (the non-ASCII characters and controls, a few bytes in most drafts) is searched. When that finds
    some, each distinct one is found again in the text with ``str.find`` (C speed, ~5 ms for 32 MiB), not the
    character class (~40 ms for 5 MB: paid on every change by the editor's comment check, which asks this too)."""
    data = text.encode("utf-8", "surrogatepass")
    rest = data.translate(None, _PLAIN_BYTES)
    found: list[int] = []
    chars = set(_CLASS.findall(rest.decode("utf-8", "surrogatepass"))) if rest else set()
    for char in chars:
        at = text.find(char)
        while at >= 0:
            found.append(at)
            at = text.find(char, at + 1)
    if len(chars) > 1:
        found.sort()
    if b"\r" in data:
        found = sorted(found + [m.start() for m in _LONE_CR.finditer(text)])
    return found


def has_raw(text: str, start: int = 0, end: int | None = None) -> bool:
    """True when ``text[start:end]`` holds a raw unsafe character (anywhere: a value, a key or a comment)."""
    return RAW.search(text, start, len(text) if end is None else end) is not None


def escapes(text: str) -> list[Edit] | None:
    """The edits that write every scalar of ``text`` holding a raw unsafe character as a double-quoted escape, in
    text order; None when ``text`` does not compose as one YAML document (nothing can be told of it)."""
    if not has_raw(text):
        return []
    loader = (yaml.CSafeLoader if HAVE_LIBYAML else yaml.SafeLoader)(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    out: list[Edit] = []
    if root is not None:
        _walk(text, root, out)
    out.sort()
    return out


def _walk(text: str, root: Node, out: list[Edit]) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, ScalarNode):
            edit = _scalar_edit(text, node)
            if edit is not None:
                out.append(edit)


def _scalar_edit(text: str, node: ScalarNode) -> Edit | None:
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        while end > start and text[end - 1] in "\r\n":  # the block's last line break is not its content
            end -= 1
    if not has_raw(text, start, end) or text[start] in "!&":  # a tag or an anchor: not ours to respell
        return None
    breaks = text.count("\n", start, end)
    newline = "\r\n" if "\r\n" in text[start:end] else "\n"  # the file's own line breaks
    return start, end, double_quoted(node.value, breaks, _continuation_indent(text, start), newline)


def _continuation_indent(text: str, start: int) -> str:
    """Spaces for a continued line of a double-quoted scalar starting at ``start``: deeper than the key or item of
    its line (a block collection's continuation lines must be indented more than it)."""
    line = text.rfind("\n", 0, start) + 1
    m = _LEAD.match(text, line, start)
    col = (m.end() if m is not None else start) - line
    return " " * (col + 2)


def double_quoted(value: str, breaks: int, indent: str, newline: str = "\n") -> str:
    """``value`` as a double-quoted scalar written over ``breaks + 1`` lines (escaped line breaks, which add
    nothing to the value): after each ``\\n`` first (before a last one), then after spaces, then empty continued
    lines."""
    pieces = [_escape(c) for c in value]
    cuts = [i + 1 for i, p in enumerate(pieces) if p == "\\n" and i + 1 < len(pieces)]
    if len(cuts) < breaks and len(pieces) > 1 and pieces[-1] == "\\n":  # a block's last line break: its own line
        cuts.append(len(pieces) - 1)
    if len(cuts) < breaks:
        spaces = [i + 1 for i, p in enumerate(pieces) if p == " " and i + 1 < len(pieces) and i + 1 not in cuts]
        cuts = sorted([*cuts, *spaces[: breaks - len(cuts)]])
    cuts = cuts[:breaks]
    lines: list[str] = []
    last = 0
    for cut in cuts:
        lines.append("".join(pieces[last:cut]))
        last = cut
    lines.append("".join(pieces[last:]))
    lines += [""] * (breaks - len(cuts))
    for i in range(1, len(lines)):
        if lines[i].startswith(" "):  # leading spaces of a continued line are dropped by a reader: escape one
            lines[i] = "\\ " + lines[i][1:]
    return '"' + ("\\" + newline + indent).join(lines) + '"'


def apply(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` (in text order, not overlapping) made."""
    if not edits:
        return text
    parts: list[str] = []
    pos = 0
    for a, b, new in edits:
        parts.append(text[pos:a])
        parts.append(new)
        pos = b
    parts.append(text[pos:])
    return "".join(parts)


def escaped_text(text: str) -> str:
    """``text`` with every scalar written raw with an unsafe character escaped (:func:`escapes`), checked to read
    as the same data; ``text`` itself when there is none or the check fails. For a whole document."""
    edits = escapes(text)
    if not edits:
        return text
    new = apply(text, edits)
    return new if _same_data(text, new) else text


def _same_data(a: str, b: str) -> Any:
    from tenantdeck.draft.yamlsource import parse

    pa, pb = parse(a), parse(b)
    return not pb.fatal and not pb.problems and pa.data == pb.data and type(pa.data) is type(pb.data)


# --------------------------------------------------------------------------------------------------------------
# Comments
# --------------------------------------------------------------------------------------------------------------

#: characters YAML reads as a line break although ``git diff`` and a pull request page do not break the line there
_YAML_ONLY_BREAKS = "\x85\u2028\u2029"
#: names unicodedata does not give (controls have none)
_NAMES = {0x09: "CHARACTER TABULATION", 0x85: "NEXT LINE (NEL)"}
COMMENT_CODE = "yaml-comment-character"


def character_name(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: a character named without being written (a message must not hold it)."""
    code = ord(char)
    name = _NAMES.get(code) or unicodedata.name(char, "")
    return f"U+{code:04X}" + (f" {name}" if name else "")


#: what the save's rule calls unsafe that a comment may hold without a word: a lone CR breaks the line for YAML and
#: for a viewer alike, and a tab is whitespace a reviewer sees as such (it reorders nothing)
QUIET_IN_COMMENTS: Final = "\r\t"


def comment_problems(text: str, file: str = "", *, data: Any = None, memo: dict[str, Any] | None = None
                     ) -> list[Problem]:
    """A located warning for each line whose comment holds a raw unsafe character (:func:`positions`' rule, the one
    the save escapes values by), at the first such character: which one, that a comment cannot escape it, delete it.

    A comment has no escapes and tenantdeck does not rewrite the admin's text, so the character stays where a
    reviewer reads the file (a U+202E reverses what follows it on a pull request page; a U+2028 ends the comment
    for YAML, so what follows it on the line is read as data while it looks like part of the comment). A warning,
    not an error: the data is what it seems (a raw character in a value is escaped by the next save, and
    ``validate`` calls that draft valid too), but the review is not.

    Bounded: the common case is :func:`positions`' one pass (~30 ms for 32 MiB) that finds nothing; a character
    with no ``#`` before it on its line is dropped without YAML. ``data`` (what the text read as, when it read
    whole) settles the common rest: a bidi control no key or value of the data holds cannot be in a scalar, and
    outside scalars only a comment holds anything but blanks and indicators (one ``json.dumps``: ~0.3 s for
    32 MiB). Only what is left (a character the data holds too, a tab or a YAML line break, which can stand
    between values, or no data) has the parser's events read, up to the last such character, to tell a comment
    from a quoted or block scalar holding ``#`` (~2.5 s for 32 MiB). Never raises: past a YAML error nothing more
    is judged (the error is reported by the reader).

    ``memo`` (a dict the caller keeps, the editor's session): the events are read again only when the lines holding
    such characters changed; an edit elsewhere moves them, it cannot make a comment a value (a splice writes whole
    scalars), so they are placed again from the offsets alone.
    """
    found = [c for c in positions(text) if text[c] not in QUIET_IN_COMMENTS]
    maybe = [c for c in found if COMMENT_START.search(text, text.rfind("\n", 0, c) + 1, c) is not None]
    if not maybe:
        return []
    key = tuple(text[text.rfind("\n", 0, c) + 1 : c + 1] for c in maybe)
    if memo is not None and memo.get("key") == key:
        judged = [maybe[i] for i in memo["judged"]]
    else:
        judged = _judged(text, maybe, data)
        if memo is not None:
            kept = set(judged)
            memo["key"], memo["judged"] = key, [i for i, c in enumerate(maybe) if c in kept]
    lines: list[tuple[int, int, list[str]]] = []  # (line, column) of a comment line's first character, and all
    line0 = counted = 0
    for c in judged:
        line0 += text.count("\n", counted, c)  # counted from the last one: linear in the file
        counted = c
        if lines and lines[-1][0] == line0 + 1:
            if text[c] not in lines[-1][2]:
                lines[-1][2].append(text[c])
            continue
        lines.append((line0 + 1, c - text.rfind("\n", 0, c), [text[c]]))
    return [Problem(Severity.WARNING, _comment_message(chars), (), file, line, column, COMMENT_CODE)
            for line, column, chars in lines]


def _comment_message(chars: list[str]) -> str:
    """What a comment holding ``chars`` is told: the characters by name (never written), why, and what to do."""
    names = [character_name(ch) for ch in chars]
    what = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if any(ch in _YAML_ONLY_BREAKS for ch in chars):
        return (f"this comment holds {what}: YAML reads a line break there, so the rest of the line is read as YAML, "
                "not as the comment; a YAML comment cannot escape a character: delete it (or break the line there)")
    why = ("which a reviewer does not see: it can reorder the text git diff or a pull request page shows"
           if any(unicodedata.category(ch) == "Cf" for ch in chars) else "a control character a reviewer may not see")
    return f"this comment holds {what}, {why}; a YAML comment cannot escape a character: delete it"


def _judged(text: str, maybe: list[int], data: Any) -> list[int]:
    """The offsets of ``maybe`` that lie in a comment: those the data settles (:func:`comment_problems`), then the
    events for the rest."""
    if data is None:
        return in_comments(text, maybe)
    chars = {text[c] for c in maybe if unicodedata.category(text[c]) == "Cf"}  # not a blank or line break to YAML
    try:
        held = json.dumps(data, ensure_ascii=False, default=str, check_circular=False) if chars else ""
    except (TypeError, ValueError, RecursionError):
        return in_comments(text, maybe)
    settled = {ch for ch in chars if ch not in held}  # json writes the bidi controls as they are
    rest = [c for c in maybe if text[c] not in settled]
    return sorted([c for c in maybe if text[c] in settled] + (in_comments(text, rest) if rest else []))


__all__ = ["COMMENT_CODE", "RAW", "Edit", "apply", "character_name", "comment_problems", "double_quoted",
           "escaped_text", "escapes", "has_raw", "positions"]
