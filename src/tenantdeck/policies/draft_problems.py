"""Every problem of a draft, as ``tenantdeck validate`` counts them and the editor's Problems screen (F8) lists
them: the draft's own (models and rules), its targets file's (each target's effective draft) and its fleet
policies' (the rules file's own problems and each violation). One function, so the editor and the command cannot
give two counts for the same draft (issue 37: "0 errors, 1 warning" in F8, "1 error, 1 warning" from validate).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tenantdeck.problems import Problem


def all_problems(draft_path: str | os.PathLike[str], data: Any, own: Sequence[Problem], doc: Any,
                 policies_file: Path | None = None) -> list[Problem]:
    """``own`` (the draft's problems, placed) with its targets file's and its policies', the draft's first.

    ``data`` is the draft's plain data (not a mapping: unreadable, nothing else is judged), ``doc`` places a key
    path (``doc.locate(path) -> (line, column)``, ``doc.file``). The targets file is checked only when the draft
    itself has no error: a target is the draft with a few values replaced, so the draft's errors would repeat."""
    from tenantdeck.draft.target_overrides import target_problems
    from tenantdeck.policies.checks import check_draft

    problems = list(own)
    if not isinstance(data, Mapping):
        return problems
    if not any(p.is_error for p in own):
        problems += target_problems(draft_path)
    problems += check_draft(Path(draft_path), data, doc, policies_file, own)[1]
    name = str(getattr(doc, "file", "") or os.fspath(draft_path))  # the draft's own come first
    return sorted(problems, key=lambda p: (p.file != name, p.file, p.line, p.column))


def counts(problems: Iterable[Problem]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for p in problems:
        if p.is_error:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def counted(problems: Iterable[Problem]) -> str:
    """``1 error, 2 warnings``: the words validate's summary and the Problems screen both use."""
    errors, warnings = counts(problems)
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"


__all__ = ["all_problems", "counted", "counts"]
