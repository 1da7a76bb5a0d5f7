"""What screens, widgets, the palette and the safety net may ask of the running app, beyond Textual's own ``App``.

``tui/app.py`` imports the screens (through :mod:`tenantdeck.tui.navigation`), so no screen may import the app back:
they reach it through :class:`EditorHost`, a Protocol the app satisfies structurally. The list is short on
purpose: the open draft and the few app-wide acts; which screen opens which is :mod:`tenantdeck.tui.navigation`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from tenantdeck.draft.session import Change
    from tenantdeck.tui.editor import Editor
    from tenantdeck.tui.event_lab import EventLab

    _Node = DOMNode
else:
    _Node = object


class EditorHost(Protocol):
    """The app as the rest of the UI sees it."""

    editor: Editor
    #: the themes the palette offers (tui/appearance.py)
    appearance_themes: list[str]
    #: the editor's own webhook receiver (the Events screen's), kept for the session
    event_lab: EventLab

    def open_app(self, index: int, tab: str | None = None, path: str | None = None) -> None:
        """Open app ``index`` on ``tab`` with the focus in the field of key path ``path``, over the screen asking
        (Escape comes back to it: the policies' apps, the review)."""

    def go_to_app(self, index: int, tab: str | None = None, path: str | None = None) -> None:
        """Show app ``index`` on ``tab`` with the focus in the field of ``path`` in place of the screen asking (the
        Problems list): its App screen reused when open, so Escape leads to the apps, as the App footer says."""

    def validate_in_background(self) -> Any:
        """Validate the whole draft in a worker and broadcast the result."""

    def refresh_states(self, change: Change) -> Any:
        """Recompute each app's change state in a worker (after a pull or a push moved the base)."""

    def quiet_for(self) -> float:
        """Seconds since the last key, paste or click (0 while keys wait to be handed on)."""

    # the app-wide acts (its keys; the palette offers them too)
    def action_save(self, force: bool = False) -> None: ...

    def action_undo(self) -> None: ...

    def action_redo(self) -> None: ...

    def action_reload(self) -> None: ...

    def action_help(self) -> None: ...

    def action_problems(self) -> None: ...

    def action_review(self) -> None: ...

    def action_pull(self) -> None: ...

    def action_events(self) -> None: ...

    def action_bulk_edit(self) -> None: ...

    def action_presets(self) -> None: ...

    def action_policies(self) -> None: ...

    def action_copy_path(self) -> None: ...


def host_of(app: Any) -> EditorHost:
    """The running app as an :class:`EditorHost` (it is one: ``tests/tui/test_navigation.py`` checks it)."""
    return cast(EditorHost, app)


class UsesEditor(_Node):
    """Mixin for the screens and widgets that read or edit the draft: ``self.editor`` is the app's
    :class:`~tenantdeck.tui.editor.Editor`, ``self.host`` the app's acts. A plain class at run time (not a DOMNode),
    so it changes nothing else of the class it is mixed into."""

    @property
    def host(self) -> EditorHost:
        return host_of(self.app)

    @property
    def editor(self) -> Editor:
        return self.host.editor
