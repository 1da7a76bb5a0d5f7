"""Messages the editor posts to every screen: what changed in the draft, and when validation finished."""

from __future__ import annotations

from textual.message import Message

from tenantdeck.draft.session import Change


class DraftChanged(Message, bubble=False):
    """The draft changed (an edit, undo, redo, save, reload or a finished validation); ``change.paths`` says where.

    Widgets refresh only when a path they show is among ``change.paths`` (or when the kind is reload/validate).
    The app posts one to every screen and to every widget that handles it, so it does not bubble: bubbling handed
    the App screen eight copies of each edit (one per tab widget), each refreshing the footer.
    """

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.change = change

    def touches(self, prefix: str) -> bool:
        """Whether the change may affect anything under the key path ``prefix`` (e.g. ``apps[3]``)."""
        if self.change.kind in ("reload", "validate", "undo", "redo", "transaction"):
            return True
        return any(p == prefix or p.startswith(prefix + ".") or p.startswith(prefix + "[") or prefix.startswith(p)
                   for p in self.change.paths)
