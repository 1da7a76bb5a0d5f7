"""A fast writer of fresh drafts: plain data (mappings, lists, scalars) to YAML text in the tool's house style.

Writing a new draft (``pull`` into an empty file, ``init``-like dumps) needs no round-trip machinery: there are no
comments to keep. ruamel.yaml's pure-Python emitter took 9 s for a 1,000-app pull; this takes a fraction of a
second and produces the same text (a test compares the two on generated drafts).

House style, as ruamel writes it with ``indent(mapping=2, sequence=4, offset=2)``: block mappings indented by two,
list dashes indented under their key, short lists of plain words inline (``[chats, users]``), multi-line text as
``|`` blocks, and quoting only where a YAML 1.1 reader (PyYAML, our loader) would otherwise read another type:
single quotes normally, double quotes with escapes for line breaks and unprintable characters.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from tenantdeck.draft.yamlsource import NAMED_ESCAPES, STR_TAG, escape, escaped, resolve_plain
from tenantdeck.textsafe import unsafe

#: Characters YAML reads as line breaks (NEL, LS, PS): outside double quotes a reader folds them into spaces.
YAML_BREAKS = frozenset("\x85\u2028\u2029")
#: Plain scalars we write unquoted: no indicator at the start, no ": " or " #", no trailing colon or space
#: (a "#" inside a word, as in a URL fragment, is not a comment).
_PLAIN = re.compile(
    r"(?:[^\s#,\[\]{}&*!|>'\"%@`?:\-]|[?:\-](?=\S))"  # first character: no indicator ("-x" is fine, "- x" is not)
    r"(?:[^\s:#]|:(?=\S)|(?<=\S)#| +(?=[^\s#]))*"  # then: no ": ", no " #", no trailing colon or space
)


def needs_quotes(text: str) -> bool:
    """True when a bare ``text`` would not read back as this string under YAML 1.1 (PyYAML)."""
    return text == "" or resolve_plain(text) != STR_TAG


def needs_escapes(text: str) -> bool:
    """Only a double-quoted scalar carries ``text`` exactly (YAML line breaks, unprintable characters)."""
    return (not text.isprintable() and ("\n" not in text or not literal_ok(text))) or bool(YAML_BREAKS & set(text))


def literal_ok(text: str) -> bool:
    """A ``|`` block can hold ``text`` exactly: printable, no trailing blanks, no leading blank line."""
    lines = text.split("\n")
    return (
        all(line.isprintable() and line == line.rstrip() for line in lines)
        and not text.startswith((" ", "\n"))
        and not text.endswith("\n\n")
        and "\r" not in text
    )


def flow_safe(text: str) -> bool:
    """Words that read well inline in ``[a, b]``: letters, digits, ``_`` and ``-`` only."""
    return bool(text) and text.replace("_", "").replace("-", "").isalnum() and not needs_quotes(text)


def scalar(value: Any) -> str:
    """One scalar on one line (multi-line text is handled by the block writer)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value).lower()
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    text = str(value)
    if needs_escapes(text):
        return '"' + "".join(_escape(c) for c in text) + '"'
    if needs_quotes(text):
        return "'" + text.replace("'", "''") + "'"  # would read as another type: single quotes, as ruamel is told
    if _yaml12_reads_as_other_type(text):
        return "'" + text + "'" if "'" not in text else '"' + "".join(_escape(c) for c in text) + '"'
    if not _PLAIN.fullmatch(text) or text.startswith(("---", "...")):  # document markers are never plain (ruamel)
        # ruamel's own choice for text that cannot be plain: double quotes when it holds a single quote
        return '"' + "".join(_escape(c) for c in text) + '"' if "'" in text else "'" + text + "'"
    return text


def key_scalar(key: Any) -> str:
    """A mapping key: as :func:`scalar`, but a key cannot be a ``|`` block, so text with a line break or anything
    unprintable is double-quoted with escapes (a key from the service, such as a setting's name, can be anything)."""
    if isinstance(key, str) and not key.isprintable():
        return '"' + "".join(_escape(c) for c in key) + '"'
    return scalar(key)


@functools.lru_cache(maxsize=8192)
def _yaml12_reads_as_other_type(text: str) -> bool:
    """A YAML 1.2 reader (editors' yaml-language-server, ruamel) would not read bare ``text`` as a string: ``08``,
    ``0o7``, ``1_000`` are numbers there though YAML 1.1 keeps them text. Quoting them keeps every reader agreeing.
    Asks ruamel's own resolver (lazily: only fresh dumps need it); values repeat, hence the cache."""
    return _resolver_12()(text) != "tag:yaml.org,2002:str"


@functools.cache
def _resolver_12() -> Any:
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    resolver = VersionedResolver(version=(1, 2))
    return lambda text: str(resolver.resolve(ScalarNode, text, (True, False)))


