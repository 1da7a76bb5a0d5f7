"""Keep what tenantdeck writes beside a draft out of version control, without touching the user's own rules.

A draft is meant to be committed; its workspace (``.tenantdeck/``: base snapshot, journal, the fingerprint key)
and the ``.bak`` copies of earlier versions are not, and a ``.bak`` may hold values the user would not commit.
The one file of ``.tenantdeck/`` that should be committed is the JSON Schema ``init`` writes there
(:data:`tenantdeck.draft.schema.LOCAL_SCHEMA`): the draft's ``$schema`` modeline points at it, so a colleague's
editor finds it after a clone. Hence ``.tenantdeck/*`` plus an exception, not ``.tenantdeck/`` (git cannot
re-include a file whose directory is excluded).

:func:`ensure_lines` appends only the lines a file lacks: running ``init`` twice, or in a folder whose
``.gitignore`` already says it, changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tenantdeck import safefile
from tenantdeck.atomic import atomic_write_text

#: a .gitignore is a few lines; a bigger one is not read (and not appended to)
MAX_BYTES = 1024 * 1024

#: the project ``.gitignore`` beside a draft
PROJECT_LINES: tuple[str, ...] = (".tenantdeck/*", "!.tenantdeck/draft.schema.json", "*.bak")
PROJECT_HEADER = "# tenantdeck: local workspace (snapshots, journal, fingerprint key) and backups; the schema is shared"

#: ``.tenantdeck/.gitignore`` (the workspace writes ``*`` there; the schema is the exception)
WORKSPACE_LINES: tuple[str, ...] = ("*", "!draft.schema.json")
WORKSPACE_HEADER = "# tenantdeck workspace: local state and the fingerprint key; only the schema is shared"

#: lines that already cover what a project line asks for
_EQUIVALENT: dict[str, tuple[str, ...]] = {
    ".tenantdeck/*": (".tenantdeck/*", "/.tenantdeck/*", ".tenantdeck/**", "/.tenantdeck/**"),
    "*.bak": ("*.bak",),
}


def ensure_lines(path: Path, lines: Sequence[str], header: str, *, beside: Path) -> list[str]:
    """Append to the ignore file ``path`` (created if missing) the ``lines`` it does not have; returns them.

    The file's own lines, order and comments are kept; the new lines go at the end under ``header`` (written
    once, when the file gets its first tenantdeck line). Raises ``OSError`` when the file cannot be written, and
    :class:`~tenantdeck.safefile.FileRefused` (before anything is written) when it leads out of the draft's folder
    ``beside`` (``.gitignore -> /home/ci/.profile`` in a pull request); a link inside it is replaced, not followed.
    """
    try:
        text = safefile.read_text(path, MAX_BYTES, beside=beside)
    except FileNotFoundError:
        text = ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if not any(e in present for e in _EQUIVALENT.get(line, (line,)))]
    if not missing:
        return []
    block = ([] if header in present else [header]) + missing
    prefix = text if not text or text.endswith("\n") else text + "\n"
    atomic_write_text(path, prefix + "\n".join(block) + "\n", make_parents=True, beside=beside)
    return missing
