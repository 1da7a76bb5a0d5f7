"""Write drafts: atomically, keeping hand-written comments and key order, never a literal secret the file lacked.

Two entry points:

* :func:`dump_draft_text` - a fresh document (``init``, ``pull`` into a new file, property tests): every value
  explicit, keys in model order.
* :func:`save_draft` - write a changed ``Draft`` back over the file it came from. The original text is loaded with
  ruamel.yaml in round-trip mode and the new model dump is merged into it key by key: unchanged scalars keep their
  exact spelling and quoting, changed ones are replaced in place, new keys are inserted in model order next to their
  neighbours, vanished keys are removed, list items are matched by ``id``/``name`` (else by position). Toggling one
  value therefore changes exactly one line of ``git diff``.

Strings are written so that *PyYAML* (YAML 1.1, what :mod:`tenantdeck.draft.load` reads with) reads them back as
strings: ruamel follows YAML 1.2 and would write ``no`` or ``0777`` bare. ruamel is imported here only, never on
the validate path.

Files are replaced atomically: temp file in the same directory, flush + fsync, ``os.replace``, fsync of the
directory; the previous version is kept as ``<name>.bak``; the file's mode is preserved.
"""

from __future__ import annotations

import io
import itertools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenantdeck.atomic import ChangedSinceRead, atomic_write_text
from tenantdeck.draft.emit import Notes, emit, flow_safe, literal_ok, needs_escapes, needs_quotes
from tenantdeck.problems import PathPart, Problem, ProblemError, Severity, format_path

if TYPE_CHECKING:
    from ruamel.yaml import YAML

    from tenantdeck.models import Draft

#: keys that identify an item of a list, tried in order, to match list items between old and new
IDENTITY_KEYS: tuple[str, ...] = ("id", "name", "extends")


# --------------------------------------------------------------------------------------------------------------
# Atomic write
# --------------------------------------------------------------------------------------------------------------


def write_atomic(path: str | os.PathLike[str], text: str, *, backup: bool = True,
                 expected_text: str | None = None, leads_to: str | os.PathLike[str] | None = None,
                 beside: str | os.PathLike[str] | None = None) -> None:
    """Replace the draft at ``path`` with ``text`` atomically, keeping its permissions and (with ``backup``) the
    previous version as ``<name>.bak``; see :mod:`tenantdeck.atomic`.

    ``expected_text`` makes it a compare-and-swap: the file must still hold that text (what the caller read and
    merged into), else :class:`DraftChanged` and nothing is written. ``leads_to`` (``tenantdeck.atomic.leads_to``
    of the path when it was read) refuses a symbolic link put in its place since (``atomic.Redirected``).
    ``beside``: the draft's folder, for a YAML file kept beside the draft (its targets file).
    """
    try:
        atomic_write_text(path, text, backup=backup, expect=None if expected_text is None else still(expected_text),
                          leads_to=leads_to, beside=beside)
    except ChangedSinceRead:
        raise DraftChanged(path) from None


class DraftChanged(ProblemError):
    """The draft file changed on disk since it was read (an editor, a pull saved it); nothing was written.

    A save merges its edits into the text it read: writing over someone else's newer file would silently drop
    their change, so the caller reloads (or merges) and tries again.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(Problem(Severity.ERROR, "the file changed on disk since it was read (another editor or a "
                                 "pull saved it); nothing was written: reload it and make the change again",
                                 (), os.fspath(path), 0, 0, "changed-on-disk"))


def still(text: str) -> Callable[[bytes | None], bool]:
    """``expect`` for :func:`tenantdeck.atomic.atomic_write_bytes`: the file's bytes still read as ``text``."""
    from tenantdeck.draft.yamlsource import decode

    def check(current: bytes | None) -> bool:
        return current is not None and decode(current)[0] == text

    return check


# --------------------------------------------------------------------------------------------------------------
# Model -> plain data
# --------------------------------------------------------------------------------------------------------------


def draft_data(draft: Draft, *, only_set: bool = False) -> dict[str, Any]:
    """The draft as plain data in model key order; ``None`` means "not written" and is left out.

    ``only_set`` leaves out what the file did not say and nobody assigned (pydantic's ``fields_set``), so that a
    save does not fill a hand-written file with defaults.
    """
    return draft.model_dump(mode="json", exclude_none=True, exclude_unset=only_set)