def _escape(char: str) -> str:
    """One character inside double quotes, escaped exactly when YAML's printable set says so (as ruamel does)."""
    if char in NAMED_ESCAPES or unsafe(char):  # bidi controls: printable to YAML, not to a reviewer (yaml_escapes.py)
        return escaped(char)
    code = ord(char)
    if (0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000) and (
        code != 0xFEFF
    ):
        return char
    return escape(char)


#: End-of-line comments to write, by the path of the mapping key whose line carries them (``("apps", 0, "id")``).
Notes = dict[tuple[str | int, ...], str]
Path_ = tuple[str | int, ...]


def emit(data: dict[str, Any], notes: Notes | None = None) -> str:
    """The YAML document for ``data`` (a mapping), ending with a newline; ``notes`` become ``  # text`` at the end
    of their key's line (what ruamel writes for an end-of-line comment)."""
    out: list[str] = []
    _mapping(data, 0, out, None, 2, 2, (), notes or {})
    return "\n".join(out) + "\n"


def inline(value: Any, *, flow: bool = False) -> str | None:
    """``value`` written on one line as the block writer would write it, or None when it needs lines of its own.

    ``flow``: the text goes inside ``[...]`` or ``{...}``, where a plain ``,``, ``[``, ``]``, ``{`` or ``}`` would end
    the value, so such text is quoted.
    """
    if isinstance(value, dict):
        return "{}" if not value else None
    if isinstance(value, list):
        if not value:
            return "[]"
        if len(value) <= 12 and all(isinstance(v, str) and flow_safe(v) for v in value):
            return f"[{', '.join(value)}]"
        return None
    if isinstance(value, str) and "\n" in value and literal_ok(value):
        return None
    text = scalar(value)
    if flow and text[:1] not in ("'", '"') and any(c in text for c in ",[]{}"):
        text = "'" + text.replace("'", "''") + "'"
    return text


def entry_lines(key: str, value: Any, indent: int, *, mapping: int = 2, offset: int = 2) -> list[str]:
    """``key: value`` as lines starting at column ``indent``; nested mappings ``mapping`` further in, list dashes
    ``offset`` further in than their key (the indentation style of the draft being edited)."""
    out: list[str] = []
    _value(" " * indent + key_scalar(key) + ":", value, indent, out, mapping, offset)
    return out


def item_lines(value: Any, dash: int, *, mapping: int = 2, offset: int = 2) -> list[str]:
    """One list item, its dash at column ``dash`` and its content two further in."""
    out: list[str] = []
    _sequence([value], dash, out, mapping, offset)
    return out


def _mapping(data: dict[str, Any], indent: int, out: list[str], first_prefix: str | None, m: int, o: int,
             path: Path_ = (), notes: Notes | None = None) -> None:
    """``first_prefix`` is ``"- "`` text already owed to the first line (a mapping inside a list item)."""
    pad = " " * indent
    for i, (key, value) in enumerate(data.items()):
        lead = first_prefix if (i == 0 and first_prefix is not None) else pad
        head = f"{lead}{key_scalar(key)}:"
        line = len(out)
        _value(head, value, indent, out, m, o, (*path, key), notes)
        note = notes.get((*path, key)) if notes else None
        if note:
            out[line] += f"  # {note}"


def _value(head: str, value: Any, indent: int, out: list[str], m: int = 2, o: int = 2, path: Path_ = (),
           notes: Notes | None = None) -> None:
    if isinstance(value, dict):
        if not value:
            out.append(f"{head} {{}}")
            return
        out.append(head)
        _mapping(value, indent + m, out, None, m, o, path, notes)
    elif isinstance(value, list):
        if not value:
            out.append(f"{head} []")
        elif len(value) <= 12 and all(isinstance(v, str) and flow_safe(v) for v in value):
            out.append(f"{head} [{', '.join(value)}]")
        else:
            out.append(head)
            _sequence(value, indent + o, out, m, o, path, notes)
    elif isinstance(value, str) and "\n" in value and literal_ok(value):
        chomp = "" if value.endswith("\n") else "-"
        out.append(f"{head} |{chomp}")
        body = " " * (indent + m)
        out.extend(body + line if line else "" for line in value.rstrip("\n").split("\n"))
    else:
        out.append(f"{head} {scalar(value)}")


def _sequence(items: list[Any], indent: int, out: list[str], m: int = 2, o: int = 2, path: Path_ = (),
              notes: Notes | None = None) -> None:
    """List items with the dash at ``indent`` and their content two further in."""
    dash = " " * indent + "- "
    for i, item in enumerate(items):
        if isinstance(item, dict) and item:
            _mapping(item, indent + 2, out, dash, m, o, (*path, i), notes)
        elif isinstance(item, list) and item:
            out.append(dash.rstrip())
            _sequence(item, indent + 2, out, m, o, (*path, i), notes)
        elif isinstance(item, str) and "\n" in item and literal_ok(item):
            _value(dash.rstrip(), item, indent, out, m, o)
        else:
            out.append(dash + (scalar(item) if not isinstance(item, dict | list) else ("{}" if item == {} else "[]")))
