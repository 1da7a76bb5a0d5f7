"""Messages the editor posts to every screen (what changed in the draft, and when validation finished), and the
ones its screens and tabs both speak, kept here so the tabs need not import the screens that hold them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

from tenantdeck.draft.session import Change, ChangeKind

#: kinds after which anything may have changed, whatever the paths say
_EVERYWHERE = (ChangeKind.RELOAD, ChangeKind.VALIDATE, ChangeKind.UNDO, ChangeKind.REDO, ChangeKind.TRANSACTION)


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
        if self.change.kind in _EVERYWHERE:
            return True
        return any(p == prefix or p.startswith(prefix + ".") or p.startswith(prefix + "[") or prefix.startswith(p)
                   for p in self.change.paths)


class PoliciesRead(Message, bubble=False):
    """The fleet policies file beside the draft was read again (it changed on disk), or a big draft's rules were
    evaluated in a worker: posted to every screen; the Apps list's badges and the Policies screen show the verdict."""


class BaseAdvanced(Message, bubble=False):
    """The base snapshot moved without a change to the draft's text (a saved pull was recorded in it): posted to
    every screen, so a plan made from the old base (the review's) is made again at once."""


class DraftListener:
    """Declares a widget (or screen) that reacts to draft changes: the app posts each :class:`DraftChanged` to every
    screen and to every widget that is a DraftListener, and to no other widget.

    A subclass must define ``on_draft_changed(self, message: DraftChanged) -> None``; a class that declares itself
    without one is refused when it is made. This class does not define the handler itself: Textual calls the
    ``on_draft_changed`` of every class along the MRO, so a default here would run after each real one. A plain
    class at run time (like :class:`~tenantdeck.tui.editor.UsesEditor`), so it changes nothing else of the class.
    """

    if TYPE_CHECKING:

        def on_draft_changed(self, message: DraftChanged) -> None: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not callable(getattr(cls, "on_draft_changed", None)):
            raise TypeError(f"{cls.__qualname__} is a DraftListener without on_draft_changed")


class WidgetSwitched(Message):
    """The widget the widget tabs show changed (``index`` into ``apps[i].widgets``): the App screen posts it to its
    tabs when ``w`` picks another widget."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index
