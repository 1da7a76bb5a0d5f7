"""What a session refuses, as :class:`~tenantdeck.problems.ProblemError`\\ s: every refusal reads like any other
diagnostic (``FILE:LINE:COL: error: PATH: message``), so a UI shows it without knowing which part said no."""

from __future__ import annotations

from collections.abc import Sequence

from tenantdeck.problems import PathPart, Problem, ProblemError, Severity


class DraftSessionError(ProblemError):
    """An edit or save the session refuses; ``problem`` says why, in the form every diagnostic takes."""

    def __init__(self, message: str, path: Sequence[PathPart] = (), file: str = "", code: str = "session") -> None:
        super().__init__(Problem(Severity.ERROR, message, tuple(path), file, 0, 0, code))


class ReadOnlyDraft(DraftSessionError):
    """The draft could not be read as data (syntax error, not a mapping, ...): it can be shown, not edited."""


class PathNotFound(DraftSessionError, LookupError):
    """The path does not lead to a value (or, for an insert, to a place) in the draft."""


#: why a save was refused: the session's edits are of a text the file no longer holds
CHANGED_ON_DISK = ("the file was changed on disk since it was opened; reload it (losing these edits) or save with "
                   "force (overwriting the other changes)")


class ChangedOnDisk(DraftSessionError):
    """The file was changed by someone else since it was opened or last saved; nothing was written.

    The UI can offer :meth:`DraftSession.reload` (lose the session's edits) or ``save(force=True)`` (lose theirs).
    """
