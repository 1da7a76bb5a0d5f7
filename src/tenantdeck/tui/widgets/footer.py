"""The footer every screen uses: the keys that apply, fitted to 80 columns.

Textual's footer lists the focused widget's keys, then the screen's, then the app's, and cuts off what does not fit;
at 80 columns the app's own keys (Help, Save, Review) fell off the end on most tabs. This one is compact (one space
between keys) and leaves out the command palette's entry: ctrl+p is the first line of F1 help instead.

Every screen and every modal yields one, last in its ``compose``: the footer on the bottom line is then always the
one of the screen in front, listing its keys. A modal without one showed the footer of the screen behind it, whose
keys do nothing while the modal is open (Textual sends keys no further down than the modal). Which keys a footer
lists is its screen's ``active_bindings``: a binding's ``show`` and its node's ``check_action``, so a key that works
only sometimes is listed only then. tests/tui/test_footer.py walks every screen class of ``tenantdeck.tui`` and
holds each to this, with Escape listed where it leaves and any key the screen's text says to press.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer

from tenantdeck.tui.widgets.watchers import forget_gone


class KeyFooter(Footer):
    """A compact footer without the palette entry (see the module docstring for why)."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self._listed: tuple[Any, ...] | None = None

    def _keys_to_list(self) -> tuple[Any, ...]:
        """What the footer would show: each listed binding's key, words and state (what ``compose`` reads)."""
        if not self._bindings_ready:
            return ()
        return tuple((binding.key, binding.key_display, binding.action, binding.description, binding.group, enabled,
                      tooltip) for _node, binding, enabled, tooltip in self.screen.active_bindings.values()
                     if binding.show)

    async def recompose(self) -> None:
        """Only when the keys to list changed: Textual recomposes on every change of the focus or of a binding's
        state, and building the keys again (a widget and its styles each) was a good part of a tab switch and of
        moving between fields (issue 36)."""
        if not self.is_attached or self._pruning:
            return  # its screen went away (Textual's own recompose does nothing then either)
        listed = self._keys_to_list()
        if listed == self._listed and self.children:
            return
        self._listed = listed
        await super().recompose()
        forget_gone(self)  # the old keys data-bound to the footer: they stayed in its watcher list (watchers.py)

    async def show_keys_now(self) -> None:
        """List the keys of what has the focus now, before the next frame: Textual's footer recomposes a refresh
        after the focus moved, so a tab switch showed the new tab under the old tab's keys for a frame or two (issue
        36). Composed in the footer's own context, as its own recompose is (its keys bind to its data)."""
        with self._context():
            await self.recompose()