def _secret_paths(data: Any, path: tuple[PathPart, ...] = ()) -> list[tuple[tuple[PathPart, ...], str]]:
    from tenantdeck.draft.pydantic_problems import is_secret
    from tenantdeck.models import Draft

    out: list[tuple[tuple[PathPart, ...], str]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            sub = (*path, k)
            if isinstance(v, str):
                if is_secret(Draft, sub):
                    out.append((sub, v))
            else:
                out.extend(_secret_paths(v, sub))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.extend(_secret_paths(v, (*path, i)))
    return out


def check_secrets(data: dict[str, Any], original: Any = None, *, file: str = "") -> None:
    """Refuse to write a literal secret unless that same value was read from the same place of the file."""
    from tenantdeck.models.secrets import is_reference

    for path, value in _secret_paths(data):
        if is_reference(value):
            continue
        if original is not None and _get(original, path) == value:
            continue
        raise ProblemError(
            Problem(
                Severity.ERROR,
                f"refusing to write a literal secret at {format_path(path)}; use an ${{ENV_VAR}} reference",
                path,
                file,
                0,
                0,
                "literal_secret_write",
            )
        )


def _get(data: Any, path: Sequence[PathPart]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


# --------------------------------------------------------------------------------------------------------------
# ruamel
# --------------------------------------------------------------------------------------------------------------


def _yaml(mapping: int = 2, sequence: int = 4, offset: int = 2) -> YAML:
    from ruamel.yaml import YAML

    from tenantdeck.draft.yaml_escapes import escaping

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-flow a long line the user wrote
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.allow_duplicate_keys = False
    yaml.representer.add_representer(float, _represent_float)
    return escaping(yaml)  # no raw control or bidi character in a draft (draft/yaml_escapes.py)


def _represent_float(representer: Any, value: float) -> Any:
    """Floats as a YAML 1.1 reader (PyYAML, our loader) reads them back: ``5e-324`` is a string there, ``5.0e-324``
    is a float. ruamel writes YAML 1.2 floats, so without this a dumped draft would not load back unchanged."""
    text = repr(value).lower()
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return representer.represent_scalar("tag:yaml.org,2002:float", text)


def _styled(value: Any) -> Any:
    """New data made safe for a YAML 1.1 reader: text that would read as another type is quoted."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString, SingleQuotedScalarString

    if isinstance(value, dict):
        out = CommentedMap()
        for k, v in value.items():
            out[_styled(k) if isinstance(k, str) and (needs_quotes(k) or needs_escapes(k)) else k] = _styled(v)
        return out
    if isinstance(value, list):
        seq = CommentedSeq(_styled(v) for v in value)
        if value and all(isinstance(v, str) and flow_safe(v) for v in value) and len(value) <= 12:
            seq.fa.set_flow_style()  # short lists of words read best inline: [chats, users, groups]
        return seq
    if isinstance(value, str):
        if "\n" in value and literal_ok(value):
            return LiteralScalarString(value)
        if needs_escapes(value):
            return DoubleQuotedScalarString(value)
        if needs_quotes(value):
            return SingleQuotedScalarString(value)
    return value


def _dump(yaml: YAML, document: Any) -> str:
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    return buffer.getvalue()


def dump_draft_text(draft: Draft, *, header: str | None = None, notes: Notes | None = None) -> str:
    """A fresh YAML document for ``draft``: model key order, every value explicit, nothing literal-secret.

    ``header`` (comment lines, e.g. the yaml-language-server modeline) is written first; ``notes`` are the tool's
    own end-of-line comments (see :func:`save_draft`).
    """
    data = draft_data(draft)
    check_secrets(data)
    text = emit(data, notes)  # a fresh document has no comments to keep: the fast writer, same text as ruamel's
    if header:
        text = header.rstrip("\n") + "\n" + text
    return text


def merge_text(original_text: str, draft: Draft, notes: Notes | None = None) -> str:
    """``original_text`` with ``draft``'s values merged in, comments and key order kept (see module docstring)."""
    return merge_data(original_text, draft_data(draft, only_set=True), full=lambda: draft_data(draft), notes=notes)


def merge_data(original_text: str, data: dict[str, Any], *, full: Any = None, notes: Notes | None = None) -> str:
    """``original_text`` with plain ``data`` merged in (what :func:`merge_text` does with a model's dump).

    The draft session's fallback for edits that splicing cannot express. ``full`` gives the data to write as a
    fresh document when the text is not a mapping (default: ``data``).
    """
    from ruamel.yaml.comments import CommentedMap

    mapping, sequence, offset = guess_indentation(original_text)
    yaml = _yaml(mapping=mapping, sequence=sequence, offset=offset)
    if original_text.lstrip().startswith("---"):
        yaml.explicit_start = True
    document = yaml.load(original_text)
    if not isinstance(document, CommentedMap):
        return _dump(yaml, _styled(full() if full is not None else data))
    _merge_map(document, data)
    for path, note in (notes or {}).items():
        _set_note(document, path, note)
    return _dump(yaml, document)


#: How the tool's own end-of-line comments begin, so a later save can tell them from the admin's.
NOTE_PREFIX = "tenantdeck:"


def _set_note(document: Any, path: tuple[PathPart, ...], note: str) -> None:
    """Write (or refresh) the tool's end-of-line comment on the key at ``path``; an admin's comment there wins."""
    from ruamel.yaml.comments import CommentedMap

    node = document
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return
    key = path[-1]
    if not isinstance(node, CommentedMap) or key not in node:
        return
    token = (node.ca.items.get(key) or [None, None, None, None])[2]
    if token is None:
        node.yaml_add_eol_comment(f"# {note}", key)
    elif token.value.lstrip().startswith(f"# {NOTE_PREFIX}"):
        first, newline, rest = token.value.partition("\n")
        lead = first[: len(first) - len(first.lstrip())]
        token.value = f"{lead}# {note}{newline or chr(10)}{rest}"


_KEY_LINE = re.compile(r"^( *)(?:- +)?[^\s#\-\[{][^:#]*:[ \t]*(?:#.*)?$")
_CHILD_LINE = re.compile(r"^( *)(- +)?\S")


def guess_indentation(text: str) -> tuple[int, int, int]:
    """(mapping indent, sequence indent, dash offset) as ruamel's ``YAML.indent`` takes them, read off the text.

    ruamel re-indents the whole document with one setting, so the setting must be the file's own or every line
    would change. Taken from the first nested mapping and the first block list under a key; defaults 2, 4, 2
    (``init``'s style: list dashes indented under their key).
    """
    mapping: int | None = None
    offset: int | None = None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for here, below in itertools.pairwise(lines):
        head = _KEY_LINE.match(here)
        child = _CHILD_LINE.match(below)
        if head is None or child is None:
            continue
        key_col = len(here) - len(here.lstrip(" -"))  # where the key starts, after any `- `
        depth = len(child.group(1)) - key_col
        if child.group(2) is None and mapping is None and depth > 0:
            mapping = depth
        elif child.group(2) is not None and offset is None and depth >= 0:
            offset = depth
        if mapping is not None and offset is not None:
            break
    mapping = mapping or 2
    offset = 2 if offset is None else offset
    return mapping, max(mapping, offset + 2), offset


def save_draft(
    path: str | os.PathLike[str], draft: Draft, *, original_text: str | None = None, backup: bool = True,
    notes: Notes | None = None, leads_to: str | os.PathLike[str] | None = None,
) -> str:
    """Write ``draft`` to ``path`` atomically and return the text written.

    With ``original_text`` (the text the draft was loaded from) the file keeps its comments, key order, quoting and
    indentation, and only what changed is rewritten. Without it a fresh document is written
    (:func:`dump_draft_text`), keeping a leading comment block of the existing file if there is one.
    ``notes`` (path of a mapping key -> text starting with :data:`NOTE_PREFIX`) are end-of-line comments the
    tool writes itself (pull: which webhook fields the service does not report); a later save refreshes them but
    never overwrites an admin's own comment.
    Raises :class:`~tenantdeck.problems.ProblemError` rather than write a literal secret that the original text did
    not contain, and :class:`DraftChanged` (writing nothing) when the file no longer holds ``original_text``: the
    merge is of that text, and replacing someone else's newer file with it would drop their change. ``leads_to``:
    see :func:`write_atomic` (a pull that read no file has no text to compare, but a link planted meanwhile is
    still refused).
    """
    name = os.fspath(path)
    if original_text is None:
        text = dump_draft_text(draft, header=_leading_comments(path), notes=notes)
    else:
        import yaml as pyyaml

        try:
            original_data = pyyaml.load(original_text, Loader=_safe_loader())
        except pyyaml.YAMLError:
            original_data = None
        data = draft_data(draft)
        check_secrets(data, original_data, file=name)
        text = merge_text(original_text, draft, notes)
        dropped = dropped_literal_secrets(original_text, data) if backup else []
        if dropped:
            # the .bak is a copy of what the user had, minus the secrets the tool has just taken out of the file
            bak = redact_dropped(original_text, dropped)
            try:
                atomic_write_text(path, text, backup=True, backup_data=bak.encode("utf-8"),
                                  expect=still(original_text), leads_to=leads_to)
            except ChangedSinceRead:
                raise DraftChanged(path) from None
            return text
    write_atomic(path, text, backup=backup, expected_text=original_text, leads_to=leads_to)
    return text


@dataclass(frozen=True, slots=True)
class DroppedSecret:
    """A literal secret of the previous text that the new text no longer holds (replaced by a reference)."""

    path: tuple[PathPart, ...]
    line: int  # 1-based, in the previous text
    column: int
    start: int  # character offsets of the scalar in the previous text
    end: int
    reference: str | None  # the ``${VAR}`` written in its place, when it can be told


def dropped_literal_secrets(original_text: str, new_data: dict[str, Any]) -> list[DroppedSecret]:
    """The literal secrets in ``original_text`` that ``new_data`` does not keep, with their places in the text.

    A pull replaces a literal webhook password or token with a ``${VAR}`` reference; the file then no longer holds
    the value, and the ``.bak`` must not either (it sits beside the draft, where ``git add .`` finds it). Items are
    matched by identity (``id``, else ``name``), not position, because a pull re-sorts apps.
    """
    import yaml as pyyaml

    from tenantdeck.models.secrets import is_reference

    try:
        original_data = pyyaml.load(original_text, Loader=_safe_loader())
    except pyyaml.YAMLError:
        return []
    kept = {value for _, value in _secret_paths(new_data) if not is_reference(value)}
    gone = [path for path, value in _secret_paths(original_data) if not is_reference(value) and value not in kept]
    if not gone:
        return []
    references = {_identity_path(new_data, p): v for p, v in _secret_paths(new_data) if is_reference(v)}
    root = pyyaml.compose(original_text, Loader=_safe_loader())
    out: list[DroppedSecret] = []
    for path in gone:
        node = _node_at(root, path)
        if node is None:
            continue
        mark = node.start_mark
        reference = references.get(_identity_path(original_data, path))
        out.append(DroppedSecret(path, mark.line + 1, mark.column + 1, mark.index, node.end_mark.index, reference))
    return out


def _node_at(node: Any, path: Sequence[PathPart]) -> Any:
    """The PyYAML node at ``path`` of a composed document, or None."""
    import yaml as pyyaml

    for part in path:
        if isinstance(node, pyyaml.MappingNode):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, pyyaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return None
    return node


def redact_dropped(original_text: str, dropped: Sequence[DroppedSecret]) -> str:
    """``original_text`` with each dropped secret replaced by its reference (or a marker), nothing else changed."""
    text = original_text
    for secret in sorted(dropped, key=lambda s: s.start, reverse=True):
        replacement = secret.reference or "'<literal secret removed by tenantdeck>'"
        text = text[: secret.start] + replacement + text[secret.end :]
    return text


def _identity_path(data: Any, path: Sequence[PathPart]) -> tuple[Any, ...]:
    """``path`` with each list index replaced by that item's identity (see :data:`IDENTITY_KEYS`) when it has one."""
    out: list[Any] = []
    for part in path:
        if isinstance(part, int) and isinstance(data, list) and part < len(data):
            item = data[part]
            ident = _identities(item)
            out.append(ident[0] if ident else part)
            data = item
        else:
            out.append(part)
            data = data.get(part) if isinstance(data, dict) else None
    return tuple(out)


def _safe_loader() -> Any:
    import yaml as pyyaml

    return pyyaml.CSafeLoader if getattr(pyyaml, "__with_libyaml__", False) else pyyaml.SafeLoader


def _leading_comments(path: str | os.PathLike[str]) -> str | None:
    import io

    from tenantdeck import safefile

    try:
        with safefile.open_regular(path) as (raw, _), io.TextIOWrapper(raw, encoding="utf-8") as fh:
            lines: list[str] = []
            for line in fh:
                if not line.startswith("#"):
                    break
                lines.append(line)
    except (OSError, UnicodeDecodeError):
        return None
    return "".join(lines) or None


# --------------------------------------------------------------------------------------------------------------
# Merge new plain data into a ruamel round-trip document
# --------------------------------------------------------------------------------------------------------------


def _same(old: Any, new: Any) -> bool:
    """Equal as draft values: ``True`` is not ``1``, ``1`` equals ``1.0`` only if both are numbers of one kind."""
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool) and old == new
    if isinstance(old, str) or isinstance(new, str):
        return isinstance(old, str) and isinstance(new, str) and str(old) == str(new)
    if isinstance(old, int | float) and isinstance(new, int | float):
        return isinstance(old, int) == isinstance(new, int) and old == new
    return False


def _merge_value(old: Any, new: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(new, dict) and isinstance(old, CommentedMap):
        _merge_map(old, new)
        return old
    if isinstance(new, list) and isinstance(old, CommentedSeq):
        _merge_seq(old, new)
        return old
    if not isinstance(new, dict | list) and _same(old, new):
        return old  # keep the exact spelling, quoting and number format
    if isinstance(new, str) and isinstance(old, ScalarString) and "\n" not in new:
        styled = _styled(new)
        if isinstance(styled, ScalarString):
            return styled
        return type(old)(new)  # keep the user's quote style
    return _styled(new)


def _merge_map(old: Any, new: dict[str, Any]) -> None:
    for key in [k for k in old if k not in new]:
        del old[key]
    previous: str | None = None
    for key, value in new.items():
        if key in old:
            merged = _merge_value(old[key], value)
            if merged is not old[key]:
                old[key] = merged
        else:
            position = (list(old.keys()).index(previous) + 1) if previous is not None else 0
            old.insert(position, _styled(key) if needs_quotes(key) else key, _styled(value))
        previous = key


def _identities(item: Any) -> list[tuple[str, str]]:
    if not isinstance(item, dict):
        return []
    return [(key, item[key]) for key in IDENTITY_KEYS if isinstance(item.get(key), str)]


def _pairing(old: Any, new: list[Any]) -> list[int | None]:
    """For each new item, the index of the old item it continues, or None (a new item).

    An item continues an old one that shares an identity (same ``id``, else same ``name``, ...; only identities
    unique in the old list count), so an app that just received its ``id`` still pairs by ``name``. A new item
    left unpaired takes over the unpaired old item at its own index (a rename keeps its comments).
    """
    counts: dict[tuple[str, str], int] = {}
    for item in old:
        for ident in _identities(item):
            counts[ident] = counts.get(ident, 0) + 1
    index = {ident: j for j, item in enumerate(old) for ident in _identities(item) if counts[ident] == 1}
    pairing: list[int | None] = []
    claimed: set[int] = set()
    for value in new:
        hit = next((index[i] for i in _identities(value) if i in index and index[i] not in claimed), None)
        if hit is not None:
            claimed.add(hit)
        pairing.append(hit)
    for i, j in enumerate(pairing):
        if j is None and i < len(old) and i not in claimed:
            pairing[i] = i
            claimed.add(i)
    return pairing


def _merge_seq(old: Any, new: list[Any]) -> None:
    """Merge list ``new`` into ruamel list ``old`` in place: paired items are merged (and moved if reordered),
    unpaired old items removed, unpaired new items inserted (see :func:`_pairing`)."""
    pairing = _pairing(old, new)
    # drop the unpaired old items (from the end, so indexes stay valid)
    keep = {j for j in pairing if j is not None}
    tokens = list(range(len(old)))  # tokens[k] = original index of the item now at position k
    for j in range(len(old) - 1, -1, -1):
        if j not in keep:
            del old[j]
            del tokens[j]
    for i, (j, value) in enumerate(zip(pairing, new, strict=True)):
        if j is None:
            old.insert(i, _styled(value))
            tokens.insert(i, -1)
            continue
        k = tokens.index(j)
        if k != i:
            item = old.pop(k)
            tokens.pop(k)
            old.insert(i, item)
            tokens.insert(i, j)
        merged = _merge_value(old[i], value)
        if merged is not old[i]:
            old[i] = merged
