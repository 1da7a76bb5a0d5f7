"""The footer every screen uses: the keys that apply, fitted to 80 columns.

Textual's footer lists the focused widget's keys, then the screen's, then the app's, and cuts off what does not fit;
at 80 columns the app's own keys (Help, Save, Review) fell off the end on most tabs. This one is compact (one space
between keys) and leaves out the command palette's entry: ctrl+p is the first line of F1 help instead.
"""

from __future__ import annotations

from textual.widgets import Footer


class KeyFooter(Footer):
    """A compact footer without the palette entry (see the module docstring for why)."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)

    async def show_keys_now(self) -> None:
        """List the keys of what has the focus now, before the next frame: Textual's footer recomposes a refresh
        after the focus moved, so a tab switch showed the new tab under the old tab's keys for a frame or two (issue
        36). Composed in the footer's own context, as its own recompose is (its keys bind to its data)."""
        with self._context():
            await self.recompose()
